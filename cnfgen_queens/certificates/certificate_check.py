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

The cubes and the cover are independent parts (:mod:`.certificate_parts`): ``jobs`` workers check them
at once, on the executors the count uses (forked local workers, Dask, SLURM), each proof read as a
stream; the boards come back here, where no board may be listed twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cnfgen_queens.certificates.certificate import (
    COVER,
    FORMAT,
    MANIFEST,
    WRITER,
    certificate_cubes,
    cube_files,
    formula_hash,
)
from cnfgen_queens.certificates.certificate_parts import (
    CHECKERS,
    COVER_PART,
    CertificateRejected,
    PartResult,
    Plan,
    check_part,
    refuse_oversized,
    resolve_checker,
)
from cnfgen_queens.certificates.manifest_bounds import (
    ManifestRejected,
    check_bounds,
    check_counts,
    load_manifest,
    proof_cap,
)
from cnfgen_queens.enumeration.size_cap import check_held_size
from cnfgen_queens.errors import UsageError
from cnfgen_queens.execution.task_pool import run_tasks
from cnfgen_queens.execution.where import ONE_WORKER, Where
from cnfgen_queens.model.board import Placement
from cnfgen_queens.model.decode import as_line
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.variants import from_header

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
        raise UsageError(f"{path}: a certificate of format {data.get('format')!r}, written by {by}; this is "
                         f"{WRITER}, which reads {FORMAT!r}: check it with the version that wrote it")  # fmt: skip
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UsageError(f"{path} is not a certificate of this format ({FORMAT!r})")
    return data


def regenerate(manifest: dict[str, Any]) -> QueensFormula:
    """The formula the manifest names, built by the generator (never read from the certificate)."""
    try:
        variant = from_header(str(line) for line in manifest.get("variant", []))
        broken = manifest.get("break_symmetry") is True  # absent in a certificate of a formula without them
        formula = QueensFormula(int(manifest["n"]), str(manifest["encoding"]), bool(manifest["column_alo"]),
                                manifest.get("group_size"), variant, broken)  # fmt: skip
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
        raise CertificateRejected(f"the manifest's cubes are not the {len(cubes)} cubes of N={formula.n} "
                                  "(row 0 and row N-1 queens that do not attack)")  # fmt: skip
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
    items = [*((plan, i, cube, count) for i, (cube, count) in enumerate(zip(cubes, counts, strict=True))),
             (plan, COVER_PART, (), 0)]  # fmt: skip

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
