"""DRAT proofs of unsatisfiability: check a text DRAT file with dratify where it is installed.

:func:`check_drat_trim` runs drat-trim (the reference checker, a C program) where it is on PATH.
DRAT: Wetzler, Heule, Hunt, "DRAT-trim: Efficient checking and trimming using expressive clausal
proofs", SAT 2014.  dratify (PyPI) is an independent forward
checker (RUP and RAT); it is pure Python, so very large proofs are left unverified.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from cnfgen_queens.cnf.atomic import atomic_output

from .outcome import ProofState

if TYPE_CHECKING:
    from cnfgen_queens.cnf.scan import Cnf

MAX_PROOF_BYTES = 20 * 1024 * 1024  # solve --proof: the pure-Python checker reads this much, then says unverified
CHUNK = 1 << 20  # bytes of a proof read at a time by the streaming check
_BREAKS = bytes.maketrans(b"\r\x0b\x0c\x1c\x1d\x1e", b"\n" * 6)  # what str.splitlines breaks at, as dratify
MAX_TOKEN = 1 << 16  # a "literal" longer than this (bytes without a blank) is not DRAT


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
    """Check the text DRAT file ``proof`` against ``cnf`` (:func:`check_drat_stream`)."""
    return check_drat_stream(cnf.num_vars, cnf.clauses(), proof, max_bytes)


class ProofTooLarge(ValueError):
    """A proof read as a stream passed its byte limit."""


class BeyondFormula(ValueError):
    """A proof names a variable beyond the formula's (a fresh variable of an extension step)."""


def drat_steps(f: BinaryIO, max_var: int, max_bytes: int) -> Iterator[tuple[str, tuple[int, ...]]]:
    """The steps of a text DRAT proof as dratify's checker takes them (``("a"|"d", internal literals)``), read
    :data:`CHUNK` bytes at a time: memory follows the clause being read, not the file, whatever its lines.

    The text is dratify's (``parse_proof``): clauses end with 0 wherever the line breaks fall, ``d`` opens a
    deletion, a line whose first non-blank is ``c`` is a comment.  ValueError (naming the line) for anything
    else, :class:`BeyondFormula` for a variable above ``max_var``, :class:`ProofTooLarge` when the proof goes on
    past ``max_bytes`` (after the steps within them)."""
    from dratify.lits import from_dimacs

    kind, line, opened = "a", 1, 0
    lits: list[int] = []
    state: str | None = None  # the line's: None before its first non-blank, "c" comment, "b" body
    carry, read, over = b"", 0, False
    while not over and (chunk := f.read(min(CHUNK, max_bytes + 1 - read))):
        read += len(chunk)
        if over := read > max_bytes:  # one byte past the limit, read to know there is more: the steps before it go
            chunk = chunk[:-1]  # to the checker first (it stops reading once it has refuted the formula)
        pieces = chunk.translate(_BREAKS).split(b"\n")
        for i, piece in enumerate(pieces):
            ends = i < len(pieces) - 1
            if state is None:
                piece = piece.lstrip()
                if piece:
                    state = "c" if piece[:1] == b"c" else "b"
            if state == "b":
                piece = carry + piece
                carry = b""
                tokens = piece.split()
                if not ends and tokens and not piece[-1:].isspace():
                    carry = tokens.pop()  # cut by the chunk's end: read on
                    if len(carry) > MAX_TOKEN:
                        raise ValueError(f"proof line {line}: a token of more than {MAX_TOKEN:,} bytes")
                for tok in tokens:
                    if tok[:1] == b"d":
                        if opened:
                            raise ValueError(f"proof line {line}: {tok[:20]!r} inside a clause")
                        kind, opened, tok = "d", line, tok[1:]
                        if not tok:
                            continue
                    try:
                        d = int(tok)
                    except ValueError:
                        raise ValueError(f"proof line {line}: bad token {tok[:20]!r}") from None
                    if d == 0:
                        yield kind, tuple(lits)
                        kind, lits, opened = "a", [], 0
                    elif abs(d) > max_var:
                        raise BeyondFormula(
                            f"proof line {line}: literal {d} names a variable beyond the formula's {max_var:,}"
                        )
                    else:
                        lits.append(from_dimacs(d))
                        opened = opened or line
            if ends:
                line += 1
                state = None
    if over:
        raise ProofTooLarge(f"{max_bytes:,} bytes")
    if carry or opened:
        raise ValueError(f"proof line {opened or line}: clause not terminated by 0 before the end of the proof")


def check_drat_stream(
    num_vars: int, clauses: Iterable[Sequence[int]], proof: Path, max_bytes: int, base: Any = None
) -> ProofCheck:
    """Check the text DRAT file ``proof`` against ``clauses`` (over variables 1..``num_vars``) with dratify, read
    as a stream (:func:`drat_steps`): the whole text and its parsed steps are never held, only what the checker
    keeps.  Unverified (not checked here; drat-trim checks such proofs) when not refuted within ``max_bytes``
    (the pure Python checker's time: the rest is not read) or naming a variable beyond ``num_vars`` (an
    extension variable: the solvers that write proofs here introduce none, and a huge one would size the
    checker's tables); rejected when it is not text DRAT or does not refute.  ``base``: a ``dratify.CNF`` of
    clauses that come first, shared by many checks (copied, never changed)."""
    try:
        import dratify
        from dratify.proof import DRATChecker
    except ImportError:
        return ProofCheck(ProofState.UNVERIFIED, "no checker installed (pip install dratify)")
    formula = dratify.CNF(num_vars)
    if base is not None:  # its clauses are tuples, never changed: the checker copies what it keeps
        formula.nvars, formula.clauses = max(num_vars, base.nvars), list(base.clauses)
    for clause in clauses:
        formula.add_dimacs(list(clause))
    try:
        with open(proof, "rb") as f:
            result = DRATChecker(formula).check(drat_steps(f, num_vars, max_bytes))
    except OSError as e:
        return ProofCheck(ProofState.UNVERIFIED, f"cannot read the proof: {e.strerror or e}")
    except ProofTooLarge as e:
        return ProofCheck(
            ProofState.UNVERIFIED,
            f"not refuted within its first {e}, the most the in-process checker reads; check it with drat-trim",
        )
    except BeyondFormula as e:
        return ProofCheck(ProofState.UNVERIFIED, f"not checked: {e} (an extension variable; drat-trim checks it)")
    except ValueError as e:  # not text DRAT
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
        run = subprocess.run(
            [exe, str(cnf), str(proof), "-t", str(max(1, int(timeout)))],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout + 10,
            check=False,
        )
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
