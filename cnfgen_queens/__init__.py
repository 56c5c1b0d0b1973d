"""cnfgen-queens: DIMACS generator and solver-agnostic SAT toolchain for N-queens.

The first statements below make the console scripts quiet on Ctrl-C, SIGTERM and SIGHUP
(a signal the caller ignores stays ignored) from the moment this package is imported
(:func:`quiet_exit`).  They use only modules Python has loaded before running any script
(``os``, ``sys``, the C module ``_signal``), so no file is searched for first.  What runs
before the package is imported is out of reach of any code of ours:
Python's own start-up (``site``, ``.pth`` files) and the pip-generated wrapper's
``import re`` and its search for the package; a Ctrl-C there still gets Python's
KeyboardInterrupt traceback (scripts/bench_startup_sigint.py measures how often).
"""

import os as _os
import sys as _sys

TYPE_CHECKING = False  # not typing's, which is not loaded yet (mypy takes the name as always true)
if TYPE_CHECKING:  # _signal has no stub; signal.py re-exports its functions
    import signal as _signal
else:  # not signal.py, which builds its enums first (milliseconds of start-up)
    import _signal

COMMANDS = ("cnfgen-queens", "gen-queens")


def quiet_exit(signum: int, frame: object) -> None:
    """A signal handler for start-up and shutdown (atexit handlers, finalizers): say so and leave at once,
    exit 128 + the signal number, no traceback."""
    name = _os.path.basename(_sys.argv[0]) if _sys.argv and _sys.argv[0] else COMMANDS[0]
    _os.write(2, f"{name}: {'interrupted' if signum == _signal.SIGINT else 'terminated'}\n".encode())
    _os._exit(128 + signum)


if _sys.argv and _os.path.basename(_sys.argv[0]) in COMMANDS:  # the console script, not a library import
    for _signum in (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP):
        if _signal.getsignal(_signum) != _signal.SIG_IGN:
            _signal.signal(_signum, quiet_exit)

__version__ = "0.1.0"
