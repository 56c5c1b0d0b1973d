"""A long-lived solver child per worker thread: a batch's many short embedded runs fork once, not once each.

:func:`.process.run_forked` forks the whole worker for every run (about 7 ms of CPU for a 0.3 ms solve:
copy-on-write faults, exit, the fork itself).  :func:`run` gives the same run to a child forked once and
kept between runs, with the limits, the record and the isolation of a fresh fork:

* the child is forked by :func:`.process.fork_child`: its own session (a timeout's SIGTERM/SIGKILL reach
  anything it started), SIGKILL when the thread that forked it ends (``PR_SET_PDEATHSIG`` is that
  thread's, so each thread has a child of its own), stdout to /dev/null;
* memory: each run gets a fresh fork's headroom, its memory limit on top of what the child holds once it
  has the run's arguments (a fresh fork gets it on top of what the worker holds): the child sets its
  soft RLIMIT_AS to that (:func:`.process.held_size`) plus the limit after unpickling them and unmapping
  their bytes, and back after the run.  Its hard RLIMIT_AS, set when it starts, is what it holds then
  plus the limit, :data:`.child_loop.SLACK_MB` and twice the room for arguments (:data:`ROOM_MB`, or
  the request it was forked for); a run that cannot get its full headroom under it is declined, and
  :func:`run` returns None for a fresh fork.  A child grown by more than :data:`.child_loop.SLACK_MB` over
  its runs is replaced after the run;
* time: the limit counts from the call (sending the arguments counts); then the child's group gets
  SIGTERM, ``grace``, SIGKILL, recorded in :attr:`.Finished.signals` as a fresh fork's, and the run is a
  timeout;
* the child says it has taken a run (a byte) before it starts it: one that ends before that (killed
  while idle: an administrator, the OOM killer) has run nothing, and the run goes once more to a new
  child.  Whatever ends it after (an error, MemoryError, a signal) is judged from its exit status and
  stderr as a fresh child's would be; the next run gets a new child;
* a child is kept for one work function and one memory limit: a run with another replaces it;
* CPU time is the child's own (``getrusage`` around the run; after a death, ``wait4``'s less what earlier
  runs used); it leaves out what a fresh fork adds (the fork, copy-on-write faults, exit).  The peak
  memory is the child's VmHWM, reset before each run (``/proc/self/clear_refs``); None where it cannot be
  reset (the lifetime peak would carry over from earlier runs).

The child holds no file of the worker's but its two pipes and stderr, and nothing of a run after it: the
arguments come with each request (:mod:`.child_loop`, the child's side).
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import pickle
import select
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO

from .child_loop import DECLINE, EXACT, LENGTH, MB, SLACK_MB, serve
from .finished import STDERR_KEEP, Finished
from .process import GRACE, fork_child, kill_run, status_kib, wait_run
from .reaper import clean_group, started

ROOM_MB = 8  # the least room for a run's arguments a child is forked with
TIMEOUT, LOST, ENDED, DECLINED = "timeout", "lost", "ended", "declined"  # what came instead of an answer


@dataclass
class _Child:
    pid: int
    requests: int  # the worker's end: it writes requests (non-blocking)
    replies: int  # the worker's end: it reads answers
    err: BinaryIO  # the child's stderr (opened for appending: emptied between runs)
    memory_mb: int | None
    work: Callable[..., bytes]
    room: int  # the largest request it takes, bytes
    thread: threading.Thread  # the thread that forked it (it dies with it)
    cpu: float = 0.0  # the child's CPU seconds at the end of its last run
    runs: int = 0  # runs it answered
    exact: bool = False  # it reset its peak for the run under way


_guard = threading.Lock()  # over _children
_children: dict[threading.Thread, _Child] = {}  # each thread's child
_registered = False  # close() is set to run at exit (atexit; a multiprocessing worker's Finalize)


def _forget_inherited() -> None:
    """In a process just forked from one with kept children: they are not ours (we cannot wait for them,
    and a request of ours would mix with our parent's), so close our copies of their pipes and start afresh;
    the exit hooks too (a multiprocessing worker starts with none)."""
    global _children, _guard, _registered
    inherited, _children, _guard, _registered = _children, {}, threading.Lock(), False
    for child in inherited.values():
        for fd in (child.requests, child.replies):
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(OSError):
            child.err.close()


os.register_at_fork(after_in_child=_forget_inherited)


def _spawn(work: Callable[..., bytes], memory_mb: int | None, request: int) -> _Child:
    global _registered
    if not _registered:
        _registered = True
        atexit.register(close)
        with contextlib.suppress(ImportError):  # a multiprocessing worker exits without atexit hooks
            from multiprocessing import util

            util.Finalize(None, close, exitpriority=100)
    room = max(request, ROOM_MB * MB)
    req_r, req_w = os.pipe()
    rep_r, rep_w = os.pipe()
    err = tempfile.TemporaryFile()  # noqa: SIM115 (kept open with the child, closed by _end)
    try:
        fcntl.fcntl(err.fileno(), fcntl.F_SETFL, fcntl.fcntl(err.fileno(), fcntl.F_GETFL) | os.O_APPEND)
        os.set_blocking(req_w, False)  # a request is written within the time limit
        limit = None if memory_mb is None else memory_mb * MB
        pid, blocked = fork_child(lambda: serve(req_r, rep_w, work, limit, room), stderr_fd=err.fileno())
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    except BaseException:
        for fd in (req_w, rep_r):
            os.close(fd)
        err.close()
        raise
    finally:
        os.close(req_r)
        os.close(rep_w)
    return _Child(pid, req_w, rep_r, err, memory_mb, work, room, threading.current_thread())


def _end(child: _Child, sig: int = signal.SIGKILL, grace: float = GRACE,
         patience: float = 0.0) -> tuple[int | None, Any, bytes, tuple[tuple[str, float], ...]]:  # fmt: skip
    """Stop ``child`` (after ``patience`` seconds for it to end by itself; its group: ``sig``, then SIGKILL
    after ``grace``), reap it and close its files; its exit status and rusage (None, None when it was reaped
    already), the tail of its stderr and the signals sent, each with when."""
    with _guard:
        if _children.get(child.thread) is child:
            del _children[child.thread]
    for fd in (child.requests, child.replies):
        with contextlib.suppress(OSError):
            os.close(fd)
    got, sent = None, []

    def stop(signum: int) -> None:
        sent.append((signal.Signals(signum).name, time.monotonic()))
        kill_run(child.pid, signum)

    try:
        got = wait_run(child.pid, patience)
        if got is None:
            stop(sig)
            got = wait_run(child.pid, grace if sig != signal.SIGKILL else None)
            if got is None:
                stop(signal.SIGKILL)
                got = wait_run(child.pid, None)
    except ChildProcessError:
        got = None
    finally:
        started.discard(child.pid)
        clean_group(child.pid)
        stderr = _stderr(child)
        child.err.close()
    return (None, None, stderr, tuple(sent)) if got is None else (got[1], got[2], stderr, tuple(sent))


def current() -> _Child | None:
    """This thread's kept child, if any."""
    return _children.get(threading.current_thread())


def pids() -> list[int]:
    """The pids of this process's kept children (every thread's)."""
    with _guard:
        return [child.pid for child in _children.values()]


def close() -> None:
    """Stop this process's children (at exit; idle, they hold nothing)."""
    with _guard:
        children = list(_children.values())
    for child in children:
        _end(child)


def _ready(work: Callable[..., bytes], memory_mb: int | None, request: int) -> _Child:
    """This thread's child for ``work`` under ``memory_mb``, with room for a request of ``request`` bytes:
    forked when there is none, it died while idle, or it was made for another work, limit or less room.
    The children of threads that have ended (killed with them) are reaped on the way."""
    with _guard:
        orphaned = [kept for thread, kept in _children.items() if not thread.is_alive()]
    for kept in orphaned:
        _end(kept)
    child = current()
    if child is not None and (child.memory_mb != memory_mb or child.work is not work or request > child.room
                              or wait_run(child.pid, 0)):  # fmt: skip
        _end(child)
        child = None
    if child is None:
        child = _spawn(work, memory_mb, request)
        with _guard:
            _children[child.thread] = child
    return child


def run(work: Callable[..., bytes], args: tuple[Any, ...], *, timeout: float | None = None,
        memory_mb: int | None = None, grace: float = GRACE) -> Finished | None:  # fmt: skip
    """``work(*args)`` in this thread's long-lived child, as :func:`.process.run_forked` runs it in a fresh
    one (same limits, same :class:`.Finished`, ``timeout`` from this call); None when the child cannot give
    the run a fresh fork's memory headroom (fork afresh then, for what is left of ``timeout``).
    ``work`` must be a module-level function (the child is forked with it) and ``args`` picklable."""
    start = time.monotonic()
    end = None if timeout is None else start + timeout
    request = pickle.dumps(args)
    for attempt in range(2):  # a child that ends before it takes the run ran nothing of it: once more
        child = _ready(work, memory_mb, len(request))
        try:
            reply = _exchange(child, request, end)
        except BaseException:  # KeyboardInterrupt, SystemExit (a stopped worker): nothing of the run remains
            _end(child, signal.SIGTERM, min(grace, 0.5))
            raise
        if reply != LOST or attempt:
            break
        _end(child)
    if reply == DECLINED:
        return None
    if not isinstance(reply, bytes):  # the child ended, or the time limit came first
        return _stopped(child, reply == TIMEOUT, grace, start)
    answer, cpu, total, peak_kib, grown = pickle.loads(reply)  # our own child's bytes
    child.cpu, child.runs = total, child.runs + 1
    stderr = _stderr(child)
    if grown > SLACK_MB * MB:  # grown: the next run gets a fresh child and all its limit
        _end(child)
    return Finished(exit_code=0, wall=time.monotonic() - start, cpu=cpu, stdout=answer, stderr=stderr,
                    peak_memory_mb=None if peak_kib is None else peak_kib / 1024.0, timed_out=False,
                    leftovers=0)  # fmt: skip


def _stopped(child: _Child, timed_out: bool, grace: float, start: float) -> Finished:
    """The record of a run that the time limit stopped (``timed_out``), or that ended the child."""
    peak_kib = status_kib(child.pid, "VmHWM") if timed_out and child.exact else None  # the run's, before the end
    status, usage, stderr, sent = _end(child, signal.SIGTERM, grace) if timed_out else _end(child, patience=grace)
    if peak_kib is None and usage is not None and child.runs == 0:  # its lifetime peak is this run's
        peak_kib = usage.ru_maxrss
    return Finished(
        exit_code=1 if status is None else os.waitstatus_to_exitcode(status),
        wall=time.monotonic() - start,
        cpu=None if usage is None else max(0.0, usage.ru_utime + usage.ru_stime - child.cpu),
        peak_memory_mb=None if peak_kib is None else peak_kib / 1024.0,
        stdout=b"",
        stderr=stderr,
        timed_out=timed_out,
        leftovers=0,
        signals=sent if timed_out else (),
    )


def _exchange(child: _Child, request: bytes, end: float | None) -> bytes | str:
    """Send ``request``, then read the child's answer: its bytes, :data:`DECLINED`, :data:`TIMEOUT` when the
    time limit comes first, :data:`LOST` when the child ended before it took the run, :data:`ENDED` after."""
    child.exact = False
    try:
        for part in (LENGTH.pack(len(request)), request):
            view = memoryview(part)
            while view:
                if not _wait(child.requests, select.POLLOUT, end):
                    return TIMEOUT
                with contextlib.suppress(BlockingIOError):
                    view = view[os.write(child.requests, view[:MB]) :]
    except BrokenPipeError:
        return LOST
    if not _wait(child.replies, select.POLLIN, end):
        return TIMEOUT
    word = os.read(child.replies, 1)
    if word in (b"", DECLINE):
        return LOST if not word else DECLINED
    child.exact = word == EXACT
    data, size = bytearray(), None
    while size is None or len(data) < size:
        if not _wait(child.replies, select.POLLIN, end):
            return TIMEOUT
        want = LENGTH.size - len(data) if size is None else size - len(data)
        chunk = os.read(child.replies, min(want, MB))
        if not chunk:
            return ENDED
        data += chunk
        if size is None and len(data) == LENGTH.size:
            size, data = LENGTH.unpack(data)[0], bytearray()
    return bytes(data)


def _wait(fd: int, event: int, end: float | None) -> bool:
    """Wait until ``fd`` is ready for ``event`` (or hung up): False when ``end`` comes first."""
    poller = select.poll()
    poller.register(fd, event)
    while True:
        left = None if end is None else end - time.monotonic()
        if left is not None and left <= 0:
            return False
        if poller.poll(None if left is None else max(1, int(left * 1000) + 1)):
            return True


def _stderr(child: _Child) -> bytes:
    """What the child wrote on stderr during the run (its tail), and the file emptied for the next one."""
    try:
        child.err.seek(0, os.SEEK_END)
        size = child.err.tell()
        child.err.seek(max(0, size - STDERR_KEEP))
        data = child.err.read()
        child.err.truncate(0)
        return data
    except (OSError, ValueError):
        return b""
