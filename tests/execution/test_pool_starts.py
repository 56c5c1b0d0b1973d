"""When a submit may start a worker process (:func:`~cnfgen_queens.execution.fork_pool.may_start_a_worker`): such a
submit is made whole (a signal cannot cut a worker's start in two); every later submit only queues its task.  A
batch's workers are spawned by one thread that outlives them, its signals blocked since it started."""

from __future__ import annotations

import multiprocessing
import multiprocessing.util
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from cnfgen_queens.execution.executors import LocalExecutor
from cnfgen_queens.execution.fork_pool import may_start_a_worker
from cnfgen_queens.execution.worker_signals import STOP_SIGNALS


def test_a_submit_may_start_a_worker_only_while_the_pool_has_fewer_than_its_workers() -> None:
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        assert may_start_a_worker(pool)
        first = pool.submit(pow, 2, 10)  # starts the first worker, which is not idle before the next submit
        assert may_start_a_worker(pool)
        second = pool.submit(pow, 3, 4)
        assert not may_start_a_worker(pool)
        assert (first.result(timeout=120), second.result(timeout=120)) == (1024, 81)
        assert not may_start_a_worker(pool)  # idle workers: a submit takes one


def test_a_pool_that_does_not_say_how_many_workers_it_has_may_always_start_one() -> None:
    """A Python whose executor keeps other names: the safe answer, a whole submit inside detached_spawns."""
    assert may_start_a_worker(object())  # type: ignore[arg-type]


def test_local_workers_are_spawned_blocked_by_a_thread_that_outlives_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker's SIGTERM on its parent's death (``PR_SET_PDEATHSIG``) fires when the thread that spawned it
    ends, not the batch: workers spawned by a thread that ended after their start died with it (CI: "a worker
    process died" at load).  Each is spawned by the pool's one spawner thread, alive until the pool closes, with
    SIGINT, SIGTERM and SIGHUP blocked (a terminal's signal before the worker has its own group)."""
    spawned: list[tuple[threading.Thread, set[int]]] = []
    spawn = multiprocessing.util.spawnv_passfds

    def watched(path: bytes, args: list[str], passfds: object) -> int:
        if "spawn_main" in " ".join(map(str, args)):  # a worker, not the resource tracker
            spawned.append((threading.current_thread(), set(signal.pthread_sigmask(signal.SIG_BLOCK, []))))
        return spawn(path, args, passfds)

    monkeypatch.setattr(multiprocessing.util, "spawnv_passfds", watched)
    executor = LocalExecutor(2)
    try:
        futures = [executor.submit(str(i), time.sleep, 0.5) for i in range(4)]
        for future in futures:
            assert executor.result(future) is None  # no worker died
        assert 1 <= len(spawned) <= 2  # the second submit finds the first worker busy (or, late, idle)
        for thread, blocked in spawned:
            assert thread.is_alive() and thread is not threading.main_thread()
            assert blocked >= STOP_SIGNALS
    finally:
        executor.close()
    assert not any(thread.is_alive() for thread, _ in spawned)  # the spawner ends with its pool
