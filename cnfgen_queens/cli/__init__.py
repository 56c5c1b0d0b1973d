"""Command-line entry points: ``cnfgen-queens SUBCOMMAND`` and ``gen-queens``.

Each subcommand lives in its own module ``cli/<name>.py`` with
``add_arguments(parser)`` and ``run(args) -> int`` (its one-line help is in
:data:`SUBCOMMANDS`); only the chosen one is imported.  Options several subcommands share are
defined once, in :mod:`.arg_groups`; argparse reads every command line (:mod:`.parsing`).
``main(argv)`` is callable in-process.  The console entry points (:func:`entry`, :func:`gen_entry`)
run the whole command inside one ``try``: Ctrl-C anywhere in it is one line and exit 130.  Before
them, from the package's first statements, :func:`cnfgen_queens.quiet_exit` answers the same; while
a subcommand runs, Ctrl-C raises KeyboardInterrupt and SIGTERM/SIGHUP raise
:class:`~cnfgen_queens.errors.Terminated` (:func:`~cnfgen_queens.errors.stop_on_signals`, installed by
:func:`_guard`), one unwinding for all three (a signal the caller
ignores stays ignored).
"""

from __future__ import annotations

import argparse
import errno
import gc
import importlib
import os
import shlex
import signal
import sys
from collections.abc import Callable, Sequence
from types import ModuleType

from .. import quiet_exit
from ..errors import TERMINATING, UsageError, printable, set_program, stop_on_signals
from ..version import __version__
from .common import EXIT_USAGE, CliError, Exit, fail
from .parsing import Parser as Parser
from .parsing import build

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
    "check-encoding": ("check_encoding", "the conformance gate of an at-most-one encoding (built-in or plugin)"),
    "batch": ("batch", "run a YAML-configured grid of experiments"),
    "report": ("report", "tables and plots from a results database"),
    "bundle": ("bundle", "pack a results database with what produced it into one archive a reader can rerun"),
    "rerun": ("rerun", "rerun a bundle's experiment here (instances and solvers checked first)"),
    "stats": ("stats", "instance features of a CNF: sizes, clause lengths, polarity, VIG degrees, modularity"),
}


# subcommands whose options are defined apart from their run: ``--help`` loads only this module
ARGUMENTS = {"solve": "solve_args"}

SWEEPING = frozenset({"solve", "enumerate", "count", "check-count", "batch"})  # the commands with work directories


def _module(name: str, arguments: bool = False) -> ModuleType:
    """The module of subcommand ``name``, or (``arguments``) the one that defines its options."""
    base = SUBCOMMANDS[name][0]
    return importlib.import_module(f"{__name__}.{ARGUMENTS.get(name, base) if arguments else base}")


def _build(name: str, prog: str) -> tuple[argparse.ArgumentParser, ModuleType]:
    """(the parser of subcommand ``name``, the module that defines its options)."""
    module = _module(name, arguments=True)
    return build(name, prog, module, SUBCOMMANDS[name][1], __version__), module


def _run(name: str, prog: str, argv: Sequence[str], command: str) -> int:
    set_program(prog)  # warnings start as errors do (while the command runs: main may be called again)
    try:
        args = _build(name, prog)[0].parse_args(list(argv))
        if getattr(args, "plugin", None):  # before anything reads an encoding name (one line if one fails)
            from cnfgen_queens.encodings.plugin_loading import load_plugins

            load_plugins(args.plugin)
        module = _module(name)
        if name in SWEEPING:  # what a kill -9 of an earlier run left in $TMPDIR (only dead processes' ones)
            from cnfgen_queens.cnf.atomic import sweep_work_dirs

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
    stop_on_signals()  # Ctrl-C, SIGTERM and SIGHUP: one exception, caught below
    try:
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


def main(argv: Sequence[str] | None = None) -> int:
    """``cnfgen-queens SUBCOMMAND ...``"""
    argv = list(sys.argv[1:] if argv is None else argv)
    prog = "cnfgen-queens"
    if not argv or argv[0] in ("-h", "--help", "-V", "--version"):
        return _guard(prog, _top_level, argv)
    name = argv[0]
    if name not in SUBCOMMANDS:
        return _guard(prog, fail, f"unknown subcommand {name!r}; valid: {', '.join(SUBCOMMANDS)}")
    return _guard(f"{prog} {name}", _run, name, f"{prog} {name}", argv[1:], shlex.join([prog, *argv]))


def _top_level(argv: list[str]) -> int:
    """``cnfgen-queens`` alone (usage, exit 2), ``--help`` or ``--version``; in ``_guard`` like every command
    (``cnfgen-queens --help | head -1`` is a closed pipe, not a traceback)."""
    if argv and argv[0] in ("-V", "--version"):
        print(f"cnfgen-queens {__version__}")
        return 0
    print(usage())
    return 0 if argv else EXIT_USAGE


def gen_main(argv: Sequence[str] | None = None) -> int:
    """``gen-queens N ...`` (the same as ``cnfgen-queens gen``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    return _guard("gen-queens", _run, "gen", "gen-queens", argv, shlex.join(["gen-queens", *argv]))


def _console(prog: str, run: Callable[[], int]) -> None:
    """Run a console command, its whole body in one ``try``: Ctrl-C raises KeyboardInterrupt while it runs,
    and one that lands outside :func:`_guard`'s handlers (before, after, or in them) is the same one line
    and exit 130.  Before and after, :func:`cnfgen_queens.quiet_exit` answers (the package set it at import;
    it is set back here, inside the ``try``, for the atexit handlers and finalizers that run next).  A signal
    the caller ignores stays ignored."""
    try:
        if signal.getsignal(signal.SIGINT) != signal.SIG_IGN:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        code = run()
        _quiet()  # signal.signal runs a pending handler first: a Ctrl-C landing here is caught below
    except KeyboardInterrupt as e:
        print(f"{prog}: {str(e) or 'interrupted'}", file=sys.stderr)
        code = getattr(e, "exit_code", 130)
        _quiet()
    gc.freeze()  # the heap is not searched for cycles at exit: 50-90 ms of CPU less for solve and count
    sys.exit(code)  # (scripts/bench_startup.py --exit), 0.2-0.8 s of wall at a load of 18 on 2 cores


def _quiet() -> None:
    """:func:`cnfgen_queens.quiet_exit` for SIGINT, SIGTERM and SIGHUP (a signal the caller ignores stays ignored)."""
    for sig in (signal.SIGINT, *TERMINATING):
        if signal.getsignal(sig) != signal.SIG_IGN:
            signal.signal(sig, quiet_exit)


def entry() -> None:
    _console("cnfgen-queens", main)


def gen_entry() -> None:
    _console("gen-queens", gen_main)


def build_parser(name: str, prog: str | None = None) -> argparse.ArgumentParser:
    """The parser of subcommand NAME, as its ``--help`` shows it (the docs' CLI reference renders it)."""
    return _build(name, prog or f"cnfgen-queens {name}")[0]


def usage() -> str:
    """What ``cnfgen-queens --help`` prints: the subcommands and their one-line help."""
    prog = "cnfgen-queens"
    lines = [f"usage: {prog} SUBCOMMAND [options]   ({prog} SUBCOMMAND --help)", "", "subcommands:"]
    width = max(map(len, SUBCOMMANDS))
    return "\n".join([*lines, *(f"  {name:<{width}}  {text}" for name, (_, text) in SUBCOMMANDS.items())])
