"""An interrupted pool's shutdown ends although a stopped worker was cut in the middle of writing its result.

The pool's manager thread then waits for the rest of a message that never comes (the result pipe's write end is
the command's own too: no end of file), and the command hung at exit joining it: ``count 12 --jobs 2 --certify c``
after SIGTERM, about 1 run in 6 at load (CI).  Here a worker writes the start of a result and kills itself."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

SCRIPT = """
import os, signal, struct, sys, time
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from cnfgen_queens.execution.fork_pool import _terminate, shutdown_interrupted

def cut_result():
    frame = sys._getframe()
    while frame.f_code.co_name != "_process_worker":  # the worker's loop, which holds the result queue
        frame = frame.f_back
    os.write(frame.f_locals["result_queue"]._writer.fileno(), struct.pack("!i", 1000) + b"x")  # 1 of 1000 bytes
    os.kill(os.getpid(), signal.SIGKILL)

if __name__ == "__main__":
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context(sys.argv[1]))
    pool.submit(cut_result)
    time.sleep(1)  # the manager reads the message's start, then waits
    shutdown_interrupted(pool, _terminate)
    print("shut down", flush=True)
"""


@pytest.mark.parametrize("method", ["fork", "spawn"])  # the fork pool's (count) and the batch's
def test_a_result_cut_short_does_not_hang_the_shutdown_or_the_exit(method: str, tmp_path: Path) -> None:
    script = tmp_path / "cut.py"
    script.write_text(SCRIPT)
    start = time.monotonic()
    try:
        done = subprocess.run([sys.executable, str(script), method], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the shutdown or the exit still waited for the pool's manager thread after 60 s")
    assert done.returncode == 0 and done.stdout == "shut down\n", done.stderr
    assert time.monotonic() - start < 30, "the shutdown waited for the manager thread's full join timeout"
