"""Run a command under limits, in the spirit of runsolver (Roussel, JSAT 7, 2011).

The command starts in its own session (so its own process group).  At the wall-clock
deadline the whole group gets SIGTERM, then SIGKILL after a short grace period;
RLIMIT_AS is a memory backstop; Ctrl-C (KeyboardInterrupt) stops the group too.
Orphaned descendants are re-parented to us (Linux child subreaper) and reaped, so no
process of the run remains, even where PID 1 reaps nothing (containers).  CPU time
comes from ``os.wait4``'s rusage, peak memory from sampling VmHWM.  Output goes to temporary files, so
a chatty solver can never block on a pipe.
"""

from __future__ import annotations

import contextlib
import os
import resource
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

GRACE = 1.0  # seconds between SIGTERM and SIGKILL
REAP_TIMEOUT = 5.0  # seconds to wait for a killed group to disappear
PR_SET_CHILD_SUBREAPER = 36
SAMPLE_INTERVAL = 0.1  # seconds between peak-memory samples


@dataclass(frozen=True)
class Finished:
    """How a process run ended."""

    exit_code: int  # -signal when killed by a signal
    wall: float
    cpu: float  # user + system, of the process and its reaped children
    peak_memory_mb: float | None  # sampled peak resident set size
    stdout: bytes
    stderr: bytes
    timed_out: bool  # we stopped it at the deadline
    leftovers: int  # group members we had to kill after the main process ended


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


@contextlib.contextmanager
def _subreaper() -> Iterator[None]:
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


def _die_with_parent() -> None:
    """In a solver child: SIGKILL when the process that started it dies (a killed batch worker)."""
    import ctypes

    pr_set_pdeathsig = 1
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)


def _limit_memory(memory_mb: int | None) -> Callable[[], None]:
    limit = None if memory_mb is None else int(memory_mb) * 1024 * 1024

    def preexec() -> None:  # runs in the child between fork and exec
        _die_with_parent()
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return preexec


def _spawn(
    argv: Sequence[str], stdout: int, stderr: int, preexec: Callable[[], None] | None
) -> subprocess.Popen[bytes]:
    """Start ``argv`` in a new session (its pid is its process group id)."""
    return subprocess.Popen(
        list(argv), stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
        start_new_session=True, preexec_fn=preexec, close_fds=True,
    )  # fmt: skip


class _Peak:
    """Peak resident memory of one process, sampled from /proc/PID/status (VmHWM).

    wait4's ru_maxrss would include the Python process the solver was forked from
    (Linux keeps the pre-exec high-water mark), so the peak is sampled instead: VmHWM is
    a high-water mark, so sampling misses only what is allocated after the last sample.
    """

    def __init__(self, pid: int) -> None:
        self.path = f"/proc/{pid}/status"
        self.kib = 0
        self.seen = False

    def sample(self) -> None:
        try:
            with open(self.path, "rb") as f:
                for line in f:
                    if line.startswith(b"VmHWM:"):
                        self.kib = max(self.kib, int(line.split()[1]))
                        self.seen = True
                        return
        except (OSError, ValueError, IndexError):
            pass


def _peak_mb(child_kib: int, parent_kib: int, peak: _Peak) -> float | None:
    """The solver's peak RSS: wait4's figure when it exceeds what the fork inherited from us
    (then it is the solver's own), else the sampled VmHWM; None when neither says anything
    (a run too short to sample)."""
    if child_kib > parent_kib:
        return child_kib / 1024.0
    if peak.seen and peak.kib >= 1024:
        return peak.kib / 1024.0
    return None


def _wait(pid: int, timeout: float | None, peak: _Peak | None = None) -> tuple[int, int, resource.struct_rusage] | None:
    """``os.wait4`` the child, waiting at most ``timeout`` seconds (None: forever); None if still running."""
    end = None if timeout is None else time.monotonic() + timeout
    pidfd = None
    try:
        pidfd = os.pidfd_open(pid)  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        pidfd = None
    interval = 0.002
    try:
        while True:
            if peak is not None:
                peak.sample()
            got = os.wait4(pid, os.WNOHANG)
            if got[0] == pid:
                return got
            left = None if end is None else end - time.monotonic()
            if left is not None and left <= 0:
                return None
            step = interval if left is None else min(interval, left)
            interval = min(interval * 2, SAMPLE_INTERVAL)
            if pidfd is not None:
                select.select([pidfd], [], [], step)
            else:
                time.sleep(step)
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _group_members(pgid: int) -> list[tuple[int, int]]:
    """(pid, ppid) of every process in group ``pgid`` (from /proc; empty elsewhere)."""
    members = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 2 and int(fields[2]) == pgid:
            members.append((int(entry), int(fields[1])))
    return members


def _killpg(pgid: int, sig: int) -> bool:
    """Signal the group; False when it no longer exists."""
    try:
        os.killpg(pgid, sig)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def clean_group(pgid: int, timeout: float = REAP_TIMEOUT) -> int:
    """SIGKILL what is left of group ``pgid`` and reap the members re-parented to us; returns how many were left."""
    if not _killpg(pgid, 0):
        return 0
    left = len(_group_members(pgid)) or 1
    end = time.monotonic() + timeout
    me = os.getpid()
    while _killpg(pgid, signal.SIGKILL) and time.monotonic() < end:
        for pid, ppid in _group_members(pgid):
            if ppid == me:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)
        time.sleep(0.005)
    return left


def _supervise(
    pid: int, deadline: float | None, grace: float, peak: _Peak | None, unblock: set[int] | None = None
) -> tuple[tuple, bool]:
    """Wait for ``pid`` (leader of its own group) until ``deadline``; then SIGTERM, grace, SIGKILL the group.

    Returns (wait4 result, timed_out).  KeyboardInterrupt (or any error) stops the group and is re-raised.
    ``unblock``: the signal mask to restore first (a Ctrl-C held back during a fork arrives here).
    """
    try:
        if unblock is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, unblock)
        got = _wait(pid, deadline, peak)
        if got is not None:
            return got, False
        _killpg(pid, signal.SIGTERM)
        got = _wait(pid, grace)
        if got is None:
            _killpg(pid, signal.SIGKILL)
            got = _wait(pid, None)
        return got, True  # type: ignore[return-value]
    except BaseException:  # KeyboardInterrupt above all: stop the group, then re-raise
        _kill(pid, signal.SIGTERM)
        with contextlib.suppress(ChildProcessError):  # already reaped when the interrupt came late
            if _wait(pid, min(grace, 0.5)) is None:
                _kill(pid, signal.SIGKILL)
                _wait(pid, None)
        clean_group(pid)
        raise


def _kill(pid: int, sig: int) -> None:
    """Signal the group led by ``pid`` and ``pid`` itself (a forked child may not lead its group yet)."""
    _killpg(pid, sig)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def run_process(
    argv: Sequence[str], *, deadline: float | None = None, memory_mb: int | None = None, grace: float = GRACE
) -> Finished:
    """Run ``argv`` to completion or until ``deadline`` seconds of wall time; nothing of it survives.

    Raises OSError when the binary cannot be started.  KeyboardInterrupt stops the
    group and is re-raised.
    """
    with _subreaper(), tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        own_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # bounds what the fork inherits
        start = time.monotonic()
        proc = _spawn(argv, out.fileno(), err.fileno(), _limit_memory(memory_mb))
        peak = _Peak(proc.pid)  # Popen returns after the exec, so this samples the solver itself
        try:
            (_, status, usage), timed_out = _supervise(proc.pid, deadline, grace, peak)
        finally:
            proc.returncode = proc.returncode if proc.returncode is not None else 0  # reaped by us, not Popen
        wall = time.monotonic() - start
        code = os.waitstatus_to_exitcode(status)
        proc.returncode = code
        leftovers = clean_group(proc.pid)
        out.seek(0)
        err.seek(0)
        return Finished(
            exit_code=code,
            wall=wall,
            cpu=usage.ru_utime + usage.ru_stime,
            peak_memory_mb=_peak_mb(usage.ru_maxrss, own_kib, peak),
            stdout=out.read(),
            stderr=err.read(),
            timed_out=timed_out,
            leftovers=leftovers,
        )


def _virtual_size() -> int:
    """This process's virtual memory size in bytes (0 when unknown)."""
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def run_forked(
    work: Callable[[], bytes], *, deadline: float | None = None, memory_mb: int | None = None, grace: float = GRACE
) -> Finished:
    """Run ``work()`` in a forked child (own session) under the same limits; its bytes come back as stdout.

    The memory limit is on top of this process's current address space.  A child that
    raises writes nothing and exits 1, with the error on its stderr.
    """
    with _subreaper(), tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        limit = _virtual_size() + memory_mb * 1024 * 1024 if memory_mb is not None else None
        stop = {signal.SIGINT, signal.SIGTERM}
        # no Python signal handler of ours may run in the child: block, fork, reset to defaults, unblock
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, stop)
        try:
            pid = os.fork()
        except BaseException:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
            raise
        if pid == 0:  # the child: never returns
            code = 1
            try:
                for sig in stop:
                    signal.signal(sig, signal.SIG_DFL)
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
                os.setsid()
                _die_with_parent()
                os.dup2(err.fileno(), 2)
                if limit is not None:
                    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
                data = memoryview(work())
                while data:
                    data = data[os.write(out.fileno(), data) :]
                code = 0
            except BaseException as e:
                with contextlib.suppress(BaseException):
                    os.write(2, f"{type(e).__name__}: {e}\n".encode())
            finally:
                os._exit(code)
        (_, status, usage), timed_out = _supervise(pid, deadline, grace, None, unblock=blocked)
        wall = time.monotonic() - start
        clean_group(pid)
        out.seek(0)
        err.seek(0)
        return Finished(
            exit_code=os.waitstatus_to_exitcode(status),
            wall=wall,
            cpu=usage.ru_utime + usage.ru_stime,
            peak_memory_mb=usage.ru_maxrss / 1024.0,  # includes the Python process it was forked from
            stdout=out.read(),
            stderr=err.read(),
            timed_out=timed_out,
            leftovers=0,
        )
