"""Certified counts: ``count N --certify DIR`` writes what a third party needs to check the count.

The claim "the formula F has exactly K solutions" (boards: models projected on the N*N cell
variables) splits into checkable parts:

* **cubes**: every pair of non-attacking queens, one in row 0 and one in row N-1
  (:func:`certificate_cubes`, a function of N alone: the checker regenerates them), as unit clauses;
* **per cube**: the boards found in it, each a full model of F (true variables listed; the checker
  evaluates every clause), and a DRAT proof that F + the cube's units + the blocking clause
  (over the cell variables) of each of its boards is unsatisfiable: no other board lies in the cube;
* **cover**: a DRAT proof that F + the negation of every cube is unsatisfiable: every board lies in
  some cube.

So the boards listed, checked distinct, are every board of F.  Symmetry reduction is not DRAT-checkable
(a board counted for its orbit has no clause of its own), so every cube is searched.  DRAT: Wetzler,
Heule and Hunt, "DRAT-trim: Efficient checking and trimming using expressive clausal proofs", SAT 2014.

Files in DIR: ``cubes/NNNNN.sol`` (one board a line: its model's true variables, then 0),
``cubes/NNNNN.drat``, ``cover.drat``, and ``manifest.json`` (the version that wrote it, N, encoding, variant,
the formula's hash, the cubes, the files, the total) written last, so a manifest means a finished certificate.
:mod:`.certificate_check` checks one.  Every file is written atomically, and the same command
gives the same bytes (CaDiCaL is deterministic, the cubes are written in order).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cnfgen_queens.cnf.atomic import atomic_output
from cnfgen_queens.cnf.owned import lock_dir, open_dir, refuse_links
from cnfgen_queens.enumeration.accept import Acceptor
from cnfgen_queens.enumeration.embedded_loop import embedded_solver
from cnfgen_queens.enumeration.records import Count, EnumerationError, GroupCount
from cnfgen_queens.errors import UsageError, option
from cnfgen_queens.execution.task_pool import run_tasks
from cnfgen_queens.execution.where import ONE_WORKER, Where
from cnfgen_queens.limits import NEVER, Deadline
from cnfgen_queens.model.decode import Clause
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.solvers.outcome import Status
from cnfgen_queens.solvers.profiles import DEFAULT_SOLVER, EMBEDDED, EMBEDDED_PREFIX, embedded_facts
from cnfgen_queens.version import __version__

FORMAT = "cnfgen-queens count certificate 1"
WRITER = f"cnfgen-queens {__version__}"  # the manifest's written_by
MANIFEST = "manifest.json"
COVER = "cover.drat"
CUBES = "cubes"


def certificate_cubes(n: int) -> list[Clause]:
    """The cubes of a certificate: ``(x(0,a), x(N-1,b))`` for every a, b whose queens do not attack
    (in the order of a, then b); for N = 1 the one cell.

    >>> certificate_cubes(4)[:3]
    [(1, 14), (1, 15), (2, 13)]
    """
    if n == 1:
        return [(1,)]
    m = n - 1
    return [(a + 1, m * n + b + 1) for a in range(n) for b in range(n) if a != b and abs(a - b) != m]


def formula_hash(clauses: Iterable[Clause]) -> str:
    """SHA-256 of the clauses as DIMACS lines (``1 -2 0\\n``), without header or comments."""
    h = hashlib.sha256()
    for clause in clauses:
        h.update((" ".join(map(str, clause)) + " 0\n").encode())
    return h.hexdigest()


def blocking_clause(n: int, true_vars: Sequence[int]) -> Clause:
    """The clause that excludes a board: its queens' cell variables, negated (auxiliary ones ignored)."""
    return tuple(-v for v in true_vars if v <= n * n)


def cube_formula(formula: Sequence[Clause], n: int, cube: Clause, models: Iterable[Sequence[int]]) -> Iterator[Clause]:
    """What a cube's proof refutes: the formula, the cube's unit clauses, one blocking clause per board."""
    yield from formula
    yield from ((lit,) for lit in cube)
    yield from (blocking_clause(n, m) for m in models)


def cover_formula(formula: Sequence[Clause], cubes: Iterable[Clause]) -> Iterator[Clause]:
    """What the cover proof refutes: the formula and the negation of every cube."""
    yield from formula
    yield from (tuple(-lit for lit in cube) for cube in cubes)


def model_line(true_vars: Sequence[int]) -> str:
    return " ".join(map(str, true_vars)) + " 0"


@dataclass(frozen=True)
class CertifyTask:
    """What a worker needs: the formula, the (pysat) solver name, the deadline."""

    formula: QueensFormula
    solver: str
    deadline: Deadline = NEVER


@dataclass(frozen=True)
class CubeCertificate:
    """One cube: its boards (true variables of each model) and the DRAT proof, or why it stopped."""

    index: int
    cube: Clause
    models: tuple[tuple[int, ...], ...]
    proof: tuple[str, ...]
    solver_calls: int
    status: Status = Status.UNSAT
    error: str | None = None


def _refute(name: str, clauses: Iterable[Clause]) -> tuple[str, ...] | None:
    """A DRAT proof that ``clauses`` are unsatisfiable, or None when a fresh solver finds them satisfiable."""
    from pysat.solvers import Solver

    with Solver(name=name, bootstrap_with=clauses, with_proof=True) as s:
        if s.solve():
            return None
        return tuple(s.get_proof() or ())


def certify_cube(task: CertifyTask, index: int, cube: Clause) -> CubeCertificate:
    """Every board of one cube, checked, then a fresh solver's proof that no other one exists."""
    from pysat.solvers import Solver

    formula, n = task.formula, task.formula.n
    name = embedded_solver(task.solver)
    clauses = list(formula.clauses())
    accept = Acceptor(n, task.solver, variant=formula.variant, assumptions=cube)
    models: list[tuple[int, ...]] = []
    calls = 0
    try:
        with Solver(name=name, bootstrap_with=clauses) as s:
            for lit in cube:
                s.add_clause((lit,))
            while True:
                if task.deadline.expired():
                    raise EnumerationError("time limit reached", Status.TIMEOUT)
                calls += 1
                if not s.solve():
                    break
                model = s.get_model() or []
                accept(model)  # a valid board, in the cube, new (raises EnumerationError otherwise)
                true_vars = tuple(v for v in model if v > 0)
                models.append(true_vars)
                s.add_clause(blocking_clause(n, true_vars))
        if task.deadline.expired():
            raise EnumerationError("time limit reached", Status.TIMEOUT)
        proof = _refute(name, cube_formula(clauses, n, cube, models))
        if proof is None:
            raise EnumerationError(
                f"{task.solver}: a fresh solver found cube {list(cube)} satisfiable after "
                f"its {len(models)} boards were blocked"
            )
    except EnumerationError as e:
        return CubeCertificate(index, cube, tuple(models), (), calls, e.status, str(e))
    return CubeCertificate(index, cube, tuple(models), proof, calls)


def check_certify(solver: str) -> str:
    """The pysat name of ``solver`` if it can write DRAT proofs, else UsageError."""
    name = embedded_solver(solver)
    if not embedded_facts(name).proof:
        writers = ", ".join(f"{EMBEDDED_PREFIX}{n}" for n, facts in EMBEDDED.items() if facts.proof)
        raise UsageError(
            f"{option('--certify')} needs an embedded solver that writes DRAT proofs ({writers}), not {solver}"
        )
    return name


OWN_FILES = (MANIFEST, COVER, CUBES, f"{CUBES}/*.sol", f"{CUBES}/*.drat")  # what certify writes in its directory


def _prepare(directory: Path) -> None:
    refuse_links(directory, OWN_FILES)
    if (directory / MANIFEST).exists():
        raise UsageError(f"{directory} already holds a certificate ({MANIFEST}); use another directory")
    try:
        os.close(open_dir(directory, Path(CUBES), create=True))
    except OSError as e:
        raise UsageError(f"cannot write a certificate in {directory}: {e.strerror or e}") from None


def _write(directory: Path, name: str, lines: Iterable[str]) -> None:
    with atomic_output(directory / name, owned=directory) as f:
        f.write("".join(line + "\n" for line in lines).encode())


def cube_files(index: int) -> tuple[str, str]:
    """The solutions and proof files of the cube numbered ``index`` (from 0), relative to the directory."""
    return f"{CUBES}/{index + 1:05d}.sol", f"{CUBES}/{index + 1:05d}.drat"


def certify(
    formula: QueensFormula,
    directory: Path,
    solver: str = DEFAULT_SOLVER,
    *,
    where: Where = ONE_WORKER,
    deadline: Deadline = NEVER,
    progress: Callable[[GroupCount, int | None], None] | None = None,
) -> Count:
    """Count every board of ``formula`` cube by cube and write the certificate in ``directory``.

    The cubes run on ``where.jobs`` forked workers (or Dask, SLURM); each cube's files are written as it finishes,
    the cover proof and the manifest at the end.  Solver trouble or the deadline ends the count with
    that status and no manifest.  Raises UsageError for a solver without proofs or a used directory, or one
    another process holds (:func:`~cnfgen_queens.cnf.owned.lock_dir`)."""
    check_certify(solver)
    with lock_dir(directory, "--certify"):
        return _certify(CertifyTask(formula, solver, deadline), directory, where, progress)


def _certify(
    task: CertifyTask, directory: Path, where: Where, progress: Callable[[GroupCount, int | None], None] | None
) -> Count:
    start = time.monotonic()
    _prepare(directory)
    cubes = certificate_cubes(task.formula.n)
    done: dict[int, CubeCertificate] = {}

    def finished(c: CubeCertificate) -> bool:
        done[c.index] = c
        if c.status == Status.UNSAT:
            sol, drat = cube_files(c.index)
            _write(directory, sol, (model_line(m) for m in c.models))
            _write(directory, drat, c.proof)
        if progress:
            progress(
                GroupCount(
                    cube=c.cube,
                    count=len(c.models),
                    fundamental=len(c.models),
                    solver_calls=c.solver_calls,
                    status=c.status,
                    error=c.error,
                ),
                len(cubes),
            )
        return c.status == Status.UNSAT

    if not where.parallel and task.deadline.never:
        all(finished(certify_cube(task, i, cube)) for i, cube in enumerate(cubes))
    else:
        items = ((task, i, cube) for i, cube in enumerate(cubes))
        run_tasks(certify_cube, items, finished, where=where, deadline=task.deadline)
    bad = next((done[i] for i in sorted(done) if done[i].status != Status.UNSAT), None)
    calls = sum(c.solver_calls for c in done.values())
    total = sum(len(c.models) for c in done.values())
    if bad is None and len(done) < len(cubes):
        bad = CubeCertificate(-1, (), (), (), 0, Status.TIMEOUT, "time limit reached")
    if bad is None:
        cover = _refute(embedded_solver(task.solver), cover_formula(list(task.formula.clauses()), cubes))
        if cover is None:
            bad = CubeCertificate(-1, (), (), (), 0, Status.ERROR, "the cubes do not cover the formula")
        else:
            _write(directory, COVER, cover)
            _write_manifest(directory, task.formula, task.solver, cubes, done, total)
    wall = time.monotonic() - start
    return Count(
        total=total,
        fundamental=None,
        status=bad.status if bad else Status.UNSAT,
        engine="certify",
        wall=wall,
        solver_calls=calls,
        groups_done=sum(c.status == Status.UNSAT for c in done.values()),
        groups_total=len(cubes),
        error=bad.error if bad else None,
    )


def manifest_formula(formula: QueensFormula) -> dict[str, Any]:
    """The manifest's description of the formula (what the checker regenerates it from): N, the encoding, the
    variant's lines and, for a formula with the lex-leader clauses (``--break-symmetry``), ``break_symmetry``."""
    variables, clauses = formula.counts()
    broken = {"break_symmetry": True} if formula.break_symmetry else {}  # only then: the plain formula's bytes kept
    return {
        "n": formula.n,
        "encoding": formula.encoding,
        "group_size": formula.group_size,
        "column_alo": formula.column_alo,
        "variant": formula.variant.header_lines(),
        **broken,
        "variables": variables,
        "clauses": clauses,
    }


def _write_manifest(
    directory: Path,
    formula: QueensFormula,
    solver: str,
    cubes: list[Clause],
    done: dict[int, CubeCertificate],
    total: int,
) -> None:
    entries = []
    for i, cube in enumerate(cubes):
        sol, drat = cube_files(i)
        entries.append({"cube": list(cube), "solutions": sol, "count": len(done[i].models), "proof": drat})
    manifest = {
        "format": FORMAT,
        "written_by": WRITER,
        **manifest_formula(formula),
        "formula_sha256": formula_hash(formula.clauses()),
        "solver": solver,
        "cubes": entries,
        "cover_proof": COVER,
        "total": total,
    }
    with atomic_output(directory / MANIFEST, owned=directory) as f:
        f.write((json.dumps(manifest, indent=1) + "\n").encode())
