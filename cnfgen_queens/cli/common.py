"""Shared CLI pieces: the error type, exit codes, argument types, output helpers."""

from __future__ import annotations

import argparse
import contextlib
import errno
import fcntl
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, NoReturn

from cnfgen_queens.cnf.compressed import compressing
from cnfgen_queens.cnf.dimacs import atomic_output, check_writable
from cnfgen_queens.cnf.same_file import refuse_alias

EXIT_USAGE = 2
EXIT_ENVIRONMENT = 1  # a file that cannot be written, a disk that is full


class CliError(Exception):
    """An error reported as one line on stderr, with an exit code (2: usage)."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


class Exit(Exception):
    """Leave the subcommand quietly with an exit code (what was to be said is said)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    raise CliError(message, code)


def positive_int(what: str, maximum: int | None = None, why: str = "") -> Callable[[str], int]:
    """An argparse type: an integer in 1..maximum (checked on the text's length first, so a number of
    thousands of digits is refused at once)."""

    def parse(text: str) -> int:
        try:
            value = int(text) if maximum is None or len(text.strip()) <= 30 else None
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be a positive integer, got {text!r}") from None
        if value is not None and value <= 0:
            raise argparse.ArgumentTypeError(f"{what} must be a positive integer, got {value}")
        if value is None or (maximum is not None and value > maximum):  # None: too long for any maximum
            shown = text if len(text) <= 30 else text[:27] + "..."
            raise argparse.ArgumentTypeError(f"{what} must be at most {maximum}{why}, got {shown}")
        return value

    parse.__name__ = what
    return parse


MAX_N = 46340  # formula.MAX_N, repeated so that parsing arguments imports nothing
board_size = positive_int("N", MAX_N, " (N*N cell variables within the DIMACS limit of 2^31-1)")


def line_length(what: str) -> Callable[[str], int]:
    """A positive integer no larger than the longest line of the largest board."""
    return positive_int(what, MAX_N, " (the longest line of the largest board)")


def non_negative_int(what: str = "") -> Callable[[str], int]:
    """An argparse type: an integer >= 0 (a seed, a count); ``what`` starts the message."""
    prefix = f"{what} " if what else ""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{prefix}must be a non-negative integer, got {text!r}") from None
        if value < 0:
            raise argparse.ArgumentTypeError(f"{prefix}must be a non-negative integer, got {value}")
        return value

    parse.__name__ = what or "non-negative integer"
    return parse


def positive_float(what: str, maximum: float = float("inf")) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be a positive number, got {text!r}") from None
        if not 0 < value < float("inf"):
            raise argparse.ArgumentTypeError(f"{what} must be a positive finite number, got {text}")
        if value > maximum:
            raise argparse.ArgumentTypeError(f"{what} must be at most {maximum:.0f} seconds, got {text}")
        return value

    parse.__name__ = what
    return parse


WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS, errno.EPIPE})


@contextmanager
def output(path: str | None, inputs: Iterable[str | Path | None] = (), flag: str = "-o") -> Iterator[BinaryIO]:
    """Binary output: stdout when ``path`` is None or '-', else an atomically written file.

    ``path`` must not be the same file as any of ``inputs`` (exit 2).  A FIFO or device is written
    into (no rename): a FIFO without a reader is refused at once, not waited on.  A failed write
    (a full disk, /dev/full) is one line ``cannot write PATH: ...`` and exit 1; the bytes are on
    disk (fsync) when the block ends without one.
    """
    if path is None or path == "-":
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    refuse_alias(path, inputs, flag)
    target = Path(os.path.realpath(path))  # write through a symlink, not over it
    if target.exists() and not target.is_file():  # a FIFO or device: no rename, write into it
        with _special(path, target) as f:
            yield f
        return
    try:
        check_writable(target)
    except OSError as e:
        fail(f"cannot write {path}: {e}")
    try:
        with atomic_output(target) as f:
            try:
                packed = compressing(f, target)
            except ValueError as e:
                fail(str(e))
            yield packed
            if packed is not f:
                packed.close()  # writes the compressed stream's end; f itself is closed by atomic_output
    except OSError as e:
        if e.filename is None and e.errno in WRITE_ERRNOS:
            fail(f"cannot write {path}: {e.strerror or e}", EXIT_ENVIRONMENT)
        raise


@contextmanager
def _special(path: str, target: Path) -> Iterator[BinaryIO]:
    """A FIFO or device opened for writing without blocking: a FIFO nobody reads is an error (ENXIO)."""
    if target.is_dir():
        fail(f"cannot write {path}: it is a directory")
    try:
        fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        why = "a FIFO with no reader" if e.errno == errno.ENXIO else (e.strerror or str(e))
        fail(f"cannot write {path}: {why}", EXIT_ENVIRONMENT)
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)  # then write as usual
    f = os.fdopen(fd, "wb")
    try:
        yield f
        f.flush()
    except OSError as e:
        if e.filename is None and e.errno in WRITE_ERRNOS:
            fail(f"cannot write {path}: {e.strerror or e}", EXIT_ENVIRONMENT)
        raise
    finally:
        with contextlib.suppress(OSError):  # the error, if any, was reported by the flush above
            f.close()
