"""Shared CLI pieces: the error type, exit codes, argument types, output helpers."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, NoReturn

from cnfgen_queens.cnf.compressed import compressing
from cnfgen_queens.cnf.dimacs import atomic_output, check_writable

EXIT_USAGE = 2


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


@contextmanager
def output(path: str | None) -> Iterator[BinaryIO]:
    """Binary output: stdout when ``path`` is None or '-', else an atomically written file."""
    if path is None or path == "-":
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return

    target = Path(os.path.realpath(path))  # write through a symlink, not over it
    if target.exists() and not target.is_file():  # a FIFO or device: no rename, write into it
        try:
            with open(target, "wb") as f:
                yield f
        except OSError as e:
            fail(f"cannot write {path}: {e.strerror or e}")
        return
    try:
        check_writable(target)
    except OSError as e:
        fail(f"cannot write {path}: {e}")

    with atomic_output(target) as f:
        try:
            packed = compressing(f, target)
        except ValueError as e:
            fail(str(e))
        yield packed
        if packed is not f:
            packed.close()  # writes the compressed stream's end; f itself is closed by atomic_output
