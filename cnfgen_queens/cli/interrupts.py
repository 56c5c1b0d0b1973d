"""Ctrl-C and SIGTERM outside a subcommand's handlers: one line on stderr, exit 128+signal, no traceback.

Imported first by the CLI package: when this process is the console script, a
Ctrl-C during the imports of start-up (tens of ms) exits quietly at once.  Only
Python's own start-up before that (``site``, the script wrapper's ``import re``)
is out of reach.
"""

from __future__ import annotations

import os
import signal
import sys

COMMANDS = ("cnfgen-queens", "gen-queens")


def quiet_exit(signum: int, frame: object) -> None:
    """A signal handler for start-up and shutdown (atexit handlers, finalizers): say so and leave at once."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else COMMANDS[0]
    os.write(2, f"{name}: {'interrupted' if signum == signal.SIGINT else 'terminated'}\n".encode())
    os._exit(128 + signum)


if sys.argv and os.path.basename(sys.argv[0]) in COMMANDS:  # the console script, not a library import
    signal.signal(signal.SIGINT, quiet_exit)
