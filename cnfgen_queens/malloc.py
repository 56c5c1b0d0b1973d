"""The C library's memory allocator, where it is glibc: :func:`mallopt` and the parameters the package sets.

Two uses: ``gen-queens`` keeps freed blocks for reuse (:func:`cnfgen_queens.cnf.writer.reuse_freed_memory`),
and an embedded run's child keeps to one arena under its memory limit
(:mod:`cnfgen_queens.solvers.fresh_process`).  Elsewhere (musl, macOS) nothing is set.
"""

from __future__ import annotations

import contextlib
import os

# mallopt()'s parameters (glibc's malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8


def mallopt(param: int, value: int) -> None:
    """glibc's ``mallopt(param, value)`` for this process; nothing where the C library is not glibc."""
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return
    except (ValueError, OSError):  # no such name: not glibc
        return
    import ctypes  # only the processes that set something load it

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).mallopt(param, value)  # the process's own C library
