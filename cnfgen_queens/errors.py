"""Errors that cross layers, and the one way a signal becomes one.

A :class:`UsageError` is the user's to fix (a bad option, file or value): the CLI
prints it as one line and exits 2.  Environment failures stay ``OSError`` (exit 1).
SIGTERM and SIGHUP become :class:`Terminated` inside :func:`signals_raise` (every CLI command
runs in one), so they unwind exactly as Ctrl-C's KeyboardInterrupt does: solvers stopped,
temporary files and directories removed, results already found kept, exit 128 + the signal.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

TERMINATING = (signal.SIGTERM, signal.SIGHUP)


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


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, handled like Ctrl-C; ``exit_code`` is 128 + the signal number.

    >>> Terminated(signal.SIGTERM).exit_code, str(Terminated(signal.SIGHUP))
    (143, 'terminated (SIGHUP)')
    """

    def __init__(self, signum: int) -> None:
        super().__init__(f"terminated ({signal.Signals(signum).name})")
        self.signum = signum
        self.exit_code = 128 + signum


_owner = 0  # the process that installed raise_terminated; a forked child gets the default action


def raise_terminated(signum: int, frame: object) -> None:
    """The handler of :func:`signals_raise`: raise :class:`Terminated` in the installing process only
    (a forked child that inherited it dies as if no handler were set, never unwinding its parent's files)."""
    if os.getpid() != _owner:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    raise Terminated(signum)


@contextmanager
def signals_raise() -> Iterator[None]:
    """SIGTERM and SIGHUP raise :class:`Terminated` inside this block (main thread only; elsewhere a
    no-op).  A signal the caller ignores (``nohup``, a script's background job) stays ignored."""
    global _owner
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in TERMINATING}
    owner, _owner = _owner, os.getpid()
    for sig, handler in previous.items():
        if handler != signal.SIG_IGN:
            signal.signal(sig, raise_terminated)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
        _owner = owner
