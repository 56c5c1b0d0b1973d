"""The torus group of ``model/lex_leader.py`` against the automorphism group of the torus's queens graph.

The graph's group is computed from the graph alone (tests/graph_group.py: refinement and search, no
matrices): the cells of the N-torus, adjacent when two queens there attack each other.  Every
automorphism maps the solutions (independent sets of N cells) onto solutions, so the group the
lex-leader clauses break, and the torus cubes count by, should be all of it.
"""

from __future__ import annotations

import pytest
from graph_group import automorphisms, group, set_orbits, torus_queens_graph

from cnfgen_queens.model.lex_leader import board_group, torus_linear
from cnfgen_queens.model.variants import Variant


def code_group(n: int) -> set[tuple[int, ...]]:
    """The torus group of the package as permutations of the cells, the identity included."""
    g = board_group(n, Variant(torus=True))
    maps = {g.perm(m) for m in g.maps} | {tuple(range(n * n))}
    assert len(maps) == g.order  # distinct maps
    return maps


def solutions(n: int) -> list[frozenset[int]]:
    """The toroidal boards, as sets of cells, by a search over the rows (one queen per row, column and
    wrapped diagonal)."""
    boards: list[frozenset[int]] = []

    def place(r: int, cols: set[int], d1: set[int], d2: set[int], cells: list[int]) -> None:
        if r == n:
            boards.append(frozenset(cells))
            return
        for c in range(n):
            if c not in cols and (r - c) % n not in d1 and (r + c) % n not in d2:
                place(r + 1, cols | {c}, d1 | {(r - c) % n}, d2 | {(r + c) % n}, [*cells, r * n + c])

    place(0, set(), set(), set(), [])
    return boards


@pytest.mark.parametrize("n", [1, 6, 7, 8, 9, 10, 11])
def test_the_torus_group_is_the_whole_automorphism_group(n: int) -> None:
    gens, order = automorphisms(torus_queens_graph(n))
    assert code_group(n) == group(gens, n * n)
    assert board_group(n, Variant(torus=True)).order == order


def test_orders_of_the_linear_maps() -> None:
    """8 phi(N) linear maps for odd N (u D and u D M, M = [[1, 1], [1, -1]]), 4 phi(N) for even N (M is not
    invertible there): 2,352 maps with the translations for N = 7, 9,680 for N = 11, as the graph's above."""
    assert [len(torus_linear(n)) for n in (5, 6, 7, 8, 9, 11, 13)] == [32, 8, 48, 16, 48, 80, 96]
    assert all((1, 1, 1, n - 1) in torus_linear(n) for n in (5, 7, 9, 11, 13))


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_small_tori_have_more_automorphisms_with_the_same_orbits(n: int) -> None:
    """N = 2..5: the graph has automorphisms no affine map gives (N = 5: it is the complement of the 5 x 5
    rook's graph, 2 (5!)^2 = 28,800 maps; N = 4: 384; N = 2, 3: every permutation of K_4, K_9).  The package keeps
    the affine maps (800 for N = 5): their orbits on the solutions are the whole group's (one orbit of 10
    boards for N = 5; no solution for N = 2, 3, 4), so the broken formula keeps one board per orbit all the same."""
    gens, order = automorphisms(torus_queens_graph(n))
    ours = code_group(n)
    assert (len(ours), order) == {2: (8, 24), 3: (144, 362_880), 4: (128, 384), 5: (800, 28_800)}[n]
    assert ours < group(gens, n * n) if n > 3 else len(ours) < order
    boards = solutions(n)
    assert len(set_orbits(boards, gens)) == len(set_orbits(boards, sorted(ours))) == (n == 5)


@pytest.mark.parametrize("n", [5, 7, 11])
def test_orbit_counts_against_the_graphs_group(n: int) -> None:
    """One orbit of 10, 28 and 88 boards (N = 5, 7, 11): the package's group has the graph's orbits."""
    gens, _ = automorphisms(torus_queens_graph(n))
    boards = solutions(n)
    assert len(boards) == {5: 10, 7: 28, 11: 88}[n]  # OEIS A007705
    theirs = set_orbits(boards, gens)
    ours = set_orbits(boards, sorted(code_group(n)))
    assert sorted(map(len, theirs)) == sorted(map(len, ours)) and len(ours) == 1


def test_orbit_counts_13() -> None:  # 4,524 boards; 4 s
    n = 13
    gens, order = automorphisms(torus_queens_graph(n))
    assert code_group(n) == group(gens, n * n) and order == 16_224
    boards = solutions(n)
    assert len(boards) == 4524  # OEIS A007705
    assert len(set_orbits(boards, gens)) == 5  # 7 under the affine maps u D x + t alone
