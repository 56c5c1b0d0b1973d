"""``gen-queens --break-symmetry``: lex-leader clauses keep exactly one board per orbit.

Every expectation is computed here without the package's group code: the boards by brute force
(permutations) or by a plain solver loop, the maps of the square as index arithmetic on a grid, the
torus maps as the automorphisms of its queens graph (tests/graph_group.py), orbits by closing a set under
those maps.  The models of the broken
formula are enumerated with PySAT, blocking on the cell variables only.
"""

from __future__ import annotations

import io
import itertools
import random
from collections.abc import Callable

import pytest
from brute_force import Board, Cell, move, orbits, solutions, square_maps, torus_maps
from pysat.solvers import Solver

from cnfgen_queens import encodings
from cnfgen_queens.cnf.writer import write_cnf
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.known_counts import known_counts
from cnfgen_queens.model.lex_leader import board_group, lex_chain, positions
from cnfgen_queens.model.variants import Variant, make_variant
from cnfgen_queens.solutions.api import Request, count

SOLVER = "cadical195"


def models(formula: QueensFormula) -> list[Board]:
    """Every model of the formula projected on the cells, as boards (one queen per row is checked)."""
    n = formula.n
    out: list[Board] = []
    with Solver(name=SOLVER, bootstrap_with=[list(c) for c in formula.clauses()]) as s:
        while s.solve():
            true = {v for v in s.get_model() if 0 < v <= n * n}
            board = tuple(c for r in range(n) for c in range(n) if r * n + c + 1 in true)
            assert len(board) == n
            out.append(board)
            s.add_clause([-v for v in true] + [v for v in range(1, n * n + 1) if v not in true])
    assert len(set(out)) == len(out)
    return out


# -- plain board: orbits are OEIS A002562 and the kept board is the least of its orbit --------------------


@pytest.mark.parametrize("n", range(1, 11))
def test_orbit_count_is_a002562(n: int) -> None:
    found = models(QueensFormula(n, break_symmetry=True))
    assert len(found) == known_counts()[n][1]


@pytest.mark.parametrize("name", encodings.names())
def test_every_encoding_counts_orbits_as_count_symmetric(name: str) -> None:
    for n in range(1, 8):
        fundamental = count(Request(QueensFormula(n), symmetric=True)).fundamental
        assert len(models(QueensFormula(n, name, break_symmetry=True))) == fundamental, (name, n)


@pytest.mark.parametrize("n", range(1, 9))
def test_every_model_is_the_least_of_its_orbit(n: int) -> None:
    maps = square_maps(n)
    found = models(QueensFormula(n, "sequential", break_symmetry=True))
    least = {min(orbit) for orbit in orbits(solutions(n), maps)}
    assert set(found) == least
    for board in found:
        assert all(board <= img for f in maps if (img := move(board, f)) is not None)


def test_column_alo_group_size_and_every_n_agree() -> None:
    for n in (6, 8):
        expected = known_counts()[n][1]
        assert len(models(QueensFormula(n, "commander", True, 4, break_symmetry=True))) == expected


# -- the stabiliser of placed queens and holes --------------------------------------------------------------


def symmetric_cells(rng: random.Random, n: int, maps: list[Callable[[Cell], Cell]], size: int) -> set[Cell]:
    """A random set of cells closed under a random map's powers (so stabilisers are not always trivial)."""
    cells = {(rng.randrange(n), rng.randrange(n)) for _ in range(size)}
    f = rng.choice(maps)
    for _ in range(8):
        cells |= {f(c) for c in cells}
    return cells


def brute_stabiliser(n: int, maps: list[Callable[[Cell], Cell]], placed: set[Cell], holes: set[Cell]) -> set[Board]:
    """The maps keeping both sets, each as the tuple of cell images (so equal maps are one)."""
    return {
        tuple(r * n + c for r, c in map(f, itertools.product(range(n), repeat=2)))
        for f in maps
        if {f(q) for q in placed} == placed and {f(h) for h in holes} == holes
    }


def non_attacking(n: int, cells: set[Cell], torus: bool) -> bool:
    m = n if torus else 2 * n
    keys = [{r for r, _ in cells}, {c for _, c in cells}, {(r - c) % m for r, c in cells}]
    return all(len(k) == len(cells) for k in (*keys, {(r + c) % m for r, c in cells}))


@pytest.mark.parametrize("seed", range(40))
def test_stabiliser_is_the_brute_force_group(seed: int) -> None:
    rng = random.Random(seed)
    torus = seed % 4 == 3
    n = 7 if torus else rng.randrange(3, 10)  # N = 5: see test_torus_group.py
    maps = torus_maps(n) if torus else square_maps(n)
    holes = symmetric_cells(rng, n, maps, rng.randrange(0, 4)) if rng.random() < 0.8 else set()
    placed = symmetric_cells(rng, n, maps, 1) - holes if rng.random() < 0.5 else set()
    if not non_attacking(n, placed, torus):
        placed = set()
    variant = make_variant(n, placed, holes, torus)
    group = board_group(n, variant)
    expected = brute_stabiliser(n, maps, placed, holes)
    identity = tuple(range(n * n))
    assert {group.perm(m) for m in group.maps} == expected - {identity}
    assert len(group.maps) == len(set(map(group.perm, group.maps)))  # distinct maps
    if n <= 7:  # the broken formula keeps the least board of each orbit under the stabiliser
        kept = [f for f in maps if {f(q) for q in placed} == placed and {f(h) for h in holes} == holes]
        boards = [b for b in solutions(n, torus) if set(enumerate(b)) >= placed and not set(enumerate(b)) & holes]
        least = {min(orbit) for orbit in orbits(boards, kept)}
        assert set(models(QueensFormula(n, "ladder", variant=variant, break_symmetry=True))) == least


# -- the torus: its whole group (translations and linear maps) ----------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7])
def test_torus_orbits_brute_force(n: int) -> None:
    boards = solutions(n, torus=True)
    # the maps only where there is a board to move: the 3-torus's queens graph is complete, its group all 9! maps
    least = {min(orbit) for orbit in orbits(boards, torus_maps(n) if boards else [])}
    found = models(QueensFormula(n, "product", variant=Variant(torus=True), break_symmetry=True))
    assert set(found) == least
    assert len(found) == {1: 1, 5: 1, 7: 1}.get(n, 0)  # 1, 10 and 28 boards; no solution for N = 2, 3, 4


@pytest.mark.slow
@pytest.mark.parametrize("n", [11])
def test_torus_orbits_large(n: int) -> None:  # 5M lex clauses
    maps = torus_maps(n)
    every = models(QueensFormula(n, variant=Variant(torus=True)))
    least = {min(orbit) for orbit in orbits(every, maps)}
    assert len(least) == 1  # 88 boards, one orbit of the whole group (two of the affine maps u D x + t)
    assert set(models(QueensFormula(n, "commander", variant=Variant(torus=True), break_symmetry=True))) == least


# -- the encoding: exact lex order, defined auxiliaries, sizes --------------------------------------------


@pytest.mark.parametrize("seed", range(30))
def test_lex_chain_is_exact_and_its_auxiliaries_defined(seed: int) -> None:
    rng = random.Random(seed)
    size = rng.randrange(1, 8)
    perm = list(range(size))
    rng.shuffle(perm)
    chain = positions(tuple(perm))
    clauses = list(lex_chain([(i + 1, perm[i] + 1) for i in chain], size))
    aux = max([size, *(abs(lit) for c in clauses for lit in c)]) - size
    for bits in itertools.product((False, True), repeat=size):
        image = tuple(bits[perm[i]] for i in range(size))
        keep = tuple(not b for b in bits) <= tuple(not b for b in image)  # a queen (True) before an empty square
        extensions = 0
        for extra in itertools.product((False, True), repeat=aux):
            value = (None, *bits, *extra)
            extensions += all(any(value[abs(lit)] == (lit > 0) for lit in c) for c in clauses)
        assert extensions == int(keep), (perm, bits)  # exactly one model for each board kept: aux defined


def closed_form(n: int) -> tuple[int, int]:
    """(clauses, auxiliaries) of the plain board's lex-leader constraints (docs/generator.md)."""
    if n == 1:
        return 0, 0
    if n == 2:
        return 37, 7  # rotations by 90 degrees compare 3 cells, by 180 and the mirrors 2, transpositions 1
    if n % 2 == 0:
        return 20 * n * n - 5 * n - 35, 4 * n * n - n - 7
    return 20 * n * n - 10 * n - 45, 4 * n * n - 2 * n - 9


@pytest.mark.parametrize("name", encodings.names())
def test_sizes_closed_form_and_built(name: str) -> None:
    for n in range(1, 13):
        plain, broken = QueensFormula(n, name), QueensFormula(n, name, break_symmetry=True)
        assert broken.group.size() == closed_form(n)
        assert [b - a for a, b in zip(plain.counts(), broken.counts(), strict=True)] == list(closed_form(n))[::-1]
        built = list(broken.clauses())
        assert len(built) == broken.counts()[1]
        used = {abs(lit) for c in built for lit in c}
        assert max(used, default=0) <= broken.counts()[0]
        lex = built[plain.counts()[1] :]  # after every clause of the plain formula, auxiliaries after its own
        assert all(abs(lit) <= n * n or abs(lit) > plain.counts()[0] for c in lex for lit in c)
    big = QueensFormula(40_000, name if not name.startswith("pysat:") else "pairwise", break_symmetry=True)
    assert big.group.size() == closed_form(40_000)  # closed form: nothing is built


def test_fast_and_shuffled_writers_give_the_same_bytes() -> None:
    for formula in (
        QueensFormula(30, break_symmetry=True),
        QueensFormula(9, "sequential", variant=Variant(placed=((4, 4),)), break_symmetry=True),
        QueensFormula(5, "commander", variant=Variant(torus=True), break_symmetry=True),
    ):
        for shuffle in (None, 3):
            fast, reference = io.BytesIO(), io.BytesIO()
            write_cnf(fast, formula, ["x"], show=True, shuffle=shuffle, fast=True)
            write_cnf(reference, formula, ["x"], show=True, shuffle=shuffle, fast=False)
            assert fast.getvalue() == reference.getvalue()
