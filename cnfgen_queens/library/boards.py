"""Boards: a model decoded and checked on its own, and the clause that blocks it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from cnfgen_queens.errors import python_words
from cnfgen_queens.model import decode as _decode

from .arguments import Cell, edge
from .formula import Formula, formula_of


@dataclass(frozen=True)
class Board:
    """A checked N-queens placement: ``columns[r]`` is the queen's column in row ``r`` (0-based).

    ``str()`` is the text board ``cnfgen-queens decode`` prints; a notebook shows the SVG picture.

    Examples:
        >>> import cnfgen_queens as cq
        >>> b = cq.Board((1, 3, 0, 2))
        >>> b.queens
        [(0, 1), (1, 3), (2, 0), (3, 2)]
        >>> print(b, end="")
        · ♛ · ·
        · · · ♛
        ♛ · · ·
        · · ♛ ·
    """

    columns: tuple[int, ...]

    def __post_init__(self) -> None:
        """Checked on its own (DecodeError, a ValueError, says what is wrong): a column per row, no attack."""
        if isinstance(self.columns, str | bytes) or not isinstance(self.columns, Iterable):
            raise TypeError(f"columns must be a sequence of 0-based column integers, got {self.columns!r}")
        cols = tuple(self.columns)
        object.__setattr__(self, "columns", cols)
        n = len(cols)
        wrong = [c for c in cols if type(c) is not int]
        if wrong:
            raise TypeError(f"columns must hold 0-based column integers, got {wrong[0]!r}")
        if not all(0 <= c < n for c in cols):
            raise _decode.DecodeError(f"not a placement of {n} queens (0-based columns): {cols}")
        _decode.placement_from_true_vars(n, (r * n + c + 1 for r, c in enumerate(cols)))

    @property
    def n(self) -> int:
        return len(self.columns)

    @property
    def queens(self) -> list[Cell]:
        """The queens as 0-based ``(row, column)``, row by row."""
        return list(enumerate(self.columns))

    @property
    def line(self) -> str:
        """The columns 1-based, as ``enumerate`` prints a solution: ``'2 4 1 3'``."""
        return _decode.as_line(self.columns)

    def __str__(self) -> str:
        return _decode.as_board(self.columns)

    def _repr_svg_(self) -> str:
        return _decode.as_svg(self.columns)


def board_of(formula: Formula | int, true_vars: Iterable[int]) -> Board:
    if not isinstance(formula, int) or isinstance(formula, bool):
        formula = formula_of(formula, "decode")
    n, variant = (formula, None) if isinstance(formula, int) else (formula.n, formula.formula.variant)
    return Board(_decode.variant_placement(n, true_vars, variant))


@edge
def decode(model: Iterable[int], formula: Formula | int) -> Board:
    """The board of a model (signed literals, e.g. ``solve(f).model`` or a PySAT solver's
    ``get_model()``), checked on its own: one queen per row, none attacking, the variant's squares kept.

    Raises DecodeError (a ValueError) naming what is wrong, as ``cnfgen-queens decode`` does.

    Examples:
        >>> import cnfgen_queens as cq
        >>> f = cq.queens(4)
        >>> cq.decode([-1, 2, -3, -4, -5, -6, -7, 8, 9, -10, -11, -12, -13, -14, 15, -16], f).line
        '2 4 1 3'
    """
    with python_words():
        return board_of(formula, (lit for lit in model if lit > 0))


@edge
def blocking_clause(board: Board) -> tuple[int, ...]:
    """The clause that rules out ``board``, over the cell variables only (``cnfgen-queens block``).

    Examples:
        >>> import cnfgen_queens as cq
        >>> cq.blocking_clause(cq.Board((1, 3, 0, 2)))
        (-2, -8, -9, -15)
    """
    with python_words():
        if not isinstance(board, Board):
            raise TypeError(
                f"board must be a Board (cq.decode(model, f), cq.Board(columns)), got {type(board).__name__}"
            )
        return _decode.blocking_clause(board.columns)
