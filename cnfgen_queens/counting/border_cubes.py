"""Canonical border cubes: one placement of the edge queens per orbit of the 8 board symmetries.

Every solution has exactly one queen in each of the four edge lines, row 0, row N-1,
column 0 and column N-1 (a corner queen serves two of them): its *border*.  The 8
symmetries of the square map the edge lines onto each other, so a symmetry maps a
solution's border to its image's border.  Name each border by the sorted tuple of its
cells and call it canonical when no image of it is smaller.

Counting (the orbit-stabiliser argument): let S be a solution, B0 the canonical border of
the orbit of S's border, and H the stabiliser of B0 (the symmetries that map B0 to itself).
The members of S's orbit whose border is B0 are ``{g(S) : g(border(S)) = B0}``, a coset of H,
so they form one orbit under H.  If H is the identity alone there is exactly one, and its
orbit has 8 members (a symmetry of a board is a symmetry of its border).  Otherwise keep the
lex-least of the H-images (:func:`representative`), weighted by its own orbit size.
So a count over the canonical border cubes finds every orbit of solutions once (OEIS A002562)
and the weights sum to A000170.  This is the "cube-level canonical first-row/column choices
plus a canonicity check of each found board" of issue 15, done on all four edges: the
solver sees the plain formula, with no symmetry-breaking predicate to slow it down.

Cubes come lazily, grouped by their first three queens (row 0, row N-1, column 0): a
group shares those queens as unit clauses in one solver; its cubes differ in column N-1.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import groupby

from cnfgen_queens.model.board import Cell, Placement

Cells = tuple[Cell, ...]


@dataclass(frozen=True)
class BorderCube:
    """One canonical border: its cells (sorted) and the symmetries that fix it (0 = identity first),
    numbered as :attr:`.board.Board.symmetries`."""

    cells: Cells
    stabilizer: tuple[int, ...]


@dataclass(frozen=True)
class CubeGroup:
    """Cubes sharing the queens of row 0, row N-1 and column 0 (``fixed``), in a fixed order."""

    fixed: Cells
    cubes: tuple[BorderCube, ...]


def images(n: int, cell: Cell) -> tuple[Cell, ...]:
    """The 8 images of a cell, in the order of :attr:`.board.Board.symmetries`."""
    m = n - 1
    r, c = cell
    return ((r, c), (c, m - r), (m - r, m - c), (m - c, r), (r, m - c), (m - r, c), (c, r), (m - c, m - r))


def _attack(p: Cell, q: Cell) -> bool:
    return p[0] == q[0] or p[1] == q[1] or p[0] - p[1] == q[0] - q[1] or p[0] + p[1] == q[0] + q[1]


def _border(n: int, a: int, b: int, c: int, d: int) -> Cells | None:
    """The cells of queens at (0, a), (N-1, b), (c, 0), (d, N-1), if they can share a solution."""
    m = n - 1
    # a corner queen is the queen of both its lines; a line's queen elsewhere leaves the corner empty
    if (a == 0) != (c == 0) or (a == m) != (d == 0) or (b == 0) != (c == m) or (b == m) != (d == m):
        return None
    cells = sorted({(0, a), (m, b), (c, 0), (d, m)})
    if any(_attack(p, q) for i, p in enumerate(cells) for q in cells[i + 1 :]):
        return None
    return tuple(cells)


def border_cubes(n: int) -> Iterator[BorderCube]:
    """Every canonical border, lazily, in the order of (row 0, row N-1, column 0, column N-1) queens.

    The bounds are necessary conditions (each image puts one of the four queens on row 0, at least
    as far right as (0, a)); the corner rules and attacks prune before the last queen is chosen."""
    m = n - 1
    for a in range((n + 1) // 2):  # the least cell is (0, a); a mirror image would have (0, m - a)
        for b in range(a, m - a + 1):  # the bottom-top mirror puts (N-1, b) on row 0
            if n > 1 and _attack((0, a), (m, b)):
                continue
            for c in range(a, m - a + 1):  # a transpose or rotation puts (c, 0) or (N-1-c, 0) on row 0
                if (a == 0) != (c == 0) or (b == 0) != (c == m):
                    continue
                if (c, 0) not in ((0, a), (m, b)) and (_attack((c, 0), (0, a)) or _attack((c, 0), (m, b))):
                    continue
                for d in range(a, m - a + 1):
                    cells = _border(n, a, b, c, d)
                    if cells is None:
                        continue
                    moved = [tuple(sorted(images(n, x)[g] for x in cells)) for g in range(8)]
                    if min(moved) == cells:
                        yield BorderCube(cells, tuple(g for g in range(8) if moved[g] == cells))


def cube_groups(n: int) -> Iterator[CubeGroup]:
    """:func:`border_cubes`, grouped by their row 0, row N-1 and column 0 queens."""

    def fixed(cube: BorderCube) -> Cells:
        m = n - 1
        return tuple(sorted({x for x in cube.cells if x[0] in (0, m) or x[1] == 0}))

    for key, cubes in groupby(border_cubes(n), key=fixed):
        yield CubeGroup(key, tuple(cubes))


def image(placement: Placement, g: int) -> Placement:
    """The placement moved by symmetry ``g``."""
    n = len(placement)
    out = [0] * n
    for r, c in enumerate(placement):
        r2, c2 = images(n, (r, c))[g]
        out[r2] = c2
    return tuple(out)


def representative(placement: Placement, cube: BorderCube) -> bool:
    """Whether a solution inside ``cube`` is the one counted for its orbit: always when the cube's
    stabiliser is trivial, else when it is the lex-least of its images under the stabiliser."""
    return len(cube.stabilizer) == 1 or all(placement <= image(placement, g) for g in cube.stabilizer[1:])
