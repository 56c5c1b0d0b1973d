"""Options are used or refused, never silently ignored; help texts say what the command does now; warnings
start with the program's name as errors do, in plain English."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
from helpers import option_help, run_cli

from cnfgen_queens.cli import SUBCOMMANDS, build_parser, gen_main, main, usage


def help_of(name: str, prog: str | None = None) -> str:
    return " ".join(build_parser(name, prog).format_help().split())  # one line: argparse wraps anywhere


def test_gen_refuses_a_line_length_it_would_ignore(capsys: pytest.CaptureFixture[str]) -> None:
    assert gen_main(["8", "-n", "4"]) == 2
    assert "applies to --list-encodings only" in capsys.readouterr().err
    assert gen_main(["8", "--line-length", "4"]) == 2
    capsys.readouterr()


def test_list_encodings_takes_n_as_the_line_length(capsys: pytest.CaptureFixture[str]) -> None:
    assert gen_main(["--list-encodings", "20"]) == 0
    by_n = capsys.readouterr().out
    assert "(n = 20 literals)" in by_n and "pairwise                190" in by_n
    assert gen_main(["--list-encodings", "-n", "20"]) == 0
    assert capsys.readouterr().out == by_n
    assert gen_main(["--list-encodings", "20", "-n", "20"]) == 0
    assert capsys.readouterr().out == by_n
    assert gen_main(["--list-encodings", "20", "-n", "5"]) == 2
    assert "two line lengths" in capsys.readouterr().err
    assert gen_main(["--list-encodings"]) == 0
    assert "(n = 8 literals)" in capsys.readouterr().out
    for extra in (["-o", "table.txt"], ["--shuffle", "3"], ["--format", "opb"], ["-e", "ladder"], ["--torus"]):
        assert gen_main(["--list-encodings", *extra]) == 2  # would be ignored
        assert "does not apply to --list-encodings" in capsys.readouterr().err


def test_decode_and_block_take_the_board_size_as_size_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text("s SATISFIABLE\nv -1 2 -3 -4 -5 -6 -7 8 9 -10 -11 -12 -13 -14 15 -16 0\n")
    for command in ("decode", "block"):
        assert main([command, str(answer), "-n", "4"]) == 0
        short = capsys.readouterr().out
        assert main([command, str(answer), "--size", "4"]) == 0
        assert capsys.readouterr().out == short != ""


def test_help_texts_say_what_the_commands_do() -> None:
    count = help_of("count")
    assert "embedded solvers" not in count and "each by an embedded solver" not in count
    assert "any solver: pysat: or a binary" in count and "default 1)" in count
    assert "Batch experiments and reports: On a cluster (SLURM)" in count and "README: On a cluster" not in count
    assert "same as gen-queens" not in help_of("gen", "gen-queens")
    assert "same as gen-queens" in help_of("gen")  # cnfgen-queens gen is the same as gen-queens
    for name in ("gen", "merge"):
        assert "png" not in help_of(name)
    assert "png" not in option_help(build_parser("decode"), "--output")  # png.gz is compressed too
    solve = help_of("solve")  # the shared limits' help names no other command's loop (one text everywhere)
    assert "loop" not in solve and "enumerate" not in solve and " count" not in solve
    assert "--limit K stop after K solutions" in help_of("enumerate")


def test_the_subcommand_list_is_aligned() -> None:
    rows = [line for line in usage().splitlines() if line.startswith("  ")]
    columns = {len(line) - len(line[2:].split(" ", 1)[1].lstrip()) for line in rows}
    assert len(rows) >= 12 and len(columns) == 1


def test_warnings_name_the_program_in_plain_english(tmp_path: Path) -> None:
    cnf = tmp_path / "q.cnf"
    cnf.write_text("p cnf 2 1\n1 0\n2 0\n")
    ran = run_cli(["stats", str(cnf)], tmp_path)
    assert ran.code == 0
    assert ran.err.startswith(f"cnfgen-queens stats: warning: {cnf}: header says 1 clause, file has 2")
    ran = run_cli(["stats", "-"], tmp_path, stdin=gzip.compress(b"p cnf 1 1\n1 0\n", mtime=0))
    assert ran.code == 0 and ran.err == ""  # stdin has no name to expect .gz on
    misnamed = tmp_path / "q2.cnf"
    misnamed.write_bytes(gzip.compress(b"p cnf 1 1\n1 0\n", mtime=0))
    assert "without the .gz extension" in run_cli(["stats", str(misnamed)], tmp_path).err
    gen_entry = "from cnfgen_queens.cli import gen_entry; gen_entry()"  # the console script's
    gen = run_cli(["4", "--shuffle", "1", "--no-comments"], tmp_path, entry=gen_entry)
    assert gen.code == 0 and gen.err.startswith("gen-queens: warning: --no-comments drops")


def test_board_errors_read_as_english(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text("s SATISFIABLE\nv 1 " + " ".join(str(-v) for v in range(2, 65)) + " 0\n")
    assert main(["decode", str(answer), "-n", "8"]) == 1
    err = capsys.readouterr().err
    assert "1 queen on the 8x8 board" in err and "a 8x8" not in err


def options_of(name: str) -> set[str]:
    return {s for a in build_parser(name)._actions for s in a.option_strings}


# an option the text gives to another command ("gen-queens --list-encodings", "count N --certify DIR",
# "cnfgen-queens solve --json"): the command's name, then its positional placeholders, then the option
OTHER_COMMAND = re.compile(
    r"(gen-queens|cnfgen-queens|\b(?:" + "|".join(SUBCOMMANDS) + r"))((?: [A-Z]+)*) (--[a-z][a-z0-9-]*)"
)
QUOTED = re.compile(
    r"(?<!\w)(\"[^\"]*\"|'[^']*')(?!\w)"
)  # an example of what a solver is given (--solver-args="--seed=1 --sat")


def test_every_option_a_help_text_names_exists_where_it_says() -> None:
    """``enumerate --help`` said "see --engine", an option only ``count`` has: every ``--option`` a help text
    names is the command's own, or belongs to the command named before it ("gen-queens --list-encodings")."""
    wrong = []
    for name in SUBCOMMANDS:
        text = QUOTED.sub("", help_of(name))
        for command, _, flag in OTHER_COMMAND.findall(text):
            other = {"gen-queens": "gen", "cnfgen-queens": name}.get(command, command)
            if flag not in options_of(other):
                wrong.append(f"{name}: {command} {flag}")
        for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", OTHER_COMMAND.sub("", text)):
            if flag not in options_of(name):
                wrong.append(f"{name}: {flag}")
    assert wrong == []


def test_help_texts_name_only_files_an_installed_wheel_has() -> None:
    """The help pointed to configs/solvers.yaml and docs/batch.md, which a wheel does not install."""
    texts = {name: help_of(name) for name in SUBCOMMANDS} | {"gen-queens": help_of("gen", "gen-queens")}
    files = re.compile(r"\b(?:configs|scripts|docs|examples|tests|results)/[\w./-]*")
    named = {(name, path) for name, text in texts.items() for path in files.findall(text)}
    assert named == set()
