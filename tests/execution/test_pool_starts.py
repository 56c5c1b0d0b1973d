"""When a submit may start a worker process (:func:`~cnfgen_queens.execution.fork_pool.may_start_a_worker`): such a
submit is made whole (a signal cannot cut a worker's start in two) and inside ``detached_spawns``; every later submit
only queues its task, without either (the resource tracker's probe cost a batch about 0.3 ms a run)."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from cnfgen_queens.execution.fork_pool import may_start_a_worker


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
