"""The formula: exact counts, variable numbering, seed 004's diagonal clauses, small-N answers."""

from __future__ import annotations

import pytest

from cnfgen_queens import encodings
from cnfgen_queens.model.board import Board
from cnfgen_queens.model.formula import QueensFormula

ENCODINGS = encodings.names()
SIZES = range(1, 13)


def variants() -> list[tuple[str, int | None]]:
    """Every registered encoding with its default parameters, plus commander with g = 2..5."""
    out: list[tuple[str, int | None]] = [(name, None) for name in ENCODINGS]
    out += [("commander", g) for g in range(2, 6)]
    return out


def test_registry_has_the_issue_encodings() -> None:
    assert {"pairwise", "sequential", "commander", "nested"} <= set(ENCODINGS)


@pytest.mark.parametrize("column_alo", [False, True], ids=["rows", "rows+cols"])
@pytest.mark.parametrize(("encoding", "group_size"), variants())
def test_counts_equal_generated(encoding: str, group_size: int | None, column_alo: bool) -> None:
    for n in SIZES:
        f = QueensFormula(n, encoding, column_alo, group_size)
        clauses = list(f.clauses())
        num_vars, num_clauses = f.counts()
        where = f"n={n} {f.describe()}"
        assert num_clauses == len(clauses), where
        used = {abs(lit) for clause in clauses for lit in clause}
        # every literal within 1..V; every variable (cells and auxiliaries) used
        assert used == set(range(1, num_vars + 1)), where
        assert all(lit != 0 for clause in clauses for lit in clause)
        assert all(clause for clause in clauses), where  # no empty clause
        # row (and column) at-least-one clauses lead, in order
        board = Board(n)
        rows = [tuple(board.var(r, c) for c in range(n)) for r in range(n)]
        cols = [tuple(board.var(r, c) for r in range(n)) for c in range(n)]
        expected_alo = rows + (cols if column_alo else [])
        assert clauses[: len(expected_alo)] == expected_alo, where
        # no other all-positive clause over cells only
        rest = clauses[len(expected_alo) :]
        assert not any(all(0 < lit <= n * n for lit in clause) for clause in rest), where


@pytest.mark.parametrize(("encoding", "group_size"), variants())
def test_clause_order_and_auxiliary_blocks(encoding: str, group_size: int | None) -> None:
    """Row ALO, then each line's encoding in Board.lines() order, auxiliaries drawn from N*N+1 line by line."""
    for n in (1, 2, 5, 9):
        f = QueensFormula(n, encoding, False, group_size)
        board, enc = Board(n), encodings.get(encoding)
        pool = encodings.VarPool(n * n)
        expected = [tuple(board.var(r, c) for c in range(n)) for r in range(n)]
        last_top = n * n
        for line in board.lines():
            part = enc(board.line_vars(line), pool, **f.params)
            aux = {abs(lit) for clause in part for lit in clause if abs(lit) > n * n}
            # this line's auxiliaries are exactly the pool's new block
            assert aux == set(range(last_top + 1, pool.top + 1)), (n, encoding, line)
            last_top = pool.top
            expected += part
        assert list(f.clauses()) == expected, (n, encoding)
        assert f.counts()[0] == pool.top
        assert list(f.clauses()) == list(QueensFormula(n, encoding, False, group_size).clauses())  # deterministic


def test_auxiliary_counts_by_encoding() -> None:
    """Spot values computed by hand from the papers' formulas, for N = 4 (lines of 4,4,4,4 x2; 2,3,4,3,2 x2)."""
    lengths = [4] * 8 + [2, 3, 4, 3, 2] * 2
    assert sorted(QueensFormula(4).line_lengths()) == sorted(lengths)
    pair = sum(k * (k - 1) // 2 for k in lengths)
    assert QueensFormula(4, "pairwise").counts() == (16, 4 + pair)
    assert QueensFormula(4, "nested").counts() == (16, 4 + pair)
    seq_c = sum(3 * k - 4 for k in lengths)
    seq_a = sum(k - 1 for k in lengths)
    assert QueensFormula(4, "sequential").counts() == (16 + seq_a, 4 + seq_c)
    # commander g=3 on 4 inputs: one group of 3 (3 + 3 + 1 clauses, 1 aux) + a lone input, then pairwise on 2
    # commanders: 7 + 1 = 8 clauses, 1 aux; on 2 or 3 inputs it is pairwise.
    com_c = sum(8 if k == 4 else k * (k - 1) // 2 for k in lengths)
    com_a = sum(1 if k == 4 else 0 for k in lengths)
    assert QueensFormula(4, "commander").counts() == (16 + com_a, 4 + com_c)


def test_unknown_encoding_and_bad_size() -> None:
    with pytest.raises(ValueError, match=r"valid: .*pairwise"):
        QueensFormula(4, "binary-nonsense")
    for bad in (0, -1):
        with pytest.raises(ValueError):
            QueensFormula(bad)


def test_header_comments() -> None:
    f = QueensFormula(3, "sequential")
    comments = f.header_comments("gen-queens 3 -e sequential")
    text = "\n".join(comments)
    assert "3-queens" in text and "encoding=sequential" in text
    assert "r*3 + c + 1" in text
    assert f"auxiliary variables 10..{f.counts()[0]}" in text
    assert "command: gen-queens 3 -e sequential" in comments
    assert comments[-1] == "p show 1 2 3 4 5 6 7 8 9 0"
    assert not any(c.startswith("command") for c in f.header_comments(None))


# -- seed 004 fidelity ------------------------------------------------------------
# Seed 004 (R. Adamkovic, "N-queens: solve with home-grown SAT solver"), typed in verbatim: its
# "decreasing diagonal" clauses (i - j constant) and, with TRANSPOSE, its anti-diagonal clauses
# (i + j constant), variables numbered r*N + c + 1.

SEED_DIAGONAL = {
    2: [(-4, -1)],
    3: [(-9, -5), (-9, -1), (-8, -4), (-6, -2), (-5, -1)],
    4: [
        (-16, -11),
        (-16, -6),
        (-16, -1),
        (-15, -10),
        (-15, -5),
        (-14, -9),
        (-12, -7),
        (-12, -2),
        (-11, -6),
        (-11, -1),
        (-10, -5),
        (-8, -3),
        (-7, -2),
        (-6, -1),
    ],
}
SEED_ANTIDIAGONAL = {
    2: [(-3, -2)],
    3: [(-8, -6), (-7, -5), (-7, -3), (-5, -3), (-4, -2)],
}


def mirror_left_right(n: int, clauses: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Map every cell (r, c) to (r, n-1-c): it turns the seed's diagonals into its anti-diagonals."""

    def flip(lit: int) -> int:
        r, c = divmod(abs(lit) - 1, n)
        v = r * n + (n - 1 - c) + 1
        return v if lit > 0 else -v

    return [tuple(flip(lit) for lit in clause) for clause in clauses]


def seed_predicate(n: int, transpose: bool) -> set[frozenset[int]]:
    """A transcription of the seed's Lisp predicate (pairs of cells on one diagonal)."""
    cells = [(r * n + c + 1, r, c) for r in range(n) for c in range(n)]
    out = set()
    for v, r, c in cells:
        for v2, r2, c2 in cells:
            if (transpose and r2 > r and c2 < c and r + c == r2 + c2) or (
                not transpose and r2 > r and c2 > c and r - c == r2 - c2
            ):
                out.add(frozenset((-v, -v2)))
    return out


def generated_diagonal_clauses(n: int) -> tuple[set[frozenset[int]], set[frozenset[int]]]:
    """The pairwise formula's binary negative clauses whose two cells share a diagonal / an anti-diagonal."""
    diagonal: set[frozenset[int]] = set()
    anti: set[frozenset[int]] = set()
    for clause in QueensFormula(n, "pairwise").clauses():
        if len(clause) != 2 or any(lit > 0 for lit in clause):
            continue
        (r1, c1), (r2, c2) = (divmod(-lit - 1, n) for lit in clause)
        if r1 - c1 == r2 - c2:
            diagonal.add(frozenset(clause))
        elif r1 + c1 == r2 + c2:
            anti.add(frozenset(clause))
    return diagonal, anti


def as_set(clauses: list[tuple[int, ...]]) -> set[frozenset[int]]:
    out = {frozenset(c) for c in clauses}
    assert len(out) == len(clauses)  # the seed lists have no duplicates
    return out


@pytest.mark.parametrize("n", [2, 3, 4])
def test_seed_004_diagonal_clauses(n: int) -> None:
    diagonal, anti = generated_diagonal_clauses(n)
    assert diagonal == as_set(SEED_DIAGONAL[n])
    # N = 4's anti-diagonal list is not printed in the seed: it is its diagonal list mirrored
    expected_anti = SEED_ANTIDIAGONAL.get(n) or mirror_left_right(n, SEED_DIAGONAL[n])
    assert anti == as_set(expected_anti)
    assert diagonal == seed_predicate(n, transpose=False)
    assert anti == seed_predicate(n, transpose=True)


@pytest.mark.parametrize("n", [2, 3])
def test_seed_mirror_matches_printed_anti_diagonals(n: int) -> None:
    """The mirror used for N = 4 reproduces the anti-diagonal lists the seed does print."""
    assert as_set(mirror_left_right(n, SEED_DIAGONAL[n])) == as_set(SEED_ANTIDIAGONAL[n])


@pytest.mark.parametrize("n", range(5, 9))
def test_seed_predicate_larger_boards(n: int) -> None:
    diagonal, anti = generated_diagonal_clauses(n)
    assert diagonal == seed_predicate(n, transpose=False)
    assert anti == seed_predicate(n, transpose=True)


# -- small boards with a real solver ------------------------------------------------


def solve(f: QueensFormula) -> list[int] | None:
    from pysat.solvers import Solver

    with Solver(name="cadical195", bootstrap_with=list(f.clauses())) as s:
        return s.get_model() if s.solve() else None


@pytest.mark.parametrize(("encoding", "group_size"), variants())
def test_small_boards_sat_status(encoding: str, group_size: int | None) -> None:
    for n, sat in [(1, True), (2, False), (3, False), (4, True), (5, True), (6, True)]:
        for column_alo in (False, True):
            f = QueensFormula(n, encoding, column_alo, group_size)
            model = solve(f)
            assert (model is not None) == sat, (n, f.describe())
            if model is None:
                continue
            true = {v for v in model if v > 0}
            clauses = list(f.clauses())
            assert all(any((lit > 0) == (abs(lit) in true) for lit in c) for c in clauses)
            board = Board(n)
            queens = sorted(board.cell(v) for v in true if v <= n * n)
            assert len(queens) == n
            assert all(not board.attacks(a, b) for a in queens for b in queens if a < b)


def test_one_queen_formula() -> None:
    for name, g in variants():
        f = QueensFormula(1, name, False, g)
        assert f.counts() == (1, 1)
        assert list(f.clauses()) == [(1,)]
