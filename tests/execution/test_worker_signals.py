"""A Dask worker's task stopped by its command (execution/worker_signals.py): :class:`Stopped`, raised in the
task's thread, stops it wherever it lands, and nothing of it reaches the command's stderr."""

from __future__ import annotations

import gc
import sys
import threading
import time
from typing import Any

import pytest

from cnfgen_queens.execution import worker_signals


def test_a_stop_that_lands_in_a_gc_callback_still_stops_the_task(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by CI (test_leftovers, Ctrl-C to ``count --executor dask``): the Stopped landed inside Dask's own
    gc callback, where Python prints 'Exception ignored in: ...' (12 lines on the command's stderr) and drops
    it; the task ran on.  The worker's unraisable hook now raises it once more in the task's thread."""
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)  # put back after the test
    setup = threading.Thread(target=worker_signals.dask_setup, args=(None,))  # not the main thread: this
    setup.start()  # process keeps its own process group and handlers; only the hook is installed
    setup.join()
    inside, busy = threading.Event(), [True]

    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and threading.current_thread().name == "task" and busy[0]:
            busy[0] = False  # once: the Stopped raised again must land in the task's own code
            inside.set()
            end = time.monotonic() + 2.0
            while time.monotonic() < end:  # the stop comes in here
                pass

    def task() -> str:
        end = time.monotonic() + 20
        while time.monotonic() < end:  # mostly Python code, as a task is, and a young collection now and then
            total = 0  # (a full one, in a test worker holding much, took most of the time: each stop sent
            for i in range(100_000):  # again landed in a callback once more, till the task ran out)
                total += i
            gc.collect(0)
        return "ran on"

    said: list[str] = []

    def runner() -> None:
        try:
            said.append(worker_signals.run_task("command-1", task))
        except RuntimeError as e:
            said.append(str(e))

    gc.callbacks.append(callback)
    try:
        thread = threading.Thread(target=runner, name="task")
        thread.start()
        assert inside.wait(60)
        assert worker_signals.stop_tasks("command-1") == 1
        thread.join(60)
    finally:
        gc.callbacks.remove(callback)
    assert not thread.is_alive()
    assert said and said[0].startswith("stopped"), said
    assert "Exception ignored" not in capfd.readouterr().err
