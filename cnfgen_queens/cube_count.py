"""Symmetry-broken counting by cubes, in parallel processes or as Dask tasks.

The solver gets the N-queens formula, the redundant at-least-one clause per column, and
the lex-leader symmetry-breaking predicate of :mod:`.symmetry`, so it finds exactly the
canonical board of each orbit (OEIS A002562); each counts at its orbit size (A000170).
The search is split into cubes: the queens of the first ``depth`` rows as assumptions,
with the first row's queen in the left half (as every canonical board has it).  Cubes
that unit propagation refutes are dropped before any work is sent out.

A worker keeps one incremental solver for all the cubes of a run that it is given (the
blocking clause of a found board excludes that board only, so it is valid in every cube).
Every model is checked before it counts: a valid placement, in its cube, canonical, new (the
accept step of :class:`.enumeration.Acceptor`, in the loop every enumeration runs).
"""

from __future__ import annotations

import atexit
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final, TypeAlias

from .accept import Acceptor, EnumerationError
from .enumeration import cubes, embedded_solver, solve_loop
from .formula import QueensFormula
from .solvers.outcome import Status
from .symmetry import lex_leader_clauses

Cube = tuple[int, ...]
POLL = 0.05  # seconds between looks at the running cubes
DEPTH = 3  # rows per cube: N = 14 gives 462 live cubes, enough to keep any number of workers busy
DEEP_UP_TO = 40  # beyond this N (far past any count a SAT solver can finish), cubes of one row: N/2 of them


class CountEnd(StrEnum):
    """How a count ended when no solver :class:`.Status` says it: every cube was exhausted."""

    DONE = "DONE"  # a cube, or the whole count, finished: the solver said UNSAT in every cube


DONE: Final = CountEnd.DONE
CountStatus: TypeAlias = Status | CountEnd  # otherwise Status.TIMEOUT or Status.ERROR


@dataclass(frozen=True)
class CubeTask:
    """What a worker needs besides the cube; ``run`` names one count, ``deadline`` is epoch seconds."""

    formula: QueensFormula
    solver: str
    run: str
    deadline: float | None = None


@dataclass(frozen=True, kw_only=True)
class CubeCount:
    """One cube's canonical boards: ``count`` weighs each by its orbit size; status DONE, TIMEOUT or ERROR."""

    cube: Cube
    count: int
    fundamental: int
    solver_calls: int
    status: CountStatus = DONE
    error: str | None = None


@dataclass(frozen=True)
class SymmetricCount:
    """A whole count: totals over the finished cubes (partial unless status is DONE)."""

    count: int
    fundamental: int
    cubes_done: int
    cubes_total: int
    solver_calls: int
    status: CountStatus
    wall: float
    error: str | None = None


def counting_clauses(formula: QueensFormula) -> Iterator[tuple[int, ...]]:
    """The formula with column at-least-one clauses, then the lex-leader predicate."""
    formula = replace(formula, column_alo=True)
    yield from formula.clauses()
    yield from lex_leader_clauses(formula.n, formula.counts()[0] + 1)


def live_cubes(formula: QueensFormula, solver: str, depth: int = DEPTH) -> list[Cube]:
    """The cubes of the first ``depth`` rows that unit propagation does not refute."""
    from pysat.solvers import Solver

    work = [a for _, a in cubes(formula.n, depth if formula.n <= DEEP_UP_TO else 1)]
    name = embedded_solver(solver)
    with Solver(name=name, bootstrap_with=counting_clauses(formula)) as s:
        try:
            return [a for a in work if s.propagate(assumptions=list(a))[0]]
        except NotImplementedError:  # a backend without unit propagation: every cube is live
            return work


_WORKER: dict[str, Any] = {}  # this process's solver for the current run: {"run", "solver", "seen"}


@atexit.register
def _drop_worker_solver() -> None:
    """Free the worker's solver while PySAT can still do it (not in a finalizer at interpreter exit)."""
    if "solver" in _WORKER:
        _WORKER["solver"].delete()
    _WORKER.clear()


def _worker_solver(task: CubeTask) -> tuple[Any, set[tuple[int, ...]]]:
    """One solver per process and run; a new run (a new count on a long-lived Dask worker) starts afresh."""
    from pysat.solvers import Solver

    if _WORKER.get("run") != task.run:
        if "solver" in _WORKER:
            _WORKER["solver"].delete()
        _WORKER.clear()
        solver = Solver(name=embedded_solver(task.solver), bootstrap_with=counting_clauses(task.formula))
        _WORKER.update(run=task.run, solver=solver, seen=set())
    return _WORKER["solver"], _WORKER["seen"]


def count_cube(task: CubeTask, cube: Cube, solver: Any = None, seen: set | None = None) -> CubeCount:
    """Every canonical board of one cube, weighted by orbit size; never raises for solver trouble.

    The enumeration loop of :mod:`.enumeration` (accept: decode, check, record, block), counting only."""
    if solver is None or seen is None:
        solver, seen = _worker_solver(task)
    deadline = task.deadline
    expired = None if deadline is None else lambda: time.time() > deadline
    accept = _acceptor(task.solver, task.formula.n, cube, seen)
    count = fundamental = calls = 0

    def called() -> None:
        nonlocal calls
        calls += 1

    try:
        for found in solve_loop(solver, accept, expired=expired, on_call=called):
            count += found.weight
            fundamental += 1
    except EnumerationError as e:
        return CubeCount(
            cube=cube, count=count, fundamental=fundamental, solver_calls=calls, status=e.status, error=str(e)
        )
    return CubeCount(cube=cube, count=count, fundamental=fundamental, solver_calls=calls)


def _acceptor(solver: str, n: int, cube: Cube, seen: set) -> Acceptor:
    """Models of the symmetry-broken formula: a solution, in the cube, canonical, new (``seen`` is the
    worker's, shared by its cubes); each blocked by its own clause and weighted by its orbit."""
    return Acceptor(n, solver, canonical=True, assumptions=cube, seen=seen)


def _checked(solver: str, n: int, cells: list[int], cube: Cube, seen: set) -> tuple[tuple[int, ...], int]:
    """The model's placement and its orbit size, if it is a solution, inside the cube, canonical and new."""
    found = _acceptor(solver, n, cube, seen).check(cells)
    return found.placement, found.weight


def count_symmetric(
    formula: QueensFormula,
    solver: str = "pysat:cadical195",
    *,
    jobs: int = 1,
    executor: str = "local",
    scheduler: str | None = None,
    time_limit: float | None = None,
    depth: int = DEPTH,
    progress: Callable[[CubeCount, int], None] | None = None,
) -> SymmetricCount:
    """Count all solutions and orbits by symmetry-broken cubes.

    ``jobs == 1`` with the local executor runs in this process; otherwise the cubes go to
    ``jobs`` worker processes, or to Dask (a LocalCluster of ``jobs`` workers, or the cluster
    at ``scheduler``).  ``progress(cube_count, total)`` is called as each cube finishes.
    The time limit covers the whole count, workers included.  Raises UsageError for a solver
    that cannot count, and ValueError for a bad executor.
    """
    start = time.monotonic()
    deadline = time.time() + time_limit if time_limit else None
    embedded_solver(solver)
    work = live_cubes(formula, solver, depth)
    task = CubeTask(formula, solver, uuid.uuid4().hex, deadline)
    done: list[CubeCount] = []
    if jobs <= 1 and executor == "local":
        from pysat.solvers import Solver

        with Solver(name=embedded_solver(solver), bootstrap_with=counting_clauses(formula)) as s:
            seen: set[tuple[int, ...]] = set()
            for cube in work:
                done.append(count_cube(task, cube, s, seen))
                if progress:
                    progress(done[-1], len(work))
                if done[-1].status != DONE:
                    break
    else:
        _run_pool(task, work, jobs, executor, scheduler, done, progress)
    return _total(done, len(work), time.monotonic() - start)


def _run_pool(
    task: CubeTask,
    work: list[Cube],
    jobs: int,
    executor: str,
    scheduler: str | None,
    done: list[CubeCount],
    progress: Callable[[CubeCount, int], None] | None,
) -> None:
    if executor == "dask":
        from .experiments import executors

        pool: Any = executors.make(executor, jobs, scheduler)
    elif executor == "local":
        pool = LocalPool(jobs)
    else:
        raise ValueError(f"unknown executor {executor!r}; valid: local, dask")
    interrupted = True
    try:
        pending = [pool.submit(f"cube-{task.run}-{i}", count_cube, task, cube) for i, cube in enumerate(work)]
        while pending:
            if task.deadline is not None and time.time() > task.deadline + POLL:
                return  # the workers check the deadline between solver calls; this stops a long call
            finished = [f for f in pending if f.done()]
            if not finished:
                time.sleep(POLL)
                continue
            taken = {id(f) for f in finished}  # not f.done() again: a cube finishing in between would be lost
            pending = [f for f in pending if id(f) not in taken]
            for future in finished:
                done.append(pool.result(future))
                if progress:
                    progress(done[-1], len(work))
                if done[-1].status != DONE:
                    return
        interrupted = False
    finally:
        pool.close(interrupted=interrupted)


class LocalPool:
    """Forked worker processes (cheap to start: the cubes of count 14 take seconds, not minutes).

    Workers ignore Ctrl-C (the parent stops them) and get SIGTERM when the parent dies."""

    def __init__(self, jobs: int) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"), initializer=_init_worker)

    def submit(self, key: str, fn: Callable[..., Any], *args: Any) -> Any:
        return self.pool.submit(fn, *args)

    def result(self, future: Any) -> Any:
        return future.result()

    def close(self, interrupted: bool = False) -> None:
        processes = list((getattr(self.pool, "_processes", None) or {}).values())
        self.pool.shutdown(wait=not interrupted, cancel_futures=True)
        if interrupted:
            for p in processes:
                p.terminate()
            for p in processes:
                p.join(5)


def _init_worker() -> None:
    import contextlib
    import ctypes
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG (Linux)


def _total(done: list[CubeCount], total: int, wall: float) -> SymmetricCount:
    bad = next((c for c in done if c.status != DONE), None)
    finished = sum(1 for c in done if c.status == DONE)
    status: CountStatus = bad.status if bad else (DONE if finished == total else Status.TIMEOUT)
    error = bad.error if bad else (None if status == DONE else "time limit reached")
    return SymmetricCount(
        sum(c.count for c in done),
        sum(c.fundamental for c in done),
        finished,
        total,
        sum(c.solver_calls for c in done),
        status,
        wall,
        error,
    )
