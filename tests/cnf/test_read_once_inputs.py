"""Inputs that can be read only once, and inputs that change name during a run (issue 42, item 4).

``cnfgen-queens solve <(gen-queens 8) --solver minisat`` said "no 'p cnf' header line" (the path was opened
twice: the second time the pipe was empty), a FIFO with no writer made every command wait for ever, and
``merge <(gen-queens 6) blocks`` wrote a formula of one clause.  A solver was given the input by name: a
directory renamed away and replaced by a link during the run made it read another file.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from helpers import default_signals, need_solver, run_cli

from cnfgen_queens.cli import gen_main

BIN = Path(sys.executable).parent
CLI = shlex.quote(str(BIN / "cnfgen-queens"))
GEN = shlex.quote(str(BIN / "gen-queens"))


def bash(script: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``script`` run by bash (process substitution is bash's), the console scripts of this venv."""
    return subprocess.run(
        ["bash", "-c", script], cwd=cwd, capture_output=True, text=True, timeout=timeout, preexec_fn=default_signals
    )


@pytest.fixture
def q8(tmp_path: Path) -> Path:
    path = tmp_path / "q8.cnf"
    gen_main(["8", "-o", str(path)])
    return path


@pytest.mark.parametrize("solver", ["minisat", "pysat:cadical195"])
def test_solve_reads_a_process_substitution(tmp_path: Path, solver: str) -> None:
    if solver == "minisat":
        need_solver("minisat")
    ran = bash(f"{CLI} solve <({GEN} 8) --solver {solver}", tmp_path)
    assert ran.returncode == 10, ran.stderr
    assert "c checked: model-verified" in ran.stdout and "\ns SATISFIABLE\n" in ran.stdout, ran.stdout


def test_solve_reads_a_compressed_process_substitution(tmp_path: Path) -> None:
    need_solver("kissat")
    ran = bash(f"{CLI} solve <({GEN} 8 | gzip) --solver kissat", tmp_path)
    assert ran.returncode == 10 and "c checked: model-verified" in ran.stdout, ran.stdout + ran.stderr
    assert ran.stderr == ""  # a pipe's name says nothing of its compression: no warning about it


@pytest.fixture
def fifo_with_writer(tmp_path: Path, q8: Path) -> Iterator[Path]:
    """A FIFO ``f`` that a thread writes q8.cnf into (once a reader opens it)."""
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(q8.read_bytes()), daemon=True)
    writer.start()
    yield fifo
    if writer.is_alive():  # the command never opened it: unblock the writer
        with open(fifo, "rb") as f:
            f.read()
    writer.join(10)


@pytest.mark.parametrize("solver", ["minisat", "pysat:cadical195"])
def test_solve_reads_a_fifo(tmp_path: Path, fifo_with_writer: Path, solver: str) -> None:
    if solver == "minisat":
        need_solver("minisat")
    ran = run_cli(["solve", "f", "--solver", solver], tmp_path, timeout=120)
    assert ran.code == 10 and "c checked: model-verified" in ran.out, ran


def test_a_fifo_with_no_writer_is_waited_on_for_a_bounded_time(tmp_path: Path, q8: Path) -> None:
    """Before: every one of them waited for ever (open blocks until a writer comes).  The five commands run at
    once, each on a FIFO of its own: each waits its 10 s, the test 10 s in all, not 50."""
    need_solver("minisat")
    commands = [
        ["solve", "f", "--solver", "minisat"],
        ["stats", "f"],
        ["decode", "f", "-n", "8"],
        ["block", "f", "-n", "8"],
        ["merge", "q8.cnf", "f"],
    ]
    for i in range(len(commands)):
        os.mkfifo(tmp_path / f"f{i}")
    start = time.monotonic()
    with ThreadPoolExecutor(len(commands)) as pool:
        runs = [
            pool.submit(run_cli, [f"f{i}" if word == "f" else word for word in argv], tmp_path, timeout=120)
            for i, argv in enumerate(commands)
        ]
        for i, ran in enumerate(run.result() for run in runs):
            ran.one_line(2, f"f{i}: nothing came in 10 s", "no writer")
    assert time.monotonic() - start < 60
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["q8.cnf", *(f"f{i}" for i in range(len(commands)))])


def test_solve_on_a_fifo_with_no_writer_is_a_timeout_at_its_limit(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "f")
    ran = run_cli(["solve", "f", "-t", "1"], tmp_path, timeout=120)
    assert ran.code == 0 and "c status TIMEOUT" in ran.out and "f gave 0 bytes" in ran.out, ran


def test_merge_reads_process_substitutions(tmp_path: Path, q8: Path) -> None:
    """Before: ``p cnf 36 1``, the base's clauses lost (it was read once for its header, once for its body)."""
    (tmp_path / "b.txt").write_text("-1 -10 0\n")
    ran = bash(f"{CLI} merge <({GEN} 6) <(cat b.txt)", tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert "\np cnf 36 297\n" in ran.stdout and ran.stdout.endswith("-1 -10 0\n"), ran.stdout[-200:]


def test_decode_and_block_read_the_cnf_from_a_pipe(tmp_path: Path, q8: Path) -> None:
    solved = run_cli(["solve", "q8.cnf"], tmp_path)
    (tmp_path / "ans.txt").write_text(solved.out)
    for command in ("decode", "block"):
        ran = bash(f"{CLI} {command} <(cat ans.txt) --cnf <(gzip -c q8.cnf)", tmp_path)
        assert ran.returncode == 0, ran.stderr
        assert ("♛" in ran.stdout) if command == "decode" else ran.stdout.endswith(" 0\n"), ran.stdout


def test_the_solver_reads_the_file_it_was_given_whatever_its_name_becomes(tmp_path: Path) -> None:
    """A directory renamed away and replaced by a link to another's during the run: the solver (a wrapper that
    makes the swap, then runs minisat) read the other directory's file ("PARSE ERROR"); now it reads ours."""
    minisat = need_solver("minisat")
    mine, victim = tmp_path / "d", tmp_path / "victim"
    mine.mkdir()
    victim.mkdir()
    gen_main(["8", "-o", str(mine / "q.cnf")])
    (victim / "q.cnf").write_text("this is not a CNF\n")
    swap = tmp_path / "swap.sh"
    swap.write_text(f'#!/bin/sh\nmv {mine} {tmp_path / "d.old"} && ln -s {victim} {mine}\nexec {minisat} "$@"\n')
    swap.chmod(0o755)
    profiles = tmp_path / "solvers.yaml"
    profiles.write_text(
        f"solvers:\n  swapper:\n    command: '{swap} {{cnf}} {{model}}'\n    output: minisat\n    version_args: null\n"
    )
    ran = run_cli(["solve", "d/q.cnf", "--solver", "swapper", "--solvers-file", str(profiles)], tmp_path)
    assert ran.code == 10 and "c checked: model-verified" in ran.out, ran
    assert (victim / "q.cnf").read_text() == "this is not a CNF\n"


@pytest.mark.parametrize("solver", ["minisat", "pysat:cadical195"])
def test_the_library_solves_a_fifo(fifo_with_writer: Path, solver: str) -> None:
    """The API's door as the CLI's: before, ``cq.solve`` opened the FIFO to see that it is readable, and the
    solver found it empty."""
    import cnfgen_queens as cq

    if solver == "minisat":
        need_solver("minisat")
    solved = cq.solve(fifo_with_writer, solver=solver)
    assert str(solved.status) == "SAT" and str(solved.checked) == "model-verified" and solved.board is not None


def test_a_work_directory_replaced_during_the_run_gets_nothing_more(tmp_path: Path) -> None:
    """``enumerate --out d``, ``d`` renamed away and replaced by a link to another directory during the first
    solver call: before, the loop went on writing ``current.cnf`` and ``solutions.txt`` into that other
    directory (through the link); now it stops with one line, and the other directory is as it was."""
    minisat = need_solver("minisat")
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "current.cnf").write_text("not ours\n")
    swap = tmp_path / "swap.sh"
    swap.write_text(
        f"#!/bin/sh\n[ -e {tmp_path}/d.old ] || {{ mv {tmp_path}/d {tmp_path}/d.old && ln -s {victim} "
        f'{tmp_path}/d; }}\nexec {minisat} "$@"\n'
    )
    swap.chmod(0o755)
    profiles = tmp_path / "solvers.yaml"
    profiles.write_text(
        f"solvers:\n  swapper:\n    command: '{swap} {{cnf}} {{model}}'\n    output: minisat\n    version_args: null\n"
    )
    ran = run_cli(["enumerate", "6", "--solver", "swapper", "--solvers-file", str(profiles), "--out", "d"], tmp_path)
    ran.one_line(2, "--out d was replaced during the run", "nothing more was written there")
    assert sorted(p.name for p in victim.iterdir()) == ["current.cnf"]
    assert (victim / "current.cnf").read_text() == "not ours\n"
