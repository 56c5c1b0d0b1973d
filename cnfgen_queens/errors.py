"""Errors that cross layers, and the one way a signal becomes one.

A :class:`UsageError` is the user's to fix (a bad option, file or value): the CLI
prints it as one line and exits 2.  Environment failures stay ``OSError`` (exit 1).
SIGTERM and SIGHUP become :class:`Terminated` inside :func:`signals_raise` (every CLI command
runs in one), so they unwind exactly as Ctrl-C's KeyboardInterrupt does: solvers stopped,
temporary files and directories removed, results already found kept, exit 128 + the signal.
Library code that must clean up (atomic writes) runs in :func:`signals_unwind`, the same
handler for a caller that installed none: the process then exits 128 + the signal too.
"""

from __future__ import annotations

import os
import signal
import sys
from contextvars import ContextVar
from typing import Any

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


def _main_thread() -> bool:
    """Whether this is the main thread: no other runs Python code before threading is loaded (a command that
    starts none never loads it)."""
    threading = sys.modules.get("threading")
    return threading is None or threading.current_thread() is threading.main_thread()


_owner = 0  # the process whose signals_raise blocks are active; a forked child gets the default action
_depth = 0  # how many of them are active in _owner


def raise_terminated(signum: int, frame: object) -> None:
    """The handler of :func:`signals_raise`: raise :class:`Terminated` in the installing process only
    (a forked child that inherited it dies as if no handler were set, never unwinding its parent's files)."""
    if os.getpid() != _owner:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    raise Terminated(signum)


def restore_handlers(previous: dict[signal.Signals, Any]) -> None:
    """Put back the handlers of ``previous``, every one even when a signal raises on the way (its Terminated,
    or Ctrl-C's KeyboardInterrupt, is raised once they are all back)."""
    landed: KeyboardInterrupt | None = None
    for sig, handler in previous.items():
        while True:
            try:  # signal.signal runs a pending handler first, leaving the handler unchanged when it raises
                signal.signal(
                    sig, signal.SIG_DFL if handler is None else int(handler) if isinstance(handler, int) else handler
                )
                break
            except KeyboardInterrupt as e:
                landed = landed or e
    if landed is not None:
        raise landed


class signals_raise:
    """SIGTERM and SIGHUP raise :class:`Terminated` inside this block (main thread only; elsewhere a
    no-op); nested blocks are fine, each puts back exactly the handlers it found.  A signal the caller
    ignores (``nohup``, a script's background job) stays ignored; with ``over_default_only`` a handler
    the caller set stays too (only the default action is replaced).  Ctrl-C or Terminated raised in a
    finalizer, where Python prints and drops it, is sent again (:func:`_raise_again`)."""

    def __init__(self, *, over_default_only: bool = False) -> None:
        self.over_default_only, self.active = over_default_only, False

    def __enter__(self) -> None:
        global _owner, _depth, _hook_below
        if not _main_thread():
            return
        self.active = True
        pid, self.outer, self.hook = os.getpid(), (_owner, _depth), sys.unraisablehook
        self.previous: dict[signal.Signals, Any] = {}
        try:  # from the first handler on: a signal landing while the next one is set still puts both back
            _owner, _depth = pid, (_depth if _owner == pid else 0) + 1
            if self.hook is not _raise_again:
                _hook_below, sys.unraisablehook = self.hook, _raise_again
            for sig in TERMINATING:
                self.previous[sig] = signal.getsignal(sig)
                if self.previous[sig] == signal.SIG_DFL or (
                    self.previous[sig] != signal.SIG_IGN and not self.over_default_only
                ):
                    signal.signal(sig, raise_terminated)
        except BaseException:
            self._leave()
            raise

    def __exit__(self, *exc: object) -> None:
        if self.active:
            self._leave()

    def _leave(self) -> None:
        global _owner, _depth
        try:
            restore_handlers(self.previous)
        finally:
            _owner, _depth = self.outer
            sys.unraisablehook = self.hook


_hook_below: Any = sys.__unraisablehook__  # the hook _raise_again stands in front of


def _raise_again(info: Any) -> None:
    """``sys.unraisablehook`` inside :class:`signals_raise`: Ctrl-C or a :class:`Terminated` raised where Python
    cannot raise (a finalizer, a weakref callback such as ``WeakSet._remove``) would be printed and dropped;
    it is sent again instead, a moment later (by then the main thread has left the finalizer; if not, it
    comes back here and is sent again), so that it is raised in the command's own code."""
    import threading  # only when a signal landed in a finalizer

    main = threading.current_thread() is threading.main_thread()
    if isinstance(info.exc_value, KeyboardInterrupt) and main and os.getpid() == _owner:
        again = threading.Timer(0.01, os.kill, (os.getpid(), getattr(info.exc_value, "signum", signal.SIGINT)))
        again.daemon = True
        again.start()
        return
    _hook_below(info)  # anything else, or in a forked child: as the hook in place before


class signals_deferred:
    """Hold SIGINT, SIGTERM and SIGHUP for a step that must not be cut in half (removing a work directory,
    recording one just made); the first that came is handled on leaving, by the handler that was in place
    (its KeyboardInterrupt or Terminated raised, or the default action taken).  A signal the caller ignores
    stays ignored.  Main thread only (no other thread runs Python signal handlers); elsewhere a no-op."""

    def __enter__(self) -> None:
        self.active = _main_thread()
        if not self.active:
            return
        came: list[int] = []
        self.came = came
        self.previous: dict[signal.Signals, Any] = {}
        try:
            for sig in (signal.SIGINT, *TERMINATING):
                handler = signal.getsignal(sig)
                if handler not in (signal.SIG_IGN, None):
                    self.previous[sig] = handler
                    signal.signal(sig, lambda signum, frame: came.append(signum))
        except BaseException:
            self._leave()
            raise

    def __exit__(self, *exc: object) -> None:
        if self.active:
            self._leave()

    def _leave(self) -> None:
        restore_handlers(self.previous)
        if self.came:
            handler = self.previous[self.came[0]]  # type: ignore[index]
            if callable(handler):
                handler(self.came[0], None)
            else:  # SIG_DFL: the default action, now that the handler is back
                os.kill(os.getpid(), self.came[0])


class signals_unwind:
    """:func:`signals_raise` for library code that must clean up (an atomic write, a temporary directory).

    Under a caller's :func:`signals_raise` (every CLI command) the signal is that caller's
    :class:`Terminated`.  Otherwise the outermost such block turns it into ``SystemExit(128 + signal)``
    once everything inside has unwound, so that a program with the default handlers ends as it would
    have without us, exit 128 + the signal, only with its temporary files removed (an uncaught
    KeyboardInterrupt would make Python print a traceback and kill itself with SIGINT).  A handler the
    library's caller set is left in place: the caller decides what its signals do.
    """

    def __enter__(self) -> None:
        self.inner = not _main_thread() or bool(_depth and _owner == os.getpid())  # a caller's block: its signal
        self.raising = signals_raise(
            over_default_only=True
        )  # inside another too: a handler the caller set stays (a worker's)
        try:
            self.raising.__enter__()
        except Terminated as e:
            if self.inner:
                raise
            raise SystemExit(e.exit_code) from e

    def __exit__(self, kind: object, value: BaseException | None, tb: object) -> None:
        try:
            self.raising.__exit__(kind, value, tb)
        except Terminated as e:
            if self.inner:
                raise
            raise SystemExit(e.exit_code) from e
        if isinstance(value, Terminated) and not self.inner:
            raise SystemExit(value.exit_code) from value
