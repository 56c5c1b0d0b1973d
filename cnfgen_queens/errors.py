"""Errors that cross layers.

A :class:`UsageError` is the user's to fix (a bad option, file or value): the CLI
prints it as one line and exits 2.  Environment failures stay ``OSError`` (exit 1).
"""

from __future__ import annotations


class UsageError(ValueError):
    """Bad input or options the user can fix: one line on stderr, exit 2 (the Python API raises it with the
    same message).

    Examples:
        >>> import cnfgen_queens as cq
        >>> cq.queens(0)
        Traceback (most recent call last):
        ...
        cnfgen_queens.errors.UsageError: N must be a positive integer, got 0
    """
