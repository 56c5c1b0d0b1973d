"""The kept solver child's side of :mod:`.solver_child`: its loop of requests and answers.

Each request is the length and the pickled arguments of the work; the child answers with one byte
(:data:`EXACT` or :data:`INEXACT`: it took the run, with its peak memory reset or not; :data:`DECLINE`: it
cannot give the run a fresh fork's memory headroom), then, once the run is over, the length and the
pickled answer, its CPU seconds, the child's CPU seconds so far, its peak (KiB, or None) and how much the
child has grown since it started (bytes).

The child closes every file of the worker's but its pipes and stderr: unlike a fresh fork, it lives as
long as the worker, and a file it held would outlive the worker's use of it (a lock held with ``flock``
stays held while any copy of its descriptor is open, a pipe stays open to its reader).  Closing them
under a live interpreter is safe because the worker's Python objects are frozen out of the child's
garbage collection first (:func:`gc.freeze`): a file object of the worker's that only the collector
would free would otherwise close, when freed there, whatever the child has since opened under its number.
"""

from __future__ import annotations

import contextlib
import gc
import mmap
import os
import pickle
import resource
import struct
from collections.abc import Callable

from .heap import hold_free_blocks, release
from .process import held_size, status_kib

MB = 1 << 20
SLACK_MB = 32  # the child's address space may grow this much over its runs before it is replaced
LENGTH = struct.Struct("<Q")
EXACT, INEXACT, DECLINE = b"A", b"a", b"D"  # the child's first word on a run


def _cpu() -> float:
    return sum(resource.getrusage(resource.RUSAGE_SELF)[:2])


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
        chunk = os.read(fd, min(left, MB))
        if not chunk:
            return None
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def _read_mapped(fd: int, size: int) -> mmap.mmap | None:
    """``size`` bytes from ``fd`` in a mapping of their own; None at EOF."""
    body = mmap.mmap(-1, max(size, 1))
    with memoryview(body) as view:
        got = 0
        while got < size:
            with view[got:size] as rest:
                read = os.readv(fd, [rest])
            if not read:
                break
            got += read
    if got < size:
        body.close()
        return None
    return body


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def serve(requests: int, replies: int, work: Callable[..., bytes], limit: int | None, room: int) -> None:
    """The child's loop: a request (pickled arguments of ``work``), its answer; returns at EOF.  ``limit``:
    each run's memory limit (bytes), on top of what the child holds then; ``room``: the bytes of arguments
    it takes.  Its hard RLIMIT_AS, for life, is what it holds at the start plus the limit, :data:`SLACK_MB`
    and twice the room (the raw bytes and the unpickled)."""
    gc.freeze()  # the worker's objects are never collected here (the module's docstring says why)
    low = 3
    for keep in sorted((requests, replies)):  # every other file of the worker's is closed
        os.closerange(low, keep)
        low = keep + 1
    os.closerange(low, _max_fd())
    if limit is not None:
        hold_free_blocks()  # the worker's holes, for life: room no fresh fork of a compact worker would have
    base = held_size()
    hard = None if limit is None else _capped(base + limit + SLACK_MB * MB + 2 * room)
    if hard is not None:
        resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
    while True:
        head = _read_exactly(requests, LENGTH.size)
        size = None if head is None else LENGTH.unpack(head)[0]
        body = None if size is None else _read_mapped(requests, size)
        if body is None:
            return
        with memoryview(body) as view, view[:size] as data:
            args = pickle.loads(data)  # the worker's own bytes
        body.close()  # unmapped: the raw bytes leave nothing behind (a heap keeps what it frees)
        plugs: list[int] = []
        if hard is not None and limit is not None:
            plugs = hold_free_blocks()  # what earlier runs freed is not room beyond this one's limit
            soft = held_size() + limit  # a fresh fork's headroom, on top of what this child holds now
            if soft > hard:
                del args
                release(plugs)
                _write_all(replies, DECLINE)
                continue
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        exact = _reset_peak()
        _write_all(replies, EXACT if exact else INEXACT)
        before = _cpu()
        answer = work(*args)
        after = _cpu()
        if hard is not None:
            resource.setrlimit(resource.RLIMIT_AS, (hard, hard))  # the reply is not the run's
        release(plugs)
        peak = status_kib("self", "VmHWM") if exact else None
        del args
        reply = pickle.dumps((answer, after - before, after, peak, held_size() - base))
        del answer
        _write_all(replies, LENGTH.pack(len(reply)) + reply)


def _capped(hard: int) -> int:
    """``hard``, or this process's own hard RLIMIT_AS when that is lower (no process may raise it)."""
    own = resource.getrlimit(resource.RLIMIT_AS)[1]
    return hard if own == resource.RLIM_INFINITY else min(hard, own)


def _max_fd() -> int:
    with contextlib.suppress(ValueError, OSError):
        return max(os.sysconf("SC_OPEN_MAX"), 1024)
    return 1024
