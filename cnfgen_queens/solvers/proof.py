"""DRAT proofs of unsatisfiability: check a text DRAT file with dratify where it is installed.

DRAT: Wetzler, Heule, Hunt, "DRAT-trim: Efficient checking and trimming using
expressive clausal proofs", SAT 2014.  dratify (PyPI) is an independent forward
checker (RUP and RAT); it is pure Python, so very large proofs are left unverified.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cnfgen_queens.cnf.dimacs import atomic_output

from .outcome import ProofState

if TYPE_CHECKING:
    from cnfgen_queens.cnf.scan import Cnf

MAX_PROOF_BYTES = 20 * 1024 * 1024  # above this the pure-Python checker takes too long; say unverified


@dataclass(frozen=True)
class ProofCheck:
    """``verdict``: verified, unverified (no checker, too big, unreadable) or rejected."""

    verdict: ProofState
    detail: str


def write_text_proof(path: Path, lines: Iterable[str]) -> None:
    """Write DRAT lines (as pysat's get_proof() returns them) atomically."""

    with atomic_output(Path(path)) as f:
        for line in lines:
            f.write(line.encode() + b"\n")


def check_drat(cnf: Cnf, proof: Path, max_bytes: int = MAX_PROOF_BYTES) -> ProofCheck:
    """Check the text DRAT file ``proof`` against ``cnf``."""
    try:
        import dratify
    except ImportError:
        return ProofCheck(ProofState.UNVERIFIED, "no checker installed (pip install dratify)")
    try:
        size = Path(proof).stat().st_size
        if size > max_bytes:
            mb, most = size / 2**20, max_bytes / 2**20
            note = f"proof is {mb:.0f} MB, above the {most:.0f} MB the in-process checker takes; "
            note += "check it with drat-trim"
            return ProofCheck(ProofState.UNVERIFIED, note)
        text = Path(proof).read_text(encoding="ascii", errors="replace")
    except OSError as e:
        return ProofCheck(ProofState.UNVERIFIED, f"cannot read the proof: {e.strerror or e}")
    formula = dratify.CNF(cnf.num_vars)
    for clause in cnf.clauses():
        formula.add_dimacs(clause)
    try:
        result = dratify.check_proof(formula, text)
    except ValueError as e:  # not text DRAT (binary, truncated)
        return ProofCheck(ProofState.REJECTED, f"dratify {dratify.__version__} cannot read it: {e}")
    if result.ok:
        return ProofCheck(ProofState.VERIFIED, f"dratify {dratify.__version__}: {result.reason}")
    return ProofCheck(ProofState.REJECTED, f"dratify {dratify.__version__}: {result.reason}")
