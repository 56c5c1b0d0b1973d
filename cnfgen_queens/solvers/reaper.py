"""Leaving nothing behind: kill and reap what is left of a run's process group, and its
orphans, which come to us while we are a child subreaper (Linux), even after ``setsid``."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

REAP_TIMEOUT = 5.0  # seconds to wait for a killed group to disappear
PR_SET_CHILD_SUBREAPER = 36

started: set[int] = set()  # pids of runs under way in this process (never taken for orphans)
spawn_lock = threading.Lock()  # held from a run's fork until its pid is in ``started``, and by sweeps
_reaper_lock = threading.Lock()
_reaper_users = 0


def _prctl_subreaper(on: bool) -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0)
    except (OSError, AttributeError):
        pass


def die_with_parent() -> None:
    """In a solver child, before exec: SIGKILL when the thread that started it dies (a killed worker)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    pr_set_pdeathsig = 1
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)


@contextmanager
def subreaper() -> Iterator[None]:
    """While any run is under way, be a child subreaper (Linux): orphans of the run come to us to be reaped.

    Only for the duration of runs, so this process does not adopt unrelated orphans for good.
    """
    global _reaper_users
    with _reaper_lock:
        _reaper_users += 1
        if _reaper_users == 1:
            _prctl_subreaper(True)
    try:
        yield
    finally:
        with _reaper_lock:
            _reaper_users -= 1
            if _reaper_users == 0:
                _prctl_subreaper(False)


def group_members(pgid: int) -> list[tuple[int, int]]:
    """(pid, ppid) of every process in group ``pgid`` (from /proc; empty elsewhere)."""
    return [(pid, int(fields[1])) for pid, fields in _proc_stats() if len(fields) > 2 and int(fields[2]) == pgid]


DEAD = (b"Z", b"X")  # a zombie, a process being reaped: /proc/PID/stat's state


def kill_leader_last(pgid: int, settle: float) -> None:
    """SIGKILL group ``pgid``: its other members first, its leader once they have died (or ``settle`` seconds
    later).  Whoever waits for the leader (BenchExec) then finds the others gone: one still dying when
    BenchExec listed its cgroup's tasks, the moment the leader was reaped, cost a 0.5 s sleep there.  The group
    is stopped first (SIGSTOP): a shell looping on ``sleep`` started the next one as soon as one was killed,
    and kept this busy for the whole of ``settle`` (0.3 s past the kill schedule)."""
    killpg(pgid, signal.SIGSTOP)
    end = time.monotonic() + settle
    while True:
        living = [
            pid
            for pid, fields in _proc_stats()
            if len(fields) > 2 and int(fields[2]) == pgid and pid != pgid and fields[0] not in DEAD
        ]
        if not living or time.monotonic() >= end:
            break
        for pid in living:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.005)
    killpg(pgid, signal.SIGKILL)


def _proc_stats() -> Iterator[tuple[int, list[bytes]]]:
    """(pid, the fields of /proc/PID/stat after the command name) of every process (none without /proc)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        yield int(entry), stat[stat.rfind(b")") + 2 :].split()


def killpg(pgid: int, sig: int) -> bool:
    """Signal the group; False when it no longer exists."""
    try:
        os.killpg(pgid, sig)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def clean_group(pgid: int, timeout: float = REAP_TIMEOUT, seen: set[int] | None = None) -> int:
    """SIGKILL what is left of group ``pgid`` and reap the members re-parented to us; returns how many were left
    (their pids go into ``seen``)."""
    if not killpg(pgid, 0):
        return 0
    members = {pid for pid, _ in group_members(pgid)}
    if seen is not None:
        seen |= members
    left = len(members) or 1
    end = time.monotonic() + timeout
    me = os.getpid()
    while killpg(pgid, signal.SIGKILL) and time.monotonic() < end:
        for pid, ppid in group_members(pgid):
            if ppid == me:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)
        time.sleep(0.005)
    return left


def boot_ticks() -> int:
    """Now, in the clock ticks since boot that /proc/PID/stat's start time uses (0 when unknown)."""
    try:
        with open("/proc/uptime", "rb") as f:
            return int(float(f.read().split()[0]) * os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return 0


def orphans(since: int, pgid: int) -> list[int]:
    """Descendants of the run led by ``pgid`` that were re-parented to us, the subreaper: our
    children started at or after ``since`` (boot ticks), not started by us, and in its group or
    in another session (those that left with ``setsid``; what other threads of ours start
    stays in our session)."""
    me, session, found = os.getpid(), os.getsid(0), []
    for pid, fields in _proc_stats():
        if len(fields) <= 19 or int(fields[1]) != me or int(fields[19]) < since or pid in started:
            continue
        if int(fields[2]) == pgid or int(fields[3]) != session:
            found.append(pid)
    return found


def sweep_orphans(since: int, pgid: int, timeout: float = REAP_TIMEOUT) -> set[int]:
    """SIGKILL and reap the orphans of the run led by ``pgid`` (see :func:`orphans`); returns their pids."""
    if not since or not sys.platform.startswith("linux"):
        return set()
    killed: set[int] = set()
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with spawn_lock:  # no run of another thread is between its fork and its registration
            found = orphans(since, pgid)
            for pid in found:
                killed.add(pid)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        if not found:
            break
        for pid in found:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
    return killed
