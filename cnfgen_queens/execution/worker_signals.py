"""Worker processes and signals: a terminal's Ctrl-C or hangup reaches the command alone, which stops its workers.

A terminal sends Ctrl-C (SIGINT) and its hangup (SIGHUP) to its whole foreground process group, and so does
``kill -- -PGID``.  The command's helpers (a batch's spawned workers, a LocalCluster's Dask workers,
multiprocessing's resource tracker) must not get it: the command stops them itself, in order, each run's
solver stopped and its work directories removed.  A helper killed by the signal instead leaves its work
directories behind, and prints what Python or Dask print on the way (``cnfgen-queens: interrupted``, a
traceback, the resource tracker's "process died unexpectedly" and a KeyError per semaphore).  So helpers
are started inside :func:`detached_spawns`, with SIGINT, SIGTERM and SIGHUP blocked (a signal mask survives
``exec``); each first moves into a process group of its own, then drops what came meanwhile and unblocks
them (:func:`init_worker`, :func:`dask_setup`).  The resource tracker keeps SIGHUP blocked for life (it
ignores the other two itself).

A Dask worker runs its tasks in threads, which no signal unwinds, and Dask stops a busy worker by killing
it.  So :func:`run_task` records the thread of each task of a command (its ``token``), and the command,
when it is stopped, sends :func:`stop_tasks` to every worker (``client.run``): :class:`Stopped` is raised
in those threads, and the task unwinds as Ctrl-C unwinds a command (its solver stopped, its work
directories removed) before the cluster is closed.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from cnfgen_queens.contexts import contextmanager

STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
EXIT_GRACE = 3.0  # seconds a worker whose batch died has to stop its solver before it exits


@contextmanager
def detached_spawns() -> Iterator[None]:
    """Processes started inside by this thread (and by threads it starts, which inherit its mask: a Dask
    cluster's) begin with SIGINT, SIGTERM and SIGHUP blocked; multiprocessing's resource tracker is started
    first, so that it is one of them.  A signal to this process meanwhile is handled as ever (by the main
    thread, once the mask is restored, if no other thread takes it)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    from multiprocessing import resource_tracker

    before = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        resource_tracker.ensure_running()  # which unblocks SIGINT and SIGTERM here on its way out
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _own_group(handlers: dict[int, Any]) -> None:
    """In a helper started by :func:`detached_spawns`: lead a process group of its own, drop a signal that
    came before (setting SIG_IGN discards a pending one), unblock them and set ``handlers``."""
    with contextlib.suppress(OSError):  # already a group leader
        os.setpgrp()
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    for signum, handler in handlers.items():
        signal.signal(signum, handler)


_stopping: list[int] = []  # a local worker: the signal the batch stopped it with


_batch: list[int] = []  # a local worker: the pid of the batch process that started it


def _raise_exit(signum: int, frame: object) -> None:
    _stopping.append(signum)
    if _batch and os.getppid() != _batch[0]:  # the batch died (PR_SET_PDEATHSIG): nothing waits for this worker
        signal.alarm(math.ceil(EXIT_GRACE))  # SIGALRM ends it then, whatever its run does meanwhile
    raise SystemExit(128 + signum)


def run_local(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a batch's local worker; once the batch has stopped the worker (its run unwound), the
    worker ends instead of taking the next run already queued for it, which would be cut short unwound."""
    try:
        if not _stopping:
            return fn(*args)
    finally:
        if _stopping:
            os._exit(128 + _stopping[0])
    return None  # never reached: a stopped worker has ended


def _quiet_exit(info: Any) -> None:
    if not issubclass(info.exc_type, SystemExit | KeyboardInterrupt):
        sys.__unraisablehook__(info)


def init_worker(parent: int) -> None:
    """A batch's local worker: its own process group, Ctrl-C ignored (the batch stops it); SIGTERM (the batch
    stopping it) and SIGHUP unwind cleanly, stopping the run's solver; and it ends itself when the batch
    process dies (even by SIGKILL)."""
    _own_group({signal.SIGTERM: _raise_exit, signal.SIGHUP: _raise_exit})
    sys.unraisablehook = _quiet_exit  # a SystemExit raised inside a finalizer is no news when stopping
    _batch[:] = [parent]
    _die_with_batch(parent)


def _die_with_batch(parent: int) -> None:
    """SIGTERM when the batch process dies (``PR_SET_PDEATHSIG``; the batch's thread that spawned this worker
    lives as long as its pool): the running task unwinds, stopping its solver, and :func:`_raise_exit` gives
    the worker :data:`EXIT_GRACE` seconds to end (the pool's worker loop would wait for work for ever).  No
    thread watches the batch: a worker with one thread alone forks its embedded solver's children safely
    (:func:`~cnfgen_queens.solvers.process.fork_is_safe`)."""
    import ctypes

    pr_set_pdeathsig = 1
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:  # it died before the line above
        os.kill(os.getpid(), signal.SIGTERM)


def dask_setup(worker: object) -> None:
    """Dask's preload hook, in each worker of a LocalCluster of ours: its own process group, Ctrl-C ignored,
    SIGTERM and SIGHUP as by default (Dask's nanny stops it; a task is stopped by :func:`stop_tasks`)."""
    if threading.current_thread() is threading.main_thread():
        _own_group({signal.SIGTERM: signal.SIG_DFL, signal.SIGHUP: signal.SIG_DFL})
    global _hook_below
    if sys.unraisablehook is not _swallow:
        _hook_below, sys.unraisablehook = sys.unraisablehook, _swallow


def _swallow(info: Any) -> None:
    """``sys.unraisablehook`` of a Dask worker: a :class:`Stopped` that landed where Python cannot raise (Dask's
    own gc callback, a finalizer) was printed on the command's stderr and dropped, and the task ran on; it is
    noted, silently, for :func:`_resend` to raise once more."""
    if isinstance(info.exc_type, type) and issubclass(info.exc_type, Stopped):
        _swallowed.add(threading.get_ident())  # the last thing here: a Stopped sent again lands after this hook
        return
    _hook_below(info)


def _resend(threads: list[int]) -> None:
    """Raise :class:`Stopped` once more in each of ``threads`` whose Stopped was dropped (:func:`_swallow`), until
    their tasks have ended; never in a task that is unwinding from one (its clean-up is not cut short)."""
    end = time.monotonic() + RESEND_FOR
    while time.monotonic() < end:
        with _tasks_lock:
            left = [thread for thread in threads if thread in _tasks]
            for thread in left:
                if thread in _swallowed:
                    _swallowed.discard(thread)
                    _set_async_exc(thread)
        if not left:
            return
        time.sleep(RESEND_STEP)


def _set_async_exc(thread: int) -> None:
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread), ctypes.py_object(Stopped))


class Stopped(KeyboardInterrupt):
    """Raised in a Dask worker's task thread by :func:`stop_tasks`: the task unwinds as on Ctrl-C."""


_hook_below: Callable[[Any], object] = sys.unraisablehook  # the hook :func:`_swallow` hands the rest to
_swallowed: set[int] = set()  # the task threads whose Stopped Python dropped
RESEND_FOR, RESEND_STEP = 30.0, 0.02  # seconds: how long a stop is sent again, and how often it is looked at
_tasks: dict[int, str] = {}  # thread id -> the token of the command whose task it runs
_stopped: set[str] = set()  # the tokens of the commands stopped: a task of theirs that starts later does nothing
_tasks_lock = threading.Lock()


def run_task(token: str, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a Dask worker, as a task :func:`stop_tasks` can stop (then a RuntimeError: the command
    that sent it is gone, the result is no one's)."""
    me = threading.get_ident()
    try:
        with _tasks_lock:
            if token in _stopped:
                raise Stopped
            _tasks[me] = token
        try:
            return fn(*args)
        finally:
            with _tasks_lock:  # a Stopped raised before this ends is caught below, never after
                _tasks.pop(me, None)
    except Stopped:
        raise RuntimeError("stopped: the command that sent this task was interrupted") from None


def stop_tasks(token: str) -> int:
    """Raise :class:`Stopped` in every thread running a task of ``token`` in this process, and in any that
    starts later; how many run now."""
    with _tasks_lock:
        _stopped.add(token)
        threads = [thread for thread, owner in _tasks.items() if owner == token]
        for thread in threads:
            _set_async_exc(thread)
    if threads:
        threading.Thread(target=_resend, args=(threads,), daemon=True, name="stop-again").start()
    return len(threads)


def running(token: str) -> int:
    """How many tasks of ``token`` this process runs."""
    with _tasks_lock:
        return sum(owner == token for owner in _tasks.values())
