"""An external model counter on ``gen-queens N --break-symmetry``: Ganak (pyganak, the test extra) counts orbits.

Ganak counts the models projected on the ``c p show`` variables (its sampling set: the cells); with the
pairwise encoding, which has no auxiliaries of its own, it counts the same without the projection, since
the lex-leader auxiliaries are defined by the cells.  The torus's orbits are counted here under the
automorphisms of its queens graph.
"""

from __future__ import annotations

import itertools

import pytest
from graph_group import automorphisms, set_orbits, torus_queens_graph
from helpers import need_module

from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.known_counts import known_counts
from cnfgen_queens.model.variants import Variant


def ganak(formula: QueensFormula, project: bool = True) -> int:
    need_module("pyganak")
    from pyganak import Counter

    counter = Counter()
    counter.new_vars(formula.counts()[0])
    counter.add_clauses([list(c) for c in formula.clauses()])
    if project:
        counter.set_sampling_set(range(1, formula.n**2 + 1))
    return int(counter.count())


@pytest.mark.parametrize("n", range(1, 9))
def test_ganak_counts_a002562(n: int) -> None:
    orbits = known_counts()[n][1]
    assert ganak(QueensFormula(n, break_symmetry=True)) == orbits
    assert ganak(QueensFormula(n, break_symmetry=True), project=False) == orbits  # defined auxiliaries
    assert ganak(QueensFormula(n, "sequential", break_symmetry=True)) == orbits
    if n >= 4:  # and without --break-symmetry, every board (A000170): the flag is what divides
        assert ganak(QueensFormula(n)) == known_counts()[n][0]


@pytest.mark.slow
@pytest.mark.parametrize("n", [9, 10])
def test_ganak_counts_a002562_larger(n: int) -> None:  # 17 and 59 s wall at a load of 20 on 2 cores
    assert ganak(QueensFormula(n, "commander", break_symmetry=True)) == known_counts()[n][1]


def torus_orbits(n: int) -> int:
    """Orbits of the toroidal boards under the automorphisms of the torus's queens graph (computed from the
    graph, tests/graph_group.py), the boards by brute force over the permutations."""
    diagonals = (lambda r, c: (r + c) % n, lambda r, c: (r - c) % n)
    boards = [p for p in itertools.permutations(range(n)) if all(len(set(map(f, range(n), p))) == n for f in diagonals)]
    gens, _ = automorphisms(torus_queens_graph(n))
    return len(set_orbits([frozenset(r * n + c for r, c in enumerate(p)) for p in boards], gens))


@pytest.mark.parametrize("n", [5])
def test_ganak_counts_torus_orbits(n: int) -> None:
    assert ganak(QueensFormula(n, variant=Variant(torus=True), break_symmetry=True)) == torus_orbits(n)


@pytest.mark.slow
@pytest.mark.parametrize("n", [7])
def test_ganak_counts_torus_orbits_larger(n: int) -> None:  # 466k clauses: 19 s of CPU at a load of 4
    assert ganak(QueensFormula(n, variant=Variant(torus=True), break_symmetry=True)) == torus_orbits(n)
