"""What users type: flags as documented, --version, pipes without -n, OPB answers, hints in decode errors."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import CLI_ENTRY, is_solution, need_solver, need_tool

from cnfgen_queens import __version__
from cnfgen_queens.cli import gen_main, main
from cnfgen_queens.cli.model_input import opb_to_dimacs

SAT4J_JAR = Path("/usr/share/java/org.sat4j.pb.jar")  # Debian package sat4j


def sh(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True, timeout=300)


# -- flags ----------------------------------------------------------------------------


def test_list_encodings_short_flag_as_documented(capsys: pytest.CaptureFixture[str]) -> None:
    assert gen_main(["--list-encodings", "-n", "5"]) == 0
    short = capsys.readouterr().out
    assert gen_main(["--list-encodings", "--line-length", "5"]) == 0
    assert capsys.readouterr().out == short
    assert "(n = 5 literals)" in short
    pairwise = next(line for line in short.splitlines() if line.startswith("pairwise "))
    assert pairwise.split()[1] == "10"  # C(5, 2) binary clauses


@pytest.mark.parametrize(
    "argv",
    [["--n", "5"], ["4", "--no-comm"], ["4", "--enc", "sequential"], ["4", "--shuf", "1"]],
)
def test_abbreviations_are_rejected(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert gen_main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "unrecognized arguments" in captured.err


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "q.cnf", "--time", "1"],
        ["decode", "--form", "line"],
        ["report", "r.sqlite", "--mark", "t.md"],
        ["batch", "c.yaml", "--dry"],
        ["count", "5", "--sym"],
        ["solvers", "--emb"],
    ],
)
def test_subcommands_reject_abbreviations(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert f"unrecognized arguments: {argv[-2] if argv[-1] in ('1', 'line', 't.md') else argv[-1]}" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize(
    ("entry", "argv", "prog"),
    [
        (gen_main, ["--version"], "gen-queens"),
        (gen_main, ["-V"], "gen-queens"),
        (main, ["--version"], "cnfgen-queens"),
        (main, ["solve", "--version"], "cnfgen-queens solve"),
    ],
)
def test_version(entry, argv: list[str], prog: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:  # argparse's version action exits 0 itself
        entry(argv)
        raise SystemExit(0)
    assert exc.value.code == 0
    assert capsys.readouterr().out == f"{prog} {__version__}\n"


def test_version_on_the_installed_entry_points(tmp_path: Path) -> None:
    for prog in ("gen-queens", "cnfgen-queens"):
        if shutil.which(prog) is None:
            need_tool(f"{prog} not on PATH (pip install -e .)")
        run = sh(f"{prog} --version", tmp_path)
        assert (run.returncode, run.stdout) == (0, f"{prog} {__version__}\n")


@pytest.mark.parametrize("argv", [["--help"], ["--version"], []])
def test_top_level_output_into_a_closed_pipe_is_quiet(argv: list[str]) -> None:
    """``cnfgen-queens --help | head -1`` where head has gone: exit 141 and nothing on stderr, no traceback."""
    cmd = [sys.executable, "-c", CLI_ENTRY, *argv]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    assert (proc.wait(timeout=60), err) == (141, b"")


# -- pipes: solve keeps N and the shuffle seed ---------------------------------------------


def test_gen_solve_decode_pipe_needs_no_n(tmp_path: Path) -> None:
    run = sh("gen-queens 8 | cnfgen-queens solve - | cnfgen-queens decode --format line", tmp_path)
    assert run.returncode == 0, run.stderr
    assert is_solution(run.stdout, 8)


@pytest.mark.parametrize("solver", ["pysat:cadical195", "kissat", "minisat"])
def test_shuffled_pipe_decodes_and_blocks_without_cnf(solver: str, tmp_path: Path) -> None:
    if not solver.startswith("pysat:"):
        need_solver(solver)
    assert gen_main(["9", "--shuffle", "4", "-e", "commander", "-o", str(tmp_path / "s.cnf")]) == 0
    solved = sh(f"cnfgen-queens solve s.cnf --solver {solver} > answer.txt", tmp_path)
    assert solved.returncode == 10, solved.stderr
    answer = (tmp_path / "answer.txt").read_text()
    assert "c cnf-header n=9 encoding=commander" in answer
    assert "c cnf-header shuffle: seed=4" in answer
    decoded = sh("cnfgen-queens decode answer.txt --format line", tmp_path)
    assert decoded.returncode == 0, decoded.stderr
    assert is_solution(decoded.stdout, 9)
    with_cnf = sh("cnfgen-queens decode answer.txt --cnf s.cnf --format line", tmp_path)
    assert with_cnf.stdout == decoded.stdout
    # the blocking clause in the primary cell names, exactly as with --cnf; merge renames it by s.cnf's shuffle,
    # so the merged CNF excludes the board
    blocked = sh("cnfgen-queens block answer.txt", tmp_path)
    assert blocked.stdout == sh("cnfgen-queens block answer.txt --cnf s.cnf", tmp_path).stdout
    (tmp_path / "blocks.cnf").write_text(blocked.stdout)
    again = sh(
        "cnfgen-queens merge s.cnf blocks.cnf -o next.cnf && "
        "cnfgen-queens solve next.cnf | cnfgen-queens decode --format line",
        tmp_path,
    )
    assert again.returncode == 0, again.stderr
    assert is_solution(again.stdout, 9)
    assert again.stdout != decoded.stdout


def test_wrong_n_against_the_echoed_header_is_a_clear_error(tmp_path: Path) -> None:
    run = sh("gen-queens 8 | cnfgen-queens solve - | cnfgen-queens decode -n 9", tmp_path)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1
    assert "-n 9" in run.stderr and "N = 8" in run.stderr


def test_wrong_n_without_header_hints_at_n_and_cnf(tmp_path: Path) -> None:
    # bare output (a raw solver's): nothing to check -n against, so the board is wrong; the error says why
    run = sh("gen-queens 8 | cnfgen-queens solve - | grep -v '^c ' | cnfgen-queens decode -n 9", tmp_path)
    assert run.returncode == 1
    assert "attack each other" in run.stderr
    assert "is -n 9 the CNF's N?" in run.stderr and "--cnf" in run.stderr


def test_shuffled_raw_output_with_n_hints_at_cnf(tmp_path: Path) -> None:
    kissat = need_solver("kissat")
    assert gen_main(["8", "--shuffle", "2", "-o", str(tmp_path / "s.cnf")]) == 0
    run = sh(f"{kissat} s.cnf > raw.txt; cnfgen-queens decode raw.txt -n 8", tmp_path)
    assert run.returncode == 1
    assert "a shuffled CNF needs --cnf CNF" in run.stderr
    assert sh("cnfgen-queens decode raw.txt --cnf s.cnf", tmp_path).returncode == 0


def test_raw_output_without_n_asks_for_it(tmp_path: Path) -> None:
    kissat = need_solver("kissat")
    run = sh(f"gen-queens 6 | {kissat} > raw.txt; cnfgen-queens decode raw.txt", tmp_path)
    assert run.returncode == 2
    assert "give -n N or --cnf CNF" in run.stderr


# -- OPB answers -----------------------------------------------------------------------------


def test_opb_v_lines_rewritten() -> None:
    text = "c sat4j\ns SATISFIABLE\nv -x1 x2\nv -x3 x4\n"
    assert opb_to_dimacs(text) == "c sat4j\ns SATISFIABLE\nv -1 2\nv -3 4\nv 0\n"
    assert opb_to_dimacs("s SATISFIABLE\nv -1 2 0\n") == "s SATISFIABLE\nv -1 2 0\n"  # DIMACS stays as is
    assert opb_to_dimacs("v x1 2 0\n") == "v x1 2 0\n"  # a mixture is left for the parser to reject


@pytest.mark.parametrize("n", [3, 8])
def test_sat4j_on_the_opb_export_decodes(n: int, tmp_path: Path) -> None:
    if shutil.which("java") is None or not SAT4J_JAR.is_file():
        need_tool("sat4j not installed (scripts/install-solvers.sh installs it)")
    assert gen_main([str(n), "--format", "opb", "-o", str(tmp_path / "q.opb")]) == 0
    run = sh(f"java -jar {SAT4J_JAR} q.opb | cnfgen-queens decode -n {n} --format line", tmp_path)
    if n == 3:
        assert (run.returncode, run.stdout) == (1, "no solution\n")
        return
    assert run.returncode == 0, run.stderr
    assert is_solution(run.stdout, n)


def test_every_parser_refuses_abbreviations() -> None:
    """Each argparse parser of the package and the scripts is built with allow_abbrev=False."""
    import re

    from cnfgen_queens.cli import Parser

    assert Parser(prog="x").allow_abbrev is False  # every subcommand's parser is a Parser
    root = Path(__file__).resolve().parents[2]
    sources = [*root.glob("cnfgen_queens/**/*.py"), *root.glob("scripts/*.py")]
    calls = [(path, m) for path in sources for m in re.finditer(r"ArgumentParser\((.*)", path.read_text())]
    assert len(calls) >= 3  # the benchmark scripts
    for path, m in calls:
        assert "allow_abbrev=False" in m.group(1), f"{path}: {m.group(0)}"


def test_kissat_comes_with_the_package(capsys: pytest.CaptureFixture[str]) -> None:
    """`pip install -e .` alone brings kissat (the Tour's `solve --solver kissat` after the main job)."""
    import tomllib

    root = Path(__file__).resolve().parents[2]
    deps = tomllib.loads((root / "pyproject.toml").read_text())["project"]["dependencies"]
    assert any(d.split("#")[0].strip().startswith("passagemath-kissat") for d in deps)
    path = need_solver("kissat")
    assert main(["solvers", "--path", "kissat"]) == 0
    assert capsys.readouterr().out == f"{path}\n"


def test_install_hints_name_what_exists(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """glucose and lingeling are not Debian packages: the hints point to the source and to pysat, which works."""
    import json

    assert main(["solvers", "--json"]) == 0
    rows = {r["name"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    for name, embedded in (("glucose", "pysat:glucose4"), ("lingeling", "pysat:lingeling")):
        hint = rows[name]["install"]
        assert not hint.startswith("apt-get") and "github.com" in hint and embedded in hint
        cnf = tmp_path / "q.cnf"
        assert gen_main(["5", "-o", str(cnf)]) == 0
        assert main(["solve", str(cnf), "--solver", embedded, "--no-model"]) == 10
        capsys.readouterr()
