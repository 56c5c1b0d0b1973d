"""Hard variants of N-queens: completion (placed queens), blocked squares, the torus.

* **Completion** (queens placed in advance; NP-complete, Gent, Jefferson and
  Nightingale, "Complexity of n-Queens Completion", JAIR 59, 2017): one unit
  clause ``x(r,c)`` per placed queen.
* **Blocked squares** (the paper's Blocked n-Queens): one unit clause ``-x(r,c)``
  per hole.
* **Torus** (modular board, Polya 1918): diagonals wrap modulo N, so there are N
  diagonals (r - c mod N) and N anti-diagonals (r + c mod N), each of length N.
  Solutions exist iff gcd(N, 6) = 1; their number is OEIS A007705.

Coordinates on the command line, in files and in the header are 1-based
``ROW,COLUMN``, as ``decode`` prints them; inside the package cells are 0-based.

Random placement (``--random-place K --seed S``) follows the paper's natural
generator for n-Queens Completion: queens are put down one at a time, each on a
square chosen uniformly among the free squares (not a hole, not attacked by a
queen already on the board); a dead end (no free square before K queens) starts
over from an empty board, drawing on from the same ``random.Random(S)`` stream.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING

from cnfgen_queens.bounds import read_text
from cnfgen_queens.errors import UsageError, option, square, square_range
from cnfgen_queens.model.board import Board, Cell, Line

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from pathlib import Path

RANDOM_METHOD = "sequential-uniform"
RANDOM_ATTEMPTS = 1000  # restarts before random placement gives up (a clear error)
RANDOM_MAX_N = 1000  # random placement lists the N*N squares
CELLS_PER_LINE = 16  # header: cells per comment line
_CELL_DIGITS = 9  # digits of a row or column read at the most (MAX_N, 46340, has 5)
MAX_CELL_FILE_BYTES = 1 << 26  # a placement or holes file beyond 64 MB is refused, not read

# OEIS A007705, toroidal N-queens solutions (https://oeis.org/A007705, odd N; every N in A051906), N = 1..31
# (0 unless gcd(N, 6) = 1, Polya); N <= 13 checked against a brute-force counter in
# tests/counting/test_variants_counts.py.
_TORUS_NONZERO = {1: 1, 5: 10, 7: 28, 11: 88, 13: 4524, 17: 140692, 19: 820496, 23: 128850048, 25: 1957725000,
                  29: 605917055356, 31: 13404947681712}  # fmt: skip
TORUS_COUNTS = {n: _TORUS_NONZERO.get(n, 0) for n in range(1, 32)}

HEADER_TORUS = "variant: torus (diagonals wrap modulo N)"
HEADER_PLACED = "placed queens (row,column 1-based):"
HEADER_HOLES = "blocked squares (row,column 1-based):"
HEADER_RANDOM = "random placement:"


class VariantError(UsageError):
    """An impossible or malformed variant (off-board cell, attacking queens, ...)."""


def show(cell: Cell) -> str:
    """``R,C`` 1-based."""
    return f"{cell[0] + 1},{cell[1] + 1}"


def parse_cell(text: str) -> Cell:
    """``R,C`` (or ``R C``), 1-based, to a 0-based cell; bounds are checked against N later."""
    parts = re.split(r"[,\s]+", text.strip())
    if len(parts) != 2 or not all(re.fullmatch(r"[+-]?\d+", p) for p in parts):
        raise VariantError(f"expected ROW,COLUMN (1-based integers), got {text.strip()!r}")
    if longest := max((p for p in parts if len(p.lstrip("+-")) > _CELL_DIGITS), key=len, default=None):
        digits = len(longest.lstrip("+-"))
        raise VariantError(f"a row or column of {digits} digits, more than {_CELL_DIGITS}: no board is that large")
    return int(parts[0]) - 1, int(parts[1]) - 1


def read_cells(path: Path) -> list[Cell]:
    """Cells of a file, one ``R,C`` or ``R C`` per line (1-based); ``#`` starts a comment."""
    try:
        whole = read_text(path, MAX_CELL_FILE_BYTES, "list of squares", VariantError)  # a device is refused
        out: list[Cell] = []
        for i, raw in enumerate(whole.splitlines(), 1):
            text = raw.split("#", 1)[0].strip()
            if text:
                try:
                    out.append(parse_cell(text))
                except VariantError as e:
                    raise VariantError(f"{path}:{i}: {e}") from None
        return out
    except OSError as e:
        raise VariantError(f"cannot read {path}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise VariantError(f"{path}: not a text file of ROW,COLUMN lines") from None


def torus_attacks(n: int, a: Cell, b: Cell) -> bool:
    """True when two distinct cells share a row, column or wrapped diagonal of the N-torus."""
    (r1, c1), (r2, c2) = a, b
    return a != b and (r1 == r2 or c1 == c2 or (r1 - c1 - r2 + c2) % n == 0 or (r1 + c1 - r2 - c2) % n == 0)


def torus_lines(n: int) -> Iterator[Line]:
    """Rows, columns, wrapped diagonals (r - c = d mod N, d ascending) and anti-diagonals
    (r + c = s mod N), each of length N with cells by increasing row; none for N = 1."""
    if n < 2:
        return
    yield from Board(n).lines(("row", "column"))
    yield from (Line("diagonal", d, tuple((r, (r - d) % n) for r in range(n))) for d in range(n))
    yield from (Line("antidiagonal", s, tuple((r, (s - r) % n) for r in range(n))) for s in range(n))


@dataclass(frozen=True)
class Variant:
    """What a variant adds to plain N-queens; the empty Variant is plain N-queens.

    ``placed`` holds every placed queen (explicit and random), ``holes`` the blocked
    squares, both sorted; ``random_k``/``random_seed`` record how the random ones came.
    """

    placed: tuple[Cell, ...] = ()
    holes: tuple[Cell, ...] = ()
    torus: bool = False
    random_k: int | None = None
    random_seed: int | None = None

    @property
    def active(self) -> bool:
        return bool(self.placed or self.holes or self.torus)

    def attacks(self, n: int, a: Cell, b: Cell) -> bool:
        return torus_attacks(n, a, b) if self.torus else Board(n).attacks(a, b)

    def validate(self, n: int) -> None:
        """Every cell on the board, no repeats, no placed queen on a hole or attacking another."""
        for what, cells in (("queen", self.placed), ("blocked square", self.holes)):
            for r, c in cells:
                if not (0 <= r < n and 0 <= c < n):
                    raise VariantError(
                        f"{what} at {square(r, c)} is off the {n}x{n} board (rows, columns {square_range(n)})"
                    )
            dup = next((a for a, b in pairwise(cells) if a == b), None)
            if dup is not None:
                raise VariantError(f"{what} at {square(*dup)} is given twice")
        on_hole = sorted(set(self.placed) & set(self.holes))
        if on_hole:
            raise VariantError(f"queen at {square(*on_hole[0])} stands on a blocked square")
        pair = self.attacking_pair(n, self.placed)
        if pair is not None:
            board = "torus" if self.torus else "board"
            a, b = square(*pair[0]), square(*pair[1])
            raise VariantError(f"placed queens at {a} and {b} attack each other ({board})")

    def attacking_pair(self, n: int, queens: Iterable[Cell]) -> tuple[Cell, Cell] | None:
        seen: dict[tuple[int, int], Cell] = {}
        for r, c in sorted(queens):
            keys = [(0, r), (1, c)]
            keys += [(2, (r - c) % n), (3, (r + c) % n)] if self.torus else [(2, r - c), (3, r + c)]
            for key in keys:
                if key in seen:
                    return seen[key], (r, c)
                seen[key] = (r, c)
        return None

    def unit_clauses(self, n: int) -> Iterator[tuple[int, ...]]:
        """``x`` for each placed queen, then ``-x`` for each hole."""
        yield from ((r * n + c + 1,) for r, c in self.placed)
        yield from ((-(r * n + c + 1),) for r, c in self.holes)

    def check(self, n: int, queens: Iterable[Cell]) -> str | None:
        """Why a board of queens breaks the variant's extra constraints, or None."""
        queens = sorted(queens)
        have = set(queens)
        missing = [q for q in self.placed if q not in have]
        if missing:
            return f"the placed queen at row {missing[0][0] + 1} column {missing[0][1] + 1} is missing"
        holes = set(self.holes)
        on_hole = [q for q in queens if q in holes]
        if on_hole:
            return f"a queen stands on the blocked square at row {on_hole[0][0] + 1} column {on_hole[0][1] + 1}"
        if self.torus:
            pair = self.attacking_pair(n, queens)
            if pair is not None:
                (r1, c1), (r2, c2) = pair
                return f"queens at row {r1 + 1} column {c1 + 1} and row {r2 + 1} column {c2 + 1} attack on the torus"
        return None

    def header_lines(self) -> list[str]:
        """Comment lines recording the variant (parsed back by :func:`from_header`)."""
        out = [HEADER_TORUS] if self.torus else []
        if self.random_k is not None:
            out.append(
                f"{HEADER_RANDOM} k={self.random_k} seed={self.random_seed} method={RANDOM_METHOD} "
                "(each queen uniform over the free squares; restart on a dead end; Gent, Jefferson and "
                "Nightingale, JAIR 2017)"
            )
        for key, cells in ((HEADER_PLACED, self.placed), (HEADER_HOLES, self.holes)):
            for i in range(0, len(cells), CELLS_PER_LINE):
                out.append(key + " " + " ".join(show(c) for c in cells[i : i + CELLS_PER_LINE]))
        return out


PLAIN = Variant()


def from_header(comments: Iterable[str]) -> Variant:
    """The variant a header records (the empty Variant when it records none)."""
    torus = False
    placed: list[Cell] = []
    holes: list[Cell] = []
    for line in comments:
        if line == HEADER_TORUS:
            torus = True
        for key, into in ((HEADER_PLACED, placed), (HEADER_HOLES, holes)):
            if line.startswith(key):
                into += [parse_cell(t) for t in line[len(key) :].split()]
    return Variant(tuple(sorted(placed)), tuple(sorted(holes)), torus)


def random_queens(n: int, k: int, seed: int, variant: Variant = PLAIN) -> tuple[Cell, ...]:
    """``k`` queens at random (see the module docstring), not attacking ``variant.placed``
    nor standing on its holes; raises VariantError after :data:`RANDOM_ATTEMPTS` dead ends."""
    if k < 0:
        raise VariantError(f"{option('--random-place')} must be >= 0, got {k}")
    if k + len(variant.placed) > n:
        raise VariantError(
            f"cannot place {k} more non-attacking queens next to {len(variant.placed)} on the {n}x{n} board"
        )
    if n > RANDOM_MAX_N:
        raise VariantError(
            f"{option('--random-place')} supports N <= {RANDOM_MAX_N} (it lists the free squares), got {n}"
        )
    import random

    rng = random.Random(seed)
    m = n if variant.torus else 2 * n  # diagonal keys wrap on the torus
    taken = [{r for r, _ in variant.placed}, {c for _, c in variant.placed}]
    taken += [{(r - c) % m for r, c in variant.placed}, {(r + c) % m for r, c in variant.placed}]
    blocked = set(variant.holes)
    start = [  # each free square with its row, column, diagonal and anti-diagonal (computed once, not per pick)
        (r, c, (r - c) % m, (r + c) % m)
        for r in range(n)
        if r not in taken[0]
        for c in range(n)
        if c not in taken[1] and (r - c) % m not in taken[2] and (r + c) % m not in taken[3] and (r, c) not in blocked
    ]
    for _ in range(RANDOM_ATTEMPTS):
        free = start
        chosen: list[Cell] = []
        while len(chosen) < k and free:
            qr, qc, d, a = free[rng.randrange(len(free))]
            chosen.append((qr, qc))
            free = [s for s in free if s[0] != qr and s[1] != qc and s[2] != d and s[3] != a]
        if len(chosen) == k:
            return tuple(chosen)
    raise VariantError(
        f"random placement of {k} queens on the {n}x{n} board hit a dead end {RANDOM_ATTEMPTS} times "
        f"(seed {seed}); use a smaller {option('--random-place')}"
    )


def make_variant(
    n: int,
    placed: Iterable[Cell] = (),
    holes: Iterable[Cell] = (),
    torus: bool = False,
    random_k: int | None = None,
    seed: int | None = None,
) -> Variant:
    """A validated Variant on an N board, with ``random_k`` random queens added (needs ``seed``)."""
    v = Variant(tuple(sorted(placed)), tuple(sorted(holes)), torus)
    v.validate(n)
    if random_k is None:
        if seed is not None:
            raise VariantError(f"{option('--seed')} needs {option('--random-place', 'K')}")
        return v
    if seed is None:
        raise VariantError(
            f"{option('--random-place')} needs {option('--seed', 'S')} (the placement is reproducible from the seed)"
        )
    extra = random_queens(n, random_k, seed, v)
    v = Variant(tuple(sorted([*v.placed, *extra])), v.holes, torus, random_k, seed)
    v.validate(n)  # an internal invariant: random queens never attack the given ones
    return v
