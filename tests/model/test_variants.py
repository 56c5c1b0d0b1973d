"""gen-queens variants: exact clauses, header, seeded reproducibility, one-line errors, decode checks."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import pytest
from helpers import gen_in_process, need_solver, one_line, run_cli

from cnfgen_queens import encodings
from cnfgen_queens.cli import gen_main, main
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.variants import PLAIN, Variant, from_header, make_variant, torus_attacks


def body(out: bytes) -> tuple[list[str], str, list[tuple[int, ...]]]:
    """(comments, p line, clauses) of a DIMACS text."""
    lines = out.decode().splitlines()
    p = next(i for i, line in enumerate(lines) if line.startswith("p "))
    clauses = [tuple(int(t) for t in line.split()[:-1]) for line in lines[p + 1 :]]
    assert all(line.endswith(" 0") for line in lines[p + 1 :])
    return [line[2:] for line in lines[:p]], lines[p], clauses


def pairs(vars_: list[int]) -> list[tuple[int, int]]:
    return [(-a, -b) for a, b in combinations(vars_, 2)]


# -- the clauses, exactly ----------------------------------------------------------


def test_place_and_block_are_unit_clauses_after_the_plain_formula(capfdbinary) -> None:
    code, out, err = gen_in_process(
        ["4", "--place", "1,2", "--block-square", "2,4", "--block-square", "4,1"], capfdbinary
    )
    assert code == 0 and err == ""
    _, p_line, clauses = body(out)
    plain = list(QueensFormula(4).clauses())
    # queen at row 1 column 2 is x(0,1) = 2; blocked x(1,3) = 8 and x(3,0) = 13
    assert clauses == [*plain, (2,), (-8,), (-13,)]
    assert p_line == f"p cnf 16 {len(plain) + 3}"


@pytest.mark.parametrize("encoding", encodings.names())
def test_every_encoding_takes_the_variants(capfdbinary, encoding: str) -> None:
    code, out, _ = gen_in_process(["5", "-e", encoding, "--place", "3,3", "--block-square", "1,1"], capfdbinary)
    assert code == 0
    _, p_line, clauses = body(out)
    plain = QueensFormula(5, encoding)
    assert clauses == [*plain.clauses(), (13,), (-1,)]
    v, c = plain.counts()
    assert p_line == f"p cnf {v} {c + 2}"  # variables unchanged: no new auxiliaries


def test_torus_clauses_n3_exactly(capfdbinary) -> None:
    code, out, _ = gen_in_process(["3", "--torus", "--no-comments"], capfdbinary)
    assert code == 0
    _, p_line, clauses = body(out)
    rows = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    cols = [[1, 4, 7], [2, 5, 8], [3, 6, 9]]
    diagonals = [[1, 5, 9], [3, 4, 8], [2, 6, 7]]  # r - c = 0, 1, 2 (mod 3), by row
    antidiagonals = [[1, 6, 8], [2, 4, 9], [3, 5, 7]]  # r + c = 0, 1, 2 (mod 3), by row
    expected = [tuple(r) for r in rows]
    for line in rows + cols + diagonals + antidiagonals:
        expected += pairs(line)
    assert clauses == expected
    assert p_line == f"p cnf 9 {len(expected)}"


def test_torus_lines_wrap_for_every_n() -> None:
    for n in range(2, 9):
        f = QueensFormula(n, variant=Variant(torus=True))
        lines = list(f.lines())
        assert len(lines) == 4 * n and all(len(line.cells) == n for line in lines)
        for line in lines:  # every pair on a line attacks on the torus, and only those
            for a, b in combinations(line.cells, 2):
                assert torus_attacks(n, a, b)
        covered = {frozenset(p) for line in lines for p in combinations(line.cells, 2)}
        cells = [(r, c) for r in range(n) for c in range(n)]
        assert covered == {frozenset(p) for p in combinations(cells, 2) if torus_attacks(n, *p)}


def test_torus_with_sequential_and_fast_path_agree() -> None:
    import io

    from cnfgen_queens.cnf.writer import write_cnf

    for n, variant in ((30, make_variant(30, random_k=7, seed=3)), (29, make_variant(29, [(0, 0)], [(5, 5)], True))):
        f = QueensFormula(n, "sequential", variant=variant)
        a, b = io.BytesIO(), io.BytesIO()
        write_cnf(a, f, fast=True)
        write_cnf(b, f, fast=False)
        assert a.getvalue() == b.getvalue()
        assert b.getvalue().count(b"\n") == f.counts()[1] + 1


def test_header_records_the_variant_and_parses_back(capfdbinary, tmp_path: Path) -> None:
    holes = tmp_path / "holes.txt"
    holes.write_text("# blocked\n2,2\n3 5  # spaces work too\n\n")
    code, out, _ = gen_in_process(
        ["7", "--torus", "--place", "1,1", "--holes", str(holes), "--random-place", "2", "--seed", "5"], capfdbinary
    )
    assert code == 0
    comments, _, clauses = body(out)
    assert comments[1] == "n=7 encoding=pairwise column_alo=false"  # unchanged conventions
    assert comments[-1].startswith("p show 1 2 ")
    assert "variant: torus (diagonals wrap modulo N)" in comments
    assert any(c.startswith("random placement: k=2 seed=5 method=sequential-uniform") for c in comments)
    v = from_header(comments)
    assert v.torus and v.holes == ((1, 1), (2, 4)) and len(v.placed) == 3 and (0, 0) in v.placed
    assert v.placed == make_variant(7, [(0, 0)], [(1, 1), (2, 4)], True, 2, 5).placed
    units = [c for c in clauses if len(c) == 1]
    assert units == [(r * 7 + c + 1,) for r, c in v.placed] + [(-9,), (-19,)]  # x(1,1) = 9, x(2,4) = 19


def test_long_placements_wrap_over_comment_lines() -> None:
    v = make_variant(60, random_k=40, seed=1)
    lines = [x for x in v.header_lines() if x.startswith("placed queens")]
    assert len(lines) == 3 and from_header(v.header_lines()).placed == v.placed


# -- random placement ----------------------------------------------------------------


def test_same_seed_same_bytes_other_seed_other_queens(tmp_path: Path) -> None:
    argv = ["20", "--random-place", "8", "--seed", "42", "-e", "commander"]
    runs = [run_cli(argv, tmp_path, gen=True, env={"PYTHONHASHSEED": s}) for s in ("0", "999")]
    assert runs[0].code == runs[1].code == 0
    assert runs[0].out == runs[1].out
    other = run_cli([*argv[:-3], "43", "-e", "commander"], tmp_path, gen=True)
    assert other.code == 0 and other.out != runs[0].out


def test_random_placement_is_non_attacking_and_avoids_holes() -> None:
    for seed in range(30):
        for torus in (False, True):
            n = 11
            v = make_variant(n, [(0, 3)], [(5, 5), (6, 6)], torus, 4, seed)
            assert len(v.placed) == 5 and (0, 3) in v.placed
            assert not set(v.placed) & set(v.holes)
            assert v.attacking_pair(n, v.placed) is None
            for a, b in combinations(v.placed, 2):
                assert not (torus_attacks(n, a, b) if torus else QueensFormula(n).board.attacks(a, b))


def test_random_placement_is_spread_over_the_board() -> None:
    """The first queen of the sequential-uniform method is uniform over all N*N squares."""
    n, draws = 5, 2000
    firsts = {make_variant(n, random_k=1, seed=s).placed[0] for s in range(draws)}
    assert len(firsts) == n * n


# -- bad options: one line, exit 2 ------------------------------------------------------

BAD = [
    (["8", "--place", "1,1", "--place", "2,2"], "placed queens at 1,1 and 2,2 attack each other"),
    (["8", "--place", "1,1", "--place", "1,5"], "attack each other"),
    (["8", "--place", "9,1"], "queen at 9,1 is off the 8x8 board"),
    (["8", "--place", "0,3"], "off the 8x8 board"),
    (["8", "--place", "x"], "argument --place: expected ROW,COLUMN"),
    (["8", "--place", "1,2,3"], "expected ROW,COLUMN"),
    (["8", "--block-square", "3,-1"], "blocked square at 3,-1 is off the 8x8 board"),
    (["8", "--place", "2,2", "--block-square", "2,2"], "queen at 2,2 stands on a blocked square"),
    (["8", "--place", "2,2", "--place", "2,2"], "queen at 2,2 is given twice"),
    (["5", "--torus", "--place", "1,1", "--place", "2,5"], "attack each other (torus)"),
    (["8", "--random-place", "3"], "--random-place needs --seed"),
    (["8", "--seed", "3"], "--seed needs --random-place"),
    (["8", "--random-place", "-1", "--seed", "1"], "argument --random-place: must be a non-negative integer"),
    (["8", "--random-place", "9", "--seed", "1"], "cannot place 9 more non-attacking queens"),
    pytest.param(["50", "--random-place", "50", "--seed", "1"], "hit a dead end 1000 times", marks=pytest.mark.slow),
    (["8", "--holes", "/nonexistent/holes"], "cannot read /nonexistent/holes"),
    (["8", "--torus", "--format", "opb"], "--torus applies to --format cnf only"),
]


@pytest.mark.parametrize(("argv", "message"), BAD)
def test_bad_options_are_one_line_errors(capfdbinary, argv: list[str], message: str) -> None:
    code, out, err = gen_in_process(argv, capfdbinary)
    assert code == 2 and out == b""
    assert one_line(err, message).startswith("gen-queens: error: "), err


def test_bad_lines_in_a_place_file_name_the_line(capfdbinary, tmp_path: Path) -> None:
    f = tmp_path / "q.txt"
    f.write_text("1,1\n2 x\n")
    code, _, err = gen_in_process(["8", "--place-file", str(f)], capfdbinary)
    assert code == 2 and f"{f}:2: expected ROW,COLUMN" in err and err.count("\n") == 1
    f.write_bytes(b"\xff\xfe\n")
    code, _, err = gen_in_process(["8", "--place-file", str(f)], capfdbinary)
    assert code == 2 and "not a text file" in err


def test_huge_n_random_placement_is_refused(capfdbinary) -> None:
    code, _, err = gen_in_process(["5000", "--random-place", "1", "--seed", "1"], capfdbinary)
    assert code == 2 and "N <= 1000" in err


# -- solve and decode: the extra constraints come from the header ----------------------------


def test_decode_checks_the_variant_from_the_header(tmp_path: Path, capsys) -> None:
    cnf = tmp_path / "q.cnf"
    assert gen_main(["8", "--place", "1,1", "-o", str(cnf)]) == 0
    # 8-queens solutions with a queen in the corner: 1 5 8 6 3 7 2 4 (a corner solution)
    good = [r * 8 + c + 1 for r, c in enumerate([0, 4, 7, 5, 2, 6, 1, 3])]
    bad = [r * 8 + c + 1 for r, c in enumerate([3, 1, 6, 2, 5, 7, 4, 0])]  # a solution, but not with 1,1
    (tmp_path / "good.txt").write_text("s SATISFIABLE\nv " + " ".join(map(str, good)) + " 0\n")
    (tmp_path / "bad.txt").write_text("s SATISFIABLE\nv " + " ".join(map(str, bad)) + " 0\n")
    capsys.readouterr()
    assert main(["decode", str(tmp_path / "good.txt"), "--cnf", str(cnf), "--format", "line"]) == 0
    assert capsys.readouterr().out == "1 5 8 6 3 7 2 4\n"
    assert main(["decode", str(tmp_path / "bad.txt"), "-n", "8", "--format", "line"]) == 0  # plain: fine
    capsys.readouterr()
    assert main(["decode", str(tmp_path / "bad.txt"), "--cnf", str(cnf)]) == 1
    err = capsys.readouterr().err
    assert "the placed queen at row 1 column 1 is missing" in err and err.count("\n") == 1


def test_decode_checks_holes_and_torus(tmp_path: Path, capsys) -> None:
    sol = [r * 8 + c + 1 for r, c in enumerate([0, 4, 7, 5, 2, 6, 1, 3])]
    (tmp_path / "m.txt").write_text("s SATISFIABLE\nv " + " ".join(map(str, sol)) + " 0\n")
    assert gen_main(["8", "--block-square", "2,5", "-o", str(tmp_path / "h.cnf")]) == 0
    assert gen_main(["8", "--torus", "-o", str(tmp_path / "t.cnf")]) == 0
    capsys.readouterr()
    assert main(["decode", str(tmp_path / "m.txt"), "--cnf", str(tmp_path / "h.cnf")]) == 1
    assert "a queen stands on the blocked square at row 2 column 5" in capsys.readouterr().err
    assert main(["decode", str(tmp_path / "m.txt"), "--cnf", str(tmp_path / "t.cnf")]) == 1
    assert "attack on the torus" in capsys.readouterr().err


@pytest.mark.parametrize("solver", ["kissat", "minisat", "cadical"])
def test_real_solvers_solve_and_decode_variants(solver: str, tmp_path: Path, capsys) -> None:
    need_solver(solver)
    cases = [
        (["13", "--torus"], 10),
        (["12", "--random-place", "4", "--seed", "7", "--block-square", "6,6"], None),
        (["8", "--place", "1,1", "--place", "2,3"], 20),  # 1,1 and 2,3 admit no completion
        (["6", "--torus"], 20),  # gcd(6, 6) != 1
    ]
    for argv, expect in cases:
        cnf = tmp_path / "v.cnf"
        assert gen_main([*argv, "-o", str(cnf)]) == 0
        out = tmp_path / "out.txt"
        code = main(["solve", str(cnf), "--solver", solver])
        out.write_text(capsys.readouterr().out)
        assert code in (10, 20)
        if expect is not None:
            assert code == expect, argv
        if code == 10:
            assert main(["decode", str(out), "--cnf", str(cnf), "--format", "line"]) == 0
            cols = [int(t) - 1 for t in capsys.readouterr().out.split()]
            v = from_header([line[2:] for line in cnf.read_text().splitlines() if line.startswith("c ")])
            assert v.check(int(argv[0]), list(enumerate(cols))) is None
            assert v.attacking_pair(int(argv[0]), list(enumerate(cols))) is None


def test_plain_variant_is_plain() -> None:
    assert not PLAIN.active and QueensFormula(8, variant=PLAIN) == QueensFormula(8)
    assert QueensFormula(8).header_comments() == QueensFormula(8, variant=Variant()).header_comments()


def test_shuffled_variant_decodes_with_its_checks(tmp_path: Path, capsys) -> None:
    need_solver("kissat")
    cnf = tmp_path / "s.cnf"
    assert gen_main(["10", "--place", "1,2", "--block-square", "2,4", "--shuffle", "3", "-o", str(cnf)]) == 0
    capsys.readouterr()
    assert main(["solve", str(cnf), "--solver", "kissat"]) == 10
    (tmp_path / "out.txt").write_text(capsys.readouterr().out)
    assert main(["decode", str(tmp_path / "out.txt"), "--cnf", str(cnf), "--format", "line"]) == 0
    cols = [int(t) for t in capsys.readouterr().out.split()]
    assert cols[0] == 2 and cols[1] != 4 and sorted(cols) == list(range(1, 11))


def test_torus_counts_match_the_built_formula_and_are_cheap() -> None:
    for n in (1, 2, 3, 6, 9):
        for enc in ("pairwise", "commander", "sequential"):
            f = QueensFormula(n, enc, variant=Variant(torus=True))
            clauses = list(f.clauses())
            top = max((abs(lit) for c in clauses for lit in c), default=0)
            assert f.counts() == (max(top, n * n), len(clauses))
    big = QueensFormula(10**6, "commander", variant=Variant(torus=True))  # closed form, nothing built
    assert big.counts()[0] > 10**12


@pytest.mark.parametrize("encoding", encodings.names())
def test_fast_writer_equals_reference_on_variants(encoding: str) -> None:
    """generate.py's template path (wrapped lines on the torus) writes the reference bytes."""
    import io

    from cnfgen_queens.cnf.writer import write_cnf

    for variant in (
        Variant(torus=True),
        make_variant(13, [(0, 0)], [(3, 3)], True),
        make_variant(13, random_k=4, seed=9),
    ):
        f = QueensFormula(13, encoding, variant=variant)
        a, b = io.BytesIO(), io.BytesIO()
        write_cnf(a, f, fast=True)
        write_cnf(b, f, fast=False)
        assert a.getvalue() == b.getvalue()
