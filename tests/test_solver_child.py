"""The long-lived solver child of a batch worker (solvers/solver_child.py): one fork for many runs, with the
limits and isolation of a child forked for each run.

Each case compares the kept child with a fresh fork on the same input (same status, same kind of error),
and checks that nothing of a stopped child remains."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import ROOT, pigeonhole

from cnfgen_queens.cli import gen_main
from cnfgen_queens.cnf.scan import CnfFile, read_cnf
from cnfgen_queens.limits import Limits
from cnfgen_queens.solvers import solver_child
from cnfgen_queens.solvers.embedded import solve_embedded
from cnfgen_queens.solvers.outcome import Status


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture(scope="module")
def cnfs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("child")
    paths = {"q8": d / "q8.cnf", "q60": d / "q60.cnf", "q3": d / "q3.cnf"}
    for name, path in paths.items():
        assert gen_main([name[1:], "-o", str(path)]) == 0
    paths["hard"] = pigeonhole(d / "php.cnf", 12)
    return paths


@pytest.fixture(autouse=True)
def no_child() -> Iterator[None]:
    solver_child.close()
    yield
    child = solver_child._child
    solver_child.close()
    if child is not None:
        assert not _alive(child.pid)


def _child_pid() -> int:
    assert solver_child._child is not None
    return solver_child._child.pid


def test_runs_share_one_child_and_answer_as_a_fresh_fork(cnfs: dict[str, Path]) -> None:
    q8 = read_cnf(cnfs["q8"])
    fresh = solve_embedded("cadical195", q8, Limits(10))
    kept = [solve_embedded("cadical195", q8, Limits(10), reuse=True) for _ in range(5)]
    pid = _child_pid()
    kept.append(solve_embedded("cadical195", CnfFile(cnfs["q3"], "q3"), Limits(10), reuse=True))
    assert _child_pid() == pid  # one fork for six runs
    assert fresh.status is Status.SAT and all(r.status is Status.SAT for r in kept[:5])
    assert all(r.model == fresh.model for r in kept[:5])  # CaDiCaL is deterministic: the same model
    assert kept[5].status is Status.UNSAT
    assert all(r.cpu is not None and r.cpu >= 0 and r.peak_memory_mb and r.wall > 0 for r in kept)


def test_time_limit_stops_the_run_and_the_next_run_gets_a_new_child(cnfs: dict[str, Path]) -> None:
    solve_embedded("cadical195", read_cnf(cnfs["q8"]), Limits(10), reuse=True)
    first = _child_pid()
    start = time.monotonic()
    slow = solve_embedded("cadical195", CnfFile(cnfs["hard"], "php"), Limits(0.5), reuse=True)
    assert slow.status is Status.TIMEOUT and "0.5 s wall-clock limit" in (slow.error or "")
    assert time.monotonic() - start < 10
    assert solver_child._child is None and not _alive(first)  # stopped and reaped, not left solving
    again = solve_embedded("cadical195", read_cnf(cnfs["q8"]), Limits(10), reuse=True)
    assert again.status is Status.SAT and _child_pid() != first


@pytest.mark.parametrize("memory", [2, 10])
def test_memory_limit_is_a_fresh_forks(memory: int, cnfs: dict[str, Path]) -> None:
    big = CnfFile(cnfs["q60"], "q60")
    fresh = solve_embedded("cadical195", big, Limits(10, memory))
    kept = solve_embedded("cadical195", big, Limits(10, memory), reuse=True)
    assert fresh.status is Status.MEMOUT and kept.status is Status.MEMOUT, (kept.status, kept.error)
    assert solver_child._child is None  # a child that ran out of memory is not used again
    small = solve_embedded("cadical195", read_cnf(cnfs["q8"]), Limits(10, memory), reuse=True)
    assert small.status is Status.SAT  # 8 queens fit in the same limit, in a new child


def test_another_memory_limit_gets_another_child(cnfs: dict[str, Path]) -> None:
    q8 = read_cnf(cnfs["q8"])
    solve_embedded("cadical195", q8, Limits(10, 200), reuse=True)
    first = _child_pid()
    solve_embedded("cadical195", q8, Limits(10, 100), reuse=True)
    assert _child_pid() != first and not _alive(first)
    assert solver_child._child is not None and solver_child._child.memory_mb == 100


def test_an_error_in_the_child_reads_as_a_fresh_forks(cnfs: dict[str, Path], tmp_path: Path) -> None:
    missing = CnfFile(tmp_path / "gone.cnf", "gone.cnf")
    fresh = solve_embedded("cadical195", missing, Limits(10))
    kept = solve_embedded("cadical195", missing, Limits(10), reuse=True)
    assert fresh.status is kept.status is Status.ERROR
    assert fresh.error == kept.error and "FileNotFoundError" in (kept.error or ""), kept.error
    assert solve_embedded("cadical195", read_cnf(cnfs["q8"]), Limits(10), reuse=True).status is Status.SAT


def test_a_child_killed_while_idle_is_replaced(cnfs: dict[str, Path]) -> None:
    q8 = read_cnf(cnfs["q8"])
    solve_embedded("cadical195", q8, Limits(10), reuse=True)
    first = _child_pid()
    os.kill(first, signal.SIGKILL)
    time.sleep(0.1)
    assert solve_embedded("cadical195", q8, Limits(10), reuse=True).status is Status.SAT
    assert _child_pid() != first


WORKER = """
import sys, time
from cnfgen_queens.cnf.scan import read_cnf
from cnfgen_queens.limits import Limits
from cnfgen_queens.solvers import solver_child
from cnfgen_queens.solvers.embedded import solve_embedded
solve_embedded("cadical195", read_cnf(sys.argv[1]), Limits(10), reuse=True)
print(solver_child._child.pid, flush=True)
if sys.argv[2] == "hang":
    time.sleep(60)
"""


@pytest.mark.parametrize("end", ["exit", "hang"])
def test_the_child_ends_with_its_worker(end: str, cnfs: dict[str, Path]) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", WORKER, str(cnfs["q8"]), end], stdout=subprocess.PIPE, env=env)
    try:
        assert proc.stdout is not None
        child = int(proc.stdout.readline())
        if end == "hang":
            proc.kill()  # SIGKILL: no exit hook runs; the child dies with its parent
        proc.wait(60)
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)


def test_a_forked_process_gets_a_child_of_its_own_and_leaves_its_parents_alone(cnfs: dict[str, Path]) -> None:
    """A process forked while a kept child exists (a batch's pool forked from a process that ran a batch
    before, as the tests' in-process batches do) inherited the parent's child: its run waited on a pid not
    its own (ChildProcessError, the pool's worker died: BrokenProcessPool)."""
    q8 = read_cnf(cnfs["q8"])
    assert solve_embedded("cadical195", q8, Limits(10), reuse=True).status is Status.SAT
    parent_child = _child_pid()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the forked process: its own child, then a clean exit
        code = 1
        try:
            os.close(read)
            run = solve_embedded("cadical195", q8, Limits(10), reuse=True)
            mine = _child_pid()
            solver_child.close()
            os.write(write, f"{run.status.name} {mine}".encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as f:
        said = f.read()
    assert os.waitpid(pid, 0)[1] == 0, said
    status, theirs = said.split()
    assert status == "SAT" and int(theirs) != parent_child
    assert _alive(parent_child) and _child_pid() == parent_child  # the parent's child untouched, still used
    assert solve_embedded("cadical195", q8, Limits(10), reuse=True).status is Status.SAT
    assert _child_pid() == parent_child
