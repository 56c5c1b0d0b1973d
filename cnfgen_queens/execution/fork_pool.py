"""The cube counter's forked workers (:class:`ForkPool`), stopped by ending their processes."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.connection import wait
from typing import Any

from cnfgen_queens.cnf.atomic import sweep_work_dirs_settled
from cnfgen_queens.encodings.plugin_loading import with_plugins
from cnfgen_queens.errors import whole
from cnfgen_queens.solvers.process import fork_is_safe

from .landing import Landing
from .worker_signals import adopt_orphans, children, end_orphans


def may_start_a_worker(pool: ProcessPoolExecutor) -> bool:
    """Whether ``pool.submit`` may start a worker process: while the pool has fewer than its ``max_workers``
    (it starts them as submits find none idle, and never replaces one).  Read from the executor's own
    bookkeeping (``_processes``, ``_max_workers``: the same in Python 3.11 to 3.13; a Python without them
    gets True, the safe answer); a submit after that only queues its task."""
    processes, most = getattr(pool, "_processes", None), getattr(pool, "_max_workers", None)
    return not isinstance(most, int) or len(processes or ()) < most


class ForkPool:
    """Forked worker processes for the cube counter (cheap to start: the cubes of count 14 take seconds,
    not minutes; a batch's :class:`.executors.LocalExecutor` spawns instead: its workers inherit no threads or locks).

    The workers are forked at the first submit, and only when this process runs no other thread then
    (:func:`~cnfgen_queens.solvers.process.fork_is_safe`: a thread's lock held at the fork would stay held in
    the worker); otherwise (a library caller's threads, a notebook's, a Dask worker's) they come from
    multiprocessing's ``forkserver``, a fresh process that has none, and load the plugins this process loaded
    (:func:`~cnfgen_queens.encodings.plugin_loading.with_plugins`).  Workers ignore Ctrl-C (the parent stops
    them), die of SIGTERM and SIGHUP (their solvers with them), and get SIGTERM when the process they were
    forked from dies.  Finished futures come through a :class:`.landing.Landing`."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.landing = Landing()
        self._pool: ProcessPoolExecutor | None = None
        self.forked = False  # the workers were forked from this process (else from the forkserver)
        self._orphans = contextlib.ExitStack()  # a subreaper while the pool runs (adopt_orphans)
        self._known: set[int] = set()  # this process's children before the pool: not ours to end (end_orphans)

    @property
    def pool(self) -> ProcessPoolExecutor:
        """The executor, made at the first submit with the start method this process allows then."""
        if self._pool is None:
            self.forked = fork_is_safe()
            self._known = children()
            self._orphans = adopt_orphans()
            context = multiprocessing.get_context("fork" if self.forked else "forkserver")
            self._pool = ProcessPoolExecutor(self.jobs, mp_context=context, initializer=_init_fork_worker)
        return self._pool

    def submit(self, key: str, fn: Callable[..., Any], *args: Any) -> Any:
        pool = self.pool

        def submitted() -> Any:
            return pool.submit(fn if self.forked else with_plugins(fn), *args)

        # a submit that has the forkserver start a worker, which then waits for its task, is whole, not cut by a
        # signal (a fork is whole by itself, and wants no other thread)
        return self.landing.watch(whole(submitted) if not self.forked and may_start_a_worker(pool) else submitted())

    def ready(self, futures: list[Any]) -> list[Any]:
        """The futures of ``futures`` that are done."""
        return self.landing.ready(futures)

    def result(self, future: Any) -> Any:
        return self.landing.result(future)

    def close(self, interrupted: bool = False, ending: float | None = None) -> bool:
        """Shut the pool down: wait for its work, or with ``interrupted`` cancel what has not started and stop
        the workers.  ``ending``: the instant (:func:`time.monotonic`) by which the running tasks end by
        themselves (the deadline's kill schedule of their solvers, as with one job): the workers are let end
        until then, and only those still running are stopped, their work directories swept after them.
        Whether a worker was stopped mid-task."""
        self.landing.close()
        with self._orphans:
            if self._pool is None:
                return False
            if not interrupted:
                self.pool.shutdown(wait=True, cancel_futures=True)
                return False
            stopped: list[Any] = []

            def stop(processes: list[Any]) -> None:
                # their tasks see the deadline passed: each ends, then its worker.  Their sentinels, not is_alive():
                # a worker the pool's manager thread reaped meanwhile is "alive" to this thread (waitpid: ECHILD)
                running = {p.sentinel: p for p in processes}
                while running and ending is not None and (left := ending - time.monotonic()) > 0:
                    for ended in wait(list(running), left):
                        del running[ended]
                stopped.extend(running.values())
                _terminate(stopped)

            shutdown_interrupted(self.pool, stop)
            if stopped:
                end_orphans(self._known)
                sweep_work_dirs_settled()
            return bool(stopped)


def _terminate(processes: list[Any]) -> None:
    for p in processes:
        p.terminate()
    for p in processes:
        p.join(5)
        if p.is_alive():
            p.kill()
            p.join()


MANAGER_JOIN = 30.0  # seconds for a pool's manager thread to end once its workers are gone (it takes milliseconds)
MANAGER_STUCK = 2.0  # seconds after which a manager thread still there is taken as stuck on a result cut short


def shutdown_interrupted(pool: ProcessPoolExecutor, stop_workers: Callable[[list[Any]], None]) -> None:
    """Shut ``pool`` down without waiting for its work, stop its worker processes with ``stop_workers``, then
    wait for its manager thread before this process goes on to exit: at exit ``concurrent.futures`` wakes every
    manager still running, and one that closes its wake-up pipe in that moment makes the write fail (Python
    3.11: "Exception ignored in: <module 'threading'> ... OSError: [Errno 9] Bad file descriptor" after the
    command's one line, seen beside another checkout's tests)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)  # taken now: shutdown(wait=False) forgets it
    results = getattr(pool, "_result_queue", None)  # likewise
    pool.shutdown(wait=False, cancel_futures=True)
    stop_workers(processes)
    if manager is not None:
        manager.join(MANAGER_STUCK)
        if manager.is_alive():
            _unstick(results)
        manager.join(MANAGER_JOIN)


def _unstick(results: Any) -> None:
    """Wake a manager thread blocked reading a result that a stopped worker was cut in the middle of writing: the
    pipe's write end is this process's too, so no end of file comes, and the command hung at exit joining that
    thread (``count 12 --jobs 2 --certify c``, SIGTERM: about 1 run in 6 at load).  Its read end made
    non-blocking and a byte written, the read takes the byte, then fails: the manager breaks the pool and ends."""
    reader, writer = getattr(results, "_reader", None), getattr(results, "_writer", None)  # (Python 3.11 to 3.13)
    if reader is None or writer is None:
        return
    with contextlib.suppress(OSError, ValueError):
        os.set_blocking(reader.fileno(), False)
        os.write(writer.fileno(), b"\0")


def _init_fork_worker() -> None:
    """A worker ignores Ctrl-C (its pool stops it), dies of SIGTERM and SIGHUP (the default action: a handler
    inherited from the parent would unwind the parent's own blocks here) and of the death of its parent."""
    import ctypes

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG (Linux)
