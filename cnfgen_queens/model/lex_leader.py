"""Symmetry breaking in the formula: lex-leader clauses over the cell variables (``--break-symmetry``).

**The group.**  A variant keeps the symmetries of the board that map its placed queens onto placed
queens and its holes onto holes (the *stabiliser*): among the 8 maps of the square (the dihedral
group D4, :attr:`.Board.symmetries`) on the plain board, among the torus group on ``--torus``: the
N^2 translations ``(r, c) -> (r + s, c + t)`` composed with the linear maps ``u * d`` (``d`` a map
of the square about (0, 0), ``u`` a unit of Z_N; :func:`torus_linear`) and, for odd N, ``u * d * M``
with ``M = DIAGONALS: (r, c) -> (r + c, r - c)``, which sends rows onto anti-diagonals and columns onto
diagonals (invertible when N is odd): ``8 phi(N) N^2`` maps for odd N >= 5, ``4 phi(N) N^2`` for even N.
These are the linear maps that permute the four families of lines, and for every N >= 6 tried (6..13,
15, 17, 19, 25) all the automorphisms of the torus's queens graph (tests/model/test_torus_group.py computes
them from the graph).  N <= 5 has more (N = 5: the graph is the complement of the 5 x 5 rook's graph,
28,800 automorphisms against 800 maps here) but the same orbits on the solutions (one orbit of 10 boards
for N = 5, none for N = 2, 3, 4).  Each is a symmetry of the solutions (a board of N queens, one per row
and column), though not of every clause (a transposition turns the at-least-one clauses of rows into
columns).

**The constraint** (lex-leader, Crawford, Ginsberg, Luks and Roy, KR 1996): read a board as its
cell bits ``x_1 .. x_{N*N}`` (``x(r,c) = r*N + c + 1``), a queen above an empty square; for every
map ``g`` other than the identity, ``x >=_lex x o g`` (``(x o g)_i = x_{g(i)}``, the board moved by
``g^-1``).  The models kept are the boards no map makes larger: exactly one per orbit, the board
whose tuple of columns (row by row) is least, :func:`.symmetry.canonical` on the plain board.

**The encoding** (the linear chain of Aloul, Sakallah and Markov, "Efficient symmetry breaking for
Boolean satisfiability", IJCAI 2003): the positions ``i`` that ``g`` moves are compared in order,
and an auxiliary ``e_i`` is true exactly when the board and its image agree up to ``i``.  A position
whose value follows from the earlier equalities is left out: every position that is the largest of
its cycle of ``g`` (fixed cells included), since the equalities along the rest of the cycle give
``x_{g(i)} = x_i``.  With ``k`` positions ``p_1 < .. < p_k`` left, ``a = x_{p_j}``,
``b = x_{g(p_j)}`` and ``e = e_{j-1}`` (true for ``j = 1``, where it is dropped from the clauses):

* ``-e | -b | a``  (no image is larger at the first difference), for every j;
* ``-e | a | e_j``, ``-e | -b | e_j``, ``-e_j | e``, ``-e_j | -a | b``  (``e_j <-> e & a = b``), for
  j < k (the first, j = 1, without ``-e_j | e``).

So ``5k - 5`` clauses and ``k - 1`` auxiliaries for k >= 2, one clause for k = 1.  The auxiliaries
are defined, not only implied: every model of the cells extends to exactly one model, so a model
counter that ignores the ``c p show`` projection still counts orbits with the pairwise encoding.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from cnfgen_queens.errors import UsageError, option
from cnfgen_queens.model.board import Board, Cell
from cnfgen_queens.model.variants import Variant

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

Clause = tuple[int, ...]
Perm = tuple[int, ...]  # perm[i] = g(i) over the cell indices 0..N*N-1 (i = r*N + c)
Matrix = tuple[int, int, int, int]  # (a, b, c, d): (r, col) -> (a r + b col, c r + d col) mod N
SQUARE_NAMES = ("identity", "rotate 90", "rotate 180", "rotate 270", "mirror left-right", "mirror top-bottom",
                "transpose", "anti-transpose")  # fmt: skip
SQUARE: tuple[Matrix, ...] = ((1, 0, 0, 1), (0, 1, -1, 0), (-1, 0, 0, -1), (0, -1, 1, 0),
                              (1, 0, 0, -1), (-1, 0, 0, 1), (0, 1, 1, 0), (0, -1, -1, 0))  # fmt: skip
DIAGONALS: Matrix = (1, 1, 1, -1)  # (r, c) -> (r + c, r - c): rows to anti-diagonals, columns to diagonals
MAX_TORUS_CELLS = 4_000_000  # (group size - 1) * N*N: the torus group is listed map by map (every N <= 16)


class GroupTooLarge(UsageError):
    """A torus group too large to list (its lex-leader clauses would be as many)."""


def torus_shapes(n: int) -> tuple[Matrix, ...]:
    """The linear maps of the N-torus up to a unit factor: the 8 of :data:`SQUARE`, and for odd N each of them
    after ``DIAGONALS`` (16 matrices, not reduced modulo N)."""
    return SQUARE if n % 2 == 0 else (*SQUARE, *(_times(d, DIAGONALS) for d in SQUARE))


def _times(x: Matrix, y: Matrix) -> Matrix:
    return (x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3], x[2] * y[0] + x[3] * y[2], x[2] * y[1] + x[3] * y[3])


@cache
def torus_linear(n: int) -> tuple[Matrix, ...]:
    """The linear maps ``u * d`` of the N-torus modulo N (``d`` in :func:`torus_shapes`, ``u`` a unit),
    distinct, the identity first (:mod:`cnfgen_queens.counting.torus_cubes` counts by them)."""
    from math import gcd  # the torus group only (math is an extension module: a file to load)

    units = [u for u in range(n) if gcd(u, n) == 1]
    maps = {(u * a % n, u * b % n, u * c % n, u * d % n) for u in units for a, b, c, d in torus_shapes(n)}
    identity = (1 % n, 0, 0, 1 % n)
    return (identity, *sorted(m for m in maps if m != identity))


def chain_size(k: int) -> tuple[int, int]:
    """(clauses, auxiliary variables) of one map's chain over ``k`` compared positions."""
    return (5 * k - 5, k - 1) if k >= 2 else (k, 0)


def positions(perm: Perm) -> list[int]:
    """The positions a map's chain compares: every moved cell but the largest of its cycle, ascending."""
    seen = [False] * len(perm)
    out: list[int] = []
    for i in range(len(perm)):
        if seen[i]:
            continue
        cycle = [i]
        seen[i] = True
        j = perm[i]
        while j != i:
            cycle.append(j)
            seen[j] = True
            j = perm[j]
        out += sorted(cycle)[:-1]
    return sorted(out)


def square_compared(n: int, index: int) -> int:
    """How many positions the chain of the map ``SQUARE_NAMES[index]`` compares on the N board (N*N less
    its cycles; closed form): rotations by 90 degrees ``3(N^2 - p)/4``, by 180 ``(N^2 - p)/2`` (``p = N mod
    2``, the centre), mirrors ``N floor(N/2)``, transpositions ``N(N-1)/2``."""
    p = n % 2
    return (
        0,
        3 * (n * n - p) // 4,
        (n * n - p) // 2,
        3 * (n * n - p) // 4,
        n * (n // 2),
        n * (n // 2),
        n * (n - 1) // 2,
        n * (n - 1) // 2,
    )[index]


@dataclass(frozen=True)
class BoardGroup:
    """The maps a variant keeps: ``maps`` are indices into :data:`SQUARE_NAMES` (plain board), or
    ``(linear map, row shift, column shift)`` of the torus; the identity is left out."""

    n: int
    torus: bool
    maps: tuple[int | tuple[int, int, int], ...]
    whole: bool  # every map of the board's group (no placed queen or hole breaks one)

    @property
    def order(self) -> int:
        """The number of maps, the identity included."""
        return len(self.maps) + 1

    def describe(self) -> str:
        """The header's name of the group."""
        if not self.maps:
            return "the trivial group (no map but the identity keeps the placed queens and blocked squares)"
        if self.torus:
            lin = len(torus_linear(self.n))
            whole = f"the torus group: {self.n}^2 translations x {lin} linear maps"
            kept = whole if self.whole else f"the stabiliser of the placed queens and blocked squares in {whole}"
            return f"{kept}, {self.order} maps"
        if self.whole:
            return "D4, the 8 maps of the square"
        names = ", ".join(SQUARE_NAMES[m] for m in self.maps)  # type: ignore[index]
        return f"the stabiliser of the placed queens and blocked squares in D4: identity, {names} ({self.order} maps)"

    def cell_map(self, m: int | tuple[int, int, int]) -> Callable[[Cell], Cell]:
        n = self.n
        if isinstance(m, int):
            return Board(n).symmetries[m]
        (a, b, c, d), s, t = torus_linear(n)[m[0]], m[1], m[2]
        return lambda rc: ((a * rc[0] + b * rc[1] + s) % n, (c * rc[0] + d * rc[1] + t) % n)

    def perm(self, m: int | tuple[int, int, int]) -> Perm:
        n, f = self.n, self.cell_map(m)
        out = []
        for r in range(n):
            for c in range(n):
                r2, c2 = f((r, c))
                out.append(r2 * n + c2)
        return tuple(out)

    def compared(self) -> list[int]:
        """The positions each map's chain compares, in the order of :attr:`maps`."""
        if not self.torus:
            return [square_compared(self.n, m) for m in self.maps]  # type: ignore[arg-type]
        return [len(positions(self.perm(m))) for m in self.maps]

    def size(self) -> tuple[int, int]:
        """(clauses, auxiliary variables) of the lex-leader constraints, without building them."""
        return _size(self)

    def clauses(self, top: int) -> Iterator[Clause]:
        """The chains of every map in order, auxiliaries from ``top + 1``."""
        for m in self.maps:
            perm = self.perm(m)
            chain = positions(perm)
            yield from lex_chain([(i + 1, perm[i] + 1) for i in chain], top)
            top += chain_size(len(chain))[1]


@cache
def _size(group: BoardGroup) -> tuple[int, int]:
    clauses = aux = 0
    for k in group.compared():
        c, a = chain_size(k)
        clauses += c
        aux += a
    return clauses, aux


def lex_chain(pairs: Sequence[tuple[int, int]], top: int) -> Iterator[Clause]:
    """``x >=_lex y`` over the pairs ``(x_i, y_i)`` of variables, in order, auxiliaries ``top + 1 ..``
    (see the module docstring)."""
    e = 0  # 0: true (the first position)
    last = len(pairs) - 1
    for j, (a, b) in enumerate(pairs):
        head = (-e,) if e else ()
        yield (*head, -b, a)
        if j == last:
            return
        ej = top + j + 1
        yield (*head, a, ej)
        yield (*head, -b, ej)
        if e:
            yield (-ej, e)
        yield (-ej, -a, b)
        e = ej


def board_group(n: int, variant: Variant) -> BoardGroup:
    """The maps of the board (D4, or the torus group on ``variant.torus``) that keep the variant's placed
    queens and holes; GroupTooLarge for a torus group too large to list."""
    placed, holes = frozenset(variant.placed), frozenset(variant.holes)
    if variant.torus:
        lin = torus_linear(n)
        if (len(lin) * n * n - 1) * n * n > MAX_TORUS_CELLS:
            raise GroupTooLarge(
                f"{option('--break-symmetry')} on the {n}-torus: its group has {len(lin) * n * n:,} maps, each a "
                f"chain of up to {n * n} cells; over the limit of {MAX_TORUS_CELLS:,} (every N <= 16 fits)"
            )
        candidates: list[int | tuple[int, int, int]] = [
            (i, s, t) for i in range(len(lin)) for s in range(n) for t in range(n) if (i, s, t) != (0, 0, 0)
        ]
    else:
        candidates = list(range(1, 8))
    group = BoardGroup(n, variant.torus, (), True)
    kept = [m for m in candidates if _keeps(group.cell_map(m), placed, holes)]
    return BoardGroup(n, variant.torus, tuple(kept), len(kept) == len(candidates))


def _keeps(f: Callable[[Cell], Cell], placed: frozenset[Cell], holes: frozenset[Cell]) -> bool:
    return {f(q) for q in placed} == placed and {f(h) for h in holes} == holes
