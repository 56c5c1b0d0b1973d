"""Check a count certificate (:mod:`.certificate`) without trusting the program that wrote it.

What is taken from the certificate is only what it claims; everything it is checked against is
regenerated here: the formula from N, the encoding and the variant (its hash must match the
manifest's, so the proofs are about this formula), and the cubes from N.  Then every board is a model
of the formula (every clause evaluated on the listed true variables, all others false), a valid board
on its own (queens not attacking, the variant's cells), inside its cube and new; every cube's DRAT proof
refutes the formula + the cube + the blocking clauses of its boards; the cover proof refutes the
formula + the negated cubes.  Proofs are checked by drat-trim when it is on PATH, else by dratify.
The certified count is the number of distinct boards.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cnfgen_queens.cnf.atomic import work_dir
from cnfgen_queens.cnf.dimacs import Header
from cnfgen_queens.cnf.scan import Cnf, violated_clause
from cnfgen_queens.errors import UsageError
from cnfgen_queens.model.board import Placement
from cnfgen_queens.model.decode import Clause, DecodeError, as_line, variant_placement
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.variants import from_header
from cnfgen_queens.solutions.certificate import (
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
from cnfgen_queens.solutions.manifest_bounds import ManifestRejected, check_bounds, load_manifest
from cnfgen_queens.solutions.size_cap import check_held_size
from cnfgen_queens.solvers.outcome import ProofState
from cnfgen_queens.solvers.proof import MAX_PROOF_BYTES, check_drat_clauses, check_drat_trim, drat_trim

CHECKERS = ("auto", "drat-trim", "dratify")


class CertificateRejected(Exception):
    """The certificate does not prove its count; the message says which part fails."""


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
        formula = QueensFormula(int(manifest["n"]), str(manifest["encoding"]), bool(manifest["column_alo"]),
                                manifest.get("group_size"), variant)  # fmt: skip
    except (KeyError, TypeError, ValueError) as e:
        raise CertificateRejected(f"the manifest names no formula this program generates: {e}") from None
    check_held_size(formula, escape="check a certificate of a smaller formula")  # the checker holds it
    return formula


class _Proofs:
    """Checks DRAT proofs with the chosen checker; ``name`` says which."""

    def __init__(self, checker: str, num_vars: int, workdir: Path) -> None:
        if checker not in CHECKERS:
            raise UsageError(f"unknown checker {checker!r}; valid: {', '.join(CHECKERS)}")
        if checker == "auto":
            checker = "drat-trim" if drat_trim() else "dratify"
        if checker == "drat-trim" and drat_trim() is None:
            raise UsageError("--checker drat-trim: drat-trim is not on PATH")
        if checker == "dratify":
            try:
                import dratify
            except ImportError:
                raise UsageError("no DRAT checker: put drat-trim on PATH or pip install dratify") from None
            self.name = f"dratify {dratify.__version__}"
        else:
            self.name = "drat-trim"
        self.checker, self.num_vars, self.workdir = checker, num_vars, workdir

    def check(self, what: str, clauses: Sequence[Clause], proof: Path) -> None:
        if not proof.is_file():
            raise CertificateRejected(f"{what}: the proof {proof.name} is missing")
        if self.checker == "dratify":
            result = check_drat_clauses(self.num_vars, clauses, proof, max_bytes=max(MAX_PROOF_BYTES, 2**30))
        else:
            cnf = self.workdir / "formula.cnf"
            with open(cnf, "w", encoding="ascii") as f:
                f.write(f"p cnf {self.num_vars} {len(clauses)}\n")
                f.writelines(" ".join(map(str, c)) + " 0\n" for c in clauses)
            result = check_drat_trim(cnf, proof)
        if result.verdict != ProofState.VERIFIED:
            raise CertificateRejected(f"{what}: the proof {proof.name} is not verified ({result.detail})")


def _models(path: Path, num_vars: int, claimed: int) -> list[tuple[int, ...]]:
    """The true variables of each board in a solutions file (one line each, ended by 0), read as a stream:
    at most ``claimed`` + 1 lines (the manifest's count) of at most 12 bytes a variable each."""
    if not path.is_file():
        raise CertificateRejected(f"the solutions file {path.name} is missing")
    longest = 12 * (num_vars + 1)
    out = []
    with open(path, "rb") as f:
        for i, raw in enumerate(iter(lambda: f.readline(longest + 1), b""), 1):
            if len(raw) > longest:
                raise CertificateRejected(f"{path.name}:{i}: a line longer than {longest:,} bytes, the most "
                                          f"{num_vars:,} variables take")  # fmt: skip
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


def _check_boards(formula: QueensFormula, clauses: Sequence[Clause], where: str, cube: Clause,
                  models: Iterable[tuple[int, ...]], seen: set[Placement]) -> None:  # fmt: skip
    """Every model satisfies every clause, is a valid board in ``cube``, and was not seen before."""
    import numpy as np

    lits = np.fromiter((x for c in clauses for x in (*c, 0)), dtype=np.int32)
    cnf = Cnf(Header(formula.counts()[0], len(clauses)), lits)
    n = formula.n
    for i, model in enumerate(models, 1):
        bad = violated_clause(cnf, model)
        if bad is not None:
            raise CertificateRejected(f"{where}:{i}: not a model: clause {bad[0] + 1} ({list(bad[1])}) is false")
        try:
            board = variant_placement(n, model, formula.variant)
        except DecodeError as e:
            raise CertificateRejected(f"{where}:{i}: not a board: {e}") from None
        if not set(cube) <= set(model):
            raise CertificateRejected(f"{where}:{i}: {as_line(board)} is outside the cube {list(cube)}")
        if board in seen:
            raise CertificateRejected(f"{where}:{i}: {as_line(board)} is listed twice")
        seen.add(board)


def check_certificate(directory: Path, checker: str = "auto") -> CertifiedCount:
    """Check the certificate in ``directory``; the certified count, or CertificateRejected saying why.
    UsageError when there is no certificate there or no checker."""
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
    clauses = list(formula.clauses())
    num_vars = formula.counts()[0]
    if formula_hash(clauses) != manifest.get("formula_sha256"):
        raise CertificateRejected(f"the manifest's formula hash is not that of {formula.describe()}")
    seen: set[Placement] = set()
    with work_dir("check") as tmp:
        proofs = _Proofs(checker, num_vars, tmp)
        for i, (cube, entry) in enumerate(zip(cubes, entries, strict=True)):
            sol, drat = cube_files(i)
            if entry.get("solutions") != sol or entry.get("proof") != drat:
                raise CertificateRejected(f"cube {i + 1}: expected the files {sol} and {drat}")
            models = _models(directory / sol, num_vars, entry["count"])
            if entry.get("count") != len(models):
                raise CertificateRejected(f"cube {i + 1}: the manifest says {entry.get('count')} boards, {sol} "
                                          f"lists {len(models)}")  # fmt: skip
            _check_boards(formula, clauses, sol, cube, models, seen)
            proofs.check(f"cube {i + 1} {list(cube)}", list(cube_formula(clauses, formula.n, cube, models)),
                         directory / drat)  # fmt: skip
        if manifest.get("cover_proof") != COVER:
            raise CertificateRejected(f"expected the cover proof {COVER}")
        proofs.check("cover (formula + every negated cube)", list(cover_formula(clauses, cubes)), directory / COVER)
        name = proofs.name
    if manifest.get("total") != len(seen):
        raise CertificateRejected(f"the manifest says {manifest.get('total')} boards, the cubes hold {len(seen)}")
    return CertifiedCount(formula, len(seen), len(cubes), len(cubes) + 1, name)
