"""The cost per board (issue 26, item 4): the O(N) board check, the blocking clause from the queens, the
group's formula without the clauses its fixed queens satisfy, and ``--check-all``.

Nothing here times anything (the figures are ``scripts/bench_count.py``'s); these tests check that the
faster paths judge and count exactly as the slow ones: counts against OEIS A000170 and brute force.
"""

from __future__ import annotations

import itertools
import random
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import need_module

from cnfgen_queens.cli import main
from cnfgen_queens.counting.border_cubes import cube_groups
from cnfgen_queens.counting.cube_count import counting_clauses
from cnfgen_queens.counting.group_formula import GroupFormula
from cnfgen_queens.enumeration.accept import Acceptor, clause_check
from cnfgen_queens.enumeration.records import EnumerationError
from cnfgen_queens.model.decode import BoardReader, DecodeError, blocking_clause, variant_placement
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.variants import Variant

A000170 = {6: 4, 7: 40, 8: 92, 9: 352, 10: 724}


def boards(n: int) -> list[tuple[int, ...]]:
    return [
        p
        for p in itertools.permutations(range(n))
        if len({r - c for r, c in enumerate(p)}) == n and len({r + c for r, c in enumerate(p)}) == n
    ]


def model_of(n: int, placement: tuple[int, ...]) -> list[int]:
    return [(r * n + c + 1) * (1 if placement[r] == c else -1) for r in range(n) for c in range(n)]


def test_board_reader_judges_as_the_reference_decoder() -> None:
    """Every cell set of up to N+1 queens on small boards, and random ones on larger: the same boards
    accepted, the same reason for the others, the blocking clause from the queens."""
    rng = random.Random(26)
    for n in (1, 2, 3, 4, 5, 8, 9):
        reader = BoardReader(n)
        sets = (
            [set(c) for k in (n - 1, n, n + 1) for c in itertools.combinations(range(1, n * n + 1), k)]
            if n <= 4
            else [set(rng.sample(range(1, n * n + 1), rng.choice([n - 1, n, n + 1]))) for _ in range(3000)]
        )
        sets += [{r * n + c + 1 for r, c in enumerate(p)} for p in boards(n)]
        for cells in sets:
            model = [v if v in cells else -v for v in range(1, n * n + 1)]
            try:
                want = variant_placement(n, cells)
            except DecodeError as e:
                with pytest.raises(DecodeError) as got:
                    reader.read(model)
                assert str(got.value) == str(e)
                continue
            queens, placement = reader.read(model)
            assert placement == want and tuple(-q for q in queens) == blocking_clause(want)


def test_board_reader_checks_the_variant_and_any_order() -> None:
    n = 6
    p = boards(n)[0]
    with pytest.raises(DecodeError, match="blocked square"):
        BoardReader(n, Variant(holes=((0, p[0]),))).read(model_of(n, p))
    shuffled = model_of(n, p)[::-1]  # not in variable order: the slow path still reads it
    assert BoardReader(n).read(shuffled)[1] == p


def test_check_all_catches_what_the_board_check_cannot() -> None:
    """A sequential-counter model (from a real solver) with one auxiliary value flipped so that a clause is
    false: the same valid board, not a model of the formula."""
    need_module("pysat")
    from pysat.solvers import Solver

    from cnfgen_queens.cnf.scan import violated_clause

    n = 6
    formula = QueensFormula(n, "sequential")
    every = clause_check(formula.counts()[0], formula.clauses())
    with Solver(name="cadical195", bootstrap_with=list(formula.clauses())) as s:
        assert s.solve()
        good = s.get_model()
    assert violated_clause(every, [v for v in good if v > 0]) is None
    flips = [[-v if i == k else v for i, v in enumerate(good)] for k in range(n * n, len(good))]
    wrong = next(m for m in flips if violated_clause(every, [v for v in m if v > 0]) is not None)
    p = BoardReader(n).read(good)[1]
    assert Acceptor(n, "s")(wrong).placement == p  # the board check alone accepts it
    assert Acceptor(n, "s", every_clause=every)(good).placement == p
    with pytest.raises(EnumerationError, match="falsifies clause"):
        Acceptor(n, "s", every_clause=every)(wrong)


@pytest.mark.parametrize("n", [5, 6, 7, 8])
def test_group_formula_decides_only_what_every_board_of_the_group_has(n: int) -> None:
    """Without a solver: the units are true in every board with the group's queens, and every clause left
    out is satisfied by them."""
    formula = QueensFormula(n)
    held = GroupFormula(n, counting_clauses(formula))
    solutions = boards(n)
    for group in cube_groups(n):
        clauses = held.clauses(group.fixed)
        units = {c[0] for c in clauses if len(c) == 1}
        kept = set(clauses)
        for p in solutions:
            if all(p[r] == c for r, c in group.fixed):
                true = {r * n + c + 1 for r, c in enumerate(p)}
                assert all((u in true) if u > 0 else (-u not in true) for u in units)
        assert all(c in kept or units & set(c) for c in held.all)


def test_group_formula_refuses_attacking_fixed_queens() -> None:
    held = GroupFormula(6, counting_clauses(QueensFormula(6)))
    assert held.clauses(((0, 0), (1, 1))) == [()]


@pytest.mark.parametrize("n", sorted(A000170))
def test_counts_with_check_all_are_oeis(n: int, capsys: pytest.CaptureFixture[str]) -> None:
    need_module("pysat")
    assert main(["count", str(n), "--check-all", "--quiet"]) == 0
    assert capsys.readouterr().out == f"count: {A000170[n]} (published-count)\n"
    assert main(["count", str(n), "--check-all", "-e", "sequential", "--engine", "loop", "--quiet"]) == 0
    assert capsys.readouterr().out == f"count: {A000170[n]} (published-count)\n"


def test_floor_benchmark_runs_and_counts_right() -> None:
    """``scripts/bench_count_floor.py`` on tiny boards: every way of calling the solver it measures counts
    A000170 (the script asserts it) and prints one figure per solver and variant."""
    script = Path(__file__).resolve().parents[2] / "scripts" / "bench_count_floor.py"
    argv = [sys.executable, str(script), "-n", "8", "--split-n", "6", "--only", "solvers", "--only", "variants"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    figures = [line for line in proc.stdout.splitlines() if "µs/board" in line]
    assert len(figures) == 6 + 10 + 3, proc.stdout
