"""No fork while threads run (issue 45): the library's work, called from a program whose other thread holds a
lock, finishes, and nothing of it forks that program while its thread runs (a lock held at a fork stays held
for ever in the child: malloc's, logging's, the import lock, a Dask worker's); the embedded solver's limits
still hold there.  Python 3.12 and later warn of such a fork (a DeprecationWarning, an error here)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from cnfgen_queens.limits import Limits
from cnfgen_queens.solvers.embedded import solve_embedded
from cnfgen_queens.solvers.outcome import Status

PROGRAM = """
import os, sys, threading, warnings
warnings.simplefilter("error", DeprecationWarning)  # 3.12+: a fork with threads running is an error
import cnfgen_queens as cq

forks = []  # the number of threads at each fork of this process (at-fork hooks run in Python's forks)
os.register_at_fork(before=lambda: forks.append(threading.active_count()))
lock, holding, done = threading.Lock(), threading.Event(), threading.Event()

def hold() -> None:
    with lock:
        holding.set()
        done.wait()

thread = threading.Thread(target=hold, daemon=True)
thread.start()
holding.wait()
print("solve", cq.solve(cq.queens(8)).status)
print("solve limited", cq.solve(cq.queens(8), time_limit=60).status)
print("binary", cq.solve(cq.queens(8), solver="kissat", time_limit=60, memory_limit=500).status)
print("count", cq.count(cq.queens(6), jobs=2).total)
print("enumerate", len(list(cq.enumerate_solutions(cq.queens(6), time_limit=60))))
try:
    list(cq.enumerate_solutions(cq.queens(60), memory_limit=2, limit=1))
except RuntimeError as e:
    print("enumerate limited", type(e).__name__, e)
print("forks with threads", [n for n in forks if n > 1])
done.set()
"""


def test_library_work_finishes_beside_a_thread_that_holds_a_lock(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(PROGRAM)], capture_output=True, text=True, timeout=240, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    memout = "enumerate limited EnumerationError memory limit reached (2 MB)"
    said = ["solve SAT", "solve limited SAT", "binary SAT", "count 4", "enumerate 4", memout]  # A000170
    said.append("forks with threads []")
    assert proc.stdout.splitlines() == said
    assert list(tmp_path.iterdir()) == []


GATE = """
import _thread, threading
from cnfgen_queens.solvers.process import fork_is_safe
said = [fork_is_safe()]
started, done = threading.Event(), threading.Event()
thread = threading.Thread(target=done.wait)
thread.start()
said.append(fork_is_safe())
done.set()
thread.join()
said.append(fork_is_safe())
_thread.start_new_thread(lambda: (started.set(), threading.Event().wait(60)), ())
started.wait()
said.append(fork_is_safe())
print(*said)
"""


def test_fork_is_safe_only_with_this_thread_alone() -> None:
    """The proof that a fork is made before any thread starts: the check the forking code asks, in a fresh
    process (in a pytest-xdist worker its IO thread runs): true alone, false beside a thread of :mod:`threading`,
    true again when it has ended, and false beside one started with :mod:`_thread`, which :mod:`threading` does not
    list (pytest-xdist's is one: on 3.13 about 415 forks of the suite were beside it, each warned of)."""
    proc = subprocess.run([sys.executable, "-c", GATE], capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout.split()) == (0, ["True", "False", "True", "False"]), proc.stderr


@pytest.mark.parametrize("memory", [None, 30])
def test_embedded_solver_beside_a_thread_keeps_its_limits(memory: int | None, tmp_path: Path) -> None:
    """With another thread running the embedded solver runs in a fresh process: a time limit stops it, a
    memory limit is MEMOUT (a board of 60 under 2 MB), and 8 queens solve under a small one."""
    from cnfgen_queens.cli import gen_main

    big, small = tmp_path / "q60.cnf", tmp_path / "q8.cnf"
    assert gen_main(["60", "-o", str(big)]) == 0 and gen_main(["8", "-o", str(small)]) == 0
    from cnfgen_queens.cnf.scan import CnfFile

    started, done = threading.Event(), threading.Event()
    thread = threading.Thread(target=lambda: (started.set(), done.wait()))
    thread.start()
    try:
        started.wait()
        run = solve_embedded("cadical195", CnfFile(small, str(small)), Limits(30, memory))
        assert run.status is Status.SAT and run.model
        run = solve_embedded("cadical195", CnfFile(big, str(big)), Limits(30, 2))
        assert run.status is Status.MEMOUT, run
        run = solve_embedded("cadical195", CnfFile(big, str(big)), Limits(0.01, memory))
        assert run.status is Status.TIMEOUT, run
    finally:
        done.set()
        thread.join()


def test_a_progress_bar_starts_no_thread() -> None:
    """tqdm's monitor thread would run from a command's first bar on, and every later fork would be beside it."""
    from cnfgen_queens.progress import Progress

    before = set(threading.enumerate())
    bar = Progress("run", "runs", total=3, tty_only=False)
    try:
        bar.update(1)
        assert set(threading.enumerate()) == before
    finally:
        bar.close()


def test_a_batch_worker_runs_one_thread_alone() -> None:
    """A batch's local worker watches for the batch's death without a thread of its own (PR_SET_PDEATHSIG), so
    its embedded solver's runs are forks, as cheap as before (a fresh process each would cost 0.2 s a run)."""
    from cnfgen_queens.execution.executors import LocalExecutor

    executor = LocalExecutor(1)
    try:
        future = executor.submit("threads", threading.active_count)
        assert executor.result(future) == 1
    finally:
        executor.close()
