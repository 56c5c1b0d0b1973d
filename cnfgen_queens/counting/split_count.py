"""Counting the variants by cubes (:mod:`.variant_cubes`), in parallel processes or as Dask tasks.

The machinery of :mod:`.cube_count` (one task per group, a fresh solver per group up to
``FRESH_UP_TO`` clauses, else one solver per worker under assumptions; the pool, the deadline and
the Count) runs :func:`count_split_group` on each :class:`.SplitGroup`.  Every model is checked
before it counts: a valid board of the variant (:class:`.Acceptor` with the formula's variant),
inside its cube (its queens, and no queen on a blocked cell), new; then weighed.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import replace
from functools import partial

from cnfgen_queens.counting.cube_count import FRESH_UP_TO, CubeTask, run_groups, worker_clauses, worker_solver
from cnfgen_queens.counting.torus_cubes import OutsideCube
from cnfgen_queens.counting.variant_cubes import SplitGroup, split_groups, torus_only, weight
from cnfgen_queens.enumeration.accept import Acceptor
from cnfgen_queens.enumeration.embedded_loop import solve_loop
from cnfgen_queens.enumeration.records import Count, EnumerationError, GroupCount
from cnfgen_queens.enumeration.request import Request
from cnfgen_queens.limits import NEVER, Deadline
from cnfgen_queens.model.board import Placement
from cnfgen_queens.model.decode import as_line
from cnfgen_queens.solvers.discovery import SolverSpec


def count_split_group(task: CubeTask, group: SplitGroup) -> GroupCount:
    """Every board of one group's cubes, weighed; never raises for solver trouble."""
    from pysat.solvers import Solver

    formula, n = task.formula, task.formula.n
    fresh = formula.counts()[1] <= FRESH_UP_TO
    try:
        if fresh:
            solver = Solver(name=task.solver.embedded, bootstrap_with=worker_clauses(task))
            for literal in group.fixed:
                solver.add_clause((literal,))
            solver.append_formula(group.pruning)  # a long-lived solver cannot take them: they only prune
        else:
            solver = worker_solver(task)
    except EnumerationError as e:
        return GroupCount(cube=group.fixed, count=0, fundamental=0, solver_calls=0, status=e.status, error=str(e))
    count = fundamental = calls = 0

    def called() -> None:
        nonlocal calls
        calls += 1

    weigh = partial(
        _checked_weight, task.solver.name, torus_only(formula.variant), frozenset(-v for v in group.fixed if v < 0)
    )
    queens = tuple(v for v in group.fixed if v > 0)
    try:
        for cube in group.cubes:
            accept = Acceptor(n, task.solver.name, variant=formula.variant, weigh=weigh, assumptions=(*queens, *cube))
            assumptions = cube if fresh else (*group.fixed, *cube)
            for found in solve_loop(solver, accept, deadline=task.deadline, on_call=called, assumptions=assumptions):
                count += found.weight
                fundamental += found.weight > 0
    except EnumerationError as e:
        return GroupCount(
            cube=group.fixed, count=count, fundamental=fundamental, solver_calls=calls, status=e.status, error=str(e)
        )
    finally:
        if fresh:
            solver.delete()
    return GroupCount(cube=group.fixed, count=count, fundamental=fundamental, solver_calls=calls)


def _checked_weight(solver: str, torus: bool, blocked: frozenset[int], placement: Placement) -> int:
    """:func:`.variant_cubes.weight` of a board with no queen on a blocked cell (EnumerationError otherwise)."""
    n = len(placement)
    try:
        if any(r * n + c + 1 in blocked for r, c in enumerate(placement)):
            raise OutsideCube("a queen stands on a blocked cell of its cube")
        return weight(n, torus, placement)
    except OutsideCube as e:
        raise EnumerationError(f"{solver} returned {as_line(placement)} outside its cube: {e}") from None


def count_split(request: Request, solver: SolverSpec, deadline: Deadline = NEVER) -> Count:
    """Count every solution of a variant by its cubes with ``solver`` (the request's embedded solver, resolved
    once), as :func:`.cube_count.count_symmetric` runs them (in this process, ``request.where.jobs`` forked
    workers or Dask).  ``fundamental`` is the number of boards that counted (one per orbit of the torus's maps
    that fix a cell; every solution for other variants).

    >>> from cnfgen_queens.enumeration.embedded_loop import embedded_spec
    >>> from cnfgen_queens.model.formula import QueensFormula
    >>> from cnfgen_queens.model.variants import Variant
    >>> request = Request(QueensFormula(13, variant=Variant(torus=True)))
    >>> count_split(request, embedded_spec(request.solver.name)).total
    4524
    """
    start = time.monotonic()
    groups = split_groups(request.formula)
    task = CubeTask(request.formula, solver, uuid.uuid4().hex, deadline)
    result = run_groups(
        task, groups, len(groups), count_split_group, where=request.where, progress=request.report.progress
    )
    return replace(result, wall=time.monotonic() - start)
