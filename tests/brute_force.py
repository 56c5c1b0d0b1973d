"""Answers found without the package, for the tests to compare with: every board by brute force, the maps of
the square as index arithmetic, the torus's maps as the automorphisms of its queens graph (graph_group.py),
orbits by closing a set under maps, and counts (variants too) by plain backtracking."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable

from graph_group import automorphisms, group, torus_queens_graph

Cell = tuple[int, int]
Board = tuple[int, ...]  # the column of the queen of each row


def solutions(n: int, torus: bool = False) -> list[Board]:
    """Every N-queens board by brute force over the permutations."""
    m = n if torus else 2 * n
    out = []
    for p in itertools.permutations(range(n)):
        if len({(r + c) % m for r, c in enumerate(p)}) == n == len({(r - c) % m for r, c in enumerate(p)}):
            out.append(p)
    return out


def square_maps(n: int) -> list[Callable[[Cell], Cell]]:
    """The 8 maps of the square as grid index arithmetic: transpose or not, then reverse rows, columns."""
    out = []
    for t, fr, fc in itertools.product((False, True), repeat=3):

        def f(rc: Cell, t: bool = t, fr: bool = fr, fc: bool = fc) -> Cell:
            r, c = (rc[1], rc[0]) if t else rc
            return (n - 1 - r if fr else r, n - 1 - c if fc else c)

        out.append(f)
    return out


def torus_maps(n: int) -> list[Callable[[Cell], Cell]]:
    """Every automorphism of the N-torus's queens graph, computed from the graph (tests/graph_group.py)."""
    gens, _ = automorphisms(torus_queens_graph(n))
    return [lambda rc, p=p: divmod(p[rc[0] * n + rc[1]], n) for p in group(gens, n * n)]


def move(board: Board, f: Callable[[Cell], Cell]) -> Board | None:
    """The board moved by ``f`` (None when the image is not one queen per row)."""
    cells = sorted(f((r, c)) for r, c in enumerate(board))
    if [r for r, _ in cells] != list(range(len(board))):
        return None
    return tuple(c for _, c in cells)


def orbits(boards: Iterable[Board], maps: list[Callable[[Cell], Cell]]) -> list[set[Board]]:
    left, out = set(boards), []
    while left:
        start = min(left)
        orbit = {img for f in maps if (img := move(start, f)) is not None}
        assert orbit <= left | orbit
        left -= orbit
        out.append(orbit)
    return out


def brute_count(n: int, torus: bool = False, placed=(), holes=()) -> int:
    """Placements by plain backtracking over rows, independent of the package's geometry."""
    fixed = dict(placed)
    blocked = set(holes)
    m = n if torus else 4 * n  # diagonal keys wrap only on the torus

    def go(r: int, cols: frozenset, diag: frozenset, anti: frozenset) -> int:
        if r == n:
            return 1
        total = 0
        for c in [fixed[r]] if r in fixed else range(n):
            d, a = (r - c) % m, (r + c) % m
            if (r, c) not in blocked and c not in cols and d not in diag and a not in anti:
                total += go(r + 1, cols | {c}, diag | {d}, anti | {a})
        return total

    return go(0, frozenset(), frozenset(), frozenset())
