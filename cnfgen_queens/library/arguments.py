"""Arguments of the Python API checked by the CLI's own argument types, so bounds and messages are the same."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable

from cnfgen_queens.errors import UsageError

Cell = tuple[int, int]


def checked(parse: Callable[[str], int], value: object) -> int:
    """``value`` through the CLI's own argument check (so the bounds and messages are the CLI's)."""
    if isinstance(value, bool) or not isinstance(value, int):
        value = repr(value)  # "N must be a positive integer, got '8.0'"
    try:
        return parse(str(value))
    except argparse.ArgumentTypeError as e:
        raise UsageError(str(e)) from None


def cells(value: Iterable[Cell], what: str) -> list[Cell]:
    cells = []
    for cell in value:
        if not (isinstance(cell, tuple | list) and len(cell) == 2 and all(type(x) is int for x in cell)):
            raise UsageError(f"{what}: expected (row, column) pairs of 0-based integers, got {cell!r}")
        cells.append((cell[0], cell[1]))
    return cells
