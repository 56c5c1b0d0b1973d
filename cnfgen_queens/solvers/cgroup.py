"""Isolation by cgroup: each run in a cgroup of its own, through BenchExec's RunExecutor.

BenchExec (Beyer, Löwe, Wendler, "Reliable benchmarking: requirements and solutions",
STTT 21, 2019) puts the solver and every descendant into fresh cgroups, kills them all
when the run ends (also those that left with ``setsid``), and measures the CPU time
and peak memory of the whole tree.  We run it without a container (``runexec
--no-container``), keep our own wall-clock deadline (SIGTERM to the solver's group,
then RunExecutor.stop() after the grace period) and output cap, and read the cgroup
counters once after the run (BenchExec re-reads them 0.1 s apart, which would add 0.1 s
to every call of an enumeration; nor do we let it search the output for a JVM crash
report).  ``choose("auto")`` falls back to the process-group
runner where cgroups are not usable (no root, no delegated cgroup, no benchexec).

Inside :func:`pinned` (a batch's ``pin: true``), a run is confined to the given CPU cores by BenchExec's
cpuset cgroup (``execute_run(cores=...)``); :func:`core_assignment` is BenchExec's split of this
machine's cores between parallel runs.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import warn
from .finished import MB, Finished, OutputCap, tail
from .reaper import boot_ticks, kill_leader_last, started, subreaper, sweep_orphans
from .spawn import command

STEP = 0.02  # seconds between checks of the deadline and the output size
KILL_SETTLE = 0.3  # seconds a SIGKILLed solver's group has to end before BenchExec is told to kill its cgroup
_PINNED: ContextVar[tuple[int, ...] | None] = ContextVar("pinned", default=None)  # cores of the runs (pinned)


class IsolationUnavailable(RuntimeError):
    """``--isolation cgroup`` on a machine where it cannot work; the message says why."""


def _quiet_logging() -> None:
    """BenchExec logs through the root logger; give it a handler so that nothing reaches stderr
    (and ``logging.warning`` does not call ``basicConfig``)."""
    import logging

    if not logging.root.handlers:
        logging.root.addHandler(logging.NullHandler())


def _quiet_late_oom_handler() -> None:
    """Keep BenchExec's out-of-memory handler (cgroup v1) from printing a traceback when it loses a race.

    The handler kills the solver, then reads the cgroup's task list; when the run has ended meanwhile,
    BenchExec has cancelled the handler and removed the cgroup, and the read fails (FileNotFoundError,
    or AttributeError once the cgroup object is cleared), 1 run in 4 of ``-m 10`` on N=60 with kissat.
    Only that thread's failures are caught (silent after the cancel: the run is over and MEMOUT is known;
    one line before it); every other thread's go to the hook that was there.  Installed anew whenever
    another hook replaced ours.
    """
    from benchexec.oomhandler import KillProcessOnOomThread

    previous = threading.excepthook
    if getattr(previous, "quiets_oom_handler", False):
        return

    def hook(args: threading.ExceptHookArgs) -> None:
        if not isinstance(args.thread, KillProcessOnOomThread):
            previous(args)
            return
        cancelled = getattr(args.thread, "_finished", None)
        if isinstance(cancelled, threading.Event) and cancelled.is_set():
            return
        with contextlib.suppress(Exception):
            warn(f"BenchExec's out-of-memory handler failed: {args.exc_value}")

    hook.quiets_oom_handler = True  # type: ignore[attr-defined]
    threading.excepthook = hook


def _start_tool(executor: Any, start: dict[str, Any]) -> tuple[int, Any, Any]:
    """BenchExec's start of the tool (``BaseExecutor._start_execution``, without a container), without its
    ``preexec_fn`` (Python run between fork and exec, beside our thread that runs BenchExec: :mod:`.spawn`): the
    tool leads its own process group, dies with the worker that runs it (a SIGKILLed batch worker) and joins
    the run's cgroups before its first instruction, each done by the small programs it is started behind.
    ``start``: the keyword arguments BenchExec gives ``_start_execution``, whole."""
    from benchexec import util

    args, temp_dir, cgroups = start["args"], start["temp_dir"], start["cgroups"]
    for name in ("tmp", "home"):
        os.mkdir(os.path.join(temp_dir, name))
    home, tmp = os.path.join(temp_dir, "home"), os.path.join(temp_dir, "tmp")
    env = {**start["env"], "HOME": home, **dict.fromkeys(("TMPDIR", "TMP", "TEMPDIR", "TEMP"), tmp)}
    paths = getattr(cgroups, "paths", None)  # v1: a directory per hierarchy; v2: one
    files = [os.path.join(p, "tasks") for p in paths] if paths is not None else [str(cgroups.path / "cgroup.procs")]
    parent_setup = start["parent_setup_fn"]()
    argv = command(args, cgroup_files=files)
    streams = {name: start[name] for name in ("stdin", "stdout", "stderr")}
    p = subprocess.Popen(argv, **streams, env=env, cwd=start["cwd"], process_group=0)

    def wait_and_get_result() -> tuple[int, Any, Any]:
        exitcode, ru_child = executor._wait_for_process(p.pid, args[0])
        p.poll()
        cleanup = start["parent_cleanup_fn"](parent_setup, util.ProcessExitCode.from_raw(exitcode), "", cgroups)
        return exitcode, ru_child, cleanup

    return p.pid, cgroups, wait_and_get_result


def _no_crash_report(output_filename: str, base_path: str) -> None:
    """Stands in for BenchExec's search of the output for a JVM crash report (hs_err_pid), which it
    runs for every exit code but 0 and 1: SAT solvers exit 10 and 20, and the search reads the
    whole output line by line (seconds for a chatty solver, after its limit)."""


def _executor() -> Any:
    """A fresh RunExecutor (one per run: ``stop()`` leaves its mark on the instance)."""
    from benchexec import runexecutor
    from benchexec.runexecutor import RunExecutor

    runexecutor._get_debug_output_after_crash = _no_crash_report

    class Executor(RunExecutor):
        tool_pids: list[int]

        def _start_execution(self, **kwargs: Any) -> Any:
            pid, cgroups, wait = _start_tool(self, kwargs)
            # the solver's pid as soon as it exists: never taken for an orphan, its group swept after the run
            started.add(pid)
            self.tool_pids.append(pid)
            return pid, cgroups, wait

        def _get_cgroup_measurements(self, cgroups: Any, ru_child: Any, result: dict[str, Any]) -> None:
            # one read: the run has ended and every task of the cgroup is killed, so the counters are final
            waited = ru_child.ru_utime + ru_child.ru_stime if ru_child else 0.0
            if cgroups.CPU in cgroups:
                result["cputime"] = max(cgroups.read_cputime() or 0.0, waited)
            if cgroups.MEMORY in cgroups:
                memory = cgroups.read_max_mem_usage()
                if memory is not None:
                    result["memory"] = memory
                kills = cgroups.read_oom_kill_count()
                if kills is not None:
                    result["oom_kill_count"] = kills

    _quiet_logging()
    _quiet_late_oom_handler()
    executor = Executor(use_namespaces=False)
    executor.tool_pids = []
    return executor


@lru_cache(maxsize=1)
def unavailable_reason() -> str | None:
    """None when runs can go into cgroups here, else why not (one line)."""
    try:
        import benchexec.runexecutor  # noqa: F401
    except ImportError:
        return "benchexec is not installed (pip install benchexec)"
    try:
        executor = _executor()
    except (Exception, SystemExit) as e:  # BenchExec calls sys.exit when a required cgroup is missing
        return f"BenchExec cannot set up cgroups: {str(e).strip() or type(e).__name__}"
    cgroups = executor.cgroups
    missing = [name for name in (cgroups.CPU, cgroups.MEMORY, cgroups.FREEZE) if name not in cgroups]
    if missing:
        return f"no usable cgroup controller {', '.join(missing)} (needs root or a delegated cgroup)"
    return None


@contextmanager
def pinned(cores: Sequence[int] | None) -> Iterator[None]:
    """Runs in cgroups started inside are confined to ``cores`` (None: not pinned)."""
    token = _PINNED.set(None if cores is None else tuple(cores))
    try:
        yield
    finally:
        _PINNED.reset(token)


def usable_cores() -> int:
    """The cores this process may use (a SLURM allocation, a cpuset; every core where the system cannot say): the
    batch's default ``--jobs`` and the cap of ``count --jobs``."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def core_assignment(runs: int) -> list[list[int]]:
    """BenchExec's assignment of the cores this process may use to ``runs`` parallel runs, disjoint, as many each as
    fit (``benchexec.resources.get_cpu_cores_per_run``); IsolationUnavailable saying why where runs cannot be pinned
    (no cgroups, no cpuset controller, more runs than cores)."""
    reason = unavailable_reason()
    if reason is not None:
        raise IsolationUnavailable(reason)
    executor = _executor()
    cpus = executor.cpus if executor.cgroups.CPUSET in executor.cgroups else None
    if not cpus:
        raise IsolationUnavailable("no usable cpuset cgroup controller (BenchExec pins runs to cores through it)")
    if runs > len(cpus):
        raise IsolationUnavailable(
            f"{runs} runs at once, {len(cpus)} cores here: at most {len(cpus)} runs can each have a core of their own"
        )
    from benchexec.resources import get_cpu_cores_per_run

    try:
        return [list(c) for c in get_cpu_cores_per_run(len(cpus) // runs, runs, True, executor.cgroups)]
    except SystemExit as e:  # BenchExec's word on a split it cannot make
        raise IsolationUnavailable(f"BenchExec cannot split the cores: {e}") from None


def choose(mode: str) -> str:
    """``cgroup`` or ``none`` for an isolation mode; ``auto`` is cgroup where available.

    Raises IsolationUnavailable for ``cgroup`` where cgroups cannot be used.
    """
    if mode == "none":
        return "none"
    reason = unavailable_reason()
    if reason is None:
        return "cgroup"
    if mode == "cgroup":
        raise IsolationUnavailable(f"--isolation cgroup is not possible here: {reason}")
    return "none"


@dataclass(frozen=True)
class CgroupRun:
    """One solver run under BenchExec: ``argv``, where its stdout and stderr go, until when it may run (on
    :func:`time.monotonic`'s clock: SIGTERM then, SIGKILL ``grace`` seconds later), its memory and its
    output ``cap``.  While it runs, ``tool`` gets the solver's pid and ``sent`` each signal that stops it."""

    argv: Sequence[str]
    out_path: Path
    err_path: Path
    until: float | None
    memory_mb: int | None
    grace: float
    cap: OutputCap
    tool: list[int] = field(default_factory=list)
    sent: list[tuple[str, float]] = field(default_factory=list)


def run_in_cgroup(run: CgroupRun) -> Finished:
    """Run ``run.argv`` in its own cgroup until it ends, ``run.until`` comes or ``run.cap`` is hit.

    RunExecutor works in a thread of its own while this one watches the clock and the
    output size; KeyboardInterrupt stops the run (every process of the cgroup) and is re-raised.
    """

    with subreaper():  # orphans come to us, so that we reap them once the cgroup has killed them
        since = boot_ticks()
        try:
            result, wall, timed_out = _execute(run)
        finally:
            leftovers = len(sweep_orphans(since, run.tool[0] if run.tool else -1))
            started.difference_update(run.tool)
    code = result["exitcode"]
    return Finished(
        exit_code=-code.signal if code.signal else code.value,
        wall=result.get("walltime", wall),
        cpu=result.get("cputime"),
        peak_memory_mb=result["memory"] / MB if "memory" in result else None,
        stdout=b"",
        stderr=tail(run.err_path),
        timed_out=timed_out,
        leftovers=leftovers,
        stdout_file=run.out_path,
        output_exceeded=run.cap.hit,
        memory_exceeded=result.get("terminationreason") == "memory",
        measured_by="cgroup",
        signals=tuple(run.sent),
    )


def _execute(run: CgroupRun) -> tuple[dict[str, Any], float, bool]:
    """(BenchExec's result, wall time, timed out)."""
    executor = _executor()
    executor.tool_pids = run.tool
    box: dict[str, Any] = {}
    done = threading.Event()  # not Thread.is_alive(): after a join interrupted by Ctrl-C it says False
    cores = _PINNED.get()  # read here: the context does not follow into the thread
    memory_mb = run.memory_mb

    def work() -> None:
        try:
            box["result"] = executor.execute_run(
                list(run.argv),
                str(run.out_path),
                error_filename=str(run.err_path),
                write_header=False,
                memlimit=memory_mb * MB if memory_mb is not None else None,
                cores=None if cores is None else list(cores),
            )
        except BaseException as e:  # BenchExec calls sys.exit on bad arguments
            box["error"] = e
        finally:
            done.set()

    start = time.monotonic()
    thread = threading.Thread(target=work, name="cnfgen-queens-runexec", daemon=True)
    import tempfile

    tempdir, tempfile.tempdir = tempfile.tempdir, str(run.out_path.parent)  # BenchExec_run_* inside our work
    try:  # directory, so that our cleanup (and the next run's sweep, after a kill -9) covers it
        return _wait(executor, thread, done, box, run, start)
    finally:
        tempfile.tempdir = tempdir


def _wait(
    executor: Any, thread: threading.Thread, done: threading.Event, box: dict[str, Any], run: CgroupRun, start: float
) -> tuple[dict[str, Any], float, bool]:
    """Start BenchExec's ``thread`` and wait for it; stop the solver at the deadline, the output cap or a signal."""
    deadline, grace, cap, sent = run.until, run.grace, run.cap, run.sent
    timed_out, kill_at, stopping, stop_at = False, 0.0, False, None
    try:
        thread.start()
        while not done.wait(_step(deadline, kill_at if timed_out else None, stop_at)):
            now = time.monotonic()
            if stopping or cap() or (stop_at is not None and now >= stop_at):
                if stop_at is None and not stopping:
                    sent.append(("SIGKILL", now))  # BenchExec kills the cgroup
                stopping = True
                executor.stop()  # again at every step: the solver may not be registered yet
            elif deadline is not None and now >= deadline and not timed_out:
                timed_out, kill_at = True, now + grace
                sent.append(("SIGTERM", now))
                _signal_tool(executor, signal.SIGTERM)
            elif timed_out and stop_at is None and now >= kill_at:
                # the solver's group ourselves, its leader last: BenchExec, at the leader's end, found a member
                # still dying in its cgroup and slept 0.5 s before looking again (--time-limit 1 took 1.9 s); its
                # stop() after KILL_SETTLE, for anything outside the group (the run's end kills the cgroup anyway)
                sent.append(("SIGKILL", now))
                for leader in _tool_pids(executor):
                    kill_leader_last(leader, KILL_SETTLE)
                stop_at = time.monotonic() + KILL_SETTLE
    except BaseException:  # KeyboardInterrupt above all: no thread of the run outlives the exception
        _stop_until_done(executor, done)
        raise
    wall = time.monotonic() - start
    if "error" in box:
        raise OSError(f"BenchExec failed: {box['error']}")
    result = box.get("result", {})
    if result.get("terminationreason") == "failed" or "exitcode" not in result:
        raise OSError(f"cannot start {run.argv[0]}")
    return result, wall, timed_out


def _stop_until_done(executor: Any, done: threading.Event) -> None:
    """Stop BenchExec's run until its thread is done.  A second signal meanwhile (Ctrl-C again, the SIGTERM a
    batch's coordinator sends its workers) is held and raised once the thread is done: cut short, the wait let
    the thread run on past the command's end, and ``tempfile.tempdir`` was put back while the thread had yet to
    make its BenchExec_run_* in our work directory (a leftover in $TMPDIR)."""
    held: KeyboardInterrupt | None = None
    while not done.is_set():
        try:
            executor.stop()
            done.wait(STEP)
        except KeyboardInterrupt as e:  # Terminated too
            held = held or e
    if held is not None:
        raise held


def _step(*instants: float | None) -> float:
    """Seconds to wait before the next look: :data:`STEP`, or less when one of ``instants`` comes sooner."""
    now = time.monotonic()
    return max(0.0, min([STEP, *(at - now for at in instants if at is not None and at > now)]))


def _tool_pids(executor: Any) -> list[int]:
    """The solver's pid once BenchExec has registered it (read without its lock, which an
    interrupt could leave held)."""
    try:
        return list(executor.SUB_PROCESS_PIDS)
    except RuntimeError:  # the set changed while we copied it
        return []


def _signal_tool(executor: Any, sig: int) -> None:
    """Send ``sig`` to the solver's process group (BenchExec makes the solver a group leader)."""
    for pid in _tool_pids(executor):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, sig)
