"""Names escaped (issue 30, item 7): a path or user string in a DIMACS comment, a ``c`` line or a message
is one line whatever it holds (``errors.printable``: ``\\n``, ``\\t``, ``\\xNN``), and an ordinary name
gives the same bytes as before."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from helpers import need_solver, run_cli
from hypothesis import given
from hypothesis import strategies as st

from cnfgen_queens.errors import printable

NEWLINE_NAME = "a\nb.cnf"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a\nb.cnf", "a\\nb.cnf"),
        ("tab\there", "tab\\there"),
        ("esc\x1b[31m", "esc\\x1b[31m"),
        ("cr\r", "cr\\r"),
        ("nel\x85", "nel\\x85"),
        ("sep\u2028", "sep\\u2028"),
        ("byte\udcff", "byte\\xff"),
        ("plain/é 1.cnf", "plain/é 1.cnf"),
    ],
)
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


# ---- every command, a name holding a tab and a newline (F11) ----

NAME = "Qz\tzQ\nQx"  # after the newline, a line of its own would start with "Qx"
SHOWN = "Qz\\tzQ\\nQx"


def shown_escaped(*texts: str, json: bool = False) -> None:
    """Every line of ``texts`` that shows the name shows it whole and escaped; none holds a raw tab or starts
    with what follows the name's newline.  ``json``: the texts are JSON, whose strings escape the escapes."""
    for text in texts:
        for line in text.splitlines():
            assert "\t" not in line and not line.startswith("Qx"), repr(line)
            assert "Qz" not in line or SHOWN in (line.replace("\\\\", "\\") if json else line), repr(line)


def _batch(tmp_path: Path) -> Path:
    """A results store named NAME.sqlite (N = 4, 5, minisat), made by ``batch``, whose own lines are checked."""
    need_solver("minisat")
    config = tmp_path / "e.yaml"
    config.write_text(
        f"experiment: e\ninstances:\n  n: [4, 5]\n  encodings: [pairwise]\nsolvers: [minisat]\n"
        f'limits: {{time: 30}}\nresults: "{SHOWN}.sqlite"\n'
    )
    for argv in (["batch", "e.yaml", "--dry-run"], ["batch", "e.yaml", "--no-progress"]):
        ran = run_cli(argv, tmp_path, timeout=120)
        assert ran.code == 0, ran
        shown_escaped(ran.out, ran.err)
        assert f"{SHOWN}.sqlite" in ran.out
    return tmp_path / f"{NAME}.sqlite"


@pytest.mark.parametrize(
    "argv",
    [
        ["stats", f"{NAME}.cnf"],
        ["solve", f"{NAME}.cnf", "--solver", "minisat"],
        ["count", "6", "--certify", NAME],
        ["enumerate", "6", "--solver", "minisat", "--out", NAME, "--quiet"],
        ["count", "6", "--solver", "minisat", "--engine", "cubes", "--out", NAME, "--quiet"],
    ],
    ids=lambda argv: argv[0],
)
def test_each_command_shows_a_crafted_name_escaped(tmp_path: Path, argv: list[str]) -> None:
    need_solver("minisat")
    made = run_cli(["6", "-o", f"{NAME}.cnf"], tmp_path, gen=True)
    assert made.code == 0, made
    shown_escaped(made.out, made.err, (tmp_path / f"{NAME}.cnf").read_text())
    ran = run_cli(argv, tmp_path, timeout=120)
    assert ran.code in (0, 10), ran
    shown_escaped(ran.out, ran.err)
    if argv[0] in ("stats", "solve") or "--certify" in argv:
        assert SHOWN in ran.out + ran.err
    if "--certify" in argv:
        checked = run_cli(["check-count", NAME], tmp_path, timeout=120)
        assert checked.code == 0, checked
        shown_escaped(checked.out, checked.err)


def test_batch_and_report_show_crafted_names_escaped(tmp_path: Path) -> None:
    """``batch`` printed "results in r⏎x.sqlite", ``report --html`` "wrote h⏎t/index.html"; a store's solver
    name holding a newline made a fake Markdown row; the CSV and HTML outputs likewise."""
    db = _batch(tmp_path)
    with sqlite3.connect(db) as c:
        c.execute("UPDATE runs SET solver = ?, encoding = ?, experiment = ?", (NAME, f"pair{NAME}", f"x{NAME}"))
    outs = {
        flag: f"{NAME}{ext}"
        for flag, ext in (
            ("--markdown", ".md"),
            ("--csv", ".csv"),
            ("--json", ".json"),
            ("--runs-csv", ".runs.csv"),
            ("--html", ".html"),
        )
    }
    ran = run_cli(
        ["report", db.name, *(a for pair in outs.items() for a in pair), "--cactus", f"{NAME}.svg", "--by", "n"],
        tmp_path,
        timeout=120,
    )
    assert ran.code == 0, ran
    shown_escaped(ran.out, ran.err)
    assert len(ran.err.splitlines()) == 6 and all(SHOWN in line for line in ran.err.splitlines()), ran.err
    table = [line for line in ran.out.splitlines() if line.startswith("|")]
    assert len(table) == 4 and len({line.count("|") for line in table}) == 1, ran.out  # header, rule, N = 4, 5
    written = [tmp_path / name for flag, name in outs.items() if flag != "--html"]
    html = [tmp_path / outs["--html"] / name for name in ("index.html", "runs.js")]
    for path in [*written, *html]:
        json = path.suffix in (".json", ".js")
        shown_escaped(path.read_text(), json=json)
        assert SHOWN in (path.read_text().replace("\\\\", "\\") if json else path.read_text()), path


def test_a_planted_name_in_a_store_cannot_break_the_markdown_table(tmp_path: Path) -> None:
    db = _batch(tmp_path)
    with sqlite3.connect(db) as c:
        c.execute("UPDATE runs SET solver = 'mini | 1 | 2 |' WHERE n = 4")
    ran = run_cli(["report", db.name], tmp_path, timeout=120)
    assert ran.code == 0, ran
    head, _, *rows = ran.out.splitlines()
    assert [line.replace("\\|", "").count("|") for line in rows] == [head.count("|")] * 3, ran.out  # 2 + best
    assert "mini \\| 1 \\| 2 \\|" in ran.out
