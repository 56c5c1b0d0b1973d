"""The cube counter's forked workers (:class:`ForkPool`), and :func:`ready`: which of a pool's futures are done,
looked at with signals held (so that a signal never leaves a future's lock held)."""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from cnfgen_queens.errors import signals_deferred


class ForkPool:
    """Forked worker processes for the cube counter (cheap to start: the cubes of count 14 take seconds,
    not minutes; a batch's :class:`.executors.LocalExecutor` spawns instead: its workers inherit no threads or locks).

    Workers ignore Ctrl-C (the parent stops them) and get SIGTERM when the parent dies."""

    def __init__(self, jobs: int) -> None:
        # the workers are forked at the first submit, where signals are held (a handler that only notes them):
        # they take the handlers in place now instead
        handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGHUP)}
        self.pool = ProcessPoolExecutor(
            jobs, mp_context=multiprocessing.get_context("fork"), initializer=_init_fork_worker, initargs=(handlers,)
        )

    def submit(self, key: str, fn: Callable[..., Any], *args: Any) -> Any:
        with signals_deferred():  # as in ready (below)
            return self.pool.submit(fn, *args)

    def result(self, future: Any) -> Any:
        with signals_deferred():  # as in ready
            return future.result()

    def close(self, interrupted: bool = False) -> None:
        if interrupted:
            shutdown_interrupted(self.pool, _terminate)
        else:
            self.pool.shutdown(wait=True, cancel_futures=True)


def _terminate(processes: list[Any]) -> None:
    for p in processes:
        p.terminate()
    for p in processes:
        p.join(5)
        if p.is_alive():  # SIGTERM handled by Python while CaDiCaL holds the GIL
            p.kill()
            p.join()


MANAGER_JOIN = 30.0  # seconds for a pool's manager thread to end once its workers are gone (it takes milliseconds)


def shutdown_interrupted(pool: ProcessPoolExecutor, stop_workers: Callable[[list[Any]], None]) -> None:
    """Shut ``pool`` down without waiting for its work, stop its worker processes with ``stop_workers``, then
    wait for its manager thread before this process goes on to exit: at exit ``concurrent.futures`` wakes every
    manager still running, and one that closes its wake-up pipe in that moment makes the write fail (Python
    3.11: "Exception ignored in: <module 'threading'> ... OSError: [Errno 9] Bad file descriptor" after the
    command's one line, seen beside another checkout's tests)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)  # taken now: shutdown(wait=False) forgets it
    with signals_deferred():  # a second signal, as in ready (below)
        pool.shutdown(wait=False, cancel_futures=True)
    stop_workers(processes)
    if manager is not None:
        manager.join(MANAGER_JOIN)


def ready(futures: list[Any]) -> list[Any]:
    """The futures of ``futures`` (a pool's of :func:`.executors.cube_pool`) that are done.  Signals are held
    while they are looked at: a handler that raises (Ctrl-C, :class:`~cnfgen_queens.errors.Terminated`) right
    after ``Future.done`` took the future's lock (``threading.Condition.__enter__`` is Python code: the lock
    is held before the ``with`` block is set up) leaves it held, and the pool's manager thread, cancelling or
    failing that future, waits for it for ever (the command said "terminated (SIGTERM)" and never exited)."""
    with signals_deferred():
        return [f for f in futures if f.done()]


def _init_fork_worker(handlers: dict[signal.Signals, Any]) -> None:
    import ctypes

    for sig, handler in handlers.items():
        if handler is not None:  # None: not set from Python
            signal.signal(sig, handler)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG (Linux)
