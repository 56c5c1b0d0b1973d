"""Whether an output path is one of a command's inputs, and whether a file is a SQLite database.

Two paths name the same file when they have the same device and inode (:func:`os.path.samefile`),
so a symlink or a hard link to an input is caught as well as its own name.  A path that does
not exist yet is no input.  Every command that writes checks its outputs with
:func:`refuse_alias` before it reads or writes anything.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..errors import UsageError

SQLITE_MAGIC = b"SQLite format 3\x00"


class OutputIsInput(UsageError):
    """An output path that is the same file as an input (or a database a table would replace)."""


def same_file(a: str | Path, b: str | Path) -> bool:
    """True when ``a`` and ``b`` both exist and are one file (same device and inode)."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def refuse_alias(output: str | Path | None, inputs: Iterable[str | Path | None], flag: str = "output") -> None:
    """Raise :class:`OutputIsInput` when ``output`` is the same file as any of ``inputs`` (None, '-' skipped)."""
    if output is None or str(output) == "-":
        return
    for given in inputs:
        if given is None or str(given) == "-":
            continue
        if same_file(output, given):
            alias = "" if str(given) == str(output) else f" ({given})"
            raise OutputIsInput(f"{flag} {output} is the same file as the input{alias}; it would be destroyed, "
                                "choose another file")  # fmt: skip


def is_sqlite(path: str | Path) -> bool:
    """True when ``path`` is a regular file that starts with SQLite's 16-byte header."""
    try:
        if not Path(path).is_file():
            return False
        with open(path, "rb") as f:
            return f.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def refuse_database(output: str | Path, flag: str = "output") -> None:
    """Raise :class:`OutputIsInput` when ``output`` is a SQLite database (a results file a table would replace)."""
    if is_sqlite(output):
        raise OutputIsInput(f"{flag} {output} is a SQLite database; a table or plot would replace it, "
                            "choose another file")  # fmt: skip
