"""The N-queens problem in other formats: OPB (pseudo-Boolean) and MiniZinc.

OPB follows the pseudo-Boolean competition format (V. Manquinho and O. Roussel,
PB06-PB16 input format): first line ``* #variable= V #constraint= C``, comments
start with ``*``, each constraint ``+1 x1 +1 x2 ... = 1 ;`` with relational
operator ``>=`` or ``=`` only.  Variable ``xK`` is cell K of the CNF
(``K = r*N + c + 1``).  One ``= 1`` constraint per row (in row order), then one
at-most-one per column, diagonal and anti-diagonal of length >= 2 (in
:meth:`Board.lines` order), written ``-1 xA -1 xB ... >= -1 ;`` because the format
has no ``<=``.

The MiniZinc model is seed 001's constraint model: one integer per row (its
queen's column), ``all_different`` on q, on q[i] + i and on q[i] - i.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from cnfgen_queens.model.board import Board
from cnfgen_queens.version import __version__

from ..errors import UsageError, printable


def opb_constraints(n: int) -> Iterator[tuple[tuple[tuple[int, int], ...], str, int]]:
    """``(terms, op, rhs)`` of the OPB model; terms are ``(coefficient, variable)``."""
    board = Board(n)
    for r in range(n):
        yield tuple((1, board.var(r, c)) for c in range(n)), "=", 1
    for line in board.lines(("column", "diagonal", "antidiagonal")):
        yield tuple((-1, v) for v in board.line_vars(line)), ">=", -1


def opb_counts(n: int) -> tuple[int, int]:
    """``(variables, constraints)`` without writing: N*N cells, N rows + the other lines."""
    board = Board(n)
    return n * n, n + sum(1 for _ in board.lines(("column", "diagonal", "antidiagonal")))


def opb_comments(n: int, command: str | None = None) -> list[str]:
    lines = [
        f"cnfgen-queens {__version__}: {n}-queens as pseudo-Boolean constraints (OPB)",
        f"x(r,c) = r*{n} + c + 1 for r,c in 0..{n - 1}; one '= 1' per row, '<= 1' per other line as '>= -1'",
    ]
    return [*lines, f"command: {printable(command)}"] if command else lines


def write_opb(out: BinaryIO, n: int, comments: list[str] | None = None) -> int:
    """Write the OPB file; returns the number of constraints written."""
    num_vars, num_constraints = opb_counts(n)
    text = [f"* #variable= {num_vars} #constraint= {num_constraints}\n"]
    text += [f"* {c}\n" for c in comments or ()]
    out.write("".join(text).encode())
    written = 0
    for terms, op, rhs in opb_constraints(n):
        out.write((" ".join(f"{a:+d} x{v}" for a, v in terms) + f" {op} {rhs} ;\n").encode())
        written += 1
    return written


# -- reading (strict: used by the tests, and to check files written elsewhere) ----

_HEADER = re.compile(r"\* #variable= (\d+) #constraint= (\d+)")
_TERM = re.compile(r"[+-]\d+")
_VAR = re.compile(r"x([1-9]\d*)")


class OpbError(UsageError):
    """Text that is not the linear OPB subset we write; the message names the line."""


@dataclass(frozen=True)
class Opb:
    num_vars: int
    constraints: tuple[tuple[tuple[tuple[int, int], ...], str, int], ...]

    def violated(self, true_vars: set[int]) -> int | None:
        """Index of the first constraint a 0/1 assignment violates, or None."""
        for i, (terms, op, rhs) in enumerate(self.constraints):
            lhs = sum(a for a, v in terms if v in true_vars)
            if not (lhs == rhs if op == "=" else lhs >= rhs):
                return i
        return None


def parse_opb(text: str, name: str = "<opb>") -> Opb:
    """Parse linear OPB (header line, ``*`` comments, ``COEF xK ... OP RHS ;``) exactly."""
    lines = text.splitlines()
    m = _HEADER.match(lines[0]) if lines else None
    if not m:
        raise OpbError(f"{name}:1: expected '* #variable= V #constraint= C'")
    num_vars, declared = int(m.group(1)), int(m.group(2))
    constraints = []
    for lineno, line in enumerate(lines[1:], start=2):
        if not line.strip() or line.startswith("*"):
            continue
        toks = line.split()
        if len(toks) < 5 or toks[-1] != ";" or toks[-3] not in (">=", "=") or len(toks[:-3]) % 2:
            raise OpbError(f"{name}:{lineno}: not 'COEF xK ... >=|= RHS ;': {line!r}")
        terms = []
        for coef, var in zip(toks[:-3:2], toks[1:-3:2], strict=True):
            vm = _VAR.fullmatch(var)
            if not _TERM.fullmatch(coef) or not vm or int(vm.group(1)) > num_vars:
                raise OpbError(f"{name}:{lineno}: bad term {coef} {var}")
            terms.append((int(coef), int(vm.group(1))))
        if not _TERM.fullmatch(toks[-2]) and not toks[-2].isdigit():
            raise OpbError(f"{name}:{lineno}: bad right-hand side {toks[-2]!r}")
        constraints.append((tuple(terms), toks[-3], int(toks[-2])))
    if len(constraints) != declared:
        raise OpbError(f"{name}: header says {declared} constraints, file has {len(constraints)}")
    return Opb(num_vars, tuple(constraints))


# -- MiniZinc ----------------------------------------------------------------------


def mzn_text(n: int, comments: list[str] | None = None) -> str:
    """Seed 001's model: q[i] is the column (1..n) of row i's queen."""
    Board(n)  # validates n
    head = "".join(f"% {c}\n" for c in comments or ())
    return head + (
        'include "alldifferent.mzn";\n'
        f"int: n = {n};\n"
        "array[1..n] of var 1..n: q;\n"
        "constraint all_different(q);\n"
        "constraint all_different([q[i] + i | i in 1..n]);\n"
        "constraint all_different([q[i] - i | i in 1..n]);\n"
        "solve satisfy;\n"
        'output ["q = \\(q)\\n"];\n'
    )


def mzn_comments(n: int, command: str | None = None) -> list[str]:
    lines = [
        f"cnfgen-queens {__version__}: {n}-queens, seed 001's constraint model (MiniZinc)",
        "q[i] = column (1..n) of the queen in row i; cell (r, c) = (i - 1, q[i] - 1), x(r,c) = r*n + c + 1",
    ]
    return [*lines, f"command: {printable(command)}"] if command else lines
