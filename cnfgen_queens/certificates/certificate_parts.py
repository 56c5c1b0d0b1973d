"""One part of a certificate's check, as a worker does it: a cube's boards and DRAT proof, or the cover proof.

:func:`check_part` is what :mod:`.certificate_check` hands to its workers (or runs in order in its own
process): the parts are independent, each reads its own files, and the boards a cube holds go back to
the coordinator, which checks that no board is listed twice across cubes.  A worker builds the formula
(its clauses, the array its models are checked against, dratify's copy of it) once, not once per part.
Proofs are read as streams (:func:`.proof.check_drat_stream`) within :func:`.manifest_bounds.proof_cap`
bytes: memory follows what the checker keeps, not the file.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cnfgen_queens.certificates.certificate import COVER, certificate_cubes, cover_formula, cube_files, cube_formula
from cnfgen_queens.certificates.manifest_bounds import size_text
from cnfgen_queens.cnf.atomic import work_dir
from cnfgen_queens.cnf.dimacs import Header
from cnfgen_queens.cnf.scan import Cnf, violated_clause
from cnfgen_queens.errors import UsageError
from cnfgen_queens.model.board import Placement
from cnfgen_queens.model.decode import Clause, DecodeError, as_line, variant_placement
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.solvers.outcome import ProofState
from cnfgen_queens.solvers.proof import check_drat_stream, check_drat_trim, drat_trim

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
        raise CertificateRejected(f"{name}: {size_text(size)}, more than a proof of a certificate of "
                                  f"N={plan.formula.n} can be ({cap}); refused unread")  # fmt: skip


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


def _check_boards(formula: QueensFormula, where: str, cube: Clause,
                  models: Sequence[tuple[int, ...]]) -> tuple[Placement, ...]:  # fmt: skip
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
