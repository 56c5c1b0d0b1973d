"""The torus's cubes and weights (counting/torus_cubes.py) against brute force, without a solver; then counted.

The brute force is a bitmask backtracker over rows, written here from the rules of the torus (no code
of the package): it counts every solution, and it searches each cube of :func:`torus_groups` with its
queens, blocked cells and tie pairs, so the weights and the cover are checked apart from any solver.
"""

from __future__ import annotations

from itertools import permutations

import pytest
from helpers import need_module

from cnfgen_queens.cli import main
from cnfgen_queens.counting.torus_cubes import (
    OutsideCube,
    image,
    linear_group,
    orbit_weight,
    tie_pairs,
    torus_groups,
)
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.variants import TORUS_COUNTS, Variant
from cnfgen_queens.solutions.api import Request, count


def torus_boards(
    n: int,
    fixed: dict[int, int] | None = None,
    banned: frozenset[tuple[int, int]] = frozenset(),
    pairs: tuple[tuple[tuple[int, int], tuple[int, int]], ...] = (),
) -> list[tuple[int, ...]]:
    """Every N-torus solution with ``fixed`` row -> column queens, no queen on ``banned``, and not both
    cells of any pair; bitmasks rotate for the wrapped diagonals."""
    fixed = fixed or {}
    full = (1 << n) - 1
    partner: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for a, b in pairs:
        partner.setdefault(a, []).append(b)
        partner.setdefault(b, []).append(a)
    out: list[tuple[int, ...]] = []
    board: list[int] = []

    def rot(mask: int, by: int) -> int:
        by %= n
        return ((mask << by) | (mask >> (n - by))) & full

    def go(r: int, cols: int, diag: int, anti: int) -> None:
        if r == n:
            out.append(tuple(board))
            return
        free = full & ~(cols | rot(diag, r) | rot(anti, -r))  # diag holds (c - r) mod N, anti (c + r) mod N
        for c in [fixed[r]] if r in fixed else range(n):
            if free >> c & 1 and (r, c) not in banned:
                if any(q[0] < r and board[q[0]] == q[1] for q in partner.get((r, c), ())):
                    continue
                board.append(c)
                go(r + 1, cols | 1 << c, diag | 1 << ((c - r) % n), anti | 1 << ((c + r) % n))
                board.pop()

    go(0, 0, 0, 0)
    return out


def test_brute_force_is_a007705() -> None:
    assert [len(torus_boards(n)) for n in range(1, 14)] == [TORUS_COUNTS[n] for n in range(1, 14)]


@pytest.mark.parametrize("n", range(1, 14))
def test_cubes_and_weights_give_the_count_without_a_solver(n: int) -> None:
    """Searching only the groups (with their blocked cells and tie pairs) and weighing each board by
    N x its orbit's size (or 0) gives A007705; every board of X0 lies in at most one group."""
    total = boards = 0
    seen: set[tuple[int, ...]] = set()
    for g in torus_groups(n):
        found = torus_boards(n, dict(g.queens), frozenset(g.blocked), g.pairs)
        assert not seen & set(found)
        assert all((3, b[3]) in g.row3 for b in found) if n > 3 else g.row3 == ()  # the cubes cover the group
        seen |= set(found)
        total += sum(n * orbit_weight(b) for b in found)
        boards += len(found)
    assert total == TORUS_COUNTS[n] == len(torus_boards(n))
    if n == 13:
        assert (boards, len(torus_groups(n))) == (15, 10)  # 4524 solutions from 15 boards (19 before M)


@pytest.mark.parametrize("n", [5, 6, 7, 8, 11, 13, pytest.param(10, marks=pytest.mark.slow)])
def test_each_orbit_has_one_representative_of_its_size(n: int) -> None:
    """On a set of boards with a queen at (0, 0) that the maps keep, per orbit of G0 exactly one board counts,
    at the orbit's size, the others count 0 or lie in no cube; the tie pairs never exclude a representative.
    Even N: every permutation (more boards than the torus has; N = 6, 8, 10 have coordinates that are not
    units); odd N: the torus's solutions (the map (r, c) -> (r + c, r - c) moves rows onto anti-diagonals, so
    it keeps the boards that are one queen per row, column and wrapped diagonal, not every permutation)."""
    group = linear_group(n)
    assert len(group) == len(set(group)) and group[0] == (1, 0, 0, 1)
    boards = [(0, *rest) for rest in permutations(range(1, n))] if n % 2 == 0 else torus_boards(n, {0: 0})
    orbits: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
    for board in boards:
        orbits.setdefault(min(image(board, g) for g in group), []).append(board)
    for members in orbits.values():
        counted = []
        for board in members:
            try:
                weight = orbit_weight(board)
            except OutsideCube:
                continue
            if weight:
                counted.append((board, weight))
        rep = min(members)
        assert counted == [(rep, len(members))]
        assert not any(rep[a[0]] == a[1] and rep[b[0]] == b[1] for a, b in tie_pairs(n, rep[1], rep[2], set()))
    assert sum(len(m) for m in orbits.values()) == len(boards)
    assert n % 2 == 0 or len(boards) == TORUS_COUNTS[n] // n


def test_a_board_outside_its_cube_is_refused() -> None:
    assert orbit_weight((0, 2, 4, 6, 1, 3, 5)) == 4  # c = 2r: its orbit is the 4 boards c = m r, m = 2..5
    with pytest.raises(OutsideCube, match="slope 2 < 3"):
        orbit_weight((0, 3, 6, 2, 5, 1, 4))  # c = 3r: the slope -1/3 = 2 is below its row-1 column
    with pytest.raises(OutsideCube):
        orbit_weight((1, 3, 5, 0, 2, 4, 6))  # no queen at (0, 0)


@pytest.mark.parametrize("n", range(1, 14))
def test_count_by_cubes_is_a007705(n: int) -> None:
    r = count(Request(QueensFormula(n, variant=Variant(torus=True))))
    assert (r.engine, r.total, r.complete, r.mismatches) == ("cubes", TORUS_COUNTS[n], True, ())


def test_count_17_torus_with_jobs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["count", "17", "--torus", "--jobs", "2", "--quiet"]) == 0
    assert capsys.readouterr().out == "count: 140692 (published-count)\n"  # A007705


def test_torus_with_dask(capsys: pytest.CaptureFixture[str]) -> None:
    need_module("dask.distributed")
    assert main(["count", "13", "--torus", "--executor", "dask", "--jobs", "2", "--quiet"]) == 0
    assert capsys.readouterr().out == "count: 4524 (published-count)\n"


@pytest.mark.slow
def test_count_19_torus_with_jobs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["count", "19", "--torus", "--jobs", "2", "--quiet"]) == 0
    assert capsys.readouterr().out == "count: 820496 (published-count)\n"  # A007705


def test_time_limit_bounds_a_torus_count(capsys: pytest.CaptureFixture[str]) -> None:
    for extra in ([], ["--jobs", "2"]):
        assert main(["count", "23", "--torus", "--time-limit", "0.5", "--quiet", *extra]) == 1
        captured = capsys.readouterr()
        assert captured.out.splitlines()[-1].startswith("partial count: ")
        assert "time limit reached" in captured.err and "of 35 cube groups counted" in captured.err
