"""The embedded blocking loop in a process of its own, so that its limits hold during a solver call.

PySAT's CaDiCaL 1.9.5 holds the GIL while it solves and has no interrupt, so in this process a
time limit is only checked between calls, and a memory limit cannot be set at all.  Here the
loop of :func:`.embedded_loop.enumerate_embedded` (the same code: add the clauses, solve, accept, block)
runs in a child of its own session, forked by the forkserver as the embedded solver's runs are
(:mod:`cnfgen_queens.solvers.fresh_process`; the loop is handed in, pickled, so this module does not import
:mod:`.enumeration`), which streams one line per event through a pipe:

* ``c`` before every solver call, ``s WEIGHT C0 C1 ...`` for each accepted solution,
* ``e STATUS MESSAGE`` when the loop stopped early (its own time check, a rejected model).

This process yields each solution as its line arrives, kills the child's group a moment after
the deadline (SIGKILL: it holds nothing of ours; the moment lets a child between calls stop by
itself and say where), and keeps every complete line already in the pipe, so no
solution the child found is lost.  RLIMIT_AS bounds the child (``memory_mb`` on top of what it holds once
it has the loop, as for ``solve``); dying under it is MEMOUT.
"""

from __future__ import annotations

import os
import select
import signal
import tempfile
from collections.abc import Callable, Iterator
from typing import IO

from cnfgen_queens.enumeration.records import EnumerationError, Found
from cnfgen_queens.limits import NEVER, Deadline
from cnfgen_queens.solvers.fresh_process import start
from cnfgen_queens.solvers.outcome import Status
from cnfgen_queens.solvers.parse import describe_exit, says_out_of_memory

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
    """The solutions of ``loop(on_call=)`` (:func:`.embedded_loop.enumerate_embedded`, a module-level callable),
    run in a process of its own (:func:`.fresh_process.start`).  ``deadline`` is enforced during a solver call
    too (``GRACE`` seconds after it, the child is killed); EnumerationError (TIMEOUT, MEMOUT, ERROR) ends the
    iteration after every solution found before it."""

    read_end, write_end = os.pipe()
    with tempfile.TemporaryFile() as err:
        try:
            child = start(send_events, (loop,), stdout=write_end, stderr=err.fileno(), memory_mb=memory_mb)
        except BaseException:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)
        with child, open(read_end, "rb", buffering=0) as events:
            lines = _Lines(events.fileno())
            stopped: EnumerationError | None = None
            timed_out = False
            calls = 0  # solver calls begun: none yet means the child was still building the formula
            while not lines.eof:
                left = deadline.left(GRACE)
                if left is not None and left <= 0 and not timed_out:
                    child.stop(signal.SIGKILL)  # a call past the deadline: what is in the pipe stays readable
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
            child.ended(None)
            if stopped is not None:
                raise stopped
            if child.code == 0:  # the loop ended (UNSAT), also when a slow consumer read its last lines late
                return
            if timed_out:
                where = "during a solver call" if calls else "while building the formula"
                raise EnumerationError(f"time limit reached {where}", Status.TIMEOUT)
            raise _died(child.code, err, memory_mb)


def send_events(loop: Loop) -> bytes:
    """Run ``loop`` (in the child) and write its events to stdout, one line each, as they come."""

    def send(text: str) -> None:
        data = memoryview(text.encode())
        while data:
            data = data[os.write(1, data) :]

    try:  # each line at once: a call that never returns is counted, a solution never held back
        for found in loop(on_call=lambda: send("c\n")):
            send(f"s {found.weight} {' '.join(map(str, found.placement))}\n")
    except EnumerationError as e:
        send(f"e {e.status} {' '.join(str(e).split())}\n")
    return b""


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
