"""Whether an output path is one of a command's inputs, and whether a file is a SQLite database.

Two paths name the same file when they have the same device and inode (:func:`os.path.samefile`),
so a symlink or a hard link to an input is caught as well as its own name.  A path that does
not exist yet is no input.  Every command that writes checks its outputs with
:func:`refuse_alias` before it reads or writes anything.
"""

from __future__ import annotations

import os
import stat
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


Input = str | Path | tuple[str, str | Path | None] | None  # a path, or (its flag, its path)


def _identities(inputs: Iterable[Input]) -> dict[tuple[int, int], tuple[str, str | Path]]:
    """(device, inode) -> (flag or '', path) of every input that exists (None and '-' skipped)."""
    found: dict[tuple[int, int], tuple[str, str | Path]] = {}
    for given in inputs:
        flag, path = given if isinstance(given, tuple) else ("", given)
        if path is None or str(path) == "-":
            continue
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            continue
        found.setdefault((st.st_dev, st.st_ino), (flag, path))
    return found


def refuse_alias(
    output: str | Path | None, inputs: Iterable[Input], flag: str = "output", *, own: Iterable[str] | None = None
) -> None:
    """Raise :class:`OutputIsInput` when an output is the same file (device and inode) as any of ``inputs``
    (paths, or (flag, path) pairs; None and '-' skipped): the one check of every command, before any work.

    ``output`` is a file, or with ``own`` a directory the command writes into: then each of ``own``
    (names relative to it, globs allowed, the files the command writes there) is compared."""
    if output is None or str(output) == "-":
        return
    given = _identities(inputs)
    if not given:
        return
    if own is None:
        hit = _identity(output)
        if hit in given:
            path = given[hit][1]
            alias = "" if str(path) == str(output) else f" ({path})"
            raise OutputIsInput(
                f"{flag} {output} is the same file as the input{alias}; it would be destroyed, choose another file"
            )
        return
    directory = Path(output)
    for name in own:
        for where in sorted(directory.glob(name)) if any(c in name for c in "*?[") else [directory / name]:
            hit = _identity(where)
            if hit in given:
                in_flag, path = given[hit]
                raise OutputIsInput(
                    f"{in_flag or 'the input'} {path} is the same file as {where}, which {flag} {output} writes: "
                    f"it would be destroyed; move it, or choose another {flag} directory"
                )


def refuse_repeated(outputs: Iterable[tuple[str, str | Path | None]]) -> None:
    """Raise :class:`OutputIsInput` when two of ``outputs`` ((flag, path) pairs; None and '-' skipped) name
    one file: the same path (``a.csv``, ``./a.csv``, a link to it, a file not made yet), or the same device
    and inode (a hard link); one would be written over the other.  A FIFO or character device is written
    into, not replaced: naming it twice is fine (``--csv /dev/null --json /dev/null``)."""
    seen: dict[object, tuple[str, str | Path]] = {}
    for flag, path in outputs:
        if path is None or str(path) == "-":
            continue
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            st = None
        if st is not None and (stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode)):
            continue
        keys: list[object] = [os.path.realpath(path)]
        if st is not None:
            keys.append((st.st_dev, st.st_ino))
        for key in keys:
            if key in seen:
                first, where = seen[key]
                raise OutputIsInput(
                    f"{flag} {path} is the same file as {first} {where}: one would be written "
                    "over the other; choose two files"
                )
        for key in keys:
            seen[key] = (flag, path)


def _identity(path: str | Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


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
        raise OutputIsInput(
            f"{flag} {output} is a SQLite database; a table or plot would replace it, choose another file"
        )
