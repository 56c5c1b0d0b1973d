"""Check a count certificate (:mod:`.certificate`) without trusting the program that wrote it.

What is taken from the certificate is only what it claims; everything it is checked against is
regenerated here: the formula from N, the encoding, the variant and whether it breaks the symmetries
(``break_symmetry``: the lex-leader clauses of ``count --break-symmetry``; its hash must match the
manifest's, so the proofs are about this formula), and the cubes from N.  Then every board is a model
of the formula (every clause evaluated on the listed true variables, all others false), a valid board
on its own (queens not attacking, the variant's cells), inside its cube and new; every cube's DRAT proof
refutes the formula + the cube + the blocking clauses of its boards; the cover proof refutes the
formula + the negated cubes.  Proofs are checked by drat-trim when it is on PATH, else by dratify.
The certified count is the number of distinct boards.

The cubes and the cover are independent parts (:func:`check_part`, below): ``jobs`` workers check them
at once, on the executors the count uses (forked local workers, Dask, SLURM), each proof read as a
stream; the boards come back here, where no board may be listed twice.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cnfgen_queens.certificates.certificate import (
    COVER,
    FORMAT,
    MANIFEST,
    WRITER,
    certificate_cubes,
    cover_formula,
    cube_files,
    cube_formula,
    formula_hash,
)
from cnfgen_queens.certificates.manifest_bounds import (
    ManifestRejected,
    check_bounds,
    check_counts,
    load_manifest,
    proof_cap,
    size_text,
)
from cnfgen_queens.cnf.atomic import work_dir
from cnfgen_queens.cnf.dimacs import Header
from cnfgen_queens.cnf.scan import Cnf, violated_clause
from cnfgen_queens.enumeration.size_cap import check_held_size
from cnfgen_queens.errors import UsageError
from cnfgen_queens.execution.task_pool import run_tasks
from cnfgen_queens.execution.where import ONE_WORKER, Where
from cnfgen_queens.model.board import Placement
from cnfgen_queens.model.decode import Clause, DecodeError, as_line, variant_placement
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.variants import from_header
from cnfgen_queens.solvers.outcome import ProofState
from cnfgen_queens.solvers.proof import check_drat_stream, check_drat_trim, drat_trim

__all__ = ["CHECKERS", "CertificateRejected", "CertifiedCount", "check_certificate", "read_manifest", "regenerate"]


@dataclass(frozen=True)
class CertifiedCount:
    """A checked certificate: the formula, the certified number of boards, what checked the proofs."""

    formula: QueensFormula
    total: int
    cubes: int
    proofs: int
    checker: str


def read_manifest(directory: Path) -> dict[str, Any]:
    """The manifest, or UsageError when ``directory`` holds no certificate."""
    path = Path(directory) / MANIFEST
    try:
        data = load_manifest(path)
    except FileNotFoundError:
        why = f"{directory} holds no certificate (no {MANIFEST}; count N --certify DIR writes one)"
        raise UsageError(why) from None
    if isinstance(data, dict) and data.get("format") != FORMAT and isinstance(data.get("written_by"), str):
        by = repr(data["written_by"][:100])  # a cnfgen-queens certificate of another format: who wrote it
        raise UsageError(
            f"{path}: a certificate of format {data.get('format')!r}, written by {by}; this is "
            f"{WRITER}, which reads {FORMAT!r}: check it with the version that wrote it"
        )
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UsageError(f"{path} is not a certificate of this format ({FORMAT!r})")
    return data


def regenerate(manifest: dict[str, Any]) -> QueensFormula:
    """The formula the manifest names, built by the generator (never read from the certificate)."""
    try:
        variant = from_header(str(line) for line in manifest.get("variant", []))
        broken = manifest.get("break_symmetry") is True  # absent in a certificate of a formula without them
        formula = QueensFormula(
            int(manifest["n"]),
            str(manifest["encoding"]),
            bool(manifest["column_alo"]),
            manifest.get("group_size"),
            variant,
            broken,
        )
    except (KeyError, TypeError, ValueError) as e:
        raise CertificateRejected(f"the manifest names no formula this program generates: {e}") from None
    check_held_size(formula, escape="check a certificate of a smaller formula")  # the checker holds it
    return formula


def check_certificate(directory: Path, checker: str = "auto", *, where: Where = ONE_WORKER) -> CertifiedCount:
    """Check the certificate in ``directory``; the certified count, or CertificateRejected saying why.
    UsageError when there is no certificate there or no checker.  ``where.jobs`` workers on ``where.executor``
    (local forked processes, dask, slurm) check the cubes and the cover at once."""
    directory = Path(directory)
    manifest = read_manifest(directory)
    try:
        check_bounds(manifest)  # every field typed and bounded before anything is built from it
    except ManifestRejected as e:
        raise CertificateRejected(str(e)) from None
    formula = regenerate(manifest)
    cubes = certificate_cubes(formula.n)  # before the formula is built: the work follows the manifest's length
    entries = manifest["cubes"]
    if [tuple(e["cube"]) for e in entries] != cubes:
        raise CertificateRejected(
            f"the manifest's cubes are not the {len(cubes)} cubes of N={formula.n} "
            "(row 0 and row N-1 queens that do not attack)"
        )
    if formula_hash(formula.clauses()) != manifest.get("formula_sha256"):
        raise CertificateRejected(f"the manifest's formula hash is not that of {formula.describe()}")
    try:  # the formula is the one named: its sizes are the manifest's too, before any proof is checked
        check_counts(manifest, formula.counts(), formula.describe())
    except ManifestRejected as e:
        raise CertificateRejected(str(e)) from None
    checker, name = resolve_checker(checker)
    plan = Plan(str(directory.resolve()), formula, checker, proof_cap(formula.n))  # workers may run elsewhere
    for i, entry in enumerate(entries):
        sol, drat = cube_files(i)
        if entry.get("solutions") != sol or entry.get("proof") != drat:
            raise CertificateRejected(f"cube {i + 1}: expected the files {sol} and {drat}")
    if manifest.get("cover_proof") != COVER:
        raise CertificateRejected(f"expected the cover proof {COVER}")
    for part in [*(cube_files(i)[1] for i in range(len(cubes))), COVER]:  # each refused at once, before any work
        refuse_oversized(plan, part)
    seen = _check_parts(plan, cubes, [e["count"] for e in entries], where)
    if manifest.get("total") != len(seen):
        raise CertificateRejected(f"the manifest says {manifest.get('total')} boards, the cubes hold {len(seen)}")
    return CertifiedCount(formula, len(seen), len(cubes), len(cubes) + 1, name)


def _check_parts(plan: Plan, cubes: list[tuple[int, ...]], counts: list[int], where: Where) -> set[Placement]:
    """Every cube's part, then the cover's, on ``where.jobs`` workers; the boards, or the rejection of the first part
    (in the certificate's order) found wrong."""
    seen: set[Placement] = set()
    errors: dict[int, str] = {}
    items = [
        *((plan, i, cube, count) for i, (cube, count) in enumerate(zip(cubes, counts, strict=True))),
        (plan, COVER_PART, (), 0),
    ]

    def finished(result: PartResult) -> bool:
        order = len(cubes) if result.index == COVER_PART else result.index
        if result.error is not None:
            errors[order] = result.error
            return False
        for board in result.boards:
            if board in seen:
                errors[order] = f"{cube_files(result.index)[0]}: {as_line(board)} is listed twice"
                return False
            seen.add(board)
        return True

    if not where.parallel:
        all(finished(check_part(*item)) for item in items)
    else:
        run_tasks(check_part, items, finished, where=where)
    if errors:
        raise CertificateRejected(errors[min(errors)])
    return seen


# --- one part's check, as a worker does it -------------------------------------------------------------------
# One part of a certificate's check, as a worker does it: a cube's boards and DRAT proof, or the cover proof.
#
# :func:`check_part` is what :func:`check_certificate` hands to its workers (or runs in order in its own
# process): the parts are independent, each reads its own files, and the boards a cube holds go back to
# the coordinator, which checks that no board is listed twice across cubes.  A worker builds the formula
# (its clauses, the array its models are checked against, dratify's copy of it) once, not once per part.
# Proofs are read as streams (:func:`.proof.check_drat_stream`) within :func:`.manifest_bounds.proof_cap`
# bytes: memory follows what the checker keeps, not the file.

CHECKERS = ("auto", "drat-trim", "dratify")
COVER_PART = -1  # the index of the cover proof's part


class CertificateRejected(Exception):
    """The certificate does not prove its count; the message says which part fails."""


def resolve_checker(checker: str) -> tuple[str, str]:
    """(checker, its name as printed) for ``--checker``: auto is drat-trim when it is on PATH, else dratify;
    UsageError for one that is not there."""
    if checker not in CHECKERS:
        raise UsageError(f"unknown checker {checker!r}; valid: {', '.join(CHECKERS)}")
    if checker == "auto":
        checker = "drat-trim" if drat_trim() else "dratify"
    if checker == "drat-trim":
        if drat_trim() is None:
            raise UsageError("--checker drat-trim: drat-trim is not on PATH")
        return checker, "drat-trim"
    try:
        import dratify
    except ImportError:
        raise UsageError("no DRAT checker: put drat-trim on PATH or pip install dratify") from None
    return checker, f"dratify {dratify.__version__}"


@dataclass(frozen=True)
class Plan:
    """What every part needs: the certificate's directory, its formula (regenerated), the checker, the cap."""

    directory: str
    formula: QueensFormula
    checker: str  # drat-trim | dratify
    proof_cap: int  # bytes


@dataclass(frozen=True)
class PartResult:
    """A checked part: the boards of its cube (none for the cover), or why it is rejected."""

    index: int  # the cube's (from 0), or COVER_PART
    boards: tuple[Placement, ...] = ()
    error: str | None = None


@dataclass(frozen=True)
class _Held:
    clauses: list[Clause]
    num_vars: int
    cnf: Cnf  # the clauses as one array: models are checked against it


@functools.lru_cache(maxsize=2)
def _held(formula: QueensFormula) -> _Held:
    """The formula as a worker holds it for every part (built once per worker)."""
    import numpy as np

    clauses = list(formula.clauses())
    num_vars = formula.counts()[0]
    lits = np.fromiter((x for c in clauses for x in (*c, 0)), dtype=np.int32)
    return _Held(clauses, num_vars, Cnf(Header(num_vars, len(clauses)), lits))


@functools.lru_cache(maxsize=2)
def _dratify_base(formula: QueensFormula) -> Any:
    """dratify's copy of the formula's clauses (copied per part, the part's own clauses added to the copy)."""
    import dratify

    held = _held(formula)
    base = dratify.CNF(held.num_vars)
    for clause in held.clauses:
        base.add_dimacs(list(clause))
    return base


def refuse_oversized(plan: Plan, name: str) -> None:
    """CertificateRejected naming ``name`` when that proof is larger than a certificate of its N can hold."""
    try:
        size = (Path(plan.directory) / name).stat().st_size
    except OSError:
        return  # missing: said by the part that reads it
    if size > plan.proof_cap:
        cap = size_text(plan.proof_cap)
        raise CertificateRejected(
            f"{name}: {size_text(size)}, more than a proof of a certificate of "
            f"N={plan.formula.n} can be ({cap}); refused unread"
        )


def _check_proof(plan: Plan, what: str, extra: Iterable[Clause], name: str) -> None:
    """The proof ``name`` refutes the formula plus ``extra`` clauses, or CertificateRejected."""
    proof = Path(plan.directory) / name
    if not proof.is_file():
        raise CertificateRejected(f"{what}: the proof {proof.name} is missing")
    refuse_oversized(plan, name)
    held = _held(plan.formula)
    if plan.checker == "dratify":
        base = _dratify_base(plan.formula)
        result = check_drat_stream(held.num_vars, extra, proof, plan.proof_cap, base=base)
    else:
        with work_dir("check") as tmp:
            cnf = Path(tmp) / "formula.cnf"
            added = list(extra)
            with open(cnf, "w", encoding="ascii") as f:
                f.write(f"p cnf {held.num_vars} {len(held.clauses) + len(added)}\n")
                f.writelines(" ".join(map(str, c)) + " 0\n" for c in (*held.clauses, *added))
            result = check_drat_trim(cnf, proof)
    if result.verdict != ProofState.VERIFIED:
        raise CertificateRejected(f"{what}: the proof {proof.name} is not verified ({result.detail})")


def read_models(path: Path, num_vars: int, claimed: int) -> list[tuple[int, ...]]:
    """The true variables of each board in a solutions file (one line each, ended by 0), read as a stream:
    at most ``claimed`` + 1 lines (the manifest's count) of at most 12 bytes a variable each."""
    if not path.is_file():
        raise CertificateRejected(f"the solutions file {path.name} is missing")
    longest = 12 * (num_vars + 1)
    out = []
    with open(path, "rb") as f:
        for i, raw in enumerate(iter(lambda: f.readline(longest + 1), b""), 1):
            if len(raw) > longest:
                raise CertificateRejected(
                    f"{path.name}:{i}: a line longer than {longest:,} bytes, the most {num_vars:,} variables take"
                )
            if i > claimed:
                raise CertificateRejected(f"{path.name} lists more than the {claimed} boards the manifest says")
            line = raw.decode("ascii", errors="replace").rstrip("\r\n")
            try:
                values = [int(t) for t in line.split()]
            except ValueError:
                raise CertificateRejected(f"{path.name}:{i}: not a list of variables: {line[:60]!r}") from None
            if not values or values[-1] != 0 or any(not 0 < v <= num_vars for v in values[:-1]):
                raise CertificateRejected(f"{path.name}:{i}: expected true variables in 1..{num_vars} ended by 0")
            out.append(tuple(values[:-1]))
    return out


def _check_boards(
    formula: QueensFormula, where: str, cube: Clause, models: Sequence[tuple[int, ...]]
) -> tuple[Placement, ...]:
    """Every model satisfies every clause, is a valid board in ``cube``, and is listed once; the boards."""
    cnf = _held(formula).cnf
    seen: dict[Placement, None] = {}
    for i, model in enumerate(models, 1):
        bad = violated_clause(cnf, model)
        if bad is not None:
            raise CertificateRejected(f"{where}:{i}: not a model: clause {bad[0] + 1} ({list(bad[1])}) is false")
        try:
            board = variant_placement(formula.n, model, formula.variant)
        except DecodeError as e:
            raise CertificateRejected(f"{where}:{i}: not a board: {e}") from None
        if not set(cube) <= set(model):
            raise CertificateRejected(f"{where}:{i}: {as_line(board)} is outside the cube {list(cube)}")
        if board in seen:
            raise CertificateRejected(f"{where}:{i}: {as_line(board)} is listed twice")
        seen[board] = None
    return tuple(seen)


def check_part(plan: Plan, index: int, cube: Clause, count: int) -> PartResult:
    """Check cube ``index`` (its ``count`` boards and its proof) or, for :data:`COVER_PART`, the cover proof;
    never raises for a rejected part (the result says why)."""
    formula, directory = plan.formula, Path(plan.directory)
    try:
        if index == COVER_PART:
            cubes = certificate_cubes(formula.n)
            extra = list(cover_formula([], cubes))
            _check_proof(plan, "cover (formula + every negated cube)", extra, COVER)
            return PartResult(index)
        sol, drat = cube_files(index)
        models = read_models(directory / sol, _held(formula).num_vars, count)
        if count != len(models):
            raise CertificateRejected(f"cube {index + 1}: the manifest says {count} boards, {sol} lists {len(models)}")
        boards = _check_boards(formula, sol, cube, models)
        _check_proof(plan, f"cube {index + 1} {list(cube)}", list(cube_formula([], formula.n, cube, models)), drat)
        return PartResult(index, boards)
    except CertificateRejected as e:
        return PartResult(index, error=str(e))
