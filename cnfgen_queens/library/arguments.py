"""Arguments of the Python API checked by the CLI's own argument types, so bounds and messages are the same;
a wrong type is Python's TypeError with a sentence, a missing file its FileNotFoundError."""

from __future__ import annotations

import argparse
import errno
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from cnfgen_queens.errors import UsageError

Cell = tuple[int, int]


def checked(parse: Callable[[str], int], value: object, name: str) -> int:
    """The integer ``value`` of parameter ``name`` through the CLI's own argument check (so the bounds and
    messages are the CLI's); TypeError for anything but an int, UsageError for a value out of bounds."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    try:
        return parse(str(value))
    except argparse.ArgumentTypeError as e:
        message = str(e)  # "N must be ...", or a bare "must be ..." that argparse prefixes with the flag
        raise UsageError(f"{name} {message}" if message.startswith("must ") else message) from None


def cells(value: Iterable[Cell], name: str) -> list[Cell]:
    """The squares of parameter ``name`` as 0-based ``(row, column)`` tuples: TypeError for anything but
    pairs of integers, UsageError for a tuple of another length (their bounds are the variant's to check)."""
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise TypeError(f"{name} takes (row, column) pairs of 0-based integers, got {value!r}")
    out = []
    for cell in value:
        if not (isinstance(cell, tuple | list) and all(type(x) is int for x in cell)):
            raise TypeError(f"{name} takes (row, column) pairs of 0-based integers, got {cell!r}")
        if len(cell) != 2:
            raise UsageError(f"{name}: expected (row, column) pairs of 0-based integers, got {cell!r}")
        out.append((cell[0], cell[1]))
    return out


def existing(path: str | os.PathLike[str], what: str) -> Path:
    """``path``, or FileNotFoundError (Python's own, with the path) when there is nothing there."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(errno.ENOENT, f"no such {what}", str(path))
    return path
