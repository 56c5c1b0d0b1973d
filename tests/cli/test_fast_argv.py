"""Start-up (issue 33, item 3): the fast reader of common command lines gives argparse's namespace or leaves the
line to argparse; ``gen-queens N``, ``decode`` and ``block`` start without argparse, typing, dataclasses, re or
pathlib; the pieces that replace stdlib calls at start-up agree with them."""

from __future__ import annotations

import ast
import functools
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cnfgen_queens.cli import _build, _command, fast_argv
from cnfgen_queens.cli.common import CliError
from cnfgen_queens.cli.help_cache import terminal_columns

CORPUS = {
    "gen": [["8"], ["8", "-e", "sequential"], ["-e", "ladder", "12"], ["8", "--encoding=commander", "--group-size=4"],
            ["8", "-o", "q.cnf"], ["8", "--output=q.cnf.gz"], ["8", "--no-comments", "--column-alo"],
            ["8", "--allow-large", "--break-symmetry", "--torus"], ["8", "--shuffle", "3"], ["8", "--shuffle=0"],
            ["8", "--format", "opb"], ["8", "--format=mzn"], ["--list-encodings"], ["12", "--list-encodings"], [],
            ["0"], ["-3"], ["x"], ["8", "9"], ["8", "--format", "xml"], ["8", "-e"], ["8", "-o"], ["8", "-o", "-x"],
            ["8", "--no-comments=1"], ["8", "-o=q.cnf"], ["8", "-oq.cnf"], ["8", "--no-comm"], ["8", "--"],
            ["8", "-e", "a", "-e", "b"], ["8", "--shuffle", "-1"], ["8", "--group-size", "0"], ["8", "--place", "1,1"],
            ["8", "-n", "5"], ["8", "--help"], ["-h"], ["-V"], ["8", "--block", "b.cnf"], ["999999999999"], [""],
            ["08"], ["8", "-o", "-"], ["8", "--output", ""], ["8", "--output="]],
    "decode": [["a.out"], ["a.out", "-n", "8"], ["-n", "8", "a.out"], ["a.out", "--size=8"], ["a.out", "--cnf", "q"],
               ["a.out", "--format", "json"], ["a.out", "--format=svg", "-o", "b.svg"], ["a.out", "--ascii"], ["-"],
               [], ["a.out", "-n", "8", "--cnf", "q"], ["a.out", "--format", "x"], ["a.out", "-n", "0"], ["a.out", "b"],
               ["a.out", "-n8"], ["a.out", "--ascii", "--ascii"], ["a.out", "-h"], ["--cnf=q.cnf"]],
    "block": [["a.out"], ["a.out", "-n", "8"], ["a.out", "--symmetric"], ["--cnf", "q", "a.out"], ["-"], [],
              ["a.out", "-n", "8", "--cnf", "q"], ["a.out", "--format", "json"], ["a.out", "-n", "x"], ["--help"]],
}  # fmt: skip


def argparse_reading(name: str, argv: list[str]) -> object:
    """argparse's namespace of ``argv`` as a dict, or its error (a one-line CliError, or SystemExit for
    --help and --version)."""
    parser, _ = _build(name, f"cnfgen-queens {name}")
    try:
        return vars(parser.parse_args(argv))
    except (CliError, SystemExit) as e:
        return type(e).__name__


@pytest.mark.parametrize(("name", "argv"), [(name, argv) for name, lines in CORPUS.items() for argv in lines], ids=str)
def test_fast_reading_is_argparse_s(name: str, argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """Every line the fast reader takes gives the namespace argparse gives (the same values, every option's
    default); every other line goes to argparse, which reads it or words its error."""
    fast = fast_argv.parse(name, argv)
    if fast is not None:
        assert vars(fast) == argparse_reading(name, argv)
    capsys.readouterr()


def test_the_common_forms_are_read_fast() -> None:
    common = [("gen", ["8"]), ("gen", ["30", "-e", "sequential", "-o", "q.cnf"]), ("gen", ["8", "--no-comments"]),
              ("decode", ["a.out"]), ("decode", ["a.out", "-n", "8"]), ("block", ["a.out", "-n", "8"]),
              ("block", ["-", "--cnf", "q.cnf"])]  # fmt: skip
    assert all(fast_argv.parse(name, argv) is not None for name, argv in common)
    assert fast_argv.parse("solve", ["q.cnf"]) is None  # not a subcommand read here


@pytest.mark.parametrize("words", [[], [""], ["a b"], ["it's"], ["é"], ["-o", "x.cnf", "--a=b", "$x", "~", "*"],
                                   ["a\nb", '"', "x@y%z+=:,./-_"]])  # fmt: skip
def test_command_line_is_shlex_join(words: list[str]) -> None:
    assert _command("gen-queens", words) == shlex.join(["gen-queens", *words])


@pytest.mark.parametrize("columns", [None, "", "0", "-5", "x", "40", "200"])
def test_help_width_is_shutil_s(columns: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """--help is as wide as argparse would make it (shutil.get_terminal_size, which is not loaded)."""
    for name in ("COLUMNS", "LINES"):
        monkeypatch.delenv(name, raising=False)
    if columns is not None:
        monkeypatch.setenv("COLUMNS", columns)
    assert terminal_columns() == shutil.get_terminal_size().columns


STARTUP_FREE = ("argparse", "typing", "dataclasses", "re", "pathlib", "enum", "inspect", "tempfile", "shutil", "json",
                "threading", "numpy", "signal", "importlib.util", "shlex", "subprocess")  # fmt: skip


@pytest.mark.parametrize(
    "argv",
    [["gen-queens", "8"], ["gen-queens", "12", "-e", "sequential", "--no-comments"],
     ["cnfgen-queens", "decode", "{answer}", "-n", "8"], ["cnfgen-queens", "block", "{answer}", "-n", "8"],
     ["cnfgen-queens", "decode", "{solved}"]],
    ids=" ".join,
)  # fmt: skip
def test_start_up_loads_no_heavy_standard_module(argv: list[str], tmp_path: Path) -> None:
    """What each of these commands costs beyond Python's own start-up (scripts/bench.py --only startup): none
    of the modules that cost a large share of it is loaded, in the run as a whole, beyond those this
    interpreter loads before any command (:func:`loaded_by_python_itself`: how the package was installed)."""
    answer, solved = tmp_path / "a.out", tmp_path / "s.out"
    answer.write_text("s SATISFIABLE\nv 4 15 21 26 38 41 51 64 0\n")
    solved.write_text("c cnf-header p cnf 64 736\nc cnf-header n=8 encoding=pairwise column_alo=false\n"
                      "s SATISFIABLE\nv 4 15 21 26 38 41 51 64 0\n")  # fmt: skip
    real = [a.format(answer=answer, solved=solved) for a in argv]
    entry = "gen_entry" if real[0] == "gen-queens" else "entry"
    code = (
        f"import sys; sys.argv = {real!r}\n"
        f"from cnfgen_queens.cli import {entry}\n"
        f"try:\n    {entry}()\nfinally:\n"
        f"    print(sorted(m for m in {STARTUP_FREE!r} if m in sys.modules), file=sys.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "CNFGEN_QUEENS_PURE"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert sorted(set(ast.literal_eval(proc.stderr.splitlines()[-1])) - loaded_by_python_itself()) == []


@functools.cache
def loaded_by_python_itself() -> frozenset[str]:
    """The modules this interpreter has loaded before it runs any code of ours (``python -c 'import sys'``): its
    own start-up, ``site``, and the finder an editable install puts in ``site-packages`` (a venv made with
    another pip or setuptools, or Python 3.13, has one that loads ``re``, ``enum``, ``pathlib`` and
    ``importlib.util``); the package is not to blame for these, and cannot avoid them."""
    code = "import sys; print(sorted(sys.modules))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return frozenset(ast.literal_eval(proc.stdout))


@pytest.mark.parametrize("command", [["cnfgen-queens", "solve", "--help"], ["gen-queens", "-h"],
                                     ["cnfgen-queens", "decode", "--help"]])  # fmt: skip
def test_help_from_the_cache_is_argparse_s(command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SUBCOMMAND --help: argparse's text the first time (kept in the user cache), the same bytes and exit 0
    from the cache after; another width is argparse's again, and a cache file that no longer fits (a module
    of cli/ edited since) is not used."""
    from cnfgen_queens.cli import build_parser

    prog = "gen-queens" if command[0] == "gen-queens" else " ".join(command[:2])
    name = "gen" if command[0] == "gen-queens" else command[1]
    cache = tmp_path / "help" / (prog.replace(" ", "-") + ".txt")
    want = {}
    for columns in ("70", "50"):
        monkeypatch.setenv("COLUMNS", columns)
        want[columns] = build_parser(name, prog).format_help()
    assert want["70"] != want["50"]

    def run(columns: str) -> str:
        env = {**os.environ, "CNFGEN_QUEENS_CACHE_DIR": str(tmp_path), "COLUMNS": columns}
        proc = subprocess.run([str(Path(sys.executable).parent / command[0]), *command[1:]], capture_output=True,
                              text=True, env=env, timeout=120)  # fmt: skip
        assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
        return proc.stdout

    assert run("70") == want["70"] and cache.is_file()  # argparse's, kept
    kept = cache.read_text()
    assert run("70") == want["70"] and cache.read_text() == kept  # from the cache
    assert run("50") == want["50"]  # another width: argparse's again (kept in its place)
    key, text = cache.read_text().split("\n", 1)
    cache.write_text(key.replace("__init__.py:", "__init__.py:9", 1) + "\n" + text + "stale\n")  # cli/ edited
    assert run("50") == want["50"]
