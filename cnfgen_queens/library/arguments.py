"""Arguments of the Python API checked by the CLI's own argument types, so bounds and messages are the same."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable

from cnfgen_queens.errors import UsageError

Cell = tuple[int, int]


def checked(parse: Callable[[str], int], value: object, name: str) -> int:
    """The integer ``value`` of parameter ``name`` through the CLI's own argument check (so the bounds and
    messages are the CLI's); UsageError for anything else."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{name} must be an integer, got {value!r}")
    try:
        return parse(str(value))
    except argparse.ArgumentTypeError as e:
        raise UsageError(str(e)) from None


def cells(value: Iterable[Cell], name: str) -> list[Cell]:
    """The squares of parameter ``name`` as 0-based ``(row, column)`` tuples; UsageError for anything else
    (their bounds are the variant's to check, with the CLI's words)."""
    out = []
    for cell in value:
        if not (isinstance(cell, tuple | list) and len(cell) == 2 and all(type(x) is int for x in cell)):
            raise UsageError(f"{name}: expected (row, column) pairs of 0-based integers, got {cell!r}")
        out.append((cell[0], cell[1]))
    return out
