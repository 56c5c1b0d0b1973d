"""A Python function run in a fresh process, under the limits a solver binary runs under.

The embedded (PySAT) solver cannot be limited in this process: CaDiCaL 1.9.5 holds the GIL while it
solves (a timer thread never runs), pysat's SIGINT path leaves the interpreter to segfault, and RLIMIT_AS
is the whole process's.  So each run gets a process of its own, as a binary does, started by
multiprocessing's *forkserver*: a small single-threaded Python started once per process that asks, with
numpy, pysat and :mod:`.embedded` loaded (``set_forkserver_preload``), which forks a child for each run.
Nothing forks the caller, so this is safe whatever threads it runs (a lock held by one of them cannot be
inherited held), and Python's warning about forking a multi-threaded process never applies.  A run costs
about 10 ms of CPU over all processes (the fork, the child's copy-on-write faults and exit;
docs/performance.md).  Spawning a Python per run was measured and rejected: importing numpy and pysat
again costs each run about 0.2 s.

The child (:class:`_Child`, unpickled and started by :func:`multiprocessing.spawn._main` in the
forkserver's fork; no main module run again) starts its own session, dies with the forkserver (which ends
when this process does: the child closes its copy of the forkserver's lifeline), writes its stderr to a
file of ours and its answer to another, and sets its memory limit itself: RLIMIT_AS of ``memory_mb`` on
top of what it holds once it has its arguments.  RLIMIT_AS bounds address space, not memory used (free
heap the child inherited is room it may use, mappings it never touches count), so this limit is
approximate; BenchExec's cgroups make a binary's limit exact (:mod:`.cgroup`).  A run's child may be
forked before the run comes (a spare, :class:`_Spare`: on a loaded machine a woken process starts sooner
than a new one).  This process ends the child at the deadline: SIGTERM to its group, SIGKILL ``grace``
seconds later.  The child writes its answer and then, on a pipe, its last word (:data:`LAST`: its exit
code, pid, CPU time and peak resident memory from ``getrusage``), and exits: the run is over when that
word comes, without waiting for the forkserver to reap the child.  For a child that does not finish, the
forkserver's word gives its exit status, and its CPU time and peak are the last sampled from ``/proc``.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import io
import os
import pickle
import resource
import select
import signal
import struct
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from multiprocessing import forkserver, reduction, resource_tracker, util
from typing import Any

from cnfgen_queens.encodings.plugin_loading import WithPlugins, with_plugins
from cnfgen_queens.errors import whole
from cnfgen_queens.malloc import M_ARENA_MAX, mallopt

from .finished import Finished
from .process import GRACE, kill_run, status_kib, virtual_size
from .reaper import DEAD, clean_group, die_with_parent

SAMPLE_INTERVAL = 0.1  # the longest wait between two samples of a running child's CPU time and peak memory
PRELOAD = ("numpy", "pysat.solvers", "cnfgen_queens.solvers.embedded")  # what the forkserver loads once
LAST = struct.Struct("<iidq")  # the child's last word: exit code, pid, CPU seconds, peak resident KiB
MB = 1 << 20
LONG_TEMP = 60  # a TMPDIR longer than this leaves no room for the forkserver's socket name under it


class _Child:
    """The run, as the forkserver's fork unpickles and starts it (``_bootstrap``, multiprocessing's entry)."""

    def __init__(self, work: Callable[..., bytes] | None, args: tuple[Any, ...], memory_mb: int | None) -> None:
        self.work, self.args, self.memory_mb = work, args, memory_mb  # no work: a spare (:class:`_Spare`)

    def _bootstrap(self, parent_sentinel: int | None = None) -> int:
        inherited = forkserver.get_inherited_fds()
        assert inherited is not None  # a forkserver's fork
        out, err, last, *request = inherited
        os.dup2(out, 1)
        os.dup2(err, 2)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        for fd in (null, out, err):
            os.close(fd)
        with contextlib.suppress(OSError, TypeError):  # the forkserver ends once the process that asks has ended
            os.close(forkserver._forkserver._forkserver_alive_fd)  # type: ignore[attr-defined]  # (its one copy)
        try:
            os.setsid()  # a group of its own: a timeout's signals reach whatever it starts
            die_with_parent()  # the forkserver, which ends with the process that asks
            for module in PRELOAD:  # loaded already, unless another started the forkserver: not under the limit
                with contextlib.suppress(ImportError):
                    importlib.import_module(module)
            if request:  # a spare: its run comes when there is one (nothing: there will be none)
                with open(request[0], "rb") as f:
                    data = f.read()
                if not data:
                    return 0
                self.work, self.args, self.memory_mb = pickle.loads(data)  # our own parent's bytes
            if isinstance(self.work, WithPlugins):  # its plugins, before the limit as its arguments: under it an
                self.work.load()  # import could fail (an ERROR blaming the plugin, where the run was a MEMOUT)
            if self.memory_mb is not None:
                # one arena: once the main arena cannot grow, glibc tried to map a new 64 MiB arena for each
                # allocation, which the limit refuses; near it every allocation was failing system calls, and
                # Python 3.13's unwinding of the MemoryError crawled for minutes (count 300 -e sequential
                # --memory-limit 100 hung in 5 of 32 runs; with one arena 0 of 40, about 1 s each)
                mallopt(M_ARENA_MAX, 1)
                limit = virtual_size() + self.memory_mb * MB  # the same room for a plugin's encoding as a built-in
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            assert self.work is not None
            view = memoryview(self.work(*self.args))
            while view:
                view = view[os.write(1, view) :]
            code = 0
        except BaseException as e:  # one line, exit 1 (MemoryError, a bad backend)
            os.write(2, f"{type(e).__name__}: {e}\n".encode())
            code = 1
        usage = resource.getrusage(resource.RUSAGE_SELF)
        os.write(last, LAST.pack(code, os.getpid(), usage.ru_utime + usage.ru_stime, usage.ru_maxrss))
        return code


_ready_in: int | None = None  # the process whose forkserver has forked a child (a fork of it has none)


def _forkserver() -> None:
    """Start this process's forkserver, with :data:`PRELOAD` loaded, unless it runs; it forks its first child
    once it has loaded them, so one that does nothing is waited for here, not in a run's time."""
    global _ready_in
    forkserver.set_forkserver_preload(list(PRELOAD))  # read when the forkserver starts
    if len(tempfile.gettempdir()) > LONG_TEMP and util.get_temp_dir.__module__ == util.__name__:
        # its socket's path must fit AF_UNIX's 108 bytes: multiprocessing's directory goes to /tmp instead
        kept, tempfile.tempdir = tempfile.tempdir, "/tmp"
        try:
            util.get_temp_dir()  # made once a process, removed at its exit by multiprocessing itself
        finally:
            tempfile.tempdir = kept
    forkserver.ensure_running()
    _ready_in = os.getpid()
    atexit.register(_stop_forkserver, os.getpid())
    run_python(bytes, ())


def _stop_forkserver(owner: int) -> None:
    """At this process's exit: let its spare go and stop its forkserver and the resource tracker the forkserver
    started, each waited for, so that nothing of ours outlives the command (a helper that notices its
    caller's end by itself is still there, or a zombie, a moment after the command has exited)."""
    if os.getpid() != owner:  # a fork of the process that started it
        return
    with _Spare._lock:
        spare, _Spare._kept = _Spare._kept, None
    if spare is not None:  # ended and reaped by the forkserver before it stops (else init's zombie a moment)
        with contextlib.suppress(OSError, ValueError):
            spare.child.stop(signal.SIGKILL, record=False)
            spare.child.ended(1.0)
        spare.discard()
    helpers = [getattr(forkserver._forkserver, "_forkserver_pid", None)]
    helpers.append(getattr(resource_tracker._resource_tracker, "_pid", None))
    with contextlib.suppress(OSError, ChildProcessError, AttributeError, TypeError):
        forkserver._forkserver._stop()  # type: ignore[attr-defined]  # closes its lifeline, waits for its exit
    with contextlib.suppress(OSError, ChildProcessError, AttributeError, TypeError):  # the forkserver started it
        resource_tracker._resource_tracker._stop()  # type: ignore[attr-defined]
    until = time.monotonic() + 2.0  # a caller that ignores SIGCHLD reaps for us: waitpid cannot wait then
    for pid in (p for p in helpers if isinstance(p, int) and p > 1):
        while time.monotonic() < until and _running(pid):
            time.sleep(0.005)


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not exited (a zombie has)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] not in DEAD
    except (OSError, IndexError):
        return False


class Started:
    """A child of the forkserver under way, running ``work(*args)`` (:func:`start`): its pid and exit code come
    from the forkserver on ``status`` (the pid once it has forked it), its last word (:data:`LAST`) on
    ``last``.  Use it as a context manager: on the way out the child is killed, if it still runs, and its
    files closed."""

    def __init__(self, status: int, last: int) -> None:
        self.status, self.last = status, last
        self._pid: int | None = None
        self.code: int | None = None  # None while it runs
        self.cpu: float | None = None
        self.peak_kib: int | None = None
        self.sent: list[tuple[str, float]] = []

    def __enter__(self) -> Started:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self.code is None:
                self.stop(signal.SIGKILL, record=False)
                self.ended(None)
        finally:
            os.close(self.status)
            os.close(self.last)

    @property
    def pid(self) -> int | None:
        """The child's pid (waited for: the forkserver sends it once it has forked); None when the forkserver
        ended without forking it (never a pid of another process: ours would signal its group)."""
        if self._pid is None:
            self._pid = _signed(self.status)
        return self._pid

    def ended(self, timeout: float | None) -> bool:
        """Whether the child has ended, waiting up to ``timeout`` seconds (None: until it does); once it has, its
        exit code (negative: the signal that ended it), CPU time and peak are known and its group is killed."""
        if self.code is not None:
            return True
        if not select.select([self.last], [], [], timeout)[0]:
            return False
        word = os.read(self.last, LAST.size)
        if len(word) == LAST.size:  # it finished: its exit code and figures of its own; it is exiting
            self.code, pid, self.cpu, self.peak_kib = LAST.unpack(word)
            self._pid = pid
            kill_run(pid, signal.SIGKILL)  # whatever it started goes with it
        else:  # it died: the forkserver's word, once it has reaped it (none: the forkserver died, and it with it)
            pid = self.pid
            code = None if pid is None else _signed(self.status)
            self.code = 1 if code is None else code
            if pid is not None:
                clean_group(pid)
        return True

    def stop(self, sig: signal.Signals, record: bool = True) -> None:
        """Send ``sig`` to the child's group (recorded in :attr:`sent`, with when)."""
        if record:
            self.sent.append((sig.name, time.monotonic()))
        if self.pid is not None:
            kill_run(self.pid, sig)

    def sample(self) -> None:
        """The child's CPU seconds and peak resident KiB so far, from /proc (kept as they were when it is gone)."""
        if self.pid is None:
            return
        try:
            with open(f"/proc/{self.pid}/stat", "rb") as f:
                stat = f.read()
            fields = stat[stat.rfind(b")") + 2 :].split()
            self.cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return
        self.peak_kib = status_kib(self.pid, "VmHWM") or self.peak_kib


def start(
    work: Callable[..., bytes] | None,
    args: tuple[Any, ...],
    *,
    stdout: int,
    stderr: int,
    memory_mb: int | None = None,
    request: int | None = None,
) -> Started:
    """Have this process's forkserver (started on first use) fork a child that runs ``work(*args)`` (a
    module-level function, picklable arguments; what it returns is written to its stdout) with ``stdout`` and
    ``stderr`` as its own, in a session of its own, under RLIMIT_AS of ``memory_mb`` on top of what it holds
    once it has its arguments, dying with this process.  A ``work`` that raises exits 1 with the error on its
    stderr.  With ``work`` None, the child waits for the three, pickled, on the pipe ``request``."""
    if _ready_in != os.getpid():
        _forkserver()
    if work is not None:
        work = with_plugins(work)  # the child loads the encodings of --plugin as this process did
    payload = io.BytesIO()
    reduction.dump({"dir": os.getcwd(), "sys_path": sys.path}, payload)  # the preparation: no main module run again
    reduction.dump(_Child(work, args, memory_mb), payload)

    def begin() -> Started:
        last, last_w = os.pipe()
        try:
            fds = [stdout, stderr, last_w, *([] if request is None else [request])]
            status, data = forkserver.connect_to_new_process(fds)
        except BaseException:
            os.close(last)
            raise
        finally:
            os.close(last_w)
        started = Started(status, last)
        try:
            with open(data, "wb", closefd=True) as f:
                f.write(payload.getbuffer())
        except BaseException:
            started.__exit__()
            raise
        return started

    # whole: a child forked and not yet sent its task reads an empty pipe, and its traceback reaches the terminal
    return whole(begin, Started.__exit__)


def run_python(
    work: Callable[..., bytes],
    args: tuple[Any, ...],
    *,
    timeout: float | None = None,
    memory_mb: int | None = None,
    grace: float = GRACE,
) -> Finished:
    """``work(*args)`` in a fresh process (:func:`start`; a spare forked before, :class:`_Spare`), for
    ``timeout`` seconds from this call (then SIGTERM to its group, SIGKILL ``grace`` seconds later); its bytes
    come back as stdout.  Ctrl-C (any error here) kills the child and is re-raised; nothing of the run
    survives."""
    until = None if timeout is None else time.monotonic() + timeout
    if _ready_in != os.getpid():
        _forkserver()  # started once a process: within the time limit, not in the run's times
    begin = time.monotonic()
    timed_out = False
    spare = _Spare.take()
    with spare.out as out, spare.err as err, spare.child as child:
        spare.hand_over(pickle.dumps((with_plugins(work), args, memory_mb)))  # --plugin's encodings loaded there too
        step = 0.002
        while not child.ended(step if until is None else max(0.0, min(step, until - time.monotonic()))):
            child.sample()
            step = min(step * 2, SAMPLE_INTERVAL)
            if until is not None and time.monotonic() >= until:
                timed_out = True
                child.stop(signal.SIGTERM)
                if not child.ended(grace):
                    child.stop(signal.SIGKILL)
                    child.ended(None)
        wall = time.monotonic() - begin
        out.seek(0)
        answer = out.read() if child.code == 0 else b""
        err.seek(0)
        stderr = err.read()
    return Finished(
        exit_code=1 if child.code is None else child.code,
        wall=wall,
        cpu=child.cpu,
        peak_memory_mb=None if child.peak_kib is None else child.peak_kib / 1024.0,
        stdout=answer,
        stderr=stderr,
        timed_out=timed_out,
        leftovers=0,
        signals=tuple(child.sent),
    )


class _Spare:
    """A child forked before its run (:func:`start` without work), with the files its answer and its stderr go
    to, and the pipe its run comes on: a run handed to a spare does not wait for the forkserver's fork, and
    each run asks for the next one's spare (on a loaded machine, a new process waits for the CPU longer than
    a woken one).  A spare runs one run, as any child; one that gets none exits (this process ending closes
    the pipe)."""

    _kept: _Spare | None = None  # this process's (a spare of the process this one was forked from is not)
    _lock = threading.Lock()

    def __init__(self) -> None:
        self.owner = os.getpid()
        self.out, self.err = tempfile.TemporaryFile(), tempfile.TemporaryFile()  # noqa: SIM115 (closed by the run)
        read_end, self.request = os.pipe()
        try:
            self.child = start(None, (), stdout=self.out.fileno(), stderr=self.err.fileno(), request=read_end)
        except BaseException:
            self.discard()
            raise
        finally:
            os.close(read_end)

    @classmethod
    def take(cls) -> _Spare:
        """This process's spare (one made now if there is none), another kept for the next run."""
        with cls._lock:
            spare, cls._kept = cls._kept, None
        if spare is None or spare.owner != os.getpid():
            spare = cls()
        following = cls()
        with cls._lock:
            if cls._kept is None:
                cls._kept, following = following, None  # type: ignore[assignment]
        if following is not None:  # another thread kept one meanwhile
            following.discard()
        return spare

    def hand_over(self, request: bytes) -> None:
        """Send the run (a child that died meanwhile says so by its exit status)."""
        with contextlib.suppress(BrokenPipeError):
            view = memoryview(request)
            while view:
                view = view[os.write(self.request, view) :]
        os.close(self.request)

    def discard(self) -> None:
        """Let it go: it ends by itself once its pipe is closed."""
        for fd in (self.request, *((self.child.status, self.child.last) if hasattr(self, "child") else ())):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.out.close()
        self.err.close()


def _signed(status: int) -> int | None:
    """The forkserver's next word on ``status`` (a pid, then an exit code); None when it ended (killed)."""
    try:
        return forkserver.read_signed(status)
    except (OSError, EOFError):
        return None
