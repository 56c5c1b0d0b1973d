"""Counting by cubes with an external solver binary (``count N --solver kissat --jobs J``).

The same canonical border cubes and weights as the embedded cube counter (:mod:`.border_cubes`,
:mod:`.cube_count`), so a binary gets the same symmetry and parallelism: each group of cubes is one task,
and each of its cubes is counted by the durable restart loop of :mod:`.external_loop` on the formula with
the cube's queens placed (unit clauses; the loop checks every model against every clause and as a board
with those queens), in its own work directory ``groups/GGGGG/cube-KK``.  A cube's ``done`` file is
written once the solver said UNSAT; ``--resume`` reads the finished cubes back (their solutions checked
again and weighed) and continues the others where their loops stopped.  ``run.json`` at the top names
the count (N, encoding, solver), so a resume with other options is refused.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

from cnfgen_queens.bounds import json_value
from cnfgen_queens.cnf.atomic import atomic_output, work_dir
from cnfgen_queens.cnf.owned import lock_dir, open_dir, refuse_links
from cnfgen_queens.counting.border_cubes import BorderCube, CubeGroup, cube_groups
from cnfgen_queens.counting.cube_count import LISTED_UP_TO, _weight
from cnfgen_queens.enumeration.external_loop import SOLUTIONS, enumerate_external, read_solutions
from cnfgen_queens.enumeration.records import Count, EnumerationError, GroupCount
from cnfgen_queens.enumeration.request import Report, Request
from cnfgen_queens.errors import UsageError
from cnfgen_queens.execution.task_pool import run_tasks
from cnfgen_queens.limits import NEVER, Deadline
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.variants import Variant
from cnfgen_queens.solvers.discovery import SolverSpec
from cnfgen_queens.solvers.outcome import Status

DONE = "done"
RUN_MAX = 1 << 16  # bytes of a run.json read on --resume
RUN = "run.json"
GROUPS = "groups"


@dataclass(frozen=True)
class ExternalCubeTask:
    """What a worker needs: the request (its top work directory in ``where.workdir``, nothing to report: the
    callbacks stay in the parent), the binary resolved once, the deadline of the whole count."""

    request: Request
    solver: SolverSpec
    deadline: Deadline

    @property
    def workdir(self) -> Path:
        return cast(Path, self.request.where.workdir)


def cube_dir(workdir: Path, group: int, cube: int) -> Path:
    """The work directory of cube ``cube`` of group ``group`` (both from 0)."""
    return workdir / GROUPS / f"{group + 1:05d}" / f"cube-{cube + 1:02d}"


def _literals(n: int, cells: Iterable[tuple[int, int]]) -> tuple[int, ...]:
    return tuple(r * n + c + 1 for r, c in cells)


def _count_cube(task: ExternalCubeTask, cube: BorderCube, where: Path, tally: list[int]) -> None:
    """Add one cube's weighted boards, canonical boards and solver calls to ``tally``; raises EnumerationError."""
    n = task.request.formula.n
    if task.request.where.resume and (where / DONE).exists():
        for placement in read_solutions(where / SOLUTIONS, n):
            if any(placement[r] != c for r, c in cube.cells):
                raise EnumerationError(f"{where / SOLUTIONS}: {placement} is outside the cube {cube.cells}")
            weight = _weight(cube, placement)
            tally[0] += weight
            tally[1] += weight > 0
        return

    def called() -> None:
        tally[2] += 1

    request = task.request  # the cube's loop: its queens placed, in its own directory, each solver call counted
    resume = request.where.resume and (where / SOLUTIONS).exists()
    cube_request = replace(
        request,
        formula=replace(request.formula, variant=Variant(placed=cube.cells)),
        where=replace(request.where, workdir=where, resume=resume),
        report=Report(on_call=called),
    )
    for found in enumerate_external(cube_request, task.solver, task.deadline):
        weight = _weight(cube, found.placement)
        tally[0] += weight
        tally[1] += weight > 0
    with atomic_output(where / DONE, owned=where) as f:
        f.write(b"UNSAT\n")


def count_external_group(task: ExternalCubeTask, index: int, group: CubeGroup) -> GroupCount:
    """Every canonical board of one group's cubes, weighted by orbit size, each cube by its own restart
    loop; never raises for solver trouble (the status says it)."""
    fixed = _literals(task.request.formula.n, group.fixed)
    tally = [0, 0, 0]
    if task.deadline.expired():  # a group a worker took from the pool's queue once time was up
        return GroupCount(
            cube=fixed, count=0, fundamental=0, solver_calls=0, status=Status.TIMEOUT, error="time limit reached"
        )
    try:
        for k, cube in enumerate(group.cubes):
            where = cube_dir(task.workdir, index, k)
            os.close(open_dir(task.workdir, where.relative_to(task.workdir), create=True))  # no link followed
            _count_cube(task, cube, where, tally)
    except EnumerationError as e:
        status, error = e.status, str(e)
    except (UsageError, OSError) as e:  # a work directory that cannot be used, an unreadable solutions file
        status, error = Status.ERROR, str(e)
    else:
        status, error = Status.UNSAT, ""
    return GroupCount(
        cube=fixed, count=tally[0], fundamental=tally[1], solver_calls=tally[2], status=status, error=error or None
    )


def _check_run(workdir: Path, formula: QueensFormula, solver: str, resume: bool) -> None:
    """Write ``run.json``, or on resume refuse one that names another count; refuse to start over a used one."""
    want = {"engine": "cubes", "n": formula.n, "describe": formula.describe(), "solver": solver}
    meta = workdir / RUN
    refuse_links(workdir, [RUN, f"{GROUPS}/*", f"{GROUPS}/*/cube-*", f"{GROUPS}/*/cube-*/{DONE}"])
    if meta.exists():
        with open(meta, "rb") as f:  # read in bounded memory: ours holds four short fields
            text = f.read(RUN_MAX + 1)
        if len(text) > RUN_MAX:
            raise UsageError(f"{meta} is longer than {RUN_MAX} bytes: not the {RUN} this tool writes")
        try:
            have = json_value(text)
        except ValueError:
            raise UsageError(f"{meta} is not JSON") from None
        if not resume:
            raise UsageError(f"{workdir} holds a count by cubes ({RUN}): use --resume, or another --out directory")
        if have != want:
            raise UsageError(f"{workdir} holds a count with {have}, not {want}: resume with those options")
        return
    try:
        workdir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"cannot use {workdir} as the work directory: {e.strerror or e}") from None
    with atomic_output(meta, owned=workdir) as f:
        f.write((json.dumps(want) + "\n").encode())


def count_external_cubes(request: Request, solver: SolverSpec, deadline: Deadline = NEVER) -> Count:
    """Count all solutions and orbits of ``request.formula`` by canonical border cubes with the binary
    ``solver`` (the request's, resolved once), the groups on ``request.where.jobs`` forked workers, in
    ``where.workdir`` (a temporary directory when None; resumable otherwise, ``where.resume``); each cube's
    loop under ``request.limits`` and its arguments, the whole count until ``deadline``;
    ``request.report.progress`` per finished group."""
    where = request.where
    if where.workdir is None:
        with work_dir("cubes") as tmp:
            return count_external_cubes(
                replace(request, where=replace(where, workdir=tmp, resume=False)), solver, deadline
            )
    with lock_dir(where.workdir):  # one process at a time in a work directory
        start = time.monotonic()
        _check_run(where.workdir, request.formula, request.solver.name, where.resume)
        # each cube's loop counts every board of its cube (the cubes' weights hold the symmetry)
        task = ExternalCubeTask(replace(request, symmetric=False, report=Report()), solver, deadline)
        groups: Iterable[CubeGroup] = cube_groups(request.formula.n)
        total = None
        if request.formula.n <= LISTED_UP_TO:
            groups = list(groups)
            total = len(groups)
        done: list[GroupCount] = []

        def finished(c: GroupCount) -> bool:
            done.append(c)
            if request.report.progress:
                request.report.progress(c, total)
            return c.status == Status.UNSAT

        items: Iterator[tuple[ExternalCubeTask, int, CubeGroup]] = ((task, i, g) for i, g in enumerate(groups))
        if where.jobs <= 1:  # the solver runs in a child process of its own: this process can wait for it
            complete = all(finished(count_external_group(*item)) for item in items)
        else:
            complete = run_tasks(count_external_group, items, finished, where=where, deadline=deadline)
        if complete and total is None:
            total = len(done)
        bad = next((c for c in done if c.status != Status.UNSAT), None)
        finished_groups = sum(c.status == Status.UNSAT for c in done)
        status = bad.status if bad else (Status.UNSAT if complete else Status.TIMEOUT)
        error = bad.error if bad else (None if complete else "time limit reached")
        return Count(
            total=sum(c.count for c in done),
            fundamental=sum(c.fundamental for c in done),
            status=status,
            engine="cubes",
            wall=time.monotonic() - start,
            solver_calls=sum(c.solver_calls for c in done),
            groups_done=finished_groups,
            groups_total=total,
            error=error,
        )
