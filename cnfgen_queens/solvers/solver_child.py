"""A long-lived solver child per worker process: a batch's many short embedded runs fork once, not once each.

:func:`.process.run_forked` forks the whole worker for every run (about 7 ms of CPU for a 0.3 ms solve:
copy-on-write faults, exit, the fork itself).  :func:`run` gives the same run to a child forked once and
kept between runs, with the limits and isolation of a fresh fork:

* the child is forked by :func:`.process.fork_child`: its own session (a timeout's SIGTERM/SIGKILL reach
  anything it started), SIGKILL when the worker dies, stdout to /dev/null, and RLIMIT_AS set once to the
  worker's address space plus the run's memory limit, soft and hard (the child cannot raise it).  A run
  can never get more memory than a fresh child; a child whose address space has grown by more than
  :data:`SLACK_MB` since it started is replaced after the run, so a run never gets noticeably less;
* each run waits at most its time limit for the answer; then the child's group gets SIGTERM, GRACE,
  SIGKILL, and the run is a timeout;
* whatever ends the child during a run (an error, MemoryError, an allocation failure, a signal) is
  judged from its exit status and stderr as a fresh child's would be; the next run gets a new child;
* a child is kept for one memory limit: a run with another limit replaces it;
* CPU time is the child's own (``getrusage`` around the run; after a death, ``wait4``'s less what earlier
  runs used), the peak memory its VmHWM, reset before each run (``/proc/self/clear_refs``).

The child holds no file of the worker's but its two pipes and stderr, and nothing of a run after it: the
clauses come with each request.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import pickle
import resource
import select
import signal
import struct
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO

from .finished import STDERR_KEEP, Finished
from .process import GRACE, fork_child, kill_run, status_kib, virtual_size, wait_run
from .reaper import clean_group, started

SLACK_MB = 32  # the child's address space may grow this much over its runs before it is replaced
_LENGTH = struct.Struct("<Q")


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _reset_peak() -> bool:
    """Reset this process's VmHWM to its current RSS (Linux 4.0+); False where it cannot."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _read_exactly(fd: int, size: int) -> bytes | None:
    parts, left = [], size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(_LENGTH.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def _serve(requests: int, replies: int, work: Callable[..., bytes]) -> None:
    """The child's loop: a request (pickled arguments of ``work``), its answer; returns at EOF."""
    low = 3
    for keep in sorted((requests, replies)):  # every other file of the worker's is closed
        os.closerange(low, keep)
        low = keep + 1
    os.closerange(low, _max_fd())
    while True:
        head = _read_exactly(requests, _LENGTH.size)
        if head is None:
            return
        body = _read_exactly(requests, _LENGTH.unpack(head)[0])
        if body is None:
            return
        args = pickle.loads(body)  # the worker's own bytes
        exact = _reset_peak()
        before = _cpu()
        answer = work(*args)
        after = _cpu()
        peak = (status_kib("self", "VmHWM") or 0) if exact else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        _write_all(replies, pickle.dumps((answer, after - before, after, peak, virtual_size())))


def _max_fd() -> int:
    try:
        return max(os.sysconf("SC_OPEN_MAX"), 1024)
    except (ValueError, OSError):
        return 1024


@dataclass
class _Child:
    pid: int
    requests: int  # the worker's end: it writes requests
    replies: int  # the worker's end: it reads answers
    err: BinaryIO  # the child's stderr (opened for appending: emptied between runs)
    memory_mb: int | None
    work: Callable[..., bytes]
    base: int  # the child's address space when it started, bytes
    cpu: float = 0.0  # the child's CPU seconds at the end of its last run


_lock = threading.Lock()  # one run at a time per child; a second thread forks afresh instead
_child: _Child | None = None
_registered = False


def _forget_inherited() -> None:
    """In a process just forked from one with a kept child: that child is not ours (we cannot wait for it,
    and a request of ours would mix with our parent's), so close our copies of its pipes and start afresh."""
    global _child, _lock
    child, _child, _lock = _child, None, threading.Lock()
    if child is not None:
        for fd in (child.requests, child.replies):
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(OSError):
            child.err.close()


os.register_at_fork(after_in_child=_forget_inherited)


def _spawn(work: Callable[..., bytes], memory_mb: int | None) -> _Child:
    global _registered
    if not _registered:
        _registered = True
        atexit.register(close)
        with contextlib.suppress(ImportError):  # a multiprocessing worker exits without atexit hooks
            from multiprocessing import util

            util.Finalize(None, close, exitpriority=100)
    req_r, req_w = os.pipe()
    rep_r, rep_w = os.pipe()
    err = tempfile.TemporaryFile()  # noqa: SIM115 (kept open with the child, closed by _end)
    try:
        fcntl.fcntl(err.fileno(), fcntl.F_SETFL, fcntl.fcntl(err.fileno(), fcntl.F_GETFL) | os.O_APPEND)
        base = virtual_size()
        pid, blocked = fork_child(lambda: _serve(req_r, rep_w, work), memory_mb=memory_mb, stderr_fd=err.fileno())
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    except BaseException:
        for fd in (req_r, req_w, rep_r, rep_w):
            os.close(fd)
        err.close()
        raise
    finally:
        with contextlib.suppress(OSError):
            os.close(req_r)
        with contextlib.suppress(OSError):
            os.close(rep_w)
    return _Child(pid, req_w, rep_r, err, memory_mb, work, base)


def _end(child: _Child, sig: int = signal.SIGKILL, grace: float = GRACE) -> tuple[int | None, Any, bytes]:
    """Stop ``child`` (its group: ``sig``, then SIGKILL after ``grace``), reap it and close its files; its exit
    status and rusage (None, None when it was reaped already) and the tail of its stderr."""
    global _child
    if _child is child:
        _child = None
    for fd in (child.requests, child.replies):
        with contextlib.suppress(OSError):
            os.close(fd)
    got = None
    try:
        got = wait_run(child.pid, 0)
        if got is None:
            kill_run(child.pid, sig)
            got = wait_run(child.pid, grace if sig != signal.SIGKILL else None)
            if got is None:
                kill_run(child.pid, signal.SIGKILL)
                got = wait_run(child.pid, None)
    except ChildProcessError:
        got = None
    finally:
        started.discard(child.pid)
        clean_group(child.pid)
        stderr = _stderr(child)
        child.err.close()
    return (None, None, stderr) if got is None else (got[1], got[2], stderr)


def close() -> None:
    """Stop this process's child, if any (at exit; idle, it holds nothing)."""
    child = _child
    if child is not None:
        _end(child)


def _ready(work: Callable[..., bytes], memory_mb: int | None) -> _Child:
    """This process's child for ``memory_mb``, forked when there is none, it died while idle (a worker
    thread's end kills it) or it was made for another limit."""
    global _child
    child = _child
    if child is not None and (child.memory_mb != memory_mb or child.work is not work or wait_run(child.pid, 0)):
        _end(child)
        child = None
    if child is None:
        child = _child = _spawn(work, memory_mb)
    return child


def run(work: Callable[..., bytes], args: tuple[Any, ...], *, timeout: float | None = None,
        memory_mb: int | None = None, grace: float = GRACE) -> Finished | None:  # fmt: skip
    """``work(*args)`` in this process's long-lived child, as :func:`.process.run_forked` runs it in a fresh
    one (same limits, same :class:`.Finished`); None when another thread holds the child (fork afresh then).
    ``work`` must be a module-level function (the child is forked with it) and ``args`` picklable."""
    if not _lock.acquire(blocking=False):
        return None
    try:
        return _run(work, args, timeout, memory_mb, grace)
    finally:
        _lock.release()


def _run(work: Callable[..., bytes], args: tuple[Any, ...], timeout: float | None, memory_mb: int | None,
         grace: float) -> Finished:  # fmt: skip
    request = pickle.dumps(args)
    child = _ready(work, memory_mb)
    try:
        start = time.monotonic()
        try:
            _write_all(child.requests, request)
        except BrokenPipeError:  # it died since the look above: once more with a new one
            _end(child)
            child = _ready(work, memory_mb)
            start = time.monotonic()
            _write_all(child.requests, request)
        reply = _answer(child, start, timeout)
    except BaseException:  # KeyboardInterrupt, SystemExit (a stopped worker): nothing of the run remains
        _end(child, signal.SIGTERM, min(grace, 0.5))
        raise
    wall = time.monotonic() - start
    if not isinstance(reply, bytes):  # the child ended, or the time limit came first
        timed_out = reply == "timeout"
        status, usage, stderr = _end(child, signal.SIGTERM if timed_out else signal.SIGKILL, grace)
        return Finished(
            exit_code=1 if status is None else os.waitstatus_to_exitcode(status),
            wall=wall,
            cpu=None if usage is None else max(0.0, usage.ru_utime + usage.ru_stime - child.cpu),
            peak_memory_mb=None if usage is None else usage.ru_maxrss / 1024.0,
            stdout=b"",
            stderr=stderr,
            timed_out=timed_out,
            leftovers=0,
        )
    answer, cpu, total, peak_kib, size = pickle.loads(reply)  # our own child's bytes
    child.cpu = total
    stderr = _stderr(child)
    if size - child.base > SLACK_MB * 1024 * 1024:  # grown: the next run gets a fresh child and all its limit
        _end(child)
    return Finished(exit_code=0, wall=wall, cpu=cpu, peak_memory_mb=peak_kib / 1024.0, stdout=answer,
                    stderr=stderr, timed_out=False, leftovers=0)  # fmt: skip


def _answer(child: _Child, start: float, timeout: float | None) -> bytes | str | None:
    """The reply's bytes, ``"timeout"`` when the time limit came first, None when the child ended."""
    end = None if timeout is None else start + timeout
    head = b""
    body = bytearray()
    size = None
    while True:
        left = None if end is None else end - time.monotonic()
        if left is not None and left <= 0:
            return "timeout"
        ready, _, _ = select.select([child.replies], [], [], left)
        if not ready:
            continue
        want = _LENGTH.size - len(head) if size is None else size - len(body)
        chunk = os.read(child.replies, min(want, 1 << 20))
        if not chunk:
            return None
        if size is None:
            head += chunk
            if len(head) == _LENGTH.size:
                size = _LENGTH.unpack(head)[0]
        else:
            body += chunk
        if size is not None and len(body) == size:
            return bytes(body)


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
