"""The embedded blocking loop in a forked child, so that its limits hold during a solver call.

PySAT's CaDiCaL 1.9.5 holds the GIL while it solves and has no interrupt, so in this process a
time limit is only checked between calls, and a memory limit cannot be set at all.  Here the
loop of :func:`.embedded_loop.enumerate_embedded` (the same code: add the clauses, solve, accept, block)
runs in a child of its own session (the loop is handed in, so this module does not import
:mod:`.enumeration`), which streams one line per event through a pipe:

* ``c`` before every solver call, ``s WEIGHT C0 C1 ...`` for each accepted solution,
* ``e STATUS MESSAGE`` when the loop stopped early (its own time check, a rejected model).

This process yields each solution as its line arrives, kills the child's group a moment after
the deadline (SIGKILL: it holds nothing of ours; the moment lets a child between calls stop by
itself and say where), and keeps every complete line already in the pipe, so no
solution the child found is lost.  RLIMIT_AS bounds the child (``memory_mb`` on top of this
process's address space, as for ``solve``); dying under it is MEMOUT.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from typing import IO

from cnfgen_queens.enumeration.records import EnumerationError, Found
from cnfgen_queens.limits import NEVER, Deadline
from cnfgen_queens.solvers.embedded import fresh_python
from cnfgen_queens.solvers.outcome import Status
from cnfgen_queens.solvers.parse import describe_exit, says_out_of_memory
from cnfgen_queens.solvers.process import clean_group, fork_child, fork_is_safe, kill_run, wait_run
from cnfgen_queens.solvers.reaper import spawn_lock, started, subreaper

Loop = Callable[..., Iterator[Found]]  # loop(on_call=...) -> the solutions


READ = 1 << 16
GRACE = 0.25  # seconds past the deadline for the child to stop by itself, between calls, and say where


def enumerate_forked(
    loop: Loop,
    *,
    deadline: Deadline = NEVER,
    memory_mb: int | None = None,
    on_call: Callable[[], None] | None = None,
) -> Iterator[Found]:
    """The solutions of ``loop(on_call=)`` (:func:`.embedded_loop.enumerate_embedded`), run in a forked
    child.  ``deadline`` is enforced during a solver call too (``GRACE`` seconds after it, the child is killed);
    EnumerationError (TIMEOUT, MEMOUT, ERROR) ends the iteration after every solution found before it."""

    read_end, write_end = os.pipe()
    with subreaper(), tempfile.TemporaryFile() as err:
        try:
            if fork_is_safe():
                work = _child_work(loop, write_end, read_end)
                pid, blocked = fork_child(work, memory_mb=memory_mb, stderr_fd=err.fileno())
            else:  # another thread runs: a fresh process (loop_child), no fork
                pid, blocked = _start_fresh(loop, write_end, read_end, memory_mb, err.fileno()), None
        except BaseException:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)
        reaped = None
        try:
            if blocked is not None:  # a Ctrl-C held back during the fork lands here
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
            lines = _Lines(read_end)
            stopped: EnumerationError | None = None
            timed_out = False
            calls = 0  # solver calls begun: none yet means the child was still building the formula
            while not lines.eof:
                left = deadline.left(GRACE)
                if left is not None and left <= 0 and not timed_out:
                    kill_run(pid, signal.SIGKILL)  # a call past the deadline: what is in the pipe stays readable
                    timed_out = True
                for line in lines.read(None if timed_out else left):
                    event = _event(line)
                    if isinstance(event, Found):
                        yield event
                    elif isinstance(event, EnumerationError):
                        stopped = event
                    else:
                        calls += 1
                        if on_call is not None:
                            on_call()
            reaped = wait_run(pid, None)
            if stopped is not None:
                raise stopped
            code = os.waitstatus_to_exitcode(reaped[1]) if reaped else None
            if code == 0:  # the loop ended (UNSAT), also when a slow consumer read its last lines late
                return
            if timed_out:
                where = "during a solver call" if calls else "while building the formula"
                raise EnumerationError(f"time limit reached {where}", Status.TIMEOUT)
            raise _died(code, err, memory_mb)
        finally:
            try:
                if reaped is None:  # the consumer stopped (--limit), Ctrl-C, or an error here
                    kill_run(pid, signal.SIGKILL)
                    wait_run(pid, None)
            finally:  # also after a second Ctrl-C
                started.discard(pid)
                os.close(read_end)
                clean_group(pid)


def _child_work(loop: Loop, write_end: int, read_end: int) -> Callable[[], None]:
    def work() -> None:
        os.close(read_end)
        send_events(loop, write_end)

    return work


def send_events(loop: Loop, write_end: int) -> None:
    """Run ``loop`` (in the child) and write its events to ``write_end``, one line each, as they come."""

    def send(text: str) -> None:
        data = memoryview(text.encode())
        while data:
            data = data[os.write(write_end, data) :]

    try:  # each line at once: a call that never returns is counted, a solution never held back
        for found in loop(on_call=lambda: send("c\n")):
            send(f"s {found.weight} {' '.join(map(str, found.placement))}\n")
    except EnumerationError as e:
        send(f"e {e.status} {' '.join(str(e).split())}\n")


def _start_fresh(loop: Loop, write_end: int, read_end: int, memory_mb: int | None, stderr_fd: int) -> int:
    """Start :mod:`.loop_child` with ``loop`` (pickled: a module-level callable) on its stdin and its events on
    ``write_end``, without a ``preexec_fn`` (it sets its limits itself): safe whatever threads run here."""
    argv = [*fresh_python("cnfgen_queens.enumeration.loop_child"), str(memory_mb or 0), str(os.getpid())]
    with spawn_lock:
        proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=write_end, stderr=stderr_fd, start_new_session=True, close_fds=True
        )
        started.add(proc.pid)
    proc.returncode = 0  # reaped by wait_run, not by Popen
    assert proc.stdin is not None
    with contextlib.suppress(BrokenPipeError), proc.stdin:  # a child that died says so by its exit status
        proc.stdin.write(pickle.dumps(loop))
    return proc.pid


class _Lines:
    """Complete lines from a pipe; a last line cut by a kill (no newline) is dropped."""

    def __init__(self, fd: int) -> None:
        self.fd, self.rest, self.eof = fd, b"", False

    def read(self, timeout: float | None) -> list[bytes]:
        """The lines that arrived within ``timeout`` seconds (None: until some do, or end of file)."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return []
        chunk = os.read(self.fd, READ)
        if not chunk:
            self.eof = True
            return []
        *lines, self.rest = (self.rest + chunk).split(b"\n")
        return lines


def _event(line: bytes) -> Found | EnumerationError | None:
    kind, _, rest = line.decode().partition(" ")
    if kind == "s":
        weight, *columns = map(int, rest.split())
        return Found(tuple(columns), weight)
    if kind == "e":
        status, _, message = rest.partition(" ")
        return EnumerationError(message, Status(status))
    return None  # "c": one more solver call


def _died(code: int | None, err: IO[bytes], memory_mb: int | None) -> EnumerationError:
    """The error of a child that ended without finishing: MEMOUT under a memory limit, else ERROR."""

    err.seek(0)
    text = " ".join(err.read()[-2000:].decode(errors="replace").split())
    if memory_mb is not None and (says_out_of_memory(text, True) or (code is not None and code < 0)):
        return EnumerationError(f"memory limit reached ({memory_mb} MB)", Status.MEMOUT)
    return EnumerationError(f"embedded solver {describe_exit(code)}{': ' + text if text else ''}", Status.ERROR)
