"""OPB and MiniZinc exports: exact parse, semantics against boards, and real solvers where installed."""

from __future__ import annotations

import io
import itertools
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import need_tool
from pysat.solvers import Solver

from cnfgen_queens.cli import gen_main
from cnfgen_queens.cnf.exports import Opb, OpbError, mzn_text, opb_counts, parse_opb, write_opb
from cnfgen_queens.model.board import Board, find_attack

A000170 = {1: 1, 2: 0, 3: 0, 4: 2, 5: 10, 6: 4, 7: 40, 8: 92}
SAT4J_JAR = Path("/usr/share/java/org.sat4j.pb.jar")  # Debian package sat4j


def opb(n: int, comments: list[str] | None = None) -> str:
    buf = io.BytesIO()
    written = write_opb(buf, n, comments)
    assert written == opb_counts(n)[1]
    return buf.getvalue().decode()


def cells(board: Board, queens) -> set[int]:
    return {board.var(r, c) for r, c in queens}


@pytest.mark.parametrize("n", range(1, 9))
def test_opb_structure(n: int) -> None:
    text = opb(n, ["a comment"])
    assert text.splitlines()[0] == f"* #variable= {n * n} #constraint= {opb_counts(n)[1]}"
    p = parse_opb(text)
    assert p.num_vars == n * n and len(p.constraints) == opb_counts(n)[1]
    board = Board(n)
    rows, others = p.constraints[:n], p.constraints[n:]
    for r, (terms, op, rhs) in enumerate(rows):
        assert (op, rhs) == ("=", 1) and terms == tuple((1, board.var(r, c)) for c in range(n))
    lines = [set(board.line_vars(line)) for line in board.lines(("column", "diagonal", "antidiagonal"))]
    assert [{v for _, v in t} for t, _, _ in others] == lines
    assert all(op == ">=" and rhs == -1 and all(a == -1 for a, _ in t) for t, op, rhs in others)


def test_opb_semantics_exhaustive_n4() -> None:
    """Every one of the 2^16 assignments: all constraints hold iff it is a 4-queens board."""
    board, p = Board(4), parse_opb(opb(4))
    boards = 0
    for bits in range(1 << 16):
        true = {v for v in range(1, 17) if bits >> (v - 1) & 1}
        queens = [board.cell(v) for v in true]
        is_board = len(queens) == 4 and find_attack(board, queens) is None
        assert (p.violated(true) is None) == is_board
        boards += is_board
    assert boards == 2


def test_opb_known_board_and_a_non_board() -> None:
    board, p = Board(8), parse_opb(opb(8))
    solution = [(r, c) for r, c in enumerate((0, 4, 7, 5, 2, 6, 1, 3))]
    assert find_attack(board, solution) is None and p.violated(cells(board, solution)) is None
    moved = [*solution[:7], (7, 2)]  # row 7's queen onto column 2 (column clash with row 4)
    assert p.violated(cells(board, moved)) is not None
    assert p.violated(cells(board, solution[:7])) is not None  # a row without a queen


def to_cnf(p: Opb) -> list[list[int]]:
    """Clauses of our OPB subset: '= 1' over +1 terms, '>= -1' over -1 terms (pairwise at-most-one)."""
    out: list[list[int]] = []
    for terms, op, rhs in p.constraints:
        vs = [v for _, v in terms]
        if op == "=":
            assert rhs == 1 and all(a == 1 for a, _ in terms)
            out.append(vs)
        else:
            assert rhs == -1 and all(a == -1 for a, _ in terms)
        out += [[-a, -b] for a, b in itertools.combinations(vs, 2)]
    return out


@pytest.mark.parametrize(("n", "expected"), A000170.items())
def test_opb_counts_match_oeis(n: int, expected: int) -> None:
    p = parse_opb(opb(n))
    found = 0
    with Solver(name="minisat22", bootstrap_with=to_cnf(p)) as s:
        while s.solve():
            true = {x for x in s.get_model() if x > 0}
            assert p.violated(true) is None
            found += 1
            s.add_clause([-v for v in true])
    assert found == expected


def test_opb_parser_is_strict() -> None:
    good = opb(2)
    with pytest.raises(OpbError):
        parse_opb(good.replace("#variable=", "#variables="))
    with pytest.raises(OpbError):
        parse_opb(good.replace(" ;", ""))
    with pytest.raises(OpbError):
        parse_opb(good.replace("x4", "x5"))  # beyond the declared variables
    with pytest.raises(OpbError):
        parse_opb(good + "+1 x1 >= 1 ;\n")  # more constraints than declared


def sat4j(path: Path) -> tuple[str, set[int]]:
    java = shutil.which("java")
    if java is None or not SAT4J_JAR.is_file():
        need_tool("sat4j not installed (scripts/install-solvers.sh installs it)")
    run = subprocess.run([java, "-jar", str(SAT4J_JAR), str(path)], capture_output=True, text=True, timeout=120)
    status = next(line[2:].strip() for line in run.stdout.splitlines() if line.startswith("s "))
    true = {
        int(t[1:])
        for line in run.stdout.splitlines()
        if line.startswith("v ")
        for t in line.split()[1:]
        if t.startswith("x")
    }
    return status, true


@pytest.mark.parametrize("n", [1, 3, 8, 12])
def test_opb_solved_by_sat4j(tmp_path: Path, n: int) -> None:
    path = tmp_path / "q.opb"
    assert gen_main([str(n), "--format", "opb", "-o", str(path)]) == 0
    status, true = sat4j(path)
    if A000170.get(n, 1) == 0:
        assert status == "UNSATISFIABLE"
        return
    assert status == "SATISFIABLE"
    board = Board(n)
    assert parse_opb(path.read_text()).violated(true) is None
    queens = [board.cell(v) for v in true]
    assert len(queens) == n and find_attack(board, queens) is None


def test_mzn_structure() -> None:
    text = mzn_text(8, ["hello"])
    assert text.startswith("% hello\n")
    body = [line for line in text.splitlines() if not line.startswith("%")]
    assert body[:3] == ['include "alldifferent.mzn";', "int: n = 8;", "array[1..n] of var 1..n: q;"]
    assert "constraint all_different(q);" in body
    assert "constraint all_different([q[i] + i | i in 1..n]);" in body
    assert "constraint all_different([q[i] - i | i in 1..n]);" in body
    assert "solve satisfy;" in body


@pytest.mark.parametrize(("n", "expected"), A000170.items())
def test_mzn_counts_with_minizinc(tmp_path: Path, n: int, expected: int) -> None:
    minizinc = shutil.which("minizinc")
    if minizinc is None:
        need_tool("minizinc not installed (scripts/install-solvers.sh installs it)")
    path = tmp_path / "q.mzn"
    assert gen_main([str(n), "--format", "mzn", "-o", str(path)]) == 0
    run = subprocess.run([minizinc, "--solver", "gecode", "-a", str(path)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    solutions = [list(map(int, m.group(1).split(","))) for m in re.finditer(r"q = \[([^\]]*)\]", run.stdout)]
    assert len(solutions) == expected == run.stdout.count("----------")
    if expected == 0:
        assert "=====UNSATISFIABLE=====" in run.stdout
    board = Board(n)
    for q in solutions:
        assert find_attack(board, [(i, c - 1) for i, c in enumerate(q)]) is None
    assert len({tuple(q) for q in solutions}) == expected


def test_cli_exports(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert gen_main(["5", "--format", "opb", "--no-comments"]) == 0
    assert capsysbinary.readouterr().out.decode() == opb(5)
    assert gen_main(["5", "--format", "mzn", "--no-comments"]) == 0
    assert capsysbinary.readouterr().out.decode() == mzn_text(5)
    out = tmp_path / "q.opb"
    assert gen_main(["6", "--format", "opb", "-o", str(out)]) == 0
    first = out.read_bytes()
    assert gen_main(["6", "--format", "opb", "-o", str(out)]) == 0
    assert out.read_bytes() == first and first.startswith(b"* #variable= 36 #constraint= 30\n* cnfgen-queens")
    for flag in (["-e", "ladder"], ["--column-alo"], ["--group-size", "3"]):
        assert gen_main(["5", "--format", "mzn", *flag]) == 2
    assert gen_main(["5", "--format", "xml"]) == 2
