"""Errors that cross layers, and the one way a signal becomes one.

A :class:`UsageError` is the user's to fix (a bad option, file or value): the CLI
prints it as one line and exits 2.  Environment failures stay ``OSError`` (exit 1).
Signals: :func:`stop_on_signals`, the one policy, installed by the command's entry; :func:`whole`, work a
signal must not cut in two.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import sys
import threading
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")

TERMINATING = (signal.SIGTERM, signal.SIGHUP)
_program = ""  # the running command's name (``gen-queens``, ``cnfgen-queens solve``), set by the CLI


_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def printable(text: str) -> str:
    """``text`` (a path, a name, a command line) safe to put in one line: a DIMACS ``c`` line, a message.

    Every character that is not printable (control characters, line and paragraph separators, the
    surrogates a file name's undecodable bytes become) is written as an escape: ``\\n``, ``\\t``,
    ``\\r``, ``\\xNN`` (an undecodable byte too), ``\\uNNNN``.  Printable text, an ordinary name,
    comes back unchanged, so the bytes written for it stay the same.

    >>> printable("a\\nb.cnf"), printable("x\\x1b[31m"), printable("ordinary/name 1.cnf")
    ('a\\\\nb.cnf', 'x\\\\x1b[31m', 'ordinary/name 1.cnf')
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def _escape(ch: str) -> str:
    code = ord(ch)
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    if code < 0x100:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:  # a byte the file system's encoding could not decode (os.fsdecode)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def set_program(name: str) -> None:
    """Name the running command, so that warnings start as its errors do (``PROG: warning: ...``)."""
    global _program
    _program = name


def warn(message: str) -> None:
    """``PROG: warning: MESSAGE`` on stderr (just ``warning: ...`` outside a command)."""
    message = printable(message)  # one line, whatever names it holds
    print(f"{_program}: warning: {message}" if _program else f"warning: {message}", file=sys.stderr)


class UsageError(ValueError):
    """Bad input or options the user can fix: one line on stderr, exit 2 (the Python API raises it with the
    same message in its own words: :func:`python_words`).

    Examples:
        >>> import cnfgen_queens as cq
        >>> cq.queens(0)
        Traceback (most recent call last):
        ...
        cnfgen_queens.errors.UsageError: n must be a positive integer, got 0
    """


# The words of a message: the command line's (``--torus``, squares 1-based ``10,10``) or, inside
# :func:`python_words` (every function of the Python API), the API's (``torus=True``, squares as given,
# 0-based ``(9, 9)``).  Messages that name an option or a square build it with :func:`option`/:func:`square`.
_python_words: ContextVar[bool] = ContextVar("python_words", default=False)

# option -> (the API's parameter, whether the option is a switch: True is its only value)
PARAMETERS = {
    "--allow-large": ("allow_large", True), "--block-square": ("holes", False),
    "--break-symmetry": ("break_symmetry", True), "--certify": ("certify", False),
    "--check-all": ("check_all", True), "--column-alo": ("column_alo", True), "--encoding": ("encoding", False),
    "--engine": ("engine", False),
    "--executor": ("executor", False), "--group-size": ("group_size", False), "--jobs": ("jobs", False),
    "--limit": ("limit", False), "--memory-limit": ("memory_limit", False), "--place": ("place", False),
    "--random-place": ("random_place", False), "--require-checked": ("require_checked", True),
    "--scheduler": ("scheduler", False), "--seed": ("seed", False), "--shuffle": ("shuffle", False),
    "--solver": ("solver", False),
    "--symmetric": ("symmetric", True), "--time-limit": ("time_limit", False), "--torus": ("torus", True),
}  # fmt: skip


# The context managers below are classes, not contextlib's generators: a command's start-up does not load
# contextlib (with functools and collections, a quarter of Python's own start-up).


class python_words:
    """Messages raised inside name the Python API's parameters and 0-based squares, not the CLI's."""

    def __enter__(self) -> None:
        self._token = _python_words.set(True)

    def __exit__(self, *exc: object) -> None:
        _python_words.reset(self._token)


def from_python() -> bool:
    """Whether messages are in the Python API's words (inside :func:`python_words`)."""
    return _python_words.get()


def option(flag: str, value: object = None) -> str:
    """``flag`` (with ``value``) as the caller wrote it: ``--engine loop`` on the command line,
    ``engine='loop'`` from Python (``torus=True`` for a switch, ``place=`` for an option without its value;
    a value in capitals, ``K``, is the command line's placeholder, left out from Python).

    >>> option("--engine", "loop"), option("--torus")
    ('--engine loop', '--torus')
    >>> with python_words():
    ...     option("--engine", "loop"), option("--torus"), option("--place"), option("--block-square")
    ("engine='loop'", 'torus=True', 'place=', 'holes=')
    """
    if not _python_words.get() or flag not in PARAMETERS:
        return flag if value is None else f"{flag} {value}"
    name, switch = PARAMETERS[flag]
    if switch:
        return f"{name}=True"
    return f"{name}=" if value is None or (isinstance(value, str) and value.isupper()) else f"{name}={value!r}"


def either(cli: str, python: str) -> str:
    """``cli`` on the command line, ``python`` from the Python API (a way to do a thing that differs by door).

    >>> either("--plugin FILE.py", "cnfgen_queens.register_encoding")
    '--plugin FILE.py'
    """
    return python if _python_words.get() else cli


def square(row: int, column: int) -> str:
    """Square ``(row, column)`` (0-based) as the caller wrote it: ``10,10`` on the command line, ``(9, 9)``
    from Python.

    >>> square(9, 9)
    '10,10'
    >>> with python_words():
    ...     square(9, 9)
    '(9, 9)'
    """
    return f"({row}, {column})" if _python_words.get() else f"{row + 1},{column + 1}"


def square_range(n: int) -> str:
    """The rows and columns of an ``n`` board as the caller numbers them: ``1..n`` or, from Python, ``0..n-1``."""
    return f"0..{n - 1}" if _python_words.get() else f"1..{n}"


class InputError(UsageError):
    """An input file that cannot be read as what it is or claims to be; one line, naming the file (a
    compressed file's codec, :mod:`cnfgen_queens.cnf.compressed`; DIMACS, :class:`.dimacs.DimacsError`)."""


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, handled like Ctrl-C; ``exit_code`` is 128 + the signal number.

    >>> Terminated(signal.SIGTERM).exit_code, str(Terminated(signal.SIGHUP))
    (143, 'terminated (SIGHUP)')
    """

    def __init__(self, signum: int) -> None:
        super().__init__(f"terminated ({signal.Signals(signum).name})")
        self.signum = signum
        self.exit_code = 128 + signum


_installer = 0  # the process that installed :func:`stop_on_signals` (a forked child takes the default action)


def stop_on_signals() -> None:
    """The signal policy, installed by the command's entry: Ctrl-C (SIGINT) raises KeyboardInterrupt, SIGTERM
    and SIGHUP raise :class:`Terminated`, so that a command unwinds the same way for all three (its ``finally``
    blocks stop its solvers and workers and remove its temporary files) and says one line.  A signal the
    caller ignores (``nohup``, a script's background job) stays ignored.  What an unwinding cut short (a
    second signal, ``kill -9``) leaves is removed by the next command's sweep
    (:func:`~cnfgen_queens.cnf.atomic.sweep_work_dirs`).  Main thread only; elsewhere a no-op."""
    global _installer
    if threading.current_thread() is not threading.main_thread():
        return
    _installer = os.getpid()
    for sig in (signal.SIGINT, *TERMINATING):
        if signal.getsignal(sig) != signal.SIG_IGN:
            signal.signal(sig, _raise)
    if sys.unraisablehook is not _raise_again:
        global _hook_below
        _hook_below, sys.unraisablehook = sys.unraisablehook, _raise_again


def _raise(signum: int, frame: object) -> None:
    if os.getpid() != _installer:  # a forked child before it set its own handlers: the default action
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    raise KeyboardInterrupt if signum == signal.SIGINT else Terminated(signum)


_hook_below: Any = sys.__unraisablehook__  # the hook :func:`_raise_again` stands in front of


def _raise_again(info: Any) -> None:
    """``sys.unraisablehook`` under :func:`stop_on_signals`: a signal's exception raised where Python cannot raise
    (a finalizer, a weakref callback such as ``WeakSet._remove``) would be printed and dropped, and the command
    would run on; the signal is sent again a moment later instead, when the main thread has left the finalizer."""
    if isinstance(info.exc_value, KeyboardInterrupt) and os.getpid() == _installer:
        signum = getattr(info.exc_value, "signum", signal.SIGINT)
        again = threading.Timer(0.01, os.kill, (os.getpid(), signum))
        again.daemon = True
        again.start()
        return
    _hook_below(info)


AFTER_SIGNAL = 3.0  # seconds a signalled command waits for the work :func:`whole` runs to end


def whole(
    work: Callable[[], T],
    kept: Callable[[T], object] | None = None,
    after_signal: float = AFTER_SIGNAL,
    thread: Callable[[Callable[[], None]], object] | None = None,
) -> T:
    """``work()``, run in a thread of its own and waited for, so that a signal's exception (raised in the main
    thread only) does not cut it in two: a process started and not yet sent its task (a spawned pool worker
    read an empty pipe and printed multiprocessing's traceback under the command's one line), a cluster
    half-started that cannot be closed.  After a signal ``work`` is given ``after_signal`` seconds more to end;
    what it returned then goes to ``kept`` (which keeps it for the cleanup), and the signal's exception goes on.
    ``thread``: what runs it in a thread that lasts (``ThreadPoolExecutor.submit``), for a process whose death
    signal (``PR_SET_PDEATHSIG``) is tied to the thread that started it; by default a thread started for it.

    >>> whole(lambda: 6 * 7)
    42
    """
    outcome: list[tuple[bool, Any]] = []  # kept apart from the wake-up: a signal that reached another thread is
    woken: queue.SimpleQueue[None] = queue.SimpleQueue()  # seen only once get() has returned, and raises after it

    def run() -> None:  # one outcome, whatever happens
        try:
            outcome.append((True, work()))
        except BaseException as e:
            outcome.append((False, e))
        woken.put(None)

    if thread is None:
        threading.Thread(target=run, daemon=True, name="whole").start()
    else:
        thread(run)
    try:
        woken.get()  # C code: a signal's exception leaves no lock held
    except BaseException:
        if not outcome:
            with contextlib.suppress(queue.Empty):
                woken.get(timeout=after_signal)
        if outcome and outcome[0][0] and kept is not None:
            kept(outcome[0][1])
        raise
    done, got = outcome[0]
    if not done:
        raise got
    return got
