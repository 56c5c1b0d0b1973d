"""The N-queens formula: at-least-one per row, at-most-one per line.

Clause order (fixed, so the same options give the same bytes): the at-least-one
clause of each row, then (with ``column_alo``) of each column, then the
at-most-one encoding of every line of length >= 2 in :meth:`Board.lines` order
(on the torus: :func:`variants.torus_lines`), then a variant's unit clauses
(placed queens, then blocked squares; see :mod:`cnfgen_queens.model.variants`), then
(``break_symmetry``) the lex-leader clauses of :mod:`cnfgen_queens.model.lex_leader`.
Auxiliary variables are numbered from ``N*N + 1`` in that same order.
``MAX_N`` keeps the N*N cell variables within DIMACS's 2^31-1.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from cnfgen_queens.encodings import Clause, Encoding, VarPool, get, names
from cnfgen_queens.errors import option, printable
from cnfgen_queens.model.board import Board, Line
from cnfgen_queens.model.variants import PLAIN, Variant, torus_lines
from cnfgen_queens.version import __version__

if TYPE_CHECKING:
    from collections.abc import Iterator

    from cnfgen_queens.model.lex_leader import BoardGroup

HEADER_BREAK = "symmetry breaking:"
MAX_N = 46340  # the largest N with N*N <= 2^31-1


@dataclass(frozen=True)
class QueensFormula:
    """What ``gen-queens`` generates: board size, encoding and its parameters."""

    n: int
    encoding: str = "pairwise"
    column_alo: bool = False
    group_size: int | None = None
    variant: Variant = PLAIN
    break_symmetry: bool = False

    def __post_init__(self) -> None:
        Board(self.n)  # validates n
        self.variant.validate(self.n)  # VariantError is a ValueError
        enc = get(self.encoding)  # validates the name
        if self.group_size is not None:
            if not enc.takes_group_size:
                takers = ", ".join(e for e in names() if get(e).takes_group_size)
                raise ValueError(f"{option('--group-size')} applies to {takers}, not to {self.encoding}")
            enc.count(2, group_size=self.group_size)  # validates the value
        if self.break_symmetry:
            _ = self.group  # GroupTooLarge (a UsageError) for a torus group too large to list

    @cached_property
    def group(self) -> BoardGroup:
        """The symmetries the variant keeps (``break_symmetry`` breaks them all)."""
        from cnfgen_queens.model.lex_leader import board_group  # symmetry breaking only: not at start-up

        return board_group(self.n, self.variant)

    @property
    def board(self) -> Board:
        return Board(self.n)

    @property
    def enc(self) -> Encoding:
        return get(self.encoding)

    @property
    def params(self) -> dict[str, int]:
        return self.enc.accepted({"group_size": self.group_size} if self.group_size else {})

    def line_lengths(self) -> Iterator[int]:
        if self.variant.torus:  # 4N lines of length N (rows, columns, wrapped diagonals); none for N = 1
            return iter([self.n] * (4 * self.n if self.n >= 2 else 0))
        return (length for *_, length in self.board.progressions())

    def lines(self) -> Iterator[Line]:
        """The at-most-one lines: the board's, or the torus's wrapped ones."""
        return torus_lines(self.n) if self.variant.torus else self.board.lines()

    def counts(self) -> tuple[int, int]:
        """``(variables, clauses)`` without building the formula."""
        return self._counts

    @cached_property
    def _counts(self) -> tuple[int, int]:
        n = self.n
        clauses = n * (2 if self.column_alo else 1)
        aux = 0
        cache: dict[int, tuple[int, int]] = {}
        for length in self.line_lengths():
            if length not in cache:
                cache[length] = self.enc.count(length, **self.params)
            c, a = cache[length]
            clauses += c
            aux += a
        clauses += len(self.variant.placed) + len(self.variant.holes)
        if self.break_symmetry:
            lex_clauses, lex_aux = self.group.size()
            clauses += lex_clauses
            aux += lex_aux
        return n * n + aux, clauses

    def tail(self) -> Iterator[Clause]:
        """The clauses after the lines': the variant's unit clauses, then the lex-leader clauses."""
        yield from self.variant.unit_clauses(self.n)
        if self.break_symmetry:
            num_vars, _ = self.counts()
            yield from self.group.clauses(num_vars - self.group.size()[1])

    def clauses(self) -> Iterator[Clause]:
        """Every clause, streamed line by line."""
        board, n = self.board, self.n
        for r in range(n):
            yield tuple(board.var(r, c) for c in range(n))
        if self.column_alo:
            for c in range(n):
                yield tuple(board.var(r, c) for r in range(n))
        pool = VarPool(n * n)
        enc, params = self.enc, self.params
        for line in self.lines():
            yield from enc(board.line_vars(line), pool, **params)
        yield from self.tail()

    def describe(self) -> str:
        extra = "".join(f" {k}={v}" for k, v in self.params.items())
        return f"n={self.n} encoding={self.encoding}{extra} column_alo={str(self.column_alo).lower()}"

    def header_comments(self, command: str | None = None, show: bool = True) -> list[str]:
        """Comment lines (without the leading ``c``) for the DIMACS header; ``show=False`` leaves out the
        last one, ``p show 1 ... N*N 0``, for :func:`.dimacs.write_header` to stream."""
        n = self.n
        num_vars, _ = self.counts()
        aux = f"; auxiliary variables {n * n + 1}..{num_vars}" if num_vars > n * n else ""
        lines = [
            f"cnfgen-queens {__version__}: {n}-queens",
            self.describe(),
            f"x(r,c) = r*{n} + c + 1 for r,c in 0..{n - 1} (row-major, 1-based){aux}",
            *self.variant.header_lines(),
        ]
        if not self.enc.builtin:  # the plugin that makes the file again, and its source's hash
            from cnfgen_queens.encodings.plugins import header_line

            lines.append(printable(header_line(self.encoding)))
        if self.break_symmetry:
            lex_clauses, lex_aux = self.group.size()
            first = num_vars - lex_aux + 1
            lines.append(
                f"{HEADER_BREAK} lex-leader (a queen before an empty square) over x(1..{n * n}) for every map of "
                f"{self.group.describe()}: {lex_clauses} clauses"
                + (f", auxiliary variables {first}..{num_vars}" if lex_aux else "")
                + "; one model per orbit"
            )
        if command:
            lines.append(f"command: {printable(command)}")  # a name with a newline must not start a line
        if show:
            lines.append("p show " + " ".join(map(str, range(1, n * n + 1))) + " 0")
        return lines
