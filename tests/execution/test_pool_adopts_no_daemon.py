"""A process that ran a pool of workers is a child subreaper only while the pool runs (its workers' orphaned
solver children come to it to be ended): once the pool is closed, a daemon it starts (``scripts/slurm-local.sh``'s
slurmd, a double fork) goes to init as before, not to it, where its zombie stayed after a stop, never reaped (the
stop saw it alive: "slurmd ignored SIGTERM", "still running")."""

from __future__ import annotations

import subprocess
import sys
import textwrap

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
