"""Board geometry: cells, variables, lines, symmetries and the conflict graph.

Variables follow the seeds' rule: cell (r, c) of an N x N board, 0-based, is the
DIMACS variable ``r*N + c + 1`` (row-major, 1-based).  Auxiliary variables of an
encoding come after ``N*N``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Literal

    import networkx as nx

    LineKind = Literal["row", "column", "diagonal", "antidiagonal"]

Cell = tuple[int, int]
LINE_KINDS: tuple[LineKind, ...] = ("row", "column", "diagonal", "antidiagonal")
CELL_STEP: dict[str, Cell] = {"row": (0, 1), "column": (1, 0), "diagonal": (1, 1), "antidiagonal": (1, -1)}


@dataclass(frozen=True)
class Line:
    """A row, column, diagonal (r - c constant) or anti-diagonal (r + c constant)."""

    kind: LineKind
    index: int
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Board:
    """An N x N board; ``n >= 1``."""

    n: int

    def __post_init__(self) -> None:
        if not isinstance(self.n, int) or isinstance(self.n, bool) or self.n < 1:
            raise ValueError(f"board size must be a positive integer, got {self.n!r}")

    @property
    def num_cells(self) -> int:
        return self.n * self.n

    def var(self, r: int, c: int) -> int:
        """DIMACS variable of cell (r, c): ``r*N + c + 1``."""
        if not (0 <= r < self.n and 0 <= c < self.n):
            raise ValueError(f"cell ({r}, {c}) is off the {self.n}x{self.n} board")
        return r * self.n + c + 1

    def cell(self, var: int) -> Cell:
        """Inverse of :meth:`var`."""
        if not 1 <= var <= self.num_cells:
            raise ValueError(f"variable {var} is not a cell of the {self.n}x{self.n} board")
        return divmod(var - 1, self.n)

    def progressions(self, kinds: tuple[LineKind, ...] = LINE_KINDS) -> Iterator[tuple[LineKind, int, Cell, int]]:
        """``(kind, index, first cell, length)`` of every line of length >= 2, in :meth:`lines` order.

        Rows and columns by index; diagonals (r - c constant) by ``r - c + N - 1``
        ascending and anti-diagonals by ``r + c`` ascending; a line's cells run by
        increasing row (increasing column for rows), so its variables form an
        arithmetic progression with step :meth:`var_step`.
        """
        n = self.n
        if n < 2:
            return
        for kind in kinds:
            if kind == "row":
                yield from ((kind, r, (r, 0), n) for r in range(n))
            elif kind == "column":
                yield from ((kind, c, (0, c), n) for c in range(n))
            elif kind == "diagonal":
                for k in range(1, 2 * n - 2):
                    d = k - (n - 1)  # r - c
                    yield kind, k, (max(0, d), max(0, d) - d), n - abs(d)
            elif kind == "antidiagonal":
                for s in range(1, 2 * n - 2):
                    r0 = max(0, s - n + 1)
                    yield kind, s, (r0, s - r0), min(s, 2 * n - 2 - s) + 1
            else:
                raise ValueError(f"unknown line kind {kind!r}")

    def lines(self, kinds: tuple[LineKind, ...] = LINE_KINDS) -> Iterator[Line]:
        """Lines of length >= 2 in a fixed order (see :meth:`progressions`)."""
        for kind, index, (r, c), length in self.progressions(kinds):
            dr, dc = CELL_STEP[kind]
            yield Line(kind, index, tuple((r + i * dr, c + i * dc) for i in range(length)))

    def var_step(self, kind: LineKind) -> int:
        """Difference between consecutive variables along a line of ``kind``."""
        dr, dc = CELL_STEP[kind]
        return dr * self.n + dc

    def line_vars(self, line: Line) -> list[int]:
        return [r * self.n + c + 1 for r, c in line.cells]

    def attacks(self, a: Cell, b: Cell) -> bool:
        """True when two distinct cells share a row, column or diagonal."""
        (r1, c1), (r2, c2) = a, b
        return a != b and (r1 == r2 or c1 == c2 or abs(r1 - r2) == abs(c1 - c2))

    # -- symmetries of the square (the dihedral group D4) -------------------------
    @cached_property
    def symmetries(self) -> tuple[Callable[[Cell], Cell], ...]:
        """The 8 symmetries as maps on cells; the identity first."""
        m = self.n - 1
        return (
            lambda rc: (rc[0], rc[1]),  # identity
            lambda rc: (rc[1], m - rc[0]),  # rotate 90
            lambda rc: (m - rc[0], m - rc[1]),  # rotate 180
            lambda rc: (m - rc[1], rc[0]),  # rotate 270
            lambda rc: (rc[0], m - rc[1]),  # mirror left-right
            lambda rc: (m - rc[0], rc[1]),  # mirror top-bottom
            lambda rc: (rc[1], rc[0]),  # main-diagonal transpose
            lambda rc: (m - rc[1], m - rc[0]),  # anti-diagonal transpose
        )

    def conflict_graph(self) -> nx.Graph:
        """Cells as nodes, an edge between every attacking pair (networkx Graph)."""
        import networkx as nx

        g = nx.Graph()
        g.add_nodes_from((r, c) for r in range(self.n) for c in range(self.n))
        for line in self.lines():
            cells = line.cells
            g.add_edges_from((cells[i], cells[j]) for i in range(len(cells)) for j in range(i + 1, len(cells)))
        return g


Placement = tuple[int, ...]
"""A board as the queen's column in each row (0-based), ``placement[r] = c``."""


def images(placement: Placement) -> list[Placement]:
    """The distinct images of a full placement under the 8 symmetries, sorted."""
    n = len(placement)
    board = Board(n)
    cells = [(r, c) for r, c in enumerate(placement)]
    out: set[Placement] = set()
    for sym in board.symmetries:
        cols = [0] * n
        for cell in cells:
            r, c = sym(cell)
            cols[r] = c
        out.add(tuple(cols))
    return sorted(out)


def find_attack(board: Board, queens: list[Cell]) -> tuple[Cell, Cell] | None:
    """The first attacking pair among ``queens``, or None (an independent set)."""
    seen: dict[tuple[str, int], Cell] = {}
    for r, c in sorted(queens):
        for key in (("row", r), ("col", c), ("diag", r - c), ("anti", r + c)):
            if key in seen:
                return seen[key], (r, c)
            seen[key] = (r, c)
    return None
