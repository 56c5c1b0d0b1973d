"""Torus cubes: the toroidal board counted up to its translations and its linear symmetries.

On the N-torus every line wraps: rows, columns, diagonals ``r - c = const`` and anti-diagonals
``r + c = const`` modulo N.  Two kinds of maps of Z_N x Z_N send each kind of line onto lines
(so solutions onto solutions, OEIS A007705 / A051906):

* the N^2 translations ``(r, c) -> (r + s, c + t)``;
* the linear maps ``G0 = {u * d}``: ``d`` one of the 8 symmetries of the square taken about the
  cell (0, 0) (``(r, c) -> (c, -r)``, ``(r, -c)``, ...: rows and columns swap, diagonals and
  anti-diagonals swap) and ``u`` a unit of Z_N scaling both coordinates (row ``r0`` goes to row
  ``u r0``, diagonal ``d0`` to ``u d0``), and for odd N also ``u * d * M``, ``M: (r, c) -> (r + c,
  r - c)`` (rows onto anti-diagonals, columns onto diagonals).  ``|G0| = 8 phi(N)`` for odd N >= 5,
  ``4 phi(N)`` for even N (:func:`.lex_leader.torus_linear`; the whole automorphism group of the
  torus's queens graph for N >= 6, tests/model/test_torus_group.py).  Below, ``d`` stands for any of the
  16 (or 8) matrices of :func:`.lex_leader.torus_shapes`, whose inverses modulo N exist.

**Translations.** Let X0 be the solutions with a queen at (0, 0).  Each solution has one queen per
row; the column shift that moves its row-0 queen to column 0 is a bijection from the solutions
whose row-0 queen is in column ``t`` onto X0, for each of the N columns ``t``.  So the count is
``N * |X0|``.

**The linear maps (orbit-stabiliser).**  G0 fixes (0, 0), so it acts on X0 and ``|X0|`` is the sum
of the sizes of its G0-orbits.  Read a board as its tuple of columns, row by row, and let the
representative of an orbit be its lexicographically least member; it counts ``|G0| / |Stab|``
(the orbit's size), every other member 0.  To find the representatives without searching all of
X0, look at row 1: every solution in X0 has its row-1 queen at some column ``k`` in ``2..N-2``
(``0``, ``1``, ``N-1`` are attacked by (0, 0)), and these cubes partition X0.  A map ``u * d``
puts the queen ``q`` into row 1 exactly when ``d(q) = (x, y)`` with ``u x = 1``, so the columns
that the images of a board have in row 1 are its *slopes* ``y / x`` over its queens ``q`` other
than (0, 0), the maps ``d`` and the units ``x``: ``{y / x : (x, y) = d(q), x a unit}`` (for ``d`` in
the square alone, ``{+-c/r : r a unit} | {+-r/c : c a unit}`` for ``q = (r, c)``).  That set is the
same for every member of an orbit, and its least element is the row-1 column of the orbit's
representative (the least board has the least row-1 column).
So in cube ``k`` the representative has no queen whose slopes go below ``k``: those cells are
blocked (negative unit clauses), which prunes the search to about one board per orbit.  A board
found in cube ``k`` (queens (0, 0), (1, k), no blocked cell) is checked (:func:`orbit_weight`):
it is the representative iff no image under a map whose row-1 column is ``k`` (the only maps
that can tie: a smaller column is blocked) is smaller; those maps also hold its stabiliser.
Each orbit is thus counted once, at its size, and the count is ``N * sum``.  A cube is split
further by the row-2 queen (groups of work for ``--jobs``) and the row-3 queen (the group's cubes, 15-20%
less CPU than one cube per group at N = 19 and 23), which partitions it again.

**Ties.** Most boards of cube ``k`` are not representatives: an orbit has about ``|G0| / N`` members
whose row-1 column is its least slope.  Among them the representative has the least row-2 column
``c``.  A map ``u * d`` with ``d(q) = (x, k x)``, ``u = 1/x``, puts ``q`` at (1, k) and the queen
``q'`` with ``d(q') = (2x, y')`` at (2, ``y'/x``).  So in the group of row-2 column ``c`` no
representative holds both ``q`` and a ``q'`` with ``y'/x < c``: one binary clause per such pair
(``pairs``), which only ever removes boards whose image is smaller.  They prune; the count rests on
:func:`orbit_weight` alone, which still judges every board found.

The argument holds for every N (units are what can be inverted; for N = 25 a queen in row 5 gives
no slope ``c/5``), and is tested against brute force without a solver (tests/counting/test_torus_cubes.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from math import gcd

from cnfgen_queens.model.board import Cell, Placement
from cnfgen_queens.model.lex_leader import Matrix, torus_linear, torus_shapes

Cells = tuple[Cell, ...]
linear_group = torus_linear  # G0, the identity first (the model's list: --break-symmetry breaks the same group)


@dataclass(frozen=True)
class TorusGroup:
    """One piece of X0: queens at (0, 0), (1, k) and (2, c2) (``queens``), no queen on ``blocked``, and
    (a pruning that keeps every representative) not both queens of any of ``pairs``; its cubes are the
    cells of row 3 that may hold a queen (``row3``; empty for N < 4: one cube, the group)."""

    queens: Cells
    blocked: Cells
    pairs: tuple[tuple[Cell, Cell], ...] = ()
    row3: Cells = ()


@cache
def inverses(n: int) -> tuple[int | None, ...]:
    """``x^-1 mod n`` for each ``x`` in ``0..n-1``; None where ``x`` is not a unit."""
    return tuple(pow(x, -1, n) if gcd(x, n) == 1 else None for x in range(n))


def slopes(n: int, cell: Cell) -> list[int]:
    """The row-1 columns that the maps of G0 can move ``cell`` to (see the module docstring)."""
    inv = inverses(n)
    out: list[int] = []
    for a, b, c, d in torus_shapes(n):
        x, y = (a * cell[0] + b * cell[1]) % n, (c * cell[0] + d * cell[1]) % n
        if inv[x] is not None:
            out.append(y * inv[x] % n)  # type: ignore[operator]
    return out


def inverse(n: int, m: Matrix) -> Matrix:
    """The inverse modulo N of a matrix of :func:`torus_shapes` (its determinant is a unit)."""
    a, b, c, d = m
    e = pow(a * d - b * c, -1, n)
    return (d * e % n, -b * e % n, -c * e % n, a * e % n)


def least_slope(n: int, cell: Cell) -> int:
    """The least of :func:`slopes`, ``n`` when there is none (no coordinate is a unit)."""
    return min(slopes(n, cell), default=n)


def _attacked(n: int, a: Cell, b: Cell) -> bool:
    (r1, c1), (r2, c2) = a, b
    return r1 == r2 or c1 == c2 or (r1 - c1 - r2 + c2) % n == 0 or (r1 + c1 - r2 - c2) % n == 0


def torus_groups(n: int) -> list[TorusGroup]:
    """The pieces of X0 to search, by row-1 column ``k`` then row-2 column: only the ``k`` that are
    the least slope of (1, k) itself (else no board of cube ``k`` is a representative)."""
    if n == 1:
        return [TorusGroup(((0, 0),), ())]
    out: list[TorusGroup] = []
    for k in range(2, n - 1):
        if least_slope(n, (1, k)) != k:
            continue
        origin = ((0, 0), (1, k))
        blocked = tuple(
            (r, c)
            for r in range(1, n)
            for c in range(1, n)
            if not _attacked(n, (0, 0), (r, c)) and least_slope(n, (r, c)) < k
        )
        closed = set(blocked)
        for c2 in range(n):
            cell = (2, c2)
            if n > 2 and cell not in closed and not any(_attacked(n, q, cell) for q in origin):
                off_row_2 = tuple(x for x in blocked if x[0] != 2)  # row 2 holds its queen
                queens = (*origin, cell)
                row3 = tuple(
                    (3, c)
                    for c in range(n)
                    if n > 3 and (3, c) not in closed and not any(_attacked(n, q, (3, c)) for q in queens)
                )
                if row3 or n <= 3:
                    out.append(TorusGroup(queens, off_row_2, tie_pairs(n, k, c2, closed), row3))
    return out


def tie_pairs(n: int, k: int, c2: int, closed: set[Cell]) -> tuple[tuple[Cell, Cell], ...]:
    """The pairs of cells no representative of the group (1, k), (2, c2) holds both of (module docstring:
    ties), leaving out pairs with a cell on row 0 or a ``closed`` (blocked) cell, sorted."""
    inv = inverses(n)
    out: set[tuple[Cell, Cell]] = set()
    for x in range(1, n):
        if inv[x] is None:
            continue
        for shape in torus_shapes(n):
            a, b, c, d = inverse(n, shape)

            def back(r: int, col: int) -> Cell:
                return (a * r + b * col) % n, (c * r + d * col) % n  # noqa: B023 (used at once)

            q = back(x, k * x)
            for j in range(c2):
                q2 = back(2 * x, j * x)
                if q != q2 and q[0] and q2[0] and q not in closed and q2 not in closed:
                    out.add((min(q, q2), max(q, q2)))
    return tuple(sorted(out))


def image(placement: Placement, g: Matrix) -> Placement:
    """The board moved by the linear map ``g``."""
    n = len(placement)
    a, b, c, d = g
    out = [0] * n
    for r, col in enumerate(placement):
        out[(a * r + b * col) % n] = (c * r + d * col) % n
    return tuple(out)


class OutsideCube(ValueError):
    """A board with a queen on a blocked cell of its cube (a solver that broke a unit clause)."""


def orbit_weight(placement: Placement) -> int:
    """The size of the G0-orbit of a board of X0 if it is the orbit's least member, else 0.

    Raises OutsideCube when a queen's slope is below the row-1 column (the board lies in no
    searched cube).  Only the maps that put a queen in row 1 at that column are tried."""
    n = len(placement)
    if n == 1:
        return 1
    if placement[0] != 0:
        raise OutsideCube(f"no queen at (0, 0): {placement}")
    k, inv = placement[1], inverses(n)
    ties: set[Matrix] = set()
    for r in range(1, n):
        col = placement[r]
        for a, b, c, d in torus_shapes(n):
            x = (a * r + b * col) % n
            u = inv[x]
            if u is None:
                continue
            s = (c * r + d * col) * u % n
            if s < k:
                raise OutsideCube(f"the queen at ({r}, {col}) has slope {s} < {k}: {placement}")
            if s == k:
                ties.add((a * u % n, b * u % n, c * u % n, d * u % n))
    fixed = 0
    for g in ties:
        moved = image(placement, g)
        if moved < placement:
            return 0
        fixed += moved == placement
    return len(linear_group(n)) // fixed
