"""Every solution by the seeds' loop: solve, decode, block, repeat until UNSAT.

One step is shared by every loop, :class:`.accept.Acceptor`: accept a model = decode it
to a placement, check it (a valid board, inside the cube, new), weigh it, record it, and
hand back its blocking clauses.  Two engines use it and share one contract (an iterator
of checked placements):

* embedded (``pysat:NAME``): one incremental solver, blocking clauses added in
  place (:func:`solve_loop`); the fast path.  The symmetry-broken cube counter
  (:mod:`.cube_count`) runs the same loop and only counts.
* external (any binary): the durable restart loop of :mod:`.external_loop`, over files
  in a work directory, resumable after a crash or ``kill -9``.

With ``symmetric`` every image of a solution under the 8 symmetries is blocked;
each orbit is then found once and counted at its size (the fundamental count is
OEIS A002562).
Module named ``enumeration`` so that it does not shadow the builtin ``enumerate``.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cnfgen_queens.errors import UsageError
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.solutions.accept import Acceptor, CountResult, EnumerationError, EnumerationOptions, Found
from cnfgen_queens.solvers.outcome import Status

if TYPE_CHECKING:
    from cnfgen_queens.encodings import Clause
    from cnfgen_queens.limits import Limits


# -- size: refuse, before anything is built, a formula too large to hold ----------------

# PySAT CaDiCaL 1.9.5 holds ~100 B per pairwise clause (2 GB at the cap); N = 1000 sequential (12.0M clauses,
# 5.0M variables) 3.2 GB once built, 5.5 GB peak solving: the cap admits every compact encoding at N = 1000
HELD_CLAUSES = 20_000_000
COMPACT = ("sequential", "product", "commander", "ladder", "bimander", "binary")  # suggested instead


def check_held_size(
    formula: QueensFormula,
    allow_large: bool = False,
    cap: int | None = None,
    escape: str = "pass --allow-large",
    option: str = "-e ",
) -> None:
    """Raise UsageError, naming N, the encoding, its clause count, the cap and what to do instead, for a
    formula of more than ``cap`` (default :data:`HELD_CLAUSES`) clauses, unless ``allow_large``.

    Every loop holds the formula in memory (the embedded solver; the cube counter's workers, one copy
    each; the external solver), so the closed-form count of :meth:`QueensFormula.counts` decides."""
    limit = HELD_CLAUSES if cap is None else cap
    clauses = formula.counts()[1]
    if allow_large or clauses <= limit:
        return
    options = [replace(formula, encoding=e, group_size=None) for e in COMPACT if e != formula.encoding]
    best = min(options, key=lambda f: f.counts()[1])
    instead = (f"use {option}{best.encoding} ({best.counts()[1]:,} clauses)" if best.counts()[1] <= limit
               else "use a smaller N")  # fmt: skip
    raise UsageError(
        f"N={formula.n} {formula.encoding} has {clauses:,} clauses, above the limit of {limit:,} for a formula "
        f"held in memory (about 100 bytes a clause in the solver); {instead}, or {escape}"
    )


FEED_CHUNK = 100_000  # clauses given to the embedded solver between looks at the clock


def feed(solver: Any, clauses: Iterator[Clause], expired: Callable[[], bool] | None, total: int) -> None:
    """Add ``clauses`` to ``solver`` in chunks; EnumerationError (TIMEOUT) once ``expired`` says so."""
    from itertools import islice

    done = 0
    while chunk := list(islice(clauses, FEED_CHUNK)):
        if expired is not None and expired():
            raise EnumerationError(
                f"time limit reached while building the formula ({done:,} of {total:,} clauses given to the solver)",
                Status.TIMEOUT,
            )
        solver.append_formula(chunk)
        done += len(chunk)


# -- embedded ---------------------------------------------------------------------


def pysat_name(solver: str) -> str | None:
    return solver.split(":", 1)[1] if solver.startswith("pysat:") else None


NOT_INCREMENTAL = ("kissat",)  # pysat backends that cannot take clauses after a solve


def embedded_solver(solver: str) -> str:
    """The canonical pysat name behind ``pysat:NAME``; raises UsageError otherwise."""
    from cnfgen_queens.solvers.discovery import SolverNotFound, embedded_name

    try:
        name = embedded_name(pysat_name(solver) or solver)
    except SolverNotFound as e:
        raise UsageError(str(e)) from None
    if name.startswith(NOT_INCREMENTAL):
        raise UsageError(f"{solver} is not incremental: enumerate with its binary (--solver kissat)")
    return name


def solve_loop(
    solver: Any,
    accept: Acceptor,
    *,
    expired: Callable[[], bool] | None = None,
    on_call: Callable[[], None] | None = None,
    assumptions: Sequence[int] | None = None,
) -> Iterator[Found]:
    """Solve an incremental PySAT ``solver`` under the acceptor's assumptions (or ``assumptions``, when
    some of the cube is unit clauses in the solver), accept the model, add its blocking clauses; repeat
    until UNSAT.  ``expired`` is asked before every solver call."""
    assumptions = list(accept.assumptions if assumptions is None else assumptions)
    while True:
        if expired is not None and expired():
            raise EnumerationError("time limit reached", Status.TIMEOUT)
        if on_call:
            on_call()
        if not solver.solve(assumptions=assumptions):
            return
        found = accept(solver.get_model() or [])
        for clause in accept.blocks(found):
            solver.add_clause(clause)
        yield found


def enumerate_embedded(
    formula: QueensFormula,
    solver: str = "pysat:cadical195",
    *,
    symmetric: bool = False,
    assumptions: tuple[int, ...] = (),
    deadline: float | None = None,
    on_call: Callable[[], None] | None = None,
) -> Iterator[Found]:
    """Solutions from one incremental PySAT solver (every model checked by :class:`Acceptor`).

    ``deadline`` is a :func:`time.monotonic` instant, checked between solver calls.
    """
    from pysat.solvers import Solver

    name = embedded_solver(solver)
    accept = Acceptor(formula.n, solver, variant=formula.variant, symmetric=symmetric, assumptions=assumptions)
    expired = None if deadline is None else lambda: time.monotonic() > deadline
    with Solver(name=name) as s:
        feed(s, formula.clauses(), expired, formula.counts()[1])
        yield from solve_loop(s, accept, expired=expired, on_call=on_call)


# -- one entry point ----------------------------------------------------------------


def solutions(
    formula: QueensFormula, solver: str = "pysat:cadical195", options: EnumerationOptions | None = None
) -> Iterator[Found]:
    """Embedded loop for ``pysat:`` solvers (in a forked child, :mod:`.forked_loop`, so that its time and
    memory limits hold during a solver call), the durable restart loop otherwise."""
    opts = options or EnumerationOptions()
    if pysat_name(solver) is not None:
        from cnfgen_queens.solutions.forked_loop import enumerate_forked

        embedded_solver(solver)  # UsageError here, not an ERROR from the child

        t = opts.limits.time if opts.limits else None
        memory = opts.limits.memory if opts.limits else None
        deadline = time.monotonic() + t if t else None

        def loop(on_call: Callable[[], None]) -> Iterator[Found]:  # runs in the child
            return enumerate_embedded(formula, solver, symmetric=opts.symmetric, deadline=deadline, on_call=on_call)

        yield from enumerate_forked(loop, deadline=deadline, memory_mb=memory, on_call=opts.on_call)
        return
    from cnfgen_queens.solutions.external_loop import enumerate_external

    if opts.workdir is None:
        with tempfile.TemporaryDirectory(prefix="cnfgen-queens-") as tmp:
            yield from enumerate_external(formula, solver, Path(tmp), replace(opts, resume=False))
        return
    yield from enumerate_external(formula, solver, opts.workdir, opts)


def count_solutions(
    formula: QueensFormula,
    solver: str = "pysat:cadical195",
    *,
    limits: Limits | None = None,
    symmetric: bool = False,
    workdir: Path | None = None,
) -> CountResult:
    """Count all solutions (and orbits when ``symmetric``); never raises for solver trouble (an
    unusable solver or work directory, a formula over :data:`HELD_CLAUSES`, is an ERROR with the reason)."""
    start = time.monotonic()
    calls = count = fundamental = 0

    def called() -> None:
        nonlocal calls
        calls += 1

    options = EnumerationOptions(symmetric=symmetric, limits=limits, on_call=called, workdir=workdir)
    try:
        check_held_size(formula)
        for f in solutions(formula, solver, options):
            count += f.weight
            fundamental += 1
    except (EnumerationError, UsageError) as e:  # a usage problem is an ERROR with its reason: never raised
        status = e.status if isinstance(e, EnumerationError) else Status.ERROR
        wall = time.monotonic() - start
        return CountResult(count=None, fundamental=None, status=status, wall=wall, solver_calls=calls, error=str(e))
    wall = time.monotonic() - start
    fundamental_count = fundamental if symmetric else None
    return CountResult(count=count, fundamental=fundamental_count, status=Status.UNSAT, wall=wall, solver_calls=calls)
