"""Command-line entry points: ``cnfgen-queens SUBCOMMAND`` and ``gen-queens``.

Each subcommand lives in its own module ``cli/<name>.py`` with
``add_arguments(parser)`` and ``run(args) -> int`` (its one-line help is in
:data:`SUBCOMMANDS`); only the chosen one is imported, so start-up stays fast.
Options several subcommands share are defined once, in :mod:`.arg_groups`.
``main(argv)`` is callable in-process.  The signal handlers of start-up are
installed by the package's first statement (:func:`cnfgen_queens.quiet_exit`); while a
subcommand runs, Ctrl-C raises KeyboardInterrupt and SIGTERM/SIGHUP raise
:class:`~cnfgen_queens.errors.Terminated`, one unwinding for all three (a signal the caller
ignores stays ignored).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import signal
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, NoReturn

from .. import quiet_exit
from ..cnf.atomic import sweep_work_dirs
from ..errors import TERMINATING, UsageError, printable, set_program, signals_raise
from ..version import __version__
from .common import EXIT_USAGE, CliError, Exit, fail

# name -> (module, one-line help); the order is the order of --help
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "gen": ("gen", "generate the N-queens CNF (the same as gen-queens)"),
    "solve": ("solve", "run a SAT solver on a CNF and check its answer"),
    "solvers": ("solvers", "list known solvers: found or not, path, version"),
    "decode": ("decode", "turn solver output into a board"),
    "block": ("block", "blocking clause(s) for the placement in solver output (unshuffled cell names)"),
    "merge": ("merge", "append blocking clauses to a CNF (renamed by its shuffle), fixing the header"),
    "enumerate": ("enumerate", "list every solution (blocking-clause loop)"),
    "count": ("count", "count every solution (by cubes, or the blocking-clause loop)"),
    "check-count": ("check_count", "check a count certificate (count N --certify DIR) and print the certified count"),
    "batch": ("batch", "run a YAML-configured grid of experiments"),
    "report": ("report", "tables and plots from a results database"),
    "stats": ("stats", "instance features of a CNF: sizes, clause lengths, polarity, VIG degrees, modularity"),
}


SWEEPING = frozenset({"solve", "enumerate", "count", "check-count", "batch"})  # the commands with work directories


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors and exit 2; no abbreviations (``--n 5`` is not ``--no-comments``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise CliError(message, EXIT_USAGE)


def _build(name: str, prog: str) -> tuple[argparse.ArgumentParser, ModuleType]:
    module = importlib.import_module(f"{__name__}.{SUBCOMMANDS[name][0]}")
    text = SUBCOMMANDS[name][1]
    if name == "gen" and prog == "gen-queens":
        text = text.removesuffix(" (the same as gen-queens)")
    parser = Parser(prog=prog, description=text)
    parser.add_argument("-V", "--version", action="version", version=f"%(prog)s {_version()}")
    module.add_arguments(parser)
    return parser, module


def _version() -> str:
    return __version__


def _run(name: str, prog: str, argv: Sequence[str], command: str) -> int:
    set_program(prog)  # warnings start as errors do (while the command runs: main may be called again)
    try:
        parser, module = _build(name, prog)
        args = parser.parse_args(list(argv))
        if name in SWEEPING:  # what a kill -9 of an earlier run left in $TMPDIR (only dead processes' ones)
            sweep_work_dirs()
        args.command_line = command
        args.prog = prog
        return int(module.run(args))
    finally:
        set_program("")


_WRITE_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)


def _drop_stdout() -> None:
    """Send what is still buffered for stdout to /dev/null, so the flush at exit says nothing more (a stdout
    with no file descriptor, as when ``main`` is called with stdout captured in memory, is left alone)."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError):  # io.UnsupportedOperation
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def _guard(prog: str, fn: Callable[..., int], *a: object) -> int:
    try:
        with signals_raise():  # SIGTERM and SIGHUP unwind as Ctrl-C does
            code = fn(*a)
        sys.stdout.flush()  # a full disk or a closed reader surfaces here, not at exit
        return code
    except CliError as e:  # every message is one line: a name in it is escaped (errors.printable)
        print(f"{prog}: error: {printable(str(e))}", file=sys.stderr)
        return e.code
    except UsageError as e:  # raised below the CLI: the user's to fix
        print(f"{prog}: error: {printable(str(e))}", file=sys.stderr)
        return EXIT_USAGE
    except Exit as e:
        return e.code
    except KeyboardInterrupt as e:  # Ctrl-C; or Terminated (SIGTERM, SIGHUP)
        print(f"{prog}: {str(e) or 'interrupted'}", file=sys.stderr)  # an exception is always truthy
        return getattr(e, "exit_code", 130)
    except MemoryError:  # the environment: a memory limit (ulimit -v, a cgroup) below what the input needs
        print(f"{prog}: error: out of memory (raise the memory limit, or give a smaller input)", file=sys.stderr)
        _drop_stdout()
        return 1
    except BrokenPipeError:
        _drop_stdout()  # the reader went away (e.g. `| head`); silence the flush at exit
        return 141
    except OSError as e:  # the environment: a full disk, an I/O error, a name too long
        where = f"{e.filename}: " if e.filename else "output: " if e.errno in _WRITE_ERRORS else ""
        print(f"{prog}: error: {printable(where + str(e.strerror or e))}", file=sys.stderr)
        _drop_stdout()
        return 1
    except Exception as e:  # never a traceback for the user
        if os.environ.get("CNFGEN_QUEENS_DEBUG"):
            raise
        print(
            f"{prog}: error: {type(e).__name__}: {printable(str(e))} (set CNFGEN_QUEENS_DEBUG=1 for a traceback)",
            file=sys.stderr,
        )
        return 1


def _command(prog: str, argv: Sequence[str]) -> str:
    import shlex

    return shlex.join([prog, *argv])


def main(argv: Sequence[str] | None = None) -> int:
    """``cnfgen-queens SUBCOMMAND ...``"""
    argv = list(sys.argv[1:] if argv is None else argv)
    prog = "cnfgen-queens"
    if not argv or argv[0] in ("-h", "--help", "-V", "--version"):
        return _guard(prog, _top_level, argv)
    name = argv[0]
    if name not in SUBCOMMANDS:
        return _guard(prog, fail, f"unknown subcommand {name!r}; valid: {', '.join(SUBCOMMANDS)}")
    return _guard(f"{prog} {name}", _run, name, f"{prog} {name}", argv[1:], _command(prog, argv))


def _top_level(argv: list[str]) -> int:
    """``cnfgen-queens`` alone (usage, exit 2), ``--help`` or ``--version``; in ``_guard`` like every command
    (``cnfgen-queens --help | head -1`` is a closed pipe, not a traceback)."""
    if argv and argv[0] in ("-V", "--version"):
        print(f"cnfgen-queens {_version()}")
        return 0
    print(usage())
    return 0 if argv else EXIT_USAGE


def gen_main(argv: Sequence[str] | None = None) -> int:
    """``gen-queens N ...`` (the same as ``cnfgen-queens gen``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    return _guard("gen-queens", _run, "gen", "gen-queens", argv, _command("gen-queens", argv))


def _exit(run: Callable[[], int]) -> None:
    """Run a console command; Ctrl-C raises KeyboardInterrupt only while it runs, quietly before and after
    (SIGTERM and SIGHUP likewise); a signal the caller ignores stays ignored."""
    if signal.getsignal(signal.SIGINT) != signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        code = run()
    except KeyboardInterrupt as e:  # one that landed outside _guard's try (or in its handlers)
        code = getattr(e, "exit_code", 130)
    for sig in (signal.SIGINT, *TERMINATING):  # atexit handlers and finalizers run next
        if signal.getsignal(sig) != signal.SIG_IGN:
            signal.signal(sig, quiet_exit)
    sys.exit(code)


def entry() -> None:
    _exit(main)


def gen_entry() -> None:
    _exit(gen_main)


def build_parser(name: str, prog: str | None = None) -> argparse.ArgumentParser:
    """The parser of subcommand NAME, as its ``--help`` shows it (the docs' CLI reference renders it)."""
    return _build(name, prog or f"cnfgen-queens {name}")[0]


def usage() -> str:
    """What ``cnfgen-queens --help`` prints: the subcommands and their one-line help."""
    prog = "cnfgen-queens"
    lines = [f"usage: {prog} SUBCOMMAND [options]   ({prog} SUBCOMMAND --help)", "", "subcommands:"]
    width = max(map(len, SUBCOMMANDS))
    return "\n".join([*lines, *(f"  {name:<{width}}  {text}" for name, (_, text) in SUBCOMMANDS.items())])
