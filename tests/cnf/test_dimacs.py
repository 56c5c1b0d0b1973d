"""DIMACS reading (strict and forgiving), model checking and merging."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from cnfgen_queens.cnf.dimacs import (
    DimacsError,
    read_header,
    read_header_file,
    write_clauses,
    write_header,
)
from cnfgen_queens.cnf.merge import merge, read_blocks
from cnfgen_queens.cnf.scan import read_cnf, violated_clause
from cnfgen_queens.model.formula import QueensFormula


def write(tmp_path: Path, text: str, name: str = "f.cnf") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode())
    return path


class Warnings(list):
    def __call__(self, msg: str) -> None:
        self.append(msg)


def generated(tmp_path: Path, n: int, encoding: str = "pairwise", comments: bool = True) -> Path:
    f = QueensFormula(n, encoding)
    buf = io.BytesIO()
    v, c = f.counts()
    write_header(buf, v, c, f.header_comments("test") if comments else ())
    assert write_clauses(buf, f.clauses()) == c
    return write(tmp_path, buf.getvalue().decode(), f"q{n}-{encoding}.cnf")


# -- header -------------------------------------------------------------------------


def test_read_header_fields_and_position() -> None:
    data = b"c first comment\nc\n\nc key  value here\np cnf 7 3\n1 2 0\n"
    stream = io.BytesIO(data)
    h = read_header(stream, "x.cnf")
    assert (h.num_vars, h.num_clauses) == (7, 3)
    assert h.comments == ("first comment", "", "key  value here")
    assert h.comment_value("key") == "value here"
    assert h.comment_value("absent") is None
    assert data[h.body_offset :] == b"1 2 0\n"
    assert h.body_line == 6
    assert stream.read() == b"1 2 0\n"  # the stream is left at the body


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("p cnf 3\n1 0\n", 1),
        ("c ok\np cnf three 2\n", 2),
        ("c ok\nc ok\np dnf 3 2\n", 3),
        ("p cnf 3 2 9\n", 1),
        ("p cnf -3 2\n", 1),
        ("1 2 0\np cnf 2 1\n", 1),  # a clause before the header
        ("\nq cnf 2 1\n", 2),
    ],
)
def test_bad_p_line_names_the_line(tmp_path: Path, text: str, line: int) -> None:
    path = write(tmp_path, text)
    with pytest.raises(DimacsError, match=rf"f\.cnf:{line}:"):
        read_header_file(path)
    with pytest.raises(DimacsError, match=rf"f\.cnf:{line}:"):
        read_cnf(path, warn=Warnings())


def test_no_header(tmp_path: Path) -> None:
    for text in ("", "c only comments\n"):
        with pytest.raises(DimacsError, match="no 'p cnf' header"):
            read_cnf(write(tmp_path, text), warn=Warnings())


# -- body ---------------------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["pairwise", "sequential", "commander"])
def test_round_trip_of_generated_formula(tmp_path: Path, encoding: str) -> None:
    f = QueensFormula(7, encoding)
    for comments in (True, False):
        warn = Warnings()
        cnf = read_cnf(generated(tmp_path, 7, encoding, comments), warn=warn)
        assert warn == []
        assert (cnf.num_vars, cnf.num_clauses) == f.counts()
        assert list(cnf.clauses()) == list(f.clauses())
        if comments:
            assert cnf.header.comment_value("command:") == "test"


def test_fast_and_slow_paths_agree(tmp_path: Path) -> None:
    """A body with a comment line goes through the line-by-line parser; the result is the same."""
    plain = "p cnf 4 3\n1 -2 0\n3\n4 0\n-1 -4 0\n"
    commented = "p cnf 4 3\n1 -2 0\nc inside the body\n3\n4 0\n-1 -4 0\n"
    a = read_cnf(write(tmp_path, plain, "a.cnf"), warn=Warnings())
    b = read_cnf(write(tmp_path, commented, "b.cnf"), warn=Warnings())
    assert list(a.clauses()) == list(b.clauses()) == [(1, -2), (3, 4), (-1, -4)]
    assert a.lits.tolist() == b.lits.tolist() == [1, -2, 0, 3, 4, 0, -1, -4, 0]


def test_forgiving_readings_warn(tmp_path: Path) -> None:
    # missing final 0: taken as ended, with a warning
    warn = Warnings()
    cnf = read_cnf(write(tmp_path, "p cnf 3 2\n1 -2 0\n2 3\n"), warn=warn)
    assert list(cnf.clauses()) == [(1, -2), (2, 3)]
    assert len(warn) == 1 and "terminating 0" in warn[0]
    # SATLIB's '%' end marker: the rest is ignored, with a warning naming the line
    warn = Warnings()
    cnf = read_cnf(write(tmp_path, "p cnf 3 2\n1 -2 0\n2 3 0\n%\n0\n\n"), warn=warn)
    assert list(cnf.clauses()) == [(1, -2), (2, 3)]
    assert len(warn) == 1 and "f.cnf:4" in warn[0] and "%" in warn[0]
    # wrong clause count: read, with a warning
    warn = Warnings()
    cnf = read_cnf(write(tmp_path, "p cnf 3 5\n1 -2 0\n2 3 0\n"), warn=warn)
    assert cnf.num_clauses == 2 and cnf.header.num_clauses == 5
    assert len(warn) == 1 and "5" in warn[0] and "2" in warn[0]
    # no final newline, CRLF line ends, tabs: no warning
    warn = Warnings()
    cnf = read_cnf(write(tmp_path, "p cnf 3 2\r\n1\t-2 0\r\n2 3 0"), warn=warn)
    assert list(cnf.clauses()) == [(1, -2), (2, 3)] and warn == []


def test_default_warnings_go_to_stderr(tmp_path: Path, capsys) -> None:
    read_cnf(write(tmp_path, "p cnf 3 2\n1 -2 0\n2 3\n"))
    err = capsys.readouterr().err
    assert err.startswith("warning: ") and "terminating 0" in err


@pytest.mark.parametrize(
    ("body", "line", "what"),
    [
        ("1 -2 0\n2 4 0\n", 3, "variable 4 exceeds"),
        ("1 -2 0\n-5 0\n", 3, "variable 5 exceeds"),
        ("1 0\n2 x 0\n", 3, "not a literal"),
        ("1 0\n1.5 0\n", 3, "not a literal"),
        ("1 0\np cnf 3 2\n", 3, "second 'p' line"),
        ("c\n1 0\n2 3 0\n9 0\n", 5, "variable 9"),
    ],
)
def test_strict_errors_name_the_line(tmp_path: Path, body: str, line: int, what: str) -> None:
    path = write(tmp_path, "p cnf 3 2\n" + body)
    with pytest.raises(DimacsError, match=rf"f\.cnf:{line}: {what}"):
        read_cnf(path, warn=Warnings())


@pytest.mark.parametrize("body", ["1 0 2 0 -\n", "1 0\n- 0\n", "1 - 2 0\n", "1 0\n+ 0\n"])
def test_lone_sign_is_not_a_literal(tmp_path: Path, body: str) -> None:
    """A '-' or '+' standing alone is not a literal: it must not be read as 0 (an empty clause) or as a sign."""
    path = write(tmp_path, "p cnf 3 2\n" + body)
    with pytest.raises(DimacsError, match="not a literal"):
        read_cnf(path, warn=Warnings())


# -- model checking --------------------------------------------------------------------


def test_violated_clause_on_right_and_wrong_models(tmp_path: Path) -> None:
    cnf = read_cnf(generated(tmp_path, 4), warn=Warnings())
    right = {2, 8, 9, 15}  # queens at (0,1) (1,3) (2,0) (3,2)
    assert violated_clause(cnf, right) is None
    assert violated_clause(cnf, sorted(right)) is None  # any iterable
    # a row with no queen violates that row's at-least-one clause (row 3 is clause 3)
    assert violated_clause(cnf, {2, 8, 9}) == (3, (13, 14, 15, 16))
    # two queens on a diagonal violate the first clause naming both
    index, clause = violated_clause(cnf, {1, 6, 12, 15})  # (0,0) and (1,1) share a diagonal
    assert set(clause) == {-1, -6}
    assert list(cnf.clauses())[index] == clause
    assert violated_clause(cnf, set()) == (0, (1, 2, 3, 4))
    # variables outside 1..V are ignored, not an error
    assert violated_clause(cnf, right | {0, 99, -3}) is None


def test_violated_clause_edge_cases(tmp_path: Path) -> None:
    empty = read_cnf(write(tmp_path, "p cnf 2 0\n", "e.cnf"), warn=Warnings())
    assert violated_clause(empty, {1}) is None
    with_empty_clause = read_cnf(write(tmp_path, "p cnf 2 2\n1 0\n0\n", "z.cnf"), warn=Warnings())
    assert violated_clause(with_empty_clause, {1, 2}) == (1, ())
    negative = read_cnf(write(tmp_path, "p cnf 2 2\n-1 -2 0\n-2 0\n", "n.cnf"), warn=Warnings())
    assert violated_clause(negative, set()) is None
    assert violated_clause(negative, {1}) is None
    assert violated_clause(negative, {2}) == (1, (-2,))
    assert violated_clause(negative, {1, 2}) == (0, (-1, -2))


# -- merge ----------------------------------------------------------------------------


def merged(base: Path, *blocks: Path, warn: Warnings | None = None) -> tuple[int, bytes]:
    out = io.BytesIO()
    total = merge(base, list(blocks), out, warn=warn if warn is not None else Warnings())
    return total, out.getvalue()


def test_merge_bare_and_full_blocks(tmp_path: Path) -> None:
    base = generated(tmp_path, 5)
    v, c = QueensFormula(5).counts()
    bare = write(tmp_path, "-1 -7 -13 -19 -25 0\n-2 -9 0\n", "bare.txt")
    full = write(tmp_path, "c blocks\np cnf 25 1\n-5 -8 -11 -14 -22 0\n", "full.cnf")
    total, data = merged(base, bare, full)
    assert total == c + 3
    path = write(tmp_path, data.decode(), "merged.cnf")
    warn = Warnings()
    cnf = read_cnf(path, warn=warn)
    assert warn == []  # header count corrected
    assert (cnf.num_vars, cnf.num_clauses) == (v, c + 3)
    clauses = list(cnf.clauses())
    assert clauses[:c] == list(QueensFormula(5).clauses())
    assert clauses[c:] == [(-1, -7, -13, -19, -25), (-2, -9), (-5, -8, -11, -14, -22)]
    assert read_header_file(path).comments == read_header_file(base).comments
    # no blocks: a byte-identical copy
    assert merged(base)[1] == base.read_bytes()


def test_merge_base_without_final_newline(tmp_path: Path) -> None:
    base = write(tmp_path, "p cnf 3 1\n1 2 3 0", "base.cnf")
    total, data = merged(base, write(tmp_path, "-1 0\n", "b.txt"))
    assert total == 2
    assert data == b"p cnf 3 2\n1 2 3 0\n-1 0\n"


def test_merge_rejects_out_of_range_literals(tmp_path: Path) -> None:
    base = generated(tmp_path, 4)
    bad = write(tmp_path, "-1 -6 0\n-17 0\n", "bad.txt")
    with pytest.raises(DimacsError, match=r"bad\.txt:2: variable 17 exceeds"):
        merged(base, bad)
    bad_header = write(tmp_path, "p cnf sixteen 1\n-1 0\n", "badh.cnf")
    with pytest.raises(DimacsError, match=r"badh\.cnf:1:"):
        merged(base, bad_header)


def test_read_blocks(tmp_path: Path) -> None:
    warn = Warnings()
    path = write(tmp_path, "c note\n\n-1 -2 0\n-3\n-4 0\n-2", "b.txt")
    assert read_blocks(path, 4, warn) == [(-1, -2), (-3, -4), (-2,)]
    assert len(warn) == 1 and "terminating 0" in warn[0]
    assert read_blocks(write(tmp_path, "", "empty.txt"), 4, warn) == []
