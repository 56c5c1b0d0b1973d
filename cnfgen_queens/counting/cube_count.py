"""Symmetry-broken counting by canonical border cubes, in parallel processes or as Dask tasks.

The search is split by the queens of the four edge lines (:mod:`.border_cubes`): only one
border per orbit of the 8 board symmetries is searched, so the solver finds each orbit of
solutions once (OEIS A002562), and each counts at its orbit size (A000170).  The solver sees
the N-queens formula and the redundant at-least-one clause per column, nothing else.

A task is a group of cubes sharing their row 0, row N-1 and column 0 queens.  For formulas up
to ``FRESH_UP_TO`` clauses it gets a fresh incremental solver with those queens as unit clauses
(and only the clauses they leave open, :mod:`.group_formula`)
(no re-propagation of assumptions at every call, and no blocking clauses of other groups to
visit: 4.3 s against 7.3 s of CPU for N = 14 with one long-lived solver, CaDiCaL); a larger
formula is built once per worker and run under assumptions.  Every model is checked before it
counts: a valid placement, in its cube, new (the accept step of :class:`.accept.Acceptor`, in
the loop every enumeration runs), and only the representative of its orbit counts.
"""

from __future__ import annotations

import atexit
import multiprocessing
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, TypeVar

from cnfgen_queens.counting.border_cubes import BorderCube, CubeGroup, cube_groups, representative
from cnfgen_queens.counting.group_formula import GroupFormula
from cnfgen_queens.enumeration.accept import Acceptor
from cnfgen_queens.enumeration.embedded_loop import add_clauses, count_loop
from cnfgen_queens.enumeration.records import Count, EnumerationError, GroupCount
from cnfgen_queens.enumeration.request import Request
from cnfgen_queens.execution import executors
from cnfgen_queens.execution.where import ONE_WORKER, Where
from cnfgen_queens.limits import NEVER, Deadline
from cnfgen_queens.model.board import Placement
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.symmetry import orbit
from cnfgen_queens.solvers.discovery import SolverSpec
from cnfgen_queens.solvers.outcome import Status

Cube = tuple[int, ...]
POLL = 0.05  # longest wait between two looks at the running tasks (the first looks come sooner)
FRESH_UP_TO = 100_000  # clauses: a fresh solver per group up to this size (pairwise with the column clauses: N <= 39)
LISTED_UP_TO = 24  # N up to which the groups are listed before counting (a total for progress; 24: 1,572 groups)
IN_FLIGHT = 8  # tasks per worker submitted ahead
G = TypeVar("G")  # a group of cubes, as the work function of run_groups takes it


@dataclass(frozen=True)
class CubeTask:
    """What a worker needs besides the group (the request's picklable part); ``solver`` was resolved once for
    the command (its name for messages, its pysat backend); ``run`` names one count."""

    formula: QueensFormula
    solver: SolverSpec
    run: str
    deadline: Deadline = NEVER
    check_all: bool = False  # also evaluate every clause on every model (--check-all)


def counting_clauses(formula: QueensFormula) -> Iterator[tuple[int, ...]]:
    """The formula with the column at-least-one clauses."""
    return replace(formula, column_alo=True).clauses()


_LOCAL = threading.local()  # per worker thread: a Dask worker may run several tasks at once


def worker_state() -> dict[str, Any]:
    """This thread's cached state for the current run: the clause list ("clauses", "clauses_run"), the
    plain board's :class:`.GroupFormula` ("group_formula", "group_formula_run") and, for formulas over
    ``FRESH_UP_TO``, the solver ("solver", "run", "built")."""
    state: dict[str, Any] | None = getattr(_LOCAL, "state", None)
    if state is None:
        state = _LOCAL.state = {}
    return state


@atexit.register
def _drop_worker_solver() -> None:
    """Free this thread's solver and clauses (at exit: while PySAT can still do it, not in a finalizer)."""
    state = worker_state()
    if "solver" in state:
        state["solver"].delete()
    state.clear()


def worker_solver(task: CubeTask) -> Any:
    """One solver per worker thread and run, for formulas over ``FRESH_UP_TO`` clauses; a new run (a new
    count on a long-lived Dask worker) starts afresh."""
    from pysat.solvers import Solver

    state = worker_state()
    if state.get("run") != task.run:
        if "solver" in state:
            state["solver"].delete()
            del state["solver"]
        solver = Solver(name=task.solver.embedded)
        state.update(run=task.run, solver=solver, built=False)
        total = replace(task.formula, column_alo=True).counts()[1]
        add_clauses(solver, counting_clauses(task.formula), task.deadline, total)  # EnumerationError at the deadline
        state["built"] = True
    if not state["built"]:  # a time limit stopped the build: this run counts nothing here
        raise EnumerationError("time limit reached while building the formula", Status.TIMEOUT)
    return state["solver"]


def worker_clauses(task: CubeTask) -> list[tuple[int, ...]]:
    """The counting clauses, built once per worker thread and run (a fresh solver per group takes them)."""
    state = worker_state()
    if state.get("clauses_run") != task.run:
        state.update(clauses_run=task.run, clauses=list(counting_clauses(task.formula)))
    clauses: list[tuple[int, ...]] = state["clauses"]
    return clauses


def worker_group_formula(task: CubeTask) -> GroupFormula:
    """The counting clauses held to give each group its part (:mod:`.group_formula`), built once per worker
    thread and run."""
    state = worker_state()
    if state.get("group_formula_run") != task.run:
        held = GroupFormula(task.formula.n, counting_clauses(task.formula))
        state.update(group_formula_run=task.run, group_formula=held)
    held_formula: GroupFormula = state["group_formula"]
    return held_formula


def _literals(n: int, cells: Iterable[tuple[int, int]]) -> Cube:
    return tuple(r * n + c + 1 for r, c in cells)


def count_group(task: CubeTask, group: CubeGroup) -> GroupCount:
    """Every canonical board of one group's cubes, weighted by orbit size; never raises for solver
    trouble.  The loop of :mod:`.embedded_loop` (accept: decode, check, record, block)."""
    from pysat.solvers import Solver

    n = task.formula.n
    fixed = _literals(n, group.fixed)
    fresh = task.formula.counts()[1] <= FRESH_UP_TO
    try:
        if fresh:
            held = worker_group_formula(task)
            solver = Solver(name=task.solver.embedded, bootstrap_with=held.clauses(group.fixed))
        else:
            solver = worker_solver(task)
    except EnumerationError as e:
        return GroupCount(cube=fixed, count=0, fundamental=0, solver_calls=0, status=e.status, error=str(e))
    every = worker_group_formula(task).every_clause(task.formula.counts()[0]) if task.check_all else None
    tally = [0, 0, 0]  # weighted boards, canonical boards, solver calls
    try:
        for cube in group.cubes:
            cells = _literals(n, cube.cells)
            accept = Acceptor(n, task.solver.name, weigh=partial(_weight, cube), assumptions=cells, every_clause=every)
            free = [v for v in cells if v not in fixed] if fresh else cells
            count_loop(solver, accept, tally, deadline=task.deadline, assumptions=free)
    except EnumerationError as e:
        return GroupCount(
            cube=fixed, count=tally[0], fundamental=tally[1], solver_calls=tally[2], status=e.status, error=str(e)
        )
    finally:
        if fresh:
            solver.delete()
    return GroupCount(cube=fixed, count=tally[0], fundamental=tally[1], solver_calls=tally[2])


def _weight(cube: BorderCube, placement: Placement) -> int:
    """8 in a cube no symmetry fixes; else the orbit size of the representative, 0 for other images."""
    if len(cube.stabilizer) == 1:
        return 8
    return len(orbit(placement)) if representative(placement, cube) else 0


def count_symmetric(request: Request, solver: SolverSpec, deadline: Deadline = NEVER) -> Count:
    """Count all solutions and orbits of ``request.formula`` by canonical border cubes, with ``solver`` (the
    request's embedded solver, resolved once: :func:`.embedded_spec`).

    One local worker and no deadline runs in this process (a solver call cannot be interrupted here);
    otherwise the groups go to ``request.where.jobs`` worker processes, or to Dask (a LocalCluster of that
    many workers, or the cluster at ``where.scheduler``), a few per worker ahead, so memory does not grow with
    N.  ``request.report.progress(group_count, total)`` is called as each group finishes (total None beyond
    N = ``LISTED_UP_TO``).  The deadline covers the whole count, workers included.  Raises ValueError for a
    bad executor.  Every model is checked as a board in O(N); ``request.check_all`` also evaluates every
    clause of the formula on it.
    """
    start = time.monotonic()
    formula = request.formula
    groups: Iterable[CubeGroup] = cube_groups(formula.n)
    total = None
    if formula.n <= LISTED_UP_TO:
        groups = list(groups)
        total = len(groups)
    task = CubeTask(formula, solver, uuid.uuid4().hex, deadline, request.check_all)
    result = run_groups(task, groups, total, count_group, where=request.where, progress=request.report.progress)
    return replace(result, wall=time.monotonic() - start)


def run_groups(
    task: CubeTask,
    groups: Iterable[G],
    total: int | None,
    work: Callable[[CubeTask, G], GroupCount],
    *,
    where: Where = ONE_WORKER,
    progress: Callable[[GroupCount, int | None], None] | None = None,
) -> Count:
    """``work(task, group)`` for every group (``total`` of them, None if not listed), in this process or
    on a pool (as :func:`count_symmetric` says), summed into one Count of the cube engine."""
    start = time.monotonic()
    done: list[GroupCount] = []
    # with a deadline, one worker that can be stopped; not from a daemonic process (a Dask worker of another
    # cluster than ours) that may have no children: there the deadline is looked at between solver calls
    alone = task.deadline.never or multiprocessing.current_process().daemon
    if not where.parallel and alone:
        try:
            for group in groups:
                done.append(work(task, group))
                if progress:
                    progress(done[-1], total)
                if done[-1].status != Status.UNSAT:
                    break
            else:
                if total is None:
                    total = len(done)
        finally:
            _drop_worker_solver()  # this process's solver and clauses are not kept after the count
    else:
        report = partial(_report, progress, total)
        counted = _run_pool(task, groups, work, where, done, report)
        if counted and total is None:
            total = len(done)
    return _total(done, total, time.monotonic() - start)


def _report(progress: Callable[[GroupCount, int | None], None] | None, total: int | None, c: GroupCount) -> None:
    if progress:
        progress(c, total)


def _run_pool(
    task: CubeTask,
    groups: Iterable[G],
    work: Callable[[CubeTask, G], GroupCount],
    where: Where,
    done: list[GroupCount],
    report: Callable[[GroupCount], None],
) -> bool:
    """Run the groups on a pool, at most ``IN_FLIGHT`` per worker submitted ahead; True when every group
    was counted (UNSAT).  Every group that finished is in ``done``, also when the count stops early."""
    pool: Any = executors.cube_pool(where)
    interrupted = True
    ahead = IN_FLIGHT * max(1, where.jobs)
    todo = iter(enumerate(groups))
    try:
        pending: list[Any] = []
        exhausted = False
        nap = 0.001  # doubles up to POLL while nothing finishes: short groups are not held up by the poll
        while True:
            while not exhausted and len(pending) < ahead:
                step = next(todo, None)
                if step is None:
                    exhausted = True
                else:
                    pending.append(pool.submit(f"cube-{task.run}-{step[0]}", work, task, step[1]))
            if not pending:
                break
            finished = pool.ready(pending)
            taken = {id(f) for f in finished}  # not f.done() again: a group finishing in between would be lost
            pending = [f for f in pending if id(f) not in taken]
            for future in finished:  # all of them, before any decision to stop: none is lost
                done.append(pool.result(future))
                report(done[-1])
            if any(c.status != Status.UNSAT for c in done[len(done) - len(finished) :]):
                return False
            if task.deadline.expired(POLL):
                return False  # the workers check the deadline between solver calls; this stops a long call
            if not finished:
                time.sleep(nap)
                nap = min(POLL, 2 * nap)
            else:
                nap = 0.001
        interrupted = False
        return True
    finally:
        pool.close(interrupted=interrupted)


def _total(done: list[GroupCount], total: int | None, wall: float) -> Count:
    bad = next((c for c in done if c.status != Status.UNSAT), None)
    finished = sum(1 for c in done if c.status == Status.UNSAT)
    status = bad.status if bad else (Status.UNSAT if finished == total else Status.TIMEOUT)
    error = bad.error if bad else (None if status == Status.UNSAT else "time limit reached")
    return Count(
        total=sum(c.count for c in done),
        fundamental=sum(c.fundamental for c in done),
        status=status,
        engine="cubes",
        wall=wall,
        solver_calls=sum(c.solver_calls for c in done),
        groups_done=finished,
        groups_total=total,
        error=error,
    )
