"""The embedded blocking loop in a fresh process, for a caller whose other threads forbid a fork.

``python -c ... loop_child MEMORY_MB PARENT`` (:func:`~cnfgen_queens.solvers.embedded.fresh_python`): the
loop comes pickled on stdin (a module-level callable taking ``on_call``), its events go to stdout as
:mod:`.forked_loop`'s forked child sends them, an error as one line on stderr with exit 1.  It sets its own
limits before the loop, as the fork did: SIGKILL when PARENT dies, RLIMIT_AS of MEMORY_MB (0: none) on top
of what it holds once numpy and pysat are loaded.
"""

from __future__ import annotations

import os
import pickle
import resource
import sys

from cnfgen_queens.solvers.embedded import load_solver_modules
from cnfgen_queens.solvers.process import held_size
from cnfgen_queens.solvers.reaper import die_with_parent

from .forked_loop import send_events

MB = 1024 * 1024


def main(argv: list[str]) -> int:
    memory_mb, parent = int(argv[0]), int(argv[1])
    die_with_parent()
    if os.getppid() != parent:  # the parent died before the line above: nobody reads these events
        return 1
    try:
        loop = pickle.loads(sys.stdin.buffer.read())  # our own parent's bytes
        load_solver_modules()  # before the limit, as a fork inherited them loaded
        if memory_mb:
            limit = held_size() + memory_mb * MB
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        send_events(loop, 1)
    except BaseException as e:  # as the forked child says it: one line, exit 1
        os.write(2, f"{type(e).__name__}: {e}\n".encode())
        return 1
    return 0
