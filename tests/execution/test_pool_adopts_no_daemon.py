"""A process that ran a pool of workers is a child subreaper only while the pool runs (its workers' orphaned
solver children come to it to be ended): once the pool is closed, a daemon it starts (``scripts/slurm-local.sh``'s
slurmd, a double fork) goes to init as before, not to it, where its zombie stayed after a stop, never reaped (the
stop saw it alive: "slurmd ignored SIGTERM", "still running")."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

from helpers import living_in_session

PROGRAM = """
import os, signal, subprocess
import cnfgen_queens as cq
from cnfgen_queens.execution.executors import LocalExecutor

def daemon_parent() -> int:  # the parent of a process started in the background by a shell that then exits
    pid = int(subprocess.run(["sh", "-c", "sleep 30 >/dev/null 2>&1 & echo $!"], capture_output=True, text=True).stdout)
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    finally:
        os.kill(pid, signal.SIGKILL)

print("count", cq.count(cq.queens(6), jobs=2).total)  # forked workers
print("adopted", daemon_parent() == os.getpid())
pool = LocalExecutor(2)  # a batch's spawned workers
print("square", pool.result(pool.submit("k", pow, 3, 2)))
pool.close()
print("adopted", daemon_parent() == os.getpid())
"""


def test_a_closed_pool_leaves_the_process_no_subreaper() -> None:
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(PROGRAM)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n") == ["count 4", "adopted False", "square 9", "adopted False", ""], proc.stdout


INTERRUPTED = """
import os, signal, subprocess, time
from cnfgen_queens.execution.executors import LocalExecutor

own = subprocess.Popen(["sleep", "60"], process_group=0)  # the caller's own child, in a group of its own
pool = LocalExecutor(2)
script = "import subprocess; subprocess.Popen(['sleep', '60'], process_group=0); import time; time.sleep(60)"
pool.submit("k", subprocess.run, ["python3", "-c", script])  # a worker's child, which starts a group of its own
time.sleep(2)  # the task under way, its grandchild started
pool.close(interrupted=True)  # the worker ended: its child and grandchild are orphans, ended by the pool
print("own", own.poll())
own.kill()
own.wait()
"""


def test_an_interrupted_pool_ends_the_orphans_of_its_workers_not_the_callers_own_children() -> None:
    """After its workers are ended, a pool SIGKILLs the groups of the orphans that came to it (a solver's, a
    solver's child's); a child the caller had before, in a group of its own, is not one of them."""
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(INTERRUPTED)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        settled = time.monotonic() + 5  # multiprocessing's helpers notice their caller's end by themselves
        while (left := living_in_session(proc.pid)) and time.monotonic() < settled:
            time.sleep(0.1)
        for pid in left:  # what the test itself must not leave
            os.kill(pid, signal.SIGKILL)
    assert proc.returncode == 0, err
    assert out.split("\n") == ["own None", ""], out + err
    assert left == []  # the orphans (the worker's child and its child, each in a group of its own) were ended
