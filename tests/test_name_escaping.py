"""Names escaped (issue 30, item 7): a path or user string in a DIMACS comment, a ``c`` line or a message
is one line whatever it holds (``errors.printable``: ``\\n``, ``\\t``, ``\\xNN``), and an ordinary name
gives the same bytes as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from bounded_cli import run_cli
from helpers import need_solver
from hypothesis import given
from hypothesis import strategies as st

from cnfgen_queens.errors import printable

NEWLINE_NAME = "a\nb.cnf"


@pytest.mark.parametrize(
    ("text", "shown"),
    [("a\nb.cnf", "a\\nb.cnf"), ("tab\there", "tab\\there"), ("esc\x1b[31m", "esc\\x1b[31m"), ("cr\r", "cr\\r"),
     ("nel\x85", "nel\\x85"), ("sep\u2028", "sep\\u2028"), ("byte\udcff", "byte\\xff"),
     ("plain/é 1.cnf", "plain/é 1.cnf")],
)  # fmt: skip
def test_printable_escapes_what_would_break_a_line(text: str, shown: str) -> None:
    assert printable(text) == shown


@given(st.text())
def test_printable_is_always_one_line_and_leaves_printable_text_alone(text: str) -> None:
    out = printable(text)
    assert len(out.splitlines()) <= 1 and out.isprintable()
    if text.isprintable():
        assert out == text


def _dimacs_header_lines(path: Path) -> list[bytes]:
    lines = path.read_bytes().split(b"\n")
    return lines[: next(i for i, line in enumerate(lines) if line.startswith(b"p cnf")) + 1]


def test_gen_output_name_cannot_inject_lines(tmp_path: Path) -> None:
    """``gen-queens 8 -o $'a\\nb.cnf'`` wrote the newline into the ``c command:`` line."""
    crafted = "x.cnf\np cnf 1 1\n1 0\nc"
    ran = run_cli(["8", "-o", crafted], tmp_path, gen=True)
    assert ran.code == 0, ran
    head = _dimacs_header_lines(tmp_path / crafted)
    assert all(line.startswith(b"c ") for line in head[:-1]), head
    assert head[-1] == b"p cnf 64 736"
    assert [line for line in head if line.startswith(b"c command:")] == [
        b"c command: gen-queens 8 -o 'x.cnf\\np cnf 1 1\\n1 0\\nc'"
    ]


def test_an_ordinary_name_gives_the_same_bytes(tmp_path: Path) -> None:
    ran = run_cli(["6", "-o", "plain name.cnf"], tmp_path, gen=True)
    assert ran.code == 0, ran
    assert b"c command: gen-queens 6 -o 'plain name.cnf'\n" in (tmp_path / "plain name.cnf").read_bytes()


def test_solve_then_decode_round_trips_a_name_with_a_newline(tmp_path: Path) -> None:
    need_solver("minisat")
    assert run_cli(["8", "-o", NEWLINE_NAME], tmp_path, gen=True).code == 0
    solved = run_cli(["solve", NEWLINE_NAME, "--solver", "minisat"], tmp_path)
    assert solved.code == 10, solved
    assert all(line.startswith(("c ", "s ", "v ")) for line in solved.out.splitlines()), solved.out
    assert "c cnfgen-queens solve a\\nb.cnf" in solved.out.splitlines()
    decoded = run_cli(["decode", "--format", "line"], tmp_path, stdin=solved.out.encode())
    assert decoded.code == 0, decoded
    columns = [int(c) for c in decoded.out.split()]
    assert sorted(columns) == list(range(1, 9))  # one queen per row and column: a board came back


def test_a_message_naming_a_crafted_file_is_one_line(tmp_path: Path) -> None:
    ran = run_cli(["solve", "no\nsuch\x1b[2J.cnf", "--solver", "minisat"], tmp_path)
    assert ran.code != 0 and len(ran.err.splitlines()) == 1, ran
    assert "no\\nsuch\\x1b[2J.cnf" in ran.err and "\x1b" not in ran.err
