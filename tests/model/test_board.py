"""Board geometry: variables, lines, conflict graph, symmetries; the known-counts table."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from cnfgen_queens.model.board import LINE_KINDS, Board, find_attack, images
from cnfgen_queens.model.known_counts import known_counts

ROOT = Path(__file__).resolve().parents[2]
SIZES = range(1, 10)


def all_cells(n: int) -> list[tuple[int, int]]:
    return [(r, c) for r in range(n) for c in range(n)]


def solutions(n: int) -> list[tuple[int, ...]]:
    """Every n-queens placement (column per row) by plain backtracking: an oracle independent of board.py."""
    out: list[tuple[int, ...]] = []

    def place(cols: tuple[int, ...]) -> None:
        r = len(cols)
        if r == n:
            out.append(cols)
            return
        for c in range(n):
            if all(c != c2 and abs(c - c2) != r - r2 for r2, c2 in enumerate(cols)):
                place((*cols, c))

    place(())
    return out


# -- variables ------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 8, 13])
def test_var_rule_and_round_trip(n: int) -> None:
    board = Board(n)
    seen = []
    for r, c in all_cells(n):
        v = board.var(r, c)
        assert v == r * n + c + 1
        assert board.cell(v) == (r, c)
        seen.append(v)
    assert seen == list(range(1, n * n + 1))  # row-major, 1-based, no gaps
    assert board.num_cells == n * n


def test_var_and_cell_reject_off_board() -> None:
    board = Board(4)
    for r, c in [(-1, 0), (0, -1), (4, 0), (0, 4)]:
        with pytest.raises(ValueError):
            board.var(r, c)
    for v in (0, -1, 17):
        with pytest.raises(ValueError):
            board.cell(v)


@pytest.mark.parametrize("bad", [0, -3, 2.0, "4", True])
def test_board_rejects_bad_size(bad: object) -> None:
    with pytest.raises(ValueError):
        Board(bad)  # type: ignore[arg-type]


# -- lines ----------------------------------------------------------------------


def line_key(kind: str, r: int, c: int) -> int:
    return {"row": r, "column": c, "diagonal": r - c, "antidiagonal": r + c}[kind]


@pytest.mark.parametrize("n", SIZES)
def test_lines_are_maximal_and_of_length_at_least_two(n: int) -> None:
    board = Board(n)
    lines = list(board.lines())
    assert all(len(line.cells) >= 2 for line in lines)
    assert [line.kind for line in lines] == sorted((line.kind for line in lines), key=LINE_KINDS.index)
    for line in lines:
        keys = {line_key(line.kind, r, c) for r, c in line.cells}
        assert len(keys) == 1, line  # one row / column / diagonal
        assert len(set(line.cells)) == len(line.cells)
        (key,) = keys
        full = [cell for cell in all_cells(n) if line_key(line.kind, *cell) == key]
        assert sorted(line.cells) == full  # the whole line, not a piece of it
        assert board.line_vars(line) == [board.var(r, c) for r, c in line.cells]
    # every line of length >= 2 is there, once
    for kind in LINE_KINDS:
        groups: dict[int, int] = {}
        for cell in all_cells(n):
            key = line_key(kind, *cell)
            groups[key] = groups.get(key, 0) + 1
        expected = sorted(k for k, size in groups.items() if size >= 2)
        got = sorted(line_key(kind, *line.cells[0]) for line in lines if line.kind == kind)
        assert got == expected, kind
    expected_count = 0 if n == 1 else 2 * n + 2 * (2 * n - 3)
    assert len(lines) == expected_count


def test_lines_of_three_by_three_in_order() -> None:
    got = [(line.kind, line.cells) for line in Board(3).lines(("diagonal", "antidiagonal"))]
    assert got == [
        ("diagonal", ((0, 1), (1, 2))),
        ("diagonal", ((0, 0), (1, 1), (2, 2))),
        ("diagonal", ((1, 0), (2, 1))),
        ("antidiagonal", ((0, 1), (1, 0))),
        ("antidiagonal", ((0, 2), (1, 1), (2, 0))),
        ("antidiagonal", ((1, 2), (2, 1))),
    ]


def test_unknown_line_kind() -> None:
    with pytest.raises(ValueError, match="unknown line kind"):
        list(Board(3).lines(("knight",)))  # type: ignore[arg-type]


@pytest.mark.parametrize("n", SIZES)
def test_conflict_graph_edges_are_attacks(n: int) -> None:
    board = Board(n)
    g = board.conflict_graph()
    assert set(g.nodes) == set(all_cells(n))
    for a, b in itertools.combinations(all_cells(n), 2):
        r1, c1 = a
        r2, c2 = b
        by_hand = r1 == r2 or c1 == c2 or abs(r1 - r2) == abs(c1 - c2)
        assert board.attacks(a, b) == by_hand == board.attacks(b, a)
        assert g.has_edge(a, b) == by_hand, (a, b)
    assert not any(board.attacks(a, a) for a in all_cells(n))
    assert not any(a == b for a, b in g.edges)


@pytest.mark.parametrize("n", SIZES)
def test_lines_partition_the_conflict_graph(n: int) -> None:
    """Every edge of the conflict graph lies on exactly one line, and every pair on a line is an edge."""
    board = Board(n)
    g = board.conflict_graph()
    on_lines: dict[frozenset, int] = {}
    for line in board.lines():
        for a, b in itertools.combinations(line.cells, 2):
            key = frozenset((a, b))
            on_lines[key] = on_lines.get(key, 0) + 1
    edges = {frozenset(e) for e in g.edges}
    assert set(on_lines) == edges
    assert all(count == 1 for count in on_lines.values())
    assert sum(len(line.cells) * (len(line.cells) - 1) // 2 for line in board.lines()) == g.number_of_edges()


# -- symmetries -----------------------------------------------------------------


def as_permutation(board: Board, sym) -> tuple[tuple[int, int], ...]:
    return tuple(sym(cell) for cell in all_cells(board.n))


@pytest.mark.parametrize("n", range(2, 9))
def test_symmetries_form_the_dihedral_group(n: int) -> None:
    board = Board(n)
    cells = all_cells(n)
    index = {cell: i for i, cell in enumerate(cells)}
    perms = [as_permutation(board, s) for s in board.symmetries]
    assert len(perms) == 8
    assert perms[0] == tuple(cells)  # identity first
    assert len(set(perms)) == 8  # distinct
    for p in perms:
        assert sorted(p) == cells  # a bijection of the board
    group = set(perms)
    for p, q in itertools.product(perms, repeat=2):
        composed = tuple(p[index[q[i]]] for i in range(len(cells)))  # p after q
        assert composed in group
    for p in perms:  # inverses
        inverse = [None] * len(cells)
        for i, image in enumerate(p):
            inverse[index[image]] = cells[i]
        assert tuple(inverse) in group
    # they preserve attacks (isometries of the queen graph)
    for s in board.symmetries:
        for a, b in itertools.combinations(cells, 2):
            assert board.attacks(s(a), s(b)) == board.attacks(a, b)


def test_symmetries_of_one_cell_board() -> None:
    board = Board(1)
    assert len(board.symmetries) == 8
    assert {s((0, 0)) for s in board.symmetries} == {(0, 0)}


@pytest.mark.parametrize("n", range(4, 9))
def test_symmetries_map_solutions_to_solutions(n: int) -> None:
    board = Board(n)
    sols = set(solutions(n))
    for sol in sols:
        queens = list(enumerate(sol))
        for s in board.symmetries:
            moved = [s(q) for q in queens]
            assert find_attack(board, moved) is None
            assert sorted(r for r, _ in moved) == list(range(n))
            assert tuple(c for _, c in sorted(moved)) in sols


EIGHT_QUEENS_SYMMETRIC = (2, 4, 1, 7, 0, 6, 3, 5)  # the fundamental 8-queens solution fixed by rotation 180


def test_images_of_known_eight_queens_solutions() -> None:
    sols = set(solutions(8))
    assert len(sols) == 92
    first = (0, 4, 7, 5, 2, 6, 1, 3)
    got = images(first)
    assert len(got) == 8
    assert got == sorted(got)
    assert first in got
    assert set(got) <= sols
    assert (3, 1, 6, 2, 5, 7, 4, 0) in got  # its mirror top-bottom (rows reversed), by hand
    assert (7, 3, 0, 2, 5, 1, 6, 4) in got  # its mirror left-right, by hand
    sym = images(EIGHT_QUEENS_SYMMETRIC)
    assert len(sym) == 4
    assert set(sym) <= sols


@pytest.mark.parametrize("n", range(1, 9))
def test_orbits_under_images_match_oeis(n: int) -> None:
    """The backtracking oracle gives A000170(n) boards falling into A002562(n) orbits under images()."""
    sols = solutions(n)
    all_count, fundamental = known_counts()[n]
    assert len(sols) == all_count
    orbits = {tuple(images(sol)) for sol in sols}
    assert len(orbits) == fundamental
    assert sum(len(orbit) for orbit in orbits) == all_count  # the orbits partition the solutions


# -- find_attack ----------------------------------------------------------------


def test_find_attack() -> None:
    board = Board(8)
    assert find_attack(board, list(enumerate((0, 4, 7, 5, 2, 6, 1, 3)))) is None
    assert find_attack(board, []) is None
    assert find_attack(board, [(3, 3)]) is None
    assert find_attack(board, [(2, 1), (2, 6)]) == ((2, 1), (2, 6))  # row
    assert find_attack(board, [(5, 4), (1, 4)]) == ((1, 4), (5, 4))  # column
    assert find_attack(board, [(0, 0), (7, 7)]) == ((0, 0), (7, 7))  # diagonal
    assert find_attack(board, [(7, 0), (0, 7)]) == ((0, 7), (7, 0))  # anti-diagonal
    assert find_attack(board, [(0, 0), (1, 2), (2, 4), (3, 1)]) is None
    pair = find_attack(board, [(0, 0), (1, 2), (2, 4), (4, 2)])  # (1,2)-(4,2) column, (2,4)-(4,2) anti
    assert pair is not None and board.attacks(*pair)


@pytest.mark.parametrize("n", [4, 5])
def test_find_attack_agrees_with_attacks(n: int) -> None:
    board = Board(n)
    cells = all_cells(n)
    for queens in itertools.combinations(cells, 3):
        expected = any(board.attacks(a, b) for a, b in itertools.combinations(queens, 2))
        pair = find_attack(board, list(queens))
        assert (pair is not None) == expected
        if pair is not None:
            assert board.attacks(*pair) and set(pair) <= set(queens)


# -- known counts ---------------------------------------------------------------


def test_known_counts_table() -> None:
    table = known_counts()
    assert sorted(table) == list(range(1, 28))
    assert [table[n][0] for n in range(1, 11)] == [1, 0, 0, 2, 10, 4, 40, 92, 352, 724]
    assert table[27] == (234907967154122528, 29363495934315694)
    for n, (a000170, a002562) in table.items():
        if a002562 is not None:
            assert a002562 <= a000170 <= 8 * a002562, n
            assert (a000170 == 0) == (a002562 == 0), n
    table[1] = (5, 5)  # a copy: the cached table stays intact
    assert known_counts()[1] == (1, 1)


def test_known_counts_csv_shipped() -> None:
    shipped = ROOT / "cnfgen_queens" / "data" / "known_counts.csv"
    rows = [line for line in shipped.read_text().splitlines() if not line.startswith("#")]
    assert rows[0] == "n,a000170,a002562"
    assert "A000170" in shipped.read_text() and "A002562" in shipped.read_text()
