"""Run a command under limits, in the spirit of runsolver (Roussel, JSAT 7, 2011).

Two ways to isolate a run (``isolation``): ``cgroup`` hands it to BenchExec in its own
cgroup (see :mod:`.cgroup`); ``none`` is the process-group runner here.  The command
starts in its own session (so its own process group).  When its wall-clock time limit
(``timeout``) is up the whole group gets SIGTERM, then SIGKILL after a short grace period; RLIMIT_AS is a memory
backstop; Ctrl-C (KeyboardInterrupt) stops the group too.  Orphaned descendants are
re-parented to us (Linux child subreaper) and killed and reaped, even those that left
the group with ``setsid``, so no process of the run remains.  CPU time comes from
``os.wait4``'s rusage, peak memory from it too when it is the solver's own, else from
sampling VmHWM (see :func:`_peak_mb`).  Output goes to files, never
to memory, so a chatty solver can never block on a pipe; past ``output_mb`` (stdout +
stderr) the run is killed at once.
"""

from __future__ import annotations

import _thread
import contextlib
import os
import resource
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ..limits import Limits
from .cgroup import CgroupRun, run_in_cgroup
from .finished import Finished, OutputCap, tail
from .reaper import boot_ticks, clean_group, killpg, spawn_lock, started, subreaper, sweep_orphans
from .spawn import command, util_linux

GRACE = 1.0  # seconds between SIGTERM and SIGKILL
SAMPLE_INTERVAL = 0.1  # seconds between peak-memory and output-size samples


def _spawn(argv: Sequence[str], stdout: int, stderr: int, memory_mb: int | None = None) -> subprocess.Popen[bytes]:
    """Start ``argv`` in a new session (its pid is its process group id), dying with this thread and under
    RLIMIT_AS of ``memory_mb`` (None: no limit), with no Python code between fork and exec (:mod:`.spawn`)."""
    with spawn_lock:
        argv = command(argv, memory_mb)
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, start_new_session=True, close_fds=True
        )
        started.add(proc.pid)
    if memory_mb is not None and util_linux()[1] is None:  # no prlimit: the limit as soon as we can
        limit = int(memory_mb) * 1024 * 1024
        with contextlib.suppress(OSError):
            resource.prlimit(proc.pid, resource.RLIMIT_AS, (limit, limit))
    return proc


class _Peak:
    """Peak resident memory of one process, sampled from /proc/PID/status (VmHWM).

    The fallback of :func:`_peak_mb` for a solver smaller than the Python process it was
    forked from (Linux keeps the pre-exec high-water mark in wait4's ru_maxrss).  VmHWM is
    a high-water mark, so sampling misses only what is allocated after the last sample.
    """

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.kib = 0
        self.seen = False

    def sample(self) -> None:
        kib = status_kib(self.pid, "VmHWM")
        if kib is not None:
            self.kib = max(self.kib, kib)
            self.seen = True


def _peak_mb(child_kib: int, parent_kib: int, peak: _Peak) -> float | None:
    """The solver's peak RSS: wait4's figure when it exceeds what the fork inherited from us
    (then it is the solver's own), else the sampled VmHWM; None when neither says anything
    (a run too short to sample)."""
    if child_kib > parent_kib:
        return child_kib / 1024.0
    if peak.seen and peak.kib >= 1024:
        return peak.kib / 1024.0
    return None


def wait_run(
    pid: int, timeout: float | None, peak: _Peak | None = None, stop: Callable[[], bool] | None = None
) -> tuple[int, int, resource.struct_rusage] | None:
    """``os.wait4`` the child, waiting at most ``timeout`` seconds (None: forever) or until ``stop()``;
    None if still running."""
    end = None if timeout is None else time.monotonic() + timeout
    pidfd = None
    try:
        pidfd = os.pidfd_open(pid)
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
            if (left is not None and left <= 0) or (stop is not None and stop()):
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


def _supervise(
    pid: int,
    until: float | None,
    grace: float,
    peak: _Peak | None,
    unblock: set[int] | None = None,
    cap: OutputCap | None = None,
    sent: list[tuple[str, float]] | None = None,
) -> tuple[tuple, bool]:
    """Wait for ``pid`` (leader of its own group) until ``until`` (on :func:`time.monotonic`'s clock; None:
    for ever); then SIGTERM, grace, SIGKILL the group.  Past the output cap the group is killed at once.
    Each signal sent is appended to ``sent`` with when it was sent.

    Returns (wait4 result, timed_out).  KeyboardInterrupt (or any error) stops the group and is re-raised.
    ``unblock``: the signal mask to restore first (a Ctrl-C held back during a fork arrives here).
    """
    sent = [] if sent is None else sent

    def stop(sig: signal.Signals) -> None:
        sent.append((sig.name, time.monotonic()))
        killpg(pid, sig)

    try:
        if unblock is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, unblock)
        got = wait_run(pid, None if until is None else until - time.monotonic(), peak, cap)
        if got is not None:
            return got, False
        if cap is not None and (cap.hit or cap.aborted):
            stop(signal.SIGKILL)
            return wait_run(pid, None), False  # type: ignore[return-value]
        stop(signal.SIGTERM)
        got = wait_run(pid, grace)
        if got is None:
            stop(signal.SIGKILL)
            got = wait_run(pid, None)
        return got, True  # type: ignore[return-value]
    except BaseException:  # KeyboardInterrupt above all: stop the group, then re-raise
        kill_run(pid, signal.SIGTERM)
        with contextlib.suppress(ChildProcessError):  # already reaped when the interrupt came late
            if wait_run(pid, min(grace, 0.5)) is None:
                kill_run(pid, signal.SIGKILL)
                wait_run(pid, None)
        clean_group(pid)
        raise


def kill_run(pid: int, sig: int) -> None:
    """Signal the group led by ``pid`` and ``pid`` itself (a forked child may not lead its group yet); never
    init's group (a pid of 1 or less is no run's)."""
    if pid <= 1:
        raise ValueError(f"no run has pid {pid}")
    killpg(pid, sig)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


PLAIN = Limits(isolation="none")  # no memory limit, the default output cap, no cgroup


def run_process(
    argv: Sequence[str],
    *,
    output_dir: Path,
    timeout: float | None = None,
    limits: Limits = PLAIN,
    grace: float = GRACE,
    abort: threading.Event | None = None,
    own_limits: bool = False,
) -> Finished:
    """Run ``argv`` to completion or for ``timeout`` seconds of wall time from this call (starting it counts:
    SIGTERM at that instant, SIGKILL ``grace`` seconds later); nothing of it survives.

    stdout goes to ``output_dir/solver.out`` (``Finished.stdout_file``), stderr to
    ``solver.err`` (its tail in ``Finished.stderr``).  Of ``limits`` the memory, the output and the
    isolation hold (``cgroup`` or ``none``: resolve ``auto`` with :func:`.cgroup.choose` first); the time is
    ``timeout``.  Once ``abort`` is set the run is killed as at the output cap.  Raises OSError when the
    binary cannot be started.  KeyboardInterrupt stops the run and is re-raised.  ``own_limits``: the command
    sets its memory limit itself (:mod:`.embedded_child`).  No Python code runs between fork and exec
    (:func:`_spawn`): the command starts safely whatever threads this process has.
    """
    memory_mb, output_mb = limits.memory, limits.output
    until = None if timeout is None else time.monotonic() + timeout
    out_path, err_path = Path(output_dir) / "solver.out", Path(output_dir) / "solver.err"
    cap = OutputCap((out_path, err_path), output_mb, abort)
    if limits.isolation == "cgroup":
        return run_in_cgroup(CgroupRun(argv, out_path, err_path, until, memory_mb, grace, cap))
    sent: list[tuple[str, float]] = []
    with subreaper(), open(out_path, "wb") as out, open(err_path, "wb") as err:
        own_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # bounds what the fork inherits
        start = time.monotonic()
        since = boot_ticks()
        proc = _spawn(argv, out.fileno(), err.fileno(), None if own_limits else memory_mb)
        peak = _Peak(proc.pid)  # Popen returns after the exec, so this samples the solver (and its wrappers)
        try:
            (_, status, usage), timed_out = _supervise(proc.pid, until, grace, peak, None, cap, sent)
        except BaseException:
            sweep_orphans(since, proc.pid)
            raise
        finally:
            started.discard(proc.pid)
            proc.returncode = proc.returncode if proc.returncode is not None else 0  # reaped by us, not Popen
        wall = time.monotonic() - start
        code = os.waitstatus_to_exitcode(status)
        proc.returncode = code
        members: set[int] = set()
        left = clean_group(proc.pid, seen=members)
        leftovers = len(members | sweep_orphans(since, proc.pid)) or left  # one process may be in both
    return Finished(
        exit_code=code,
        wall=wall,
        cpu=usage.ru_utime + usage.ru_stime,
        peak_memory_mb=_peak_mb(usage.ru_maxrss, own_kib, peak),
        stdout=b"",
        stderr=tail(err_path),
        timed_out=timed_out,
        leftovers=leftovers,
        stdout_file=out_path,
        output_exceeded=cap.hit,
        signals=tuple(sent),
    )


def status_kib(pid: int | str, field: str) -> int | None:
    """A ``kB`` field of ``/proc/PID/status`` (``pid``: a process id or ``"self"``), such as ``VmSize`` or
    ``VmHWM``, in KiB; None where it cannot be read (no such process, not Linux).

    >>> status_kib("self", "VmSize") > 0
    True
    """
    key = field.encode() + b":"
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def virtual_size() -> int:
    """This process's virtual memory size (what RLIMIT_AS bounds) in bytes; 0 when unknown."""
    return (status_kib("self", "VmSize") or 0) * 1024


def fork_is_safe() -> bool:
    """Whether this process may fork a child that goes on running Python (a fork pool's worker): no other thread runs
    Python code. A thread that holds a lock at the fork (malloc's, logging's, the import lock, a Dask worker's)
    leaves it held for ever in the child, which can then hang; with this thread alone, none can start between this
    check and the fork. Otherwise start workers from the ``forkserver``. Threads started with :mod:`_thread` count
    too, though :mod:`threading` does not list them (pytest-xdist's worker talks to its controller from one: every
    fork there was beside it); a C library's own threads, which run no Python, do not (OpenBLAS's, which numpy
    starts, end at a fork and start again)."""
    return threading.active_count() == 1 and _thread._count() == 0
