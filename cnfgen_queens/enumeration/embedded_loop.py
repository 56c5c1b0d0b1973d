"""The seeds' loop on one incremental PySAT solver: solve, accept, block, repeat until UNSAT.

One step is shared by every loop, :class:`.accept.Acceptor`: accept a model = decode it to a
placement, check it (a valid board, inside the cube, new), weigh it, record it, and hand back
its blocking clauses.  Here the blocking clauses are added to the solver in place; the cube
counter (:mod:`.cube_count`) runs the same :func:`solve_loop` per group of cubes, the forked
loop (:mod:`.forked_loop`) runs :func:`enumerate_embedded` in a child, and the external loop
(:mod:`.external_loop`) restarts a binary instead.  Which loop runs is decided in :mod:`.api`.

With ``symmetric`` every image of a solution under the 8 symmetries is blocked; each orbit is
then found once and counted at its size (the fundamental count is OEIS A002562).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any

from cnfgen_queens.enumeration.accept import Acceptor, clause_check
from cnfgen_queens.enumeration.records import EnumerationError, Found
from cnfgen_queens.errors import UsageError, option
from cnfgen_queens.limits import NEVER, Deadline
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.solvers.discovery import SolverNotFound, SolverSpec, embedded_name
from cnfgen_queens.solvers.outcome import Status
from cnfgen_queens.solvers.profiles import DEFAULT_SOLVER, EMBEDDED_PREFIX, embedded_facts

if TYPE_CHECKING:
    from cnfgen_queens.encodings import Clause

CHUNK = 100_000  # clauses given to the embedded solver between looks at the clock


def add_clauses(solver: Any, clauses: Iterator[Clause], deadline: Deadline, total: int) -> None:
    """Add ``clauses`` to ``solver`` in chunks; EnumerationError (TIMEOUT) once the deadline has passed."""
    done = 0
    while chunk := list(islice(clauses, CHUNK)):
        if deadline.expired():
            raise EnumerationError(
                f"time limit reached while building the formula ({done:,} of {total:,} clauses given to the solver)",
                Status.TIMEOUT,
            )
        solver.append_formula(chunk)
        done += len(chunk)


def pysat_name(solver: str) -> str | None:
    """``NAME`` of ``pysat:NAME``, None for any other solver (a binary)."""
    return solver[len(EMBEDDED_PREFIX) :] if solver.startswith(EMBEDDED_PREFIX) else None


def embedded_solver(solver: str) -> str:
    """The canonical pysat name behind ``pysat:NAME``; raises UsageError otherwise."""

    try:
        name = embedded_name(pysat_name(solver) or solver)
    except SolverNotFound as e:
        raise UsageError(str(e)) from None
    facts = embedded_facts(name)
    if not facts.incremental:
        instead = f"its binary ({option('--solver', facts.binary)})" if facts.binary else "a binary solver"
        raise UsageError(f"{solver} is not incremental: enumerate with {instead}")
    return name


def embedded_spec(solver: str) -> SolverSpec:
    """``pysat:NAME`` resolved once for the loop's and the cubes' engines (its name as given, for messages, and
    its pysat backend); raises UsageError as :func:`embedded_solver` does."""
    return SolverSpec(solver, None, None, embedded_solver(solver))


def solve_loop(
    solver: Any,
    accept: Acceptor,
    *,
    deadline: Deadline = NEVER,
    on_call: Callable[[], None] | None = None,
    assumptions: Sequence[int] | None = None,
) -> Iterator[Found]:
    """Solve an incremental PySAT ``solver`` under the acceptor's assumptions (or ``assumptions``, when
    some of the cube is unit clauses in the solver), accept the model, add its blocking clauses; repeat
    until UNSAT.  The deadline is looked at before every solver call."""
    assumptions = list(accept.assumptions if assumptions is None else assumptions)
    while True:
        if deadline.expired():
            raise EnumerationError("time limit reached", Status.TIMEOUT)
        if on_call:
            on_call()
        if not solver.solve(assumptions=assumptions):
            return
        found = accept(solver.get_model() or [])
        for clause in accept.blocks(found):
            solver.add_clause(clause)
        yield found


def count_loop(
    solver: Any,
    accept: Acceptor,
    tally: list[int],
    *,
    deadline: Deadline = NEVER,
    assumptions: Sequence[int] | None = None,
) -> None:
    """:func:`solve_loop` for counting, without a generator or callbacks around each solver call (the cube
    counter's hot path): ``tally`` (weighted boards, boards of weight > 0, solver calls) is updated in place,
    so a caller that catches EnumerationError keeps what was counted."""
    assumptions = list(accept.assumptions if assumptions is None else assumptions)
    solve, model, add = solver.solve, solver.get_model, solver.add_clause
    expired, blocks = deadline.expired, accept.blocks
    while True:
        if expired():
            raise EnumerationError("time limit reached", Status.TIMEOUT)
        tally[2] += 1
        if not solve(assumptions=assumptions):
            return
        found = accept(model() or [])
        for clause in blocks(found):
            add(clause)
        tally[0] += found.weight
        tally[1] += found.weight > 0


def enumerate_embedded(
    formula: QueensFormula,
    solver: str = DEFAULT_SOLVER,
    *,
    symmetric: bool = False,
    deadline: Deadline = NEVER,
    on_call: Callable[[], None] | None = None,
    check_all: bool = False,
) -> Iterator[Found]:
    """Solutions from one incremental PySAT solver (every model checked by :class:`.Acceptor`: as a board
    in O(N), and with ``check_all`` against every clause); the deadline is looked at between solver calls
    (:mod:`.forked_loop` also stops a call)."""
    from pysat.solvers import Solver

    name = embedded_solver(solver)
    every = clause_check(formula.counts()[0], formula.clauses()) if check_all else None
    accept = Acceptor(formula.n, solver, variant=formula.variant, symmetric=symmetric, every_clause=every)
    with Solver(name=name) as s:
        add_clauses(s, formula.clauses(), deadline, formula.counts()[1])
        yield from solve_loop(s, accept, deadline=deadline, on_call=on_call)
