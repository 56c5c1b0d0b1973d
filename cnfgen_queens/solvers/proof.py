"""DRAT proofs of unsatisfiability: check a text DRAT file with dratify where it is installed.

:func:`check_drat_trim` runs drat-trim (the reference checker, a C program) where it is on PATH.
DRAT: Wetzler, Heule, Hunt, "DRAT-trim: Efficient checking and trimming using expressive clausal
proofs", SAT 2014.  dratify (PyPI) is an independent forward
checker (RUP and RAT); it is pure Python, so very large proofs are left unverified.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cnfgen_queens.cnf.atomic import atomic_output

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
    return check_drat_clauses(cnf.num_vars, cnf.clauses(), proof, max_bytes)


def check_drat_clauses(num_vars: int, clauses: Iterable[Sequence[int]], proof: Path,
                       max_bytes: int = MAX_PROOF_BYTES) -> ProofCheck:  # fmt: skip
    """Check the text DRAT file ``proof`` against ``clauses`` (over variables 1..``num_vars``) with dratify."""
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
    formula = dratify.CNF(num_vars)
    for clause in clauses:
        formula.add_dimacs(list(clause))
    try:
        result = dratify.check_proof(formula, text)
    except ValueError as e:  # not text DRAT (binary, truncated)
        return ProofCheck(ProofState.REJECTED, f"dratify {dratify.__version__} cannot read it: {e}")
    if result.ok:
        return ProofCheck(ProofState.VERIFIED, f"dratify {dratify.__version__}: {result.reason}")
    return ProofCheck(ProofState.REJECTED, f"dratify {dratify.__version__}: {result.reason}")


def drat_trim() -> str | None:
    """The path of ``drat-trim`` on PATH, or None."""
    return shutil.which("drat-trim")


def check_drat_trim(cnf: Path, proof: Path, timeout: float = 3600.0) -> ProofCheck:
    """Check the text DRAT file ``proof`` against the DIMACS file ``cnf`` with drat-trim (``s VERIFIED``)."""
    exe = drat_trim()
    if exe is None:
        return ProofCheck(ProofState.UNVERIFIED, "drat-trim is not on PATH")
    try:
        run = subprocess.run([exe, str(cnf), str(proof), "-t", str(max(1, int(timeout)))], capture_output=True,
                             text=True, errors="replace", timeout=timeout + 10, check=False)  # fmt: skip
    except subprocess.TimeoutExpired:
        return ProofCheck(ProofState.UNVERIFIED, f"drat-trim did not finish in {timeout:.0f} s")
    except OSError as e:
        return ProofCheck(ProofState.UNVERIFIED, f"cannot run drat-trim: {e.strerror or e}")
    lines = [line.strip() for line in run.stdout.splitlines()]
    if "s VERIFIED" in lines:
        return ProofCheck(ProofState.VERIFIED, "drat-trim: s VERIFIED")
    said = next((line for line in reversed(lines) if line.startswith("s ")), None)
    if said == "s TIMEOUT":
        return ProofCheck(ProofState.UNVERIFIED, "drat-trim: time out")
    last = said or (lines[-1] if lines else f"exit {run.returncode}")
    return ProofCheck(ProofState.REJECTED, f"drat-trim: {last}")
