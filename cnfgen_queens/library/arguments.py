"""The Python API's edge: every argument checked once, by its parameter's name, before any work.

:func:`edge` wraps each public function: the arguments whose parameter is in :data:`CHECKS` are checked and
normalized there (a parameter means the same in every function: ``time_limit``, ``solver``, ``torus``...),
and every message inside is in the API's words (:func:`~cnfgen_queens.errors.python_words`).  A wrong type is
Python's TypeError naming the parameter; a bad value a UsageError (a ValueError) through the CLI's own argument
check, so bounds and messages are the CLI's with the parameter's name as subject; a missing file Python's
FileNotFoundError; a switch takes True or False only.  A parameter whose default is None also takes None.
"""

from __future__ import annotations

import argparse
import errno
import functools
import inspect
import io
import os
import shlex
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import ParamSpec, TypeVar

from cnfgen_queens.cli.arg_groups import memory_limit_type, time_limit_type
from cnfgen_queens.cli.common import board_size, line_length, non_negative_int, positive_int
from cnfgen_queens.errors import UsageError, python_words
from cnfgen_queens.execution.where import EXECUTORS
from cnfgen_queens.solutions.api import ENGINES

Cell = tuple[int, int]
Check = Callable[[object, str], object]
P = ParamSpec("P")
R = TypeVar("R")


def checked(parse: Callable[[str], int | float], value: object, name: str, number: bool = False) -> int:
    """The integer (with ``number``, int or float) ``value`` of parameter ``name`` through the CLI's own
    argument check, its message's subject (``N``, ``memory limit``) replaced by ``name``; TypeError for
    anything else than an int (or float), UsageError for a value out of bounds."""
    kinds = (int, float) if number else (int,)
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise TypeError(f"{name} must be {'a number' if number else 'an integer'}, got {value!r}")
    try:
        return parse(str(value))  # type: ignore[return-value]
    except argparse.ArgumentTypeError as e:
        message = str(e)  # "N must be ...", "memory limit must be ...", or a bare "must be ..."
        raise UsageError(f"{name} must {message.split('must ', 1)[-1]}") from None


def integer(parse: Callable[[str], int] | None = None) -> Check:
    """An integer checked by ``parse`` (a CLI argument type); any int without it."""
    return lambda value, name: checked(parse or int, value, name)


def number(parse: Callable[[str], float]) -> Check:
    """An int or float checked by ``parse`` (a CLI argument type)."""
    return lambda value, name: checked(parse, value, name, number=True)


def switch(value: object, name: str) -> bool:
    """True or False, nothing else (``torus="no"`` would be true)."""
    if type(value) is not bool:
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value


def text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {value!r}")
    return value


def choice(values: tuple[str, ...]) -> Check:
    def check(value: object, name: str) -> str:
        if text(value, name) not in values:
            raise UsageError(f"unknown {name} {value!r}; valid: {', '.join(values)}")
        return str(value)

    return check


def path(value: object, name: str) -> Path:
    if not isinstance(value, str | os.PathLike):
        raise TypeError(f"{name} must be a path (a str or a pathlib.Path), got {value!r}")
    return Path(value)


def existing(value: object, name: str) -> Path:
    """The path of ``value``, or Python's FileNotFoundError naming the parameter and the path."""
    found = path(value, name)
    if not found.exists():
        raise FileNotFoundError(errno.ENOENT, f"{name}: no such file", str(found))
    return found


def words(value: object, name: str) -> tuple[str, ...]:
    """Arguments: a string is split as a shell splits it (``"-verb=0 --seed=1"``), or a sequence of strings."""
    if isinstance(value, str):
        try:
            return tuple(shlex.split(value))
        except ValueError as e:
            raise UsageError(f"{name}: {str(e).lower()} in {value!r}") from None
    out = tuple(value) if isinstance(value, Iterable) else None
    if out is None or not all(isinstance(w, str) for w in out):
        raise TypeError(f"{name} must be a string or a sequence of strings, got {value!r}")
    return out


def literals(value: object, name: str) -> list[int]:
    """Signed integer literals (a model, the literals of a line)."""
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be an iterable of integer literals, got {value!r}")
    out = list(value)
    wrong = [x for x in out if type(x) is not int]
    if wrong:
        raise TypeError(f"{name} must hold integer literals, got {wrong[0]!r}")
    return out


def cells(value: object, name: str) -> list[Cell]:
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


def target(value: object, name: str) -> object:
    """Where ``Formula.write`` writes: a path, or a file open for writing bytes (or text with bytes underneath)."""
    if isinstance(value, str | os.PathLike):
        return Path(value)
    if not callable(getattr(value, "write", None)) or (
        isinstance(value, io.TextIOBase) and not hasattr(value, "buffer")
    ):
        raise TypeError(f"{name} must be a path or a binary file (open(..., 'wb'), io.BytesIO()), got {value!r}")
    return value


def pool(value: object, name: str) -> object:
    """A variable pool: ours (``top`` and ``new``) or PySAT's ``IDPool`` (``top`` and ``id``)."""
    if not (hasattr(value, "top") and (hasattr(value, "new") or hasattr(value, "id"))):
        raise TypeError(f"{name} must be a pysat.formula.IDPool or a VarPool, got {value!r}")
    return value


# parameter -> its check, the same in every function of the API (the CLI's bounds and messages where it has them)
CHECKS: dict[str, Check] = {
    "n": integer(board_size),
    "length": integer(line_length("line length")),
    "group_size": integer(line_length("group size")),
    "random_place": integer(non_negative_int()),
    "seed": integer(non_negative_int()),
    "shuffle": integer(non_negative_int()),
    "jobs": integer(positive_int("jobs")),
    "limit": integer(positive_int("limit")),
    "row": integer(),
    "column": integer(),
    "time_limit": number(time_limit_type()),
    "memory_limit": integer(memory_limit_type()),
    **dict.fromkeys(("encoding", "solver", "scheduler"), text),
    "engine": choice(ENGINES),
    "executor": choice(EXECUTORS),
    **dict.fromkeys(
        (
            "torus",
            "column_alo",
            "break_symmetry",
            "symmetric",
            "allow_large",
            "comments",
            "require_checked",
            "check_all",
            "fresh",
            "retry_errors",
            "progress",
            "as_frame",
        ),
        switch,
    ),
    "solver_args": words,
    "solvers_file": existing,
    "path": existing,
    "certify": path,
    "place": cells,
    "holes": cells,
    "model": literals,
    "lits": literals,
    "target": target,
    "pool": pool,
}


def edge(function: Callable[P, R]) -> Callable[P, R]:
    """``function`` with its arguments checked by :data:`CHECKS` first (converted: ``solver_args`` split into
    words, paths made ``Path``) and its messages in the API's words."""
    signature = inspect.signature(function)
    optional = {name for name, p in signature.parameters.items() if p.default is None}

    @functools.wraps(function)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        with python_words():
            bound = signature.bind(*args, **kwargs)
            for name, value in bound.arguments.items():
                if name in CHECKS and not (value is None and name in optional):
                    bound.arguments[name] = CHECKS[name](value, name)
            return function(*bound.args, **bound.kwargs)

    return call
