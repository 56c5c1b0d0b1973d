"""Why a results file cannot be written, said as the environment's fault (exit 1), never as SQLite's words.

SQLite reports a full disk as ``OperationalError: database or disk is full``, a file size limit as
``disk I/O error`` and a folder the user may not write in as ``unable to open database file``;
:func:`unwritable` turns each into one sentence naming the results file and the cause.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path


class ResultsUnwritable(OSError):
    """The results file (or the batch's instance cache beside it) cannot be written (a full disk, a read-only
    folder, a failing write): exit 1."""


KEPT = "; the runs stored before are kept (run the batch again to continue)"


def unwritable(path: Path, error: sqlite3.Error) -> ResultsUnwritable | None:
    """The sentence for ``error``, raised writing (or creating) the results file ``path``, when it is the
    environment's (the disk, the folder, the file system); None for anything else (e.g. not a database)."""
    name, text = getattr(error, "sqlite_errorname", "") or "", str(error)
    if name == "SQLITE_FULL" or "disk is full" in text:
        why = "the disk is full" + KEPT
    elif name.startswith("SQLITE_IOERR") or "disk I/O error" in text:
        why = "a write failed (disk I/O error: a full disk, a file size limit or a failing disk)" + KEPT
    elif name.startswith("SQLITE_CANTOPEN") or "unable to open" in text:
        folder = path.parent
        if not os.access(folder, os.W_OK | os.X_OK):
            why = f"its folder {folder} is not writable (permissions, or a read-only file system)"
        else:
            why = "it cannot be opened or created there (unable to open database file)"
    elif name.startswith("SQLITE_READONLY") or "readonly" in text:
        why = "it is read-only (the file, its folder or the file system)"
    else:
        return None
    return ResultsUnwritable(f"cannot write the results file {path}: {why}")


def cache_full(cache: Path, error: BaseException) -> ResultsUnwritable | None:
    """The sentence for writing an instance into the batch's ``cache`` on a full disk (or over a quota), which
    stops the batch as a full results file does; None for any other failure (that instance's alone)."""
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return ResultsUnwritable(f"cannot write the instance cache {cache}: the disk is full{KEPT}")
    return None
