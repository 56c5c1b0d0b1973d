"""Exhaustive proofs for every registered at-most-one encoding (the base four included).

For each encoding and n = 1..10: over all 2^n input assignments, clauses plus the
assignment are satisfiable iff at most one input is true; the closed-form counts
equal the built ones; auxiliary ids are exactly the pool's next ones; and unit
propagation strength equals the recorded ``propagation_complete``.  The new
encodings also reproduce OEIS A000170 for N = 1..8 (models projected on cells).
"""

from __future__ import annotations

import itertools

import pytest
from pysat.solvers import Solver

from cnfgen_queens import encodings
from cnfgen_queens.encodings import VarPool
from cnfgen_queens.model.board import Board, find_attack
from cnfgen_queens.model.formula import QueensFormula

A000170 = {1: 1, 2: 0, 3: 0, 4: 2, 5: 10, 6: 4, 7: 40, 8: 92}
BASE = {"pairwise", "sequential", "commander", "nested"}
NEW = [name for name in encodings.names() if name not in BASE]
EXTRA_PARAMS = [("bimander", 1), ("bimander", 3), ("bimander", 4), ("commander", 2), ("commander", 4)]
CASES = [(name, None) for name in encodings.names()] + EXTRA_PARAMS
IDS = [name if g is None else f"{name}-g{g}" for name, g in CASES]
SOLVER = "minisat22"


def build(name: str, group_size: int | None, n: int, gap: int = 0) -> tuple[list[tuple[int, ...]], int, int]:
    """Clauses over inputs 1..n with the pool starting at n + gap; returns (clauses, old top, new top)."""
    pool = VarPool(n + gap)
    params = {} if group_size is None else {"group_size": group_size}
    clauses = encodings.get(name)(list(range(1, n + 1)), pool, **params)
    return clauses, n + gap, pool.top


def count(name: str, group_size: int | None, n: int) -> tuple[int, int]:
    params = {} if group_size is None else {"group_size": group_size}
    return encodings.get(name).count(n, **params)


def test_new_encodings_registered() -> None:
    for name in ("binary", "product", "bimander", "ladder"):
        assert name in encodings.names()
    kinds = ("seqcounter", "sortnetwrk", "cardnetwrk", "bitwise", "ladder", "totalizer", "mtotalizer", "kmtotalizer")
    for kind in kinds:
        assert f"pysat:{kind}" in encodings.names()


@pytest.mark.parametrize(("name", "group_size"), CASES, ids=IDS)
def test_exhaustive_at_most_one(name: str, group_size: int | None) -> None:
    for n in range(1, 11):
        clauses, _, _ = build(name, group_size, n)
        with Solver(name=SOLVER, bootstrap_with=clauses) as s:
            for bits in range(1 << n):
                assumptions = [i if bits >> (i - 1) & 1 else -i for i in range(1, n + 1)]
                expected = bits.bit_count() <= 1
                assert s.solve(assumptions=assumptions) == expected, (name, n, bin(bits))


@pytest.mark.parametrize(("name", "group_size"), CASES, ids=IDS)
@pytest.mark.parametrize("n", [37, 50])
def test_pairs_on_longer_lines(name: str, group_size: int | None, n: int) -> None:
    """Beyond n = 10 (product recurses from n = 37): every pair UNSAT, each single and none SAT.

    Any two true inputs being UNSAT with the rest unassigned covers every assignment
    with two or more true inputs, so this is again a complete proof.
    """
    clauses, _, _ = build(name, group_size, n)
    with Solver(name=SOLVER, bootstrap_with=clauses) as s:
        assert s.solve(assumptions=[-i for i in range(1, n + 1)])
        for i in range(1, n + 1):
            assert s.solve(assumptions=[j if j == i else -j for j in range(1, n + 1)]), (name, n, i)
        for a, b in itertools.combinations(range(1, n + 1), 2):
            assert not s.solve(assumptions=[a, b]), (name, n, a, b)


@pytest.mark.parametrize(("name", "group_size"), CASES, ids=IDS)
def test_counts_and_aux_ids(name: str, group_size: int | None) -> None:
    for n in range(1, 41):
        clauses, top, new_top = build(name, group_size, n, gap=5)
        assert count(name, group_size, n) == (len(clauses), new_top - top), (name, n)
        used = {abs(x) for c in clauses for x in c}
        aux = used - set(range(1, n + 1))
        assert aux == set(range(top + 1, new_top + 1)), (name, n)  # none clash, none below, none unused
        if n <= 1:
            assert clauses == []


@pytest.mark.parametrize(("name", "group_size"), CASES, ids=IDS)
def test_propagation_strength(name: str, group_size: int | None) -> None:
    """With one input true, does unit propagation alone set every other input false?"""
    complete = True
    for n in range(2, 11):
        clauses, _, _ = build(name, group_size, n)
        with Solver(name=SOLVER, bootstrap_with=clauses) as s:
            for i in range(1, n + 1):
                ok, implied = s.propagate(assumptions=[i])
                assert ok
                if not {-j for j in range(1, n + 1) if j != i} <= set(implied):
                    complete = False
    assert complete == encodings.get(name).propagation_complete


def count_boards(formula: QueensFormula) -> int:
    """Models projected on the N*N cells, blocking cell variables only; each model checked."""
    n = formula.n
    clauses = list(formula.clauses())
    num_vars, num_clauses = formula.counts()
    assert len(clauses) == num_clauses
    assert {abs(x) for c in clauses for x in c} == set(range(1, num_vars + 1))
    cells = range(1, n * n + 1)
    found = 0
    with Solver(name=SOLVER, bootstrap_with=clauses) as s:
        while s.solve():
            model = s.get_model()
            true = {x for x in model if x > 0}
            assert all(any((x in true) == (x > 0) for x in c) for c in clauses)
            queens = [divmod(v - 1, n) for v in cells if v in true]
            assert len(queens) == n and find_attack(Board(n), queens) is None
            found += 1
            s.add_clause([-v if v in true else v for v in cells])
    return found


@pytest.mark.parametrize("name", NEW)
def test_oeis_counts(name: str) -> None:
    for n, expected in A000170.items():
        assert count_boards(QueensFormula(n, name)) == expected, (name, n)


@pytest.mark.parametrize("length", [8, 20])
def test_list_encodings_shows_counts(capsys: pytest.CaptureFixture[str], length: int) -> None:
    from cnfgen_queens.cli import gen_main

    argv = ["--list-encodings"] if length == 8 else ["--list-encodings", "--line-length", str(length)]
    assert gen_main(argv) == 0
    rows = {line.split()[0]: line.split()[1:3] for line in capsys.readouterr().out.splitlines()[1:]}
    assert list(rows) == encodings.names()
    for name, (clauses, aux) in rows.items():
        assert (int(clauses), int(aux)) == encodings.get(name).count(length)


def test_pysat_gaps_are_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    """If PySAT ever left unused ids, the auxiliaries are renumbered to top+1.. in order."""
    from pysat.card import CardEnc
    from pysat.formula import CNF

    from cnfgen_queens.encodings.pysat_card import pysat_atmost_one

    gappy = CNF(from_clauses=[[-1, 110], [-2, -110], [-3, 105], [-105, -110]])
    monkeypatch.setattr(CardEnc, "atmost", staticmethod(lambda **kw: gappy))
    pool = VarPool(100)
    assert pysat_atmost_one("seqcounter", [1, 2, 3], pool) == [(-1, 102), (-2, -102), (-3, 101), (-101, -102)]
    assert pool.top == 102
    clash = CNF(from_clauses=[[-1, 50]])
    monkeypatch.setattr(CardEnc, "atmost", staticmethod(lambda **kw: clash))
    with pytest.raises(RuntimeError, match="issue 207"):
        pysat_atmost_one("seqcounter", [1, 2], VarPool(100))
