"""From a model to a board, checked on its own, and back to blocking clauses.

A model is read only on the N*N cell variables (auxiliary variables are not
determined by the board).  The placement is checked independently of any CNF:
exactly one queen per row and no two queens attacking (an independent set of the
conflict graph).  Formats: Unicode/ASCII board, seed 001's positions, JSON, SVG
and PNG.
"""

from __future__ import annotations

from operator import add, sub
from typing import TYPE_CHECKING

from cnfgen_queens.model.board import Board, Placement, find_attack, images

from ..errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any, BinaryIO

    from cnfgen_queens.model.variants import Variant

Clause = tuple[int, ...]
FORMATS = ("board", "positions", "json", "line", "svg", "png")


class DecodeError(UsageError):
    """A model that is not an N-queens solution; the message says why."""


def placement_from_true_vars(n: int, true_vars: Iterable[int]) -> Placement:
    """The placement of the true cell variables (1..N*N), checked to be a solution."""
    board = Board(n)
    queens = sorted(board.cell(v) for v in set(true_vars) if 0 < v <= n * n)
    pair = find_attack(board, queens)
    if pair is not None:
        (r1, c1), (r2, c2) = pair
        raise DecodeError(
            f"queens at row {r1 + 1} column {c1 + 1} (variable {board.var(r1, c1)}) and "
            f"row {r2 + 1} column {c2 + 1} (variable {board.var(r2, c2)}) attack each other"
        )
    if len(queens) != n:
        raise DecodeError(f"{len(queens)} queen{'' if len(queens) == 1 else 's'} on the {n}x{n} board, expected {n}")
    return tuple(c for _, c in queens)


def variant_placement(n: int, true_vars: Iterable[int], variant: Variant | None = None) -> Placement:
    """:func:`placement_from_true_vars`, then the variant's own constraints (placed queens
    present, no queen on a blocked square, no attack along a wrapped diagonal)."""
    placement = placement_from_true_vars(n, true_vars)
    if variant is not None and variant.active:
        why = variant.check(n, list(enumerate(placement)))
        if why is not None:
            raise DecodeError(why)
    return placement


def model_placement(n: int, model: Sequence[int], variant: Variant | None = None) -> Placement:
    """:func:`variant_placement` of a solver's model (signed literals of variables 1, 2, ... in order).

    A valid board is recognised in O(N) by a :class:`BoardReader` (the enumeration loops call it once per
    solution); anything else goes through :func:`variant_placement`, which says what is wrong.
    """
    return BoardReader(n, variant).placement(model)


class BoardReader:
    """Decode and check models of one N (and variant) in O(N) beyond reading the N*N cell literals.

    A model lists the literals of variables 1, 2, ... in order (as PySAT's ``get_model``), so its first N*N
    entries are the cells.  :meth:`read` gives the true cell variables and the placement, checked: one per
    row, no two in a column or diagonal (built-in set and map operations, no Python code per cell), and the
    variant's cells; anything else raises DecodeError saying what is wrong (:func:`variant_placement`).  The blocking
    clause is ``[-q for q in queens]``: no placement is built for it.

    >>> BoardReader(4).placement([-1, 2, -3, -4, -5, -6, -7, 8, 9, -10, -11, -12, -13, -14, 15, -16])
    (1, 3, 0, 2)
    """

    def __init__(self, n: int, variant: Variant | None = None) -> None:
        self.n, self.cells = n, n * n
        self.variant = variant if variant is not None and variant.active else None
        self.all_cells = frozenset(range(1, n * n + 1))
        self.columns = frozenset(range(n))
        self.bases = [r * n + 1 for r in range(n)]  # variable of (r, 0)
        self.rows = range(n)

    def read(self, model: Sequence[int]) -> tuple[list[int], Placement]:
        """The true cell variables of ``model`` in row order and the column of each row's queen (0-based),
        checked to be a solution (DecodeError)."""
        n = self.n
        queens = sorted(self.all_cells.intersection(model[: self.cells]))
        cols = tuple(map(sub, queens, self.bases))
        if (
            len(queens) != n
            or self.columns.symmetric_difference(cols)  # N queens in order, columns 0..N-1: one per row
            or len(set(map(sub, cols, self.rows))) != n
            or len(set(map(add, cols, self.rows))) != n
        ):
            cols = variant_placement(n, (v for v in model if 0 < v <= self.cells), self.variant)  # says why
            return list(map(add, cols, self.bases)), cols  # a board after all (a model not in variable order)
        if self.variant is not None:
            why = self.variant.check(n, list(enumerate(cols)))
            if why is not None:
                raise DecodeError(why)
        return queens, cols

    def placement(self, model: Sequence[int]) -> Placement:
        """The column of each row's queen (0-based), checked (DecodeError)."""
        return self.read(model)[1]


def blocking_clause(placement: Placement) -> Clause:
    """Seed 000's clause: the negated queens, over cell variables only."""
    n = len(placement)
    return tuple(-(r * n + c + 1) for r, c in enumerate(placement))


def blocking_clauses(placement: Placement, symmetric: bool = False) -> list[Clause]:
    """One clause, or one per distinct image under the 8 symmetries."""
    if not symmetric:
        return [blocking_clause(placement)]
    return [blocking_clause(p) for p in images(placement)]


# -- formats ----------------------------------------------------------------------


def as_line(placement: Placement) -> str:
    """Columns per row, 1-based, space separated: the solutions-file format."""
    return " ".join(str(c + 1) for c in placement)


def parse_line(text: str, n: int | None = None) -> Placement:
    """Inverse of :func:`as_line`, checked to be a solution."""
    try:
        cols = [int(t) - 1 for t in text.split()]
    except ValueError:
        raise DecodeError(f"not a placement line: {text.strip()!r}") from None
    size = len(cols) if n is None else n
    if len(cols) != size or any(not 0 <= c < size for c in cols):
        raise DecodeError(f"not a placement of {size} queens: {text.strip()!r}")
    return placement_from_true_vars(size, (r * size + c + 1 for r, c in enumerate(cols)))


def as_board(placement: Placement, ascii: bool = False) -> str:
    queen, empty = ("Q", ".") if ascii else ("\u265b", "\u00b7")
    n = len(placement)
    return "".join(" ".join(queen if c == q else empty for c in range(n)) + "\n" for q in placement)


def as_positions(placement: Placement) -> str:
    """Seed 001's style: ``1) Row: 1, Column: 5``, one line per queen."""
    return "".join(f"{r + 1}) Row: {r + 1}, Column: {c + 1}\n" for r, c in enumerate(placement))


def as_json(placement: Placement) -> str:
    import json

    return json.dumps({"n": len(placement), "columns": [c + 1 for c in placement]}) + "\n"


def as_svg(placement: Placement, cell: int = 40) -> str:
    """A standalone SVG picture of the board."""
    n = len(placement)
    size = n * cell
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}">',
        f"<title>{n}-queens: {as_line(placement)}</title>",
    ]
    for r in range(n):
        for c in range(n):
            fill = "#f0d9b5" if (r + c) % 2 == 0 else "#b58863"
            parts.append(f'<rect x="{c * cell}" y="{r * cell}" width="{cell}" height="{cell}" fill="{fill}"/>')
    for r, c in enumerate(placement):
        cx, cy, rad = c * cell + cell / 2, r * cell + cell / 2, cell * 0.32
        parts.append(f'<circle cx="{cx:g}" cy="{cy:g}" r="{rad:g}" fill="#222" stroke="#fff" stroke-width="2"/>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def write_png(placement: Placement, out: BinaryIO) -> None:
    """PNG picture of the board via matplotlib (Agg), written to ``out``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(placement)
    fig, ax = plt.subplots(figsize=(max(2.0, n * 0.4), max(2.0, n * 0.4)), dpi=100)
    try:
        _draw(ax, placement)
        fig.savefig(out, format="png", bbox_inches="tight", metadata={"Software": None})
    finally:
        plt.close(fig)


def _draw(ax: Any, placement: Placement) -> None:
    n = len(placement)
    colours = [[(0.94, 0.85, 0.71) if (r + c) % 2 == 0 else (0.71, 0.53, 0.39) for c in range(n)] for r in range(n)]
    ax.imshow(colours, interpolation="nearest")
    ax.scatter(list(placement), list(range(n)), s=(200 * 8 / max(n, 8)) ** 1.2 / 4, c="black", marker="o")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(f"{n}-queens")


def render(placement: Placement, fmt: str, ascii: bool = False) -> str:
    """Text formats (board, positions, json, line, svg)."""
    if fmt == "board":
        return as_board(placement, ascii)
    if fmt == "positions":
        return as_positions(placement)
    if fmt == "json":
        return as_json(placement)
    if fmt == "line":
        return as_line(placement) + "\n"
    if fmt == "svg":
        return as_svg(placement)
    raise ValueError(f"format {fmt!r} is not a text format")
