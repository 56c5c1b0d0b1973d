"""Every solution by the seeds' loop: solve, decode, block, repeat until UNSAT.

Two engines share one contract (an iterator of checked placements):

* embedded (``pysat:NAME``): one incremental solver, blocking clauses added in
  place; the fast path.
* external (any binary): a restart loop over files in a work directory.  Each
  solution is appended durably to ``DIR/solutions.txt`` (flush + fsync) before the
  next solver call, and the blocking clauses are re-derived from that file, so
  ``resume`` after a crash or ``kill -9`` loses nothing and repeats nothing.

With ``symmetric`` every image of a solution under the 8 symmetries is blocked;
each orbit is then found once and counted at its size (the fundamental count is
OEIS A002562).  ``count_cubes`` splits counting by the first row's queen column,
counts the left half and doubles it (mirror symmetry), in parallel processes.
Module named ``enumeration`` so that it does not shadow the builtin ``enumerate``.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .board import Placement, images
from .decode import DecodeError, as_line, blocking_clauses, parse_line, variant_placement
from .formula import QueensFormula

if TYPE_CHECKING:
    from .solvers.outcome import Limits

SOLUTIONS = "solutions.txt"


class EnumerationError(RuntimeError):
    """The loop stopped before UNSAT (solver error, limit, bad model); found solutions are kept."""

    def __init__(self, message: str, status: str = "ERROR") -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Found:
    """One solution: the representative placement and the size of its orbit (1 unless symmetric)."""

    placement: Placement
    weight: int = 1


@dataclass(frozen=True)
class CountResult:
    count: int | None
    fundamental: int | None
    status: str
    wall: float
    solver_calls: int
    error: str | None = None


def _weight(placement: Placement, symmetric: bool) -> int:
    return len(images(placement)) if symmetric else 1


# -- embedded ---------------------------------------------------------------------


def pysat_name(solver: str) -> str | None:
    return solver.split(":", 1)[1] if solver.startswith("pysat:") else None


NOT_INCREMENTAL = ("kissat",)  # pysat backends that cannot take clauses after a solve


def embedded_solver(solver: str) -> str:
    """The canonical pysat name behind ``pysat:NAME``; raises EnumerationError("USAGE") otherwise."""
    from .solvers.discovery import SolverNotFound, embedded_name

    try:
        name = embedded_name(pysat_name(solver) or solver)
    except SolverNotFound as e:
        raise EnumerationError(str(e), "USAGE") from None
    if name.startswith(NOT_INCREMENTAL):
        raise EnumerationError(f"{solver} is not incremental: enumerate with its binary (--solver kissat)", "USAGE")
    return name


def enumerate_embedded(
    formula: QueensFormula,
    solver: str = "pysat:cadical195",
    *,
    symmetric: bool = False,
    assumptions: tuple[int, ...] = (),
    deadline: float | None = None,
    on_call: Callable[[], None] | None = None,
) -> Iterator[Found]:
    """Solutions from one incremental PySAT solver.

    Nothing the solver says is taken on trust: each model must decode to a valid
    placement (N queens, none attacking), agree with the assumptions, and be new
    (not a blocked placement, nor with ``symmetric`` an image of one).  The time
    limit is checked between solver calls.
    """
    from pysat.solvers import Solver

    name = embedded_solver(solver)
    n2 = formula.n * formula.n
    seen: set[Placement] = set()
    with Solver(name=name, bootstrap_with=formula.clauses()) as s:
        while True:
            if deadline is not None and time.monotonic() > deadline:
                raise EnumerationError("time limit reached", "TIMEOUT")
            if on_call:
                on_call()
            if not s.solve(assumptions=list(assumptions)):
                return
            model = s.get_model() or []
            try:
                placement = variant_placement(formula.n, (v for v in model[:n2] if v > 0), formula.variant)
            except DecodeError as e:
                raise EnumerationError(f"{solver} returned a model that is not a solution: {e}") from None
            if any(model[a - 1] != a for a in assumptions):
                raise EnumerationError(f"{solver} returned a model that breaks the assumptions {assumptions}")
            orbit = images(placement) if symmetric else [placement]
            if seen.intersection(orbit):
                raise EnumerationError(f"{solver} returned a blocked placement again: {as_line(placement)}")
            seen.update(orbit)
            for clause in blocking_clauses(placement, symmetric):
                s.add_clause(clause)
            yield Found(placement, len(orbit))


def _count_cube(formula: QueensFormula, solver: str, cube: tuple[int, ...]) -> int:
    return sum(1 for _ in enumerate_embedded(formula, solver, assumptions=cube))


def cubes(n: int, depth: int = 1) -> list[tuple[int, tuple[int, ...]]]:
    """``(first-row column, assumptions)`` for the left half of the first row (and the middle
    column for odd N), split ``depth`` rows deep over non-attacking queen columns."""
    first = range(n // 2 + n % 2)
    out: list[tuple[int, tuple[int, ...]]] = []

    def extend(prefix: list[int]) -> None:
        r = len(prefix)
        if r == min(depth, n):
            out.append((prefix[0], tuple(i * n + c + 1 for i, c in enumerate(prefix))))
            return
        for c in range(n) if r else first:
            if all(c != pc and abs(c - pc) != r - i for i, pc in enumerate(prefix)):
                extend([*prefix, c])

    extend([])
    return out


def count_cubes(formula: QueensFormula, solver: str = "pysat:cadical195", jobs: int = 1, depth: int = 1) -> int:
    """Count all solutions by cubes on the first rows: first-row columns < N/2 counted twice
    (the left-right mirror), the middle column of odd N once; cubes run in ``jobs`` processes.

    The cubes' formula also gets the redundant at-least-one clause per column: the same
    solutions, and blocking-clause enumeration runs about 1.5x faster with it (N = 12, 13).
    """
    from concurrent.futures import ProcessPoolExecutor

    formula = replace(formula, column_alo=True)
    n = formula.n
    work = cubes(n, depth)
    if jobs <= 1:
        counts = [_count_cube(formula, solver, a) for _, a in work]
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            counts = list(pool.map(_count_cube, [formula] * len(work), [solver] * len(work), [a for _, a in work]))
    return sum((2 if col < n // 2 else 1) * k for (col, _), k in zip(work, counts, strict=True))


# -- external ---------------------------------------------------------------------


def read_solutions(path: Path, n: int, symmetric: bool = False) -> list[Placement]:
    """Placements of a solutions file, checked: valid, N x N, no repeats (no two in one orbit when
    ``symmetric``).  A torn last line (no newline, from a crash mid-write) is truncated away."""
    if not path.exists():
        return []
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        keep = data.rfind(b"\n") + 1
        with open(path, "r+b") as f:
            f.truncate(keep)
            os.fsync(f.fileno())
        data = data[:keep]
    out: list[Placement] = []
    seen: set[Placement] = set()
    for i, line in enumerate(data.decode(errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            p = parse_line(line, n)
        except DecodeError as e:
            raise EnumerationError(f"{path}:{i}: {e}", "USAGE") from None
        orbit = images(p) if symmetric else [p]
        if seen.intersection(orbit):
            raise EnumerationError(f"{path}:{i}: {line.strip()!r} repeats an earlier solution", "USAGE")
        seen.update(orbit)
        out.append(p)
    return out


def _check_run(workdir: Path, formula: QueensFormula, symmetric: bool, resume: bool) -> None:
    """Record what the directory's solutions mean (N, symmetric) and refuse a mismatched resume."""
    import json

    meta = workdir / "run.json"
    want: dict[str, object] = {"n": formula.n, "symmetric": symmetric}
    if formula.variant.active:  # only then, so plain runs keep their run.json
        want["variant"] = formula.variant.header_lines()
    if resume and meta.exists():
        try:
            have = json.loads(meta.read_text())
        except ValueError:
            raise EnumerationError(f"{meta} is not JSON", "USAGE") from None
        if {k: have.get(k) for k in (*want, "variant")} != {"variant": None, **want}:
            raise EnumerationError(f"{workdir} holds a run with {have}, not {want}: resume with those options", "USAGE")
        return
    from .dimacs import atomic_output

    with atomic_output(meta) as f:
        f.write((json.dumps(want) + "\n").encode())


def _append_durably(path: Path, line: str) -> None:
    with open(path, "a", encoding="ascii") as f:
        f.write(line + "\n")
        f.flush()
        os.fsync(f.fileno())


def enumerate_external(
    formula: QueensFormula,
    solver: str,
    workdir: Path,
    *,
    symmetric: bool = False,
    resume: bool = False,
    limits: Limits | None = None,
    solvers_file: Path | None = None,
    solver_args: tuple[str, ...] = (),
    on_call: Callable[[], None] | None = None,
) -> Iterator[Found]:
    """Restart loop over files in ``workdir`` with an external solver (see module docstring)."""
    from .dimacs import atomic_output, merge_clauses, write_clauses, write_header
    from .solvers import Limits, Status, solve

    try:
        workdir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise EnumerationError(f"cannot use {workdir} as the work directory: {e.strerror or e}", "USAGE") from None
    sol_path = workdir / SOLUTIONS
    from .atomic import sweep_temporaries

    for own in ("run.json", "base.cnf", "current.cnf"):  # left by a kill -9 of an earlier run here
        sweep_temporaries(workdir / own)
    if sol_path.exists() and sol_path.stat().st_size and not resume:
        raise EnumerationError(f"{sol_path} already holds solutions: use --resume, or another --out directory", "USAGE")
    _check_run(workdir, formula, symmetric, resume)
    found = read_solutions(sol_path, formula.n, symmetric) if resume else []
    seen = {q for p in found for q in (images(p) if symmetric else [p])}
    sol_path.touch()
    base = workdir / "base.cnf"
    num_vars, num_clauses = formula.counts()
    with atomic_output(base) as f:
        write_header(f, num_vars, num_clauses, formula.header_comments("cnfgen-queens enumerate"))
        write_clauses(f, formula.clauses())
    blocks = [c for p in found for c in blocking_clauses(p, symmetric)]
    for p in found:
        yield Found(p, _weight(p, symmetric))
    current = workdir / "current.cnf"
    limits = limits or Limits()
    end = None if limits.time is None else time.monotonic() + limits.time  # the limit bounds the whole loop
    while True:
        with atomic_output(current) as f:
            merge_clauses(base, blocks, f)
        left = None if end is None else end - time.monotonic()
        if left is not None and left <= 0:
            raise EnumerationError(f"time limit of {limits.time:g} s reached", "TIMEOUT")
        if on_call:
            on_call()
        call = limits if left is None else replace(limits, time=left)
        out = solve(current, solver, limits=call, args=solver_args, solvers_file=solvers_file)
        if out.status == Status.UNSAT:
            return
        if out.status != Status.SAT:
            detail = out.error or out.stderr_tail.strip().splitlines()[-1:] or ""
            raise EnumerationError(f"{solver}: {out.status.value} {detail}".strip(), out.status.value)
        try:
            placement = variant_placement(formula.n, out.true_vars(), formula.variant)
        except DecodeError as e:
            raise EnumerationError(f"{solver} returned a model that is not a solution: {e}") from None
        if placement in seen:
            raise EnumerationError(f"{solver} returned a blocked placement again: {as_line(placement)}")
        seen.update(images(placement) if symmetric else [placement])
        _append_durably(sol_path, as_line(placement))
        blocks += blocking_clauses(placement, symmetric)
        yield Found(placement, _weight(placement, symmetric))


# -- one entry point ----------------------------------------------------------------


def solutions(
    formula: QueensFormula,
    solver: str = "pysat:cadical195",
    *,
    symmetric: bool = False,
    workdir: Path | None = None,
    resume: bool = False,
    limits: Limits | None = None,
    on_call: Callable[[], None] | None = None,
    **external: object,
) -> Iterator[Found]:
    """Embedded loop for ``pysat:`` solvers, the durable restart loop otherwise; ``on_call`` is
    called before every solver call."""
    if pysat_name(solver) is not None:
        t = limits.time if limits else None
        deadline = time.monotonic() + t if t else None
        yield from enumerate_embedded(formula, solver, symmetric=symmetric, deadline=deadline, on_call=on_call)
        return
    external["on_call"] = on_call
    if workdir is None:
        with tempfile.TemporaryDirectory(prefix="cnfgen-queens-") as tmp:
            yield from enumerate_external(formula, solver, Path(tmp), symmetric=symmetric, limits=limits, **external)
        return
    yield from enumerate_external(
        formula, solver, workdir, symmetric=symmetric, resume=resume, limits=limits, **external
    )


def count_solutions(
    formula: QueensFormula,
    solver: str = "pysat:cadical195",
    *,
    limits: Limits | None = None,
    symmetric: bool = False,
    workdir: Path | None = None,
) -> CountResult:
    """Count all solutions (and orbits when ``symmetric``); never raises for solver trouble."""
    start = time.monotonic()
    calls = count = fundamental = 0

    def called() -> None:
        nonlocal calls
        calls += 1

    try:
        for f in solutions(formula, solver, symmetric=symmetric, workdir=workdir, limits=limits, on_call=called):
            count += f.weight
            fundamental += 1
    except EnumerationError as e:
        return CountResult(None, None, e.status, time.monotonic() - start, calls, str(e))
    wall = time.monotonic() - start
    return CountResult(count, fundamental if symmetric else None, "UNSAT", wall, calls)
