"""cnfgen-queens: DIMACS generator and solver-agnostic SAT toolchain for N-queens.

It writes the N-queens formula with any of 16 at-most-one encodings (and its variants: placed queens,
blocked squares, the torus), runs any SAT solver on it under time and memory limits and checks the
answer, decodes, enumerates and counts solutions, and runs experiment grids with a report.  The
commands are ``gen-queens`` and ``cnfgen-queens``; from Python, the same in five lines (the README's):

    import cnfgen_queens as cq
    f = cq.queens(8, encoding="commander")
    out = cq.solve(f)
    print(cq.decode(out.model, f))
    print(cq.count(f).total)

The Python API's names (:mod:`cnfgen_queens.library`, re-exported here): ``queens``, ``Formula``,
``list_encodings``, ``at_most_one``, ``register_encoding``, ``check_encoding``, ``solve``, ``Solved``,
``decode``, ``Board``, ``blocking_clause``, ``enumerate_solutions``, ``count``, ``Count``, ``run_batch``,
``load_results``; ``help(cq.NAME)`` tells more.  They are imported on first use (PEP 562 ``__getattr__``),
so the commands never load them.

The clock.  The first statement takes the time (:data:`STARTED`): a console command's ``--time-limit``
counts from there, the earliest instant of ours in every command (this package is imported first).  Not
from the process's start, which the kernel counts from the fork: a job script that sets up, then
execs the command, would lose its setup time.  What it leaves out, Python's own start-up before
this import, is a few tens of milliseconds, within the half second the limit's schedule leaves.

Ctrl-C and termination.  The first statements below make the console scripts quiet on Ctrl-C, SIGTERM
and SIGHUP (a signal the caller ignores stays ignored) from the moment this package is imported
(:func:`quiet_exit`), before anything but ``time``, ``os``, ``signal`` and ``sys`` is imported; from
then on the console entry points (:mod:`cnfgen_queens.cli`) take over.  What runs before the package is
imported is out of reach of any code of ours:
Python's own start-up (``site``, ``.pth`` files) and the pip-generated wrapper's
``import re`` and its search for the package; a Ctrl-C there still gets Python's
KeyboardInterrupt traceback (scripts/bench_startup_sigint.py measures how often).  So are the
statements of this module up to the ``_signal.signal(..., quiet_exit)`` call that sets the
SIGINT handler: Python runs a pending handler at a module's first instruction, and
``signal.signal`` runs it before it changes the handler, so a Ctrl-C that arrives before then
gets the same traceback, pointing at one of these lines.  Keep them as few as they are.
"""

from time import monotonic as _monotonic  # built in (no file searched), loaded before any script runs

STARTED = _monotonic()  # when our code started: a console command's --time-limit counts from here

import os as _os  # noqa: E402
import signal as _signal  # noqa: E402
import sys as _sys  # noqa: E402

COMMANDS = ("cnfgen-queens", "gen-queens")


def quiet_exit(signum: int, frame: object) -> None:
    """A signal handler for start-up and shutdown (atexit handlers, finalizers): say so and leave at once,
    exit 128 + the signal number, no traceback."""
    name = _os.path.basename(_sys.argv[0]) if _sys.argv and _sys.argv[0] else COMMANDS[0]
    _os.write(2, f"{name}: {'interrupted' if signum == _signal.SIGINT else 'terminated'}\n".encode())
    _os._exit(128 + signum)


# the console script; not a library import, nor a worker multiprocessing spawned from it (given its argv; a
# SIGTERM while it started printed this handler's line under the command's)
if _sys.argv and _os.path.basename(_sys.argv[0]) in COMMANDS and "multiprocessing" not in _sys.modules:
    for _signum in (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP):
        if _signal.getsignal(_signum) != _signal.SIG_IGN:
            _signal.signal(_signum, quiet_exit)

import importlib as _importlib  # noqa: E402 (after the Ctrl-C handler: first things first)
from typing import TYPE_CHECKING  # noqa: E402

from cnfgen_queens.version import __version__  # noqa: E402

if TYPE_CHECKING:  # the API's names, typed for checkers; at run time __getattr__ loads them on first use
    from typing import Any

    from cnfgen_queens.library import (
        DEFAULT_SOLVER,
        Board,
        Count,
        EncodingSize,
        Formula,
        Solved,
        UsageError,
        at_most_one,
        blocking_clause,
        check_encoding,
        count,
        decode,
        enumerate_solutions,
        list_encodings,
        load_results,
        queens,
        register_encoding,
        run_batch,
        solve,
    )

# the names of cnfgen_queens.library re-exported here (tests/library/test_api.py checks them against its __all__);
# none may be the name of a subpackage or module of ours (tests/library/test_api_names.py checks that too)
__all__ = [
    "DEFAULT_SOLVER",
    "Board",
    "Count",
    "EncodingSize",
    "Formula",
    "Solved",
    "UsageError",
    "__version__",
    "at_most_one",
    "blocking_clause",
    "check_encoding",
    "count",
    "decode",
    "enumerate_solutions",
    "list_encodings",
    "load_results",
    "queens",
    "register_encoding",
    "run_batch",
    "solve",
]
_LIBRARY = frozenset(__all__) - {"__version__"}


def __getattr__(name: str) -> "Any":
    """A name of the Python API, from :mod:`cnfgen_queens.library` (imported now, not at start-up)."""
    if name in _LIBRARY:
        value = getattr(_importlib.import_module(f"{__name__}.library"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LIBRARY})
