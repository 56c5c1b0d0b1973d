"""Inputs that can be read only once, and inputs held for a whole run.

A FIFO or a pipe (a process substitution ``<(gen-queens 8)`` is ``/dev/fd/63``) gives its bytes once: a
command that reads its input twice (a header, then the body; the solver, then the model check) got the rest
of the stream the second time ("no 'p cnf' header line"), and a FIFO with no writer blocked ``open`` for
ever.  :func:`readable` spools such an input to a file of a work directory the tool owns (waiting at most
:data:`WRITER_WAIT` seconds for a writer, and never past the deadline) and gives that file instead; a regular
file is given as it is.  ``solve``, ``decode``, ``block``, ``merge`` and ``stats`` all read their inputs
through it.

:func:`held` opens a regular file once and gives ``/proc/PID/fd/N`` (PID: this process): every later read of
it, by this process, a forked child or a solver, reads the file that was opened, whatever happens to its
name meanwhile (a directory renamed away and replaced by a link to another one's: the solver read that
other file, and the run ended in the solver's parse error).
"""

from __future__ import annotations

import io
import os
import select
import stat
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from cnfgen_queens.bounds import once_only

from ..limits import NEVER, Deadline
from .atomic import work_dir
from .compressed import MAGIC_BYTES, InputError, by_magic, by_name

STDIN = "-"  # the input's name for stdin, spooled as a pipe is
WRITER_WAIT = 10.0  # seconds a FIFO may give nothing (no writer yet) before the command gives up: one line
SPOOL_CHUNK = 1 << 20


class NoWriter(InputError):
    """A FIFO that nothing wrote into (nor closed) within :data:`WRITER_WAIT` seconds."""


@dataclass(frozen=True)
class Readable:
    """What to read instead of an input: ``path``, as often as needed; ``whole`` is False when the deadline
    came before a spooled input ended (what came is there: a run on it is a TIMEOUT)."""

    path: Path
    whole: bool = True


@contextmanager
def readable(path: str | Path, deadline: Deadline = NEVER, *, wait: float = WRITER_WAIT) -> Iterator[Readable]:
    """``path`` itself, or for a FIFO or pipe (or ``-``, stdin) a copy of what it gave, in a work directory
    removed when the block ends, named as ``path`` is (its extension still says how it is compressed; when
    it has none, one its bytes name).  NoWriter (one line) when a FIFO gave nothing within ``wait`` seconds."""
    if path != STDIN and not once_only(path):
        yield Readable(Path(path))
        return
    with work_dir("spool") as tmp:
        if path == STDIN:
            yield Readable(*_stdin_to_file(tmp, deadline))
            return
        copy = tmp / (Path(path).name or "input")
        whole = _spool(str(path), copy, deadline, wait)
        with open(copy, "rb") as f:
            codec = by_magic(f.read(MAGIC_BYTES))
        if codec is not None and by_name(copy) is None:  # a pipe's name (63) says nothing: its bytes do
            copy = copy.rename(copy.with_name(copy.name + codec.suffix))
        yield Readable(copy, whole)


def _stdin_to_file(tmpdir: Path, deadline: Deadline) -> tuple[Path, bool]:
    """Spool stdin to a file as it is (no parsing), named by its compression so solvers can read it; (the
    file, whether it is whole: False when the deadline came first, as a slow pipe is never waited on past it).
    Stdin that ends before any byte is an InputError; one that says nothing is waited on as long as the
    deadline allows (a producer may take its time: stdin is what the user chose to give)."""

    def ready() -> bool:  # stdin has bytes (or its end) before the deadline
        left = deadline.left()
        return fd is None or left is None or bool(select.select([fd], [], [], left)[0])

    stdin = sys.stdin.buffer
    try:
        fd: int | None = stdin.fileno()
    except (OSError, ValueError):  # a stream in memory (io.UnsupportedOperation): never waits
        fd = None
    buffered = stdin if isinstance(stdin, io.BufferedReader) else None
    head = buffered.peek(MAGIC_BYTES)[:MAGIC_BYTES] if buffered is not None and ready() else b""
    codec = by_magic(head)
    path = tmpdir / ("stdin.cnf" + (codec.suffix if codec else ""))
    with open(path, "wb") as f:
        f.write(buffered.read1() if buffered is not None and head else b"")  # what peek buffered; then the fd
        whole = False
        while not (expired := deadline.expired()) and ready():
            if not (data := stdin.read(SPOOL_CHUNK) if fd is None else os.read(fd, SPOOL_CHUNK)):
                whole = True
                break
            f.write(data)
        empty = f.tell() == 0
    if empty and not expired:
        raise InputError("no input on stdin")
    return path, whole


def _spool(path: str, copy: Path, deadline: Deadline, wait: float) -> bool:
    """Copy the FIFO or pipe ``path`` to ``copy`` until its end (True) or the deadline (False)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # a FIFO's open waits for no writer
    try:
        with open(copy, "wb") as out:
            first = time.monotonic() + wait  # nothing by then: no writer
            got = False
            while True:
                left = deadline.left()
                timeout = left if got else min(max(0.0, first - time.monotonic()), left if left is not None else wait)
                if not select.select([fd], [], [], timeout)[0]:
                    if deadline.expired():
                        return False
                    if not got and time.monotonic() >= first:
                        raise NoWriter(f"{path}: nothing came in {wait:g} s (a FIFO with no writer?)")
                    continue
                try:
                    data = os.read(fd, SPOOL_CHUNK)
                except BlockingIOError:
                    continue
                if not data:  # the writer closed it
                    return True
                got = True
                out.write(data)
    finally:
        os.close(fd)


@contextmanager
def held(path: Path) -> Iterator[Path]:
    """``/proc/PID/fd/N`` of ``path`` opened now (a regular file), while the block runs; ``path`` itself where
    there is no such file (no /proc) or it is not a regular file (the reader's own error then applies)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        yield path  # the reader names the error
        return
    try:
        by_fd = Path(f"/proc/{os.getpid()}/fd/{fd}")
        yield by_fd if stat.S_ISREG(os.fstat(fd).st_mode) and by_fd.exists() else path
    finally:
        os.close(fd)
