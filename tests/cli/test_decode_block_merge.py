"""decode, block and merge on the real outputs of every solver profile; enumerate.sh; kill -9 + resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import ROOT, is_solution, need_solver

from cnfgen_queens.cli import gen_main, main

# how each solver is run by hand, as a shell script would: (argv tail, where the answer is)
RAW = {
    "kissat": ([], "stdout"),
    "cadical": ([], "stdout"),
    "picosat": ([], "stdout"),
    "cryptominisat5": (["--verb", "0"], "stdout"),
    "clasp": ([], "stdout"),
    "minisat": (["-verb=0"], "result"),
}


def raw_output(solver: str, cnf: Path, tmp: Path) -> tuple[Path, int]:
    binary = need_solver(solver)
    extra, where = RAW[solver]
    answer = tmp / f"{solver}.out"
    if where == "result":
        proc = subprocess.run([binary, *extra, str(cnf), str(answer)], capture_output=True, timeout=60)
    else:
        proc = subprocess.run([binary, *extra, str(cnf)], capture_output=True, timeout=60)
        answer.write_bytes(proc.stdout)
    return answer, proc.returncode


@pytest.fixture(scope="module")
def q8(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("q") / "q8.cnf"
    assert gen_main(["8", "-e", "sequential", "-o", str(path)]) == 0
    return path


@pytest.mark.parametrize("solver", sorted(RAW))
def test_decode_and_block_every_profile(
    solver: str, q8: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answer, rc = raw_output(solver, q8, tmp_path)
    assert rc in (10, 30), rc  # clasp says 30 when it proved the model unique... or 10
    assert main(["decode", str(answer), "--cnf", str(q8), "--format", "line"]) == 0
    line = capsys.readouterr().out.strip()
    assert is_solution(line, 8)
    assert main(["decode", str(answer), "-n", "8", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["columns"] == [int(t) for t in line.split()]
    assert main(["block", str(answer), "-n", "8"]) == 0
    clause = capsys.readouterr().out
    cols = [int(t) - 1 for t in line.split()]
    assert clause == " ".join(str(-(r * 8 + c + 1)) for r, c in enumerate(cols)) + " 0\n"
    assert main(["block", str(answer), "--cnf", str(q8), "--symmetric"]) == 0
    sym = capsys.readouterr().out.splitlines()
    assert clause.strip() in sym and 1 <= len(sym) <= 8 and len(set(sym)) == len(sym)


def test_decode_own_solve_output_and_unsat(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cnf = tmp_path / "q6.cnf"
    gen_main(["6", "-o", str(cnf)])
    assert main(["solve", str(cnf)]) == 10
    (tmp_path / "solve.out").write_text(capsys.readouterr().out)
    assert main(["decode", str(tmp_path / "solve.out"), "-n", "6", "--format", "positions"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 6 and out[0].startswith("1) Row: 1, Column: ")
    gen_main(["3", "-o", str(tmp_path / "q3.cnf")])
    capsys.readouterr()
    assert main(["solve", str(tmp_path / "q3.cnf")]) == 20
    (tmp_path / "unsat.out").write_text(capsys.readouterr().out)
    assert main(["decode", str(tmp_path / "unsat.out"), "-n", "3"]) == 1
    assert capsys.readouterr().out.strip() == "no solution"
    minisat_unsat = tmp_path / "ms.out"
    minisat_unsat.write_text("UNSAT\n")
    assert main(["block", str(minisat_unsat), "-n", "3"]) == 1


def test_decode_rejects_attacking_queens(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.out"
    bad.write_text("s SATISFIABLE\nv 1 7 12 14 0\n")  # (0,0) and (1,2) fine, (2,3) attacks (1,2)
    assert main(["decode", str(bad), "-n", "4"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "attack" in err and "variable 7" in err and "variable 12" in err
    few = tmp_path / "few.out"
    few.write_text("s SATISFIABLE\nv 2 -1 0\n")
    assert main(["decode", str(few), "-n", "4"]) == 1
    assert "1 queen on the 4x4 board" in capsys.readouterr().err


def test_decode_pictures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sol = tmp_path / "sol.out"
    sol.write_text("s SATISFIABLE\nv 2 8 9 15 0\n")  # 4-queens: columns 2 4 1 3
    assert main(["decode", str(sol), "-n", "4", "--format", "svg", "-o", str(tmp_path / "b.svg")]) == 0
    svg = (tmp_path / "b.svg").read_text()
    assert svg.startswith("<svg") and svg.count("<circle") == 4
    assert main(["decode", str(sol), "-n", "4", "--format", "png", "-o", str(tmp_path / "b.png")]) == 0
    assert (tmp_path / "b.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["decode", str(sol), "-n", "4", "--ascii"]) == 0
    assert capsys.readouterr().out.splitlines() == [". Q . .", ". . . Q", "Q . . .", ". . Q ."]
    assert main(["decode", str(sol), "-n", "4", "--format", "png"]) == 2


def test_decode_pictures_compressed_as_named(tmp_path: Path) -> None:
    """`decode -o x.png.gz` wrote a plain PNG under a .gz name; a name's compression now holds for every format,
    and the same command writes the same bytes."""
    import gzip
    import lzma

    sol = tmp_path / "sol.out"
    sol.write_text("s SATISFIABLE\nv 2 8 9 15 0\n")
    png, xz = tmp_path / "b.png.gz", tmp_path / "b.svg.xz"
    assert main(["decode", str(sol), "-n", "4", "--format", "png", "-o", str(png)]) == 0
    first = png.read_bytes()
    assert gzip.decompress(first)[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["decode", str(sol), "-n", "4", "--format", "png", "-o", str(png)]) == 0
    assert png.read_bytes() == first
    assert main(["decode", str(sol), "-n", "4", "--format", "svg", "-o", str(xz)]) == 0
    assert lzma.decompress(xz.read_bytes()).startswith(b"<svg")
    assert main(["decode", str(sol), "-n", "4", "--format", "png", "-o", str(tmp_path / "b.png.zst")]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.png.gz", "b.svg.xz", "sol.out"]  # no temp left


def test_merge_counts_and_kissat_strict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kissat = need_solver("kissat")
    base = tmp_path / "base.cnf"
    gen_main(["5", "-e", "commander", "-o", str(base)])
    bare = tmp_path / "bare.cnf"
    bare.write_text("-1 -8 -15 -17 -24 0\n-3 -6 -14 -17 -25 0\n")
    full = tmp_path / "full.cnf"
    full.write_text("c blocks\np cnf 25 1\n-5 -7 -14 -16 -23 0\n")
    merged = tmp_path / "merged.cnf"
    assert main(["merge", str(base), str(bare), str(full), "-o", str(merged)]) == 0
    text = merged.read_text()
    header = next(line for line in text.splitlines() if line.startswith("p "))
    base_clauses = int(next(ln for ln in base.read_text().splitlines() if ln.startswith("p ")).split()[3])
    assert header.split()[2:] == [
        next(ln for ln in base.read_text().splitlines() if ln.startswith("p ")).split()[2],
        str(base_clauses + 3),
    ]
    assert text.startswith("c cnfgen-queens")  # comments kept
    proc = subprocess.run([kissat, "--strict", "-q", "-n", str(merged)], capture_output=True, text=True)
    assert proc.returncode == 10, proc.stdout + proc.stderr
    big = tmp_path / "big.cnf"
    big.write_text("-1 -999 0\n")
    assert main(["merge", str(base), str(big)]) == 2
    assert "999" in capsys.readouterr().err


def test_gen_block_option_equals_merge(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    blocks = tmp_path / "b.cnf"
    blocks.write_text("-2 -8 -9 -15 0\n")
    gen_main(["4", "--no-comments", "-o", str(tmp_path / "base.cnf")])
    assert gen_main(["4", "--no-comments", "--block", str(blocks)]) == 0
    direct = capsysbinary.readouterr().out
    assert main(["merge", str(tmp_path / "base.cnf"), str(blocks)]) == 0
    assert capsysbinary.readouterr().out == direct


def shell(args: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    return subprocess.run(args, capture_output=True, text=True, env=env, **kw)


@pytest.mark.parametrize(
    ("n", "solver", "count"),
    [(6, "kissat", 4), pytest.param(8, "kissat", 92, marks=pytest.mark.slow), (6, "minisat", 4)],  # 92 runs: slow
)
@pytest.mark.timeout(900)  # above its subprocess timeout (600 s): a loaded machine, not a hang
def test_enumerate_sh(n: int, solver: str, count: int) -> None:
    need_solver(solver)
    proc = shell(["bash", str(ROOT / "scripts" / "enumerate.sh"), str(n), solver], timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == f"count: {count}"
    assert len(set(lines[:-1])) == count and all(is_solution(line, n) for line in lines[:-1])


def test_enumerate_sh_usage() -> None:
    assert shell(["bash", str(ROOT / "scripts" / "enumerate.sh")]).returncode == 2
    assert shell(["bash", str(ROOT / "scripts" / "enumerate.sh"), "0"]).returncode == 2


@pytest.mark.slow  # issue 13: out of the default run (CI runs it)
def test_kill_9_then_resume(tmp_path: Path) -> None:
    need_solver("kissat")
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "cnfgen_queens", "enumerate", "8", "--solver", "kissat", "--out", str(out), "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    solutions = out / "solutions.txt"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if solutions.exists() and len(solutions.read_text().splitlines()) >= 20:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = solutions.read_text().splitlines()
    assert 20 <= len(before) < 92
    done = subprocess.run([*cmd, "--resume"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "count: 92 (published-count)"
    after = solutions.read_text().splitlines()
    assert len(after) == len(set(after)) == 92 and after[: len(before)] == before


def test_shuffled_cnf_loop_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """gen --shuffle, solve, decode/block --cnf, merge, until UNSAT: the 4 boards of N = 6."""
    kissat = need_solver("kissat")
    base = tmp_path / "base.cnf"
    assert gen_main(["6", "-e", "sequential", "--shuffle", "7", "-o", str(base)]) == 0
    current, blocks, boards = tmp_path / "current.cnf", tmp_path / "blocks.cnf", set()
    current.write_bytes(base.read_bytes())
    blocks.write_text("")
    for _ in range(10):
        proc = subprocess.run([kissat, str(current)], capture_output=True, text=True)
        if proc.returncode == 20:
            break
        answer = tmp_path / "answer"
        answer.write_text(proc.stdout)
        assert main(["decode", str(answer), "--cnf", str(base), "--format", "line"]) == 0
        board = capsys.readouterr().out.strip()
        assert is_solution(board, 6) and board not in boards
        boards.add(board)
        assert main(["block", str(answer), "--cnf", str(base)]) == 0
        with blocks.open("a") as f:
            f.write(capsys.readouterr().out)
        assert main(["merge", str(base), str(blocks), "-o", str(current)]) == 0
    assert len(boards) == 4


def test_block_keeps_stdout_clean_on_unsat(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    answer = tmp_path / "unsat.out"
    answer.write_text("s UNSATISFIABLE\n")
    assert main(["block", str(answer), "-n", "3"]) == 1
    out, err = capfd.readouterr()
    assert out == "" and "no solution" in err


def test_relative_solver_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    kissat = need_solver("kissat")
    (tmp_path / "mysolver").symlink_to(kissat)
    monkeypatch.chdir(tmp_path)
    gen_main(["5", "-o", "q5.cnf"])
    assert main(["solve", "q5.cnf", "--solver", "./mysolver"]) == 10
    assert main(["count", "5", "--solver", "./mysolver", "--out", "run", "--quiet"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "count: 10 (published-count)"


def test_output_through_symlink(tmp_path: Path) -> None:
    target = tmp_path / "real.cnf"
    target.write_text("old")
    link = tmp_path / "link.cnf"
    link.symlink_to(target)
    assert gen_main(["4", "-o", str(link)]) == 0
    assert link.is_symlink() and target.read_text().startswith("c cnfgen-queens")
