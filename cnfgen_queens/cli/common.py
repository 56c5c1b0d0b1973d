"""Shared CLI pieces: the error type, exit codes, argument types, output helpers."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, NoReturn

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


def positive_int(what: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be a positive integer, got {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{what} must be a positive integer, got {value}")
        return value

    parse.__name__ = what
    return parse


board_size = positive_int("N")


def positive_float(what: str) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be a positive number, got {text!r}") from None
        if not 0 < value < float("inf"):
            raise argparse.ArgumentTypeError(f"{what} must be a positive finite number, got {text}")
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
    from ..dimacs import atomic_output, check_writable

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
        yield f


def read_input(path: str | None) -> tuple[str, bytes]:
    """(name, bytes) of a file argument, or of stdin for None/'-'; a missing file is a usage error."""
    if path is None or path == "-":
        return "<stdin>", sys.stdin.buffer.read()
    try:
        return path, Path(path).read_bytes()
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror or e}")
