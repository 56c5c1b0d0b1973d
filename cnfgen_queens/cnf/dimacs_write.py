"""DIMACS CNF written: header and clause lines (:mod:`.dimacs` reads it and names these again).

Apart from the reader, so that ``gen-queens N`` loads no reading code at start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cnfgen_queens.errors import printable

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import BinaryIO

Clause = tuple[int, ...]
CHUNK = 1 << 16
MAX_VAR = 2**31 - 1  # the largest variable DIMACS solvers accept (signed 32-bit literals)


def n_clauses(k: int) -> str:
    """``1 clause``, ``3 clauses``."""
    return f"{k} clause" if k == 1 else f"{k} clauses"


def clause_line(clause: Iterable[int]) -> str:
    return " ".join(map(str, clause)) + " 0\n"


def write_header(
    out: BinaryIO, num_vars: int, num_clauses: int, comments: Iterable[str] = (), show: int | None = None
) -> None:
    """Comment lines, then (``show``) the projection line ``c p show 1 ... show 0`` streamed in
    pieces, then ``p cnf V C``."""
    out.write("".join(f"c {printable(c)}\n" if c else "c\n" for c in comments).encode())  # one line each
    if show is not None:
        out.write(b"c p show")
        for lo in range(1, show + 1, CHUNK * 4):
            out.write((" " + " ".join(map(str, range(lo, min(show + 1, lo + CHUNK * 4))))).encode())
        out.write(b" 0\n")
    out.write(f"p cnf {num_vars} {num_clauses}\n".encode())


def write_clauses(out: BinaryIO, clauses: Iterable[Clause]) -> int:
    """Write clauses in chunks; returns how many were written."""
    count = 0
    buf: list[str] = []
    for clause in clauses:
        buf.append(" ".join(map(str, clause)))
        if len(buf) >= CHUNK:
            out.write((" 0\n".join(buf) + " 0\n").encode())
            count += len(buf)
            buf.clear()
    if buf:
        out.write((" 0\n".join(buf) + " 0\n").encode())
        count += len(buf)
    return count
