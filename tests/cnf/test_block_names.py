"""Blocking clauses are over the N*N primary cell variables x(r,c) = r*N + c + 1, shuffled CNF or not:
``block`` prints them so, ``gen-queens --block`` takes only them, ``merge`` renames them into a shuffled base."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, is_solution, need_solver


def sh(command: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    return subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True, env=env, timeout=timeout)


def test_block_of_a_shuffled_answer_blocks_the_board_in_gen(tmp_path: Path) -> None:
    """The reviewer's reproducer: block's clause, given back to gen-queens --shuffle --block, makes the
    board (all 13 queens placed) UNSAT."""
    need_solver("kissat")
    flags = "13 -e commander --shuffle 7 --column-alo"
    run = sh(f"gen-queens {flags} -o q.cnf && cnfgen-queens solve q.cnf --solver kissat > a.txt", tmp_path)
    assert run.returncode == 10, run.stderr
    line = sh("cnfgen-queens decode a.txt --format line", tmp_path).stdout.split()
    blocked = sh("cnfgen-queens block a.txt", tmp_path)
    assert blocked.returncode == 0, blocked.stderr
    lits = [int(t) for t in blocked.stdout.split()]
    assert lits[-1] == 0 and sorted(-x for x in lits[:-1]) == sorted(r * 13 + int(c) for r, c in enumerate(line))
    assert sh("cnfgen-queens block a.txt --cnf q.cnf", tmp_path).stdout == blocked.stdout  # the same, named
    (tmp_path / "b.cnf").write_text(blocked.stdout)
    place = " ".join(f"--place {r + 1},{c}" for r, c in enumerate(line))
    again = sh(f"gen-queens {flags} --block b.cnf {place} | cnfgen-queens solve - --solver kissat", tmp_path)
    assert again.returncode == 20, again.stdout + again.stderr
    free = sh(f"gen-queens {flags} {place} | cnfgen-queens solve - --solver kissat", tmp_path)
    assert free.returncode == 10  # without the block, the placed board is the solution


@pytest.mark.parametrize(("text", "line", "literal"), [("-100 0\n", 1, "-100"), ("-1 -10 0\nc x\n-65 0\n", 3, "-65")])
def test_gen_block_refuses_literals_beyond_the_cells(tmp_path: Path, text: str, line: int, literal: str) -> None:
    (tmp_path / "x").write_text(text)
    run = sh("gen-queens 8 -e sequential --block x -o out.cnf", tmp_path)  # 274 variables, 64 cells
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and f"x:{line}" in run.stderr and literal in run.stderr
    assert "1..64" in run.stderr and not (tmp_path / "out.cnf").exists()


def test_merge_renames_primary_blocks_into_a_shuffled_base(tmp_path: Path) -> None:
    """The shell loop on a shuffled CNF: solve, block (primary names), merge (renamed by the base's
    shuffle): each round a new board, then UNSAT after the 4 boards of N = 6."""
    need_solver("kissat")
    assert sh("gen-queens 6 -e sequential --shuffle 3 -o current.cnf", tmp_path).returncode == 0
    boards = set()
    for _ in range(6):
        run = sh("cnfgen-queens solve current.cnf --solver kissat > a.txt", tmp_path)
        if run.returncode == 20:
            break
        assert run.returncode == 10, run.stderr
        board = sh("cnfgen-queens decode a.txt --format line", tmp_path).stdout.strip()
        assert is_solution(board, 6) and board not in boards
        boards.add(board)
        merged = sh("cnfgen-queens block a.txt | cnfgen-queens merge current.cnf - -o current.cnf", tmp_path)
        assert merged.returncode == 0, merged.stderr
    assert len(boards) == 4


@pytest.mark.parametrize(
    ("n", "count"),
    [(6, 4), pytest.param(8, 92, marks=pytest.mark.slow)],  # 92 kissat runs: slow
)
@pytest.mark.timeout(900)  # above its subprocess timeout (600 s): a loaded machine, not a hang
def test_enumerate_sh_on_a_shuffled_cnf(n: int, count: int) -> None:
    bad = subprocess.run(["bash", str(ROOT / "scripts" / "enumerate.sh"), "6", "kissat", "x"], capture_output=True)
    assert bad.returncode == 2 and b"SEED" in bad.stderr
    need_solver("kissat")
    proc = subprocess.run(
        ["bash", str(ROOT / "scripts" / "enumerate.sh"), str(n), "kissat", "11"],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]),
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == f"count: {count}"
    assert len(set(lines[:-1])) == count and all(is_solution(line, n) for line in lines[:-1])
