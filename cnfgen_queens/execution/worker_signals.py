"""Worker processes and signals: a terminal's Ctrl-C or hangup reaches the command alone, which ends its workers.

A terminal sends Ctrl-C (SIGINT) and its hangup (SIGHUP) to its whole foreground process group, and so does
``kill -- -PGID``.  The command's helpers (a batch's spawned workers, a LocalCluster's Dask workers,
multiprocessing's resource tracker) must not get it: the command stops them itself, by ending their
processes (SIGTERM, then SIGKILL after a short grace), and sweeps the work directories they leave
(:func:`~cnfgen_queens.cnf.atomic.sweep_work_dirs_settled`).  Their solvers die with them (``setpriv
--pdeathsig``), and what a solver started itself (a script's ``sleep``) comes to the command, a child
subreaper (:func:`adopt_orphans`), which ends it (:func:`end_orphans`).  A helper killed by the terminal's
signal instead prints what Python or Dask print on the way (a traceback, the resource tracker's "process
died unexpectedly").  So helpers are started inside :func:`detached_spawns`, with SIGINT, SIGTERM and SIGHUP
blocked (a signal mask survives ``exec``); each first moves into a process group of its own, then drops what
came meanwhile and unblocks them (:func:`init_worker`, :func:`dask_setup`).  The resource tracker keeps
SIGHUP blocked for life (it ignores the other two itself).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from cnfgen_queens.solvers.reaper import subreaper

STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


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


def _own_group() -> None:
    """In a helper started by :func:`detached_spawns`: lead a process group of its own, drop a signal that
    came before (setting SIG_IGN discards a pending one), then ignore Ctrl-C and die of SIGTERM and SIGHUP."""
    with contextlib.suppress(OSError):  # already a group leader
        os.setpgrp()
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def init_worker(parent: int) -> None:
    """A batch's local worker: its own process group, Ctrl-C ignored, SIGTERM (the batch ending it) and SIGHUP
    fatal; and SIGTERM when the batch process dies (``PR_SET_PDEATHSIG``, even by SIGKILL; it fires when the
    thread that spawned this worker ends: the pool's spawner thread, which lives as long as its workers)."""
    import ctypes

    _own_group()
    pr_set_pdeathsig = 1
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:  # it died before the line above
        os.kill(os.getpid(), signal.SIGTERM)


def dask_setup(worker: object) -> None:
    """Dask's preload hook, in each worker of a LocalCluster of ours: its own process group, Ctrl-C ignored,
    SIGTERM and SIGHUP fatal (Dask's nanny, closing the cluster, ends a busy worker by SIGTERM)."""
    if threading.current_thread() is threading.main_thread():
        _own_group()


SETTLE = 0.5  # seconds the solvers of ended workers get to die and their own children to come to us


def adopt_orphans() -> contextlib.ExitStack:
    """Make this process a child subreaper (Linux) until the returned stack is closed (the pool's close): the
    processes a solver of a worker started, orphaned when the worker and its solver are ended, come to it instead
    of to init (for :func:`end_orphans`).  Not for good: a process that ran a pool (a library caller, a test) would
    adopt every daemon it starts later (``scripts/slurm-local.sh``'s slurmd) and keep its zombie, never reaped."""
    adopted = contextlib.ExitStack()
    adopted.enter_context(subreaper())
    return adopted


def end_orphans(known: set[int]) -> None:
    """After ending workers: SIGKILL the process group of every child of ours in another group but those of
    ``known`` (this process's children before the pool: a library caller's own), that is what came to us from a
    solver's group (:func:`adopt_orphans`; our own helpers share our group), and reap it.  (A solver's group, not
    its session: one in our session outlived the batch, ``sleep`` in a solver script.)"""
    time.sleep(SETTLE)
    group, adopted = os.getpgid(0), []
    for pid in _children():
        with contextlib.suppress(OSError):
            if pid not in known and os.getpgid(pid) != group:
                os.killpg(os.getpgid(pid), signal.SIGKILL)
                adopted.append(pid)
    for pid in adopted:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def children() -> set[int]:
    """This process's children now."""
    return set(_children())


def end_children(known: set[int]) -> None:
    """SIGKILL every child of ours but those of ``known`` (taken before), with its process group when it leads
    one (a LocalCluster whose start a signal cut short: its half-started processes), and reap them."""
    own = os.getpgid(0)
    children = [pid for pid in _children() if pid not in known]
    for pid in children:
        with contextlib.suppress(OSError):
            group = os.getpgid(pid)
            if group == own:
                os.kill(pid, signal.SIGKILL)
            else:
                os.killpg(group, signal.SIGKILL)
    for pid in children:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def _children() -> list[int]:
    """This process's children (from /proc: each thread's; none elsewhere)."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError), open(f"/proc/self/task/{task}/children") as f:
                found += [int(pid) for pid in f.read().split()]
    return found


def end_workers(processes: list[Any], grace: float = 3.0) -> None:
    """SIGTERM each worker's process group (a worker of :func:`init_worker` leads one), SIGKILL what is left after
    ``grace`` seconds."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for p in processes:
            if p.pid is not None and p.is_alive():
                try:
                    os.killpg(p.pid, sig)
                except (ProcessLookupError, PermissionError):
                    with contextlib.suppress(ProcessLookupError):  # not yet its own group leader
                        os.kill(p.pid, sig)
        deadline = time.monotonic() + grace
        for p in processes:
            p.join(max(0.0, deadline - time.monotonic()))
        if not any(p.is_alive() for p in processes):
            return
