"""Shared CLI pieces: the error type, exit codes, argument types, output helpers."""

from __future__ import annotations

import errno
import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Iterable, Iterator
    from contextlib import AbstractContextManager
    from pathlib import Path
    from typing import BinaryIO, NoReturn

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


def type_error(message: str) -> argparse.ArgumentTypeError:
    """The error an argparse type raises (argparse is loaded then, not at start-up)."""
    import argparse

    return argparse.ArgumentTypeError(message)


def positive_int(what: str, maximum: int | None = None, why: str = "") -> Callable[[str], int]:
    """An argparse type: an integer in 1..maximum (checked on the text's length first, so a number of
    thousands of digits is refused at once)."""

    def parse(text: str) -> int:
        try:
            value = int(text) if maximum is None or len(text.strip()) <= 30 else None
        except ValueError:
            raise type_error(f"{what} must be a positive integer, got {text!r}") from None
        if value is not None and value <= 0:
            raise type_error(f"{what} must be a positive integer, got {value}")
        if value is None or (maximum is not None and value > maximum):  # None: too long for any maximum
            shown = text if len(text) <= 30 else text[:27] + "..."
            raise type_error(f"{what} must be at most {maximum}{why}, got {shown}")
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
            raise type_error(f"{prefix}must be a non-negative integer, got {text!r}") from None
        if value < 0:
            raise type_error(f"{prefix}must be a non-negative integer, got {value}")
        return value

    parse.__name__ = what or "non-negative integer"
    return parse


def positive_float(what: str, maximum: float = float("inf")) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise type_error(f"{what} must be a positive number, got {text!r}") from None
        if not 0 < value < float("inf"):
            raise type_error(f"{what} must be a positive finite number, got {text}")
        if value > maximum:
            raise type_error(f"{what} must be at most {maximum:.0f} seconds, got {text}")
        return value

    parse.__name__ = what
    return parse


WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS, errno.EPIPE, errno.ENXIO})


def output(
    path: str | None, inputs: Iterable[str | Path | None] = (), flag: str = "-o"
) -> AbstractContextManager[BinaryIO]:
    """Binary output: stdout when ``path`` is None or '-', else an atomically written file.

    ``path`` must not be the same file as any of ``inputs`` (exit 2).  A FIFO or character device is
    written into (no rename; :func:`cnfgen_queens.cnf.atomic.output_target`): a FIFO without a reader is
    refused at once, not waited on; a directory, socket or block device is refused (exit 2).  A failed
    write (a full disk, /dev/full) is one line ``cannot write PATH: ...`` and exit 1; the bytes are on
    disk (fsync) when the block ends without one.
    """
    if path is None or path == "-":
        return _Stdout()
    return contextmanager(_to_file)(path, inputs, flag)


class _Stdout:
    """stdout's binary stream, flushed when the block ends without an exception."""

    def __enter__(self) -> BinaryIO:
        return sys.stdout.buffer

    def __exit__(self, kind: object, *rest: object) -> None:
        if kind is None:
            sys.stdout.buffer.flush()


def _to_file(path: str, inputs: Iterable[str | Path | None], flag: str) -> Iterator[BinaryIO]:
    """:func:`output` to a file (a generator for :func:`contextlib.contextmanager`)."""
    from cnfgen_queens.cnf.atomic import atomic_output
    from cnfgen_queens.cnf.compressed import compressing
    from cnfgen_queens.cnf.same_file import refuse_alias

    refuse_alias(path, inputs, flag)
    check_output_path(path)
    try:
        with atomic_output(path, stream=True) as f:
            try:
                packed = compressing(f, path)
            except ValueError as e:
                fail(str(e))
            yield packed
            if packed is not f:
                packed.close()  # writes the compressed stream's end; f itself is closed by atomic_output
    except OSError as e:
        write_failed(path, e)


def check_output_path(path: str | Path) -> None:
    """Before any work: a stream output ``path`` that is a directory, socket or block device (exit 2), or
    that cannot be written (exit 2), is one line."""
    from cnfgen_queens.cnf.atomic import NotAFile, check_output_target

    try:
        check_output_target(path, stream=True)
    except NotAFile as e:
        fail(str(e))
    except OSError as e:
        fail(f"cannot write {path}: {e}")


def write_failed(path: str | Path, e: OSError) -> NoReturn:
    """A write that failed under way: a full disk, a FIFO with no reader, an I/O error is one line, exit 1;
    anything else is raised again."""
    if e.filename in (None, str(path)) and e.errno in WRITE_ERRNOS:
        fail(f"cannot write {path}: {e.strerror or e}", EXIT_ENVIRONMENT)
    raise e
