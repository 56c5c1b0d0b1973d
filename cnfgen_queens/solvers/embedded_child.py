"""The embedded solver's run in a fresh process, for a caller whose other threads forbid a fork.

``python -m cnfgen_queens.solvers.embedded_child REQUEST MEMORY_MB PARENT``: the run's arguments come
pickled in the file REQUEST (written by :mod:`.embedded`: the solver's name, the formula, whether a proof is
wanted), the answer goes pickled to stdout (a file of the runner's), an error as one line on stderr with
exit 1.  The process is started as a solver binary is (:func:`.process.run_process`: its own session,
the wall-clock limit, SIGTERM then SIGKILL, no orphan) but without a ``preexec_fn`` (Python code run
between fork and exec is what a thread's held lock can hang): it sets its own limits here, before it
solves, as a forked child did: SIGKILL when PARENT (the pid that started it) dies, and RLIMIT_AS of
MEMORY_MB (0: none) on top of what it holds once numpy, pysat and the arguments are loaded.
"""

from __future__ import annotations

import os
import pickle
import resource
import sys

from .embedded import _pickled_answer, load_solver_modules
from .process import held_size
from .reaper import die_with_parent

MB = 1024 * 1024


def main(argv: list[str]) -> int:
    request, memory_mb, parent = argv[0], int(argv[1]), int(argv[2])
    die_with_parent()
    if os.getppid() != parent:  # the parent died before the line above: nobody waits for this run
        return 1
    try:
        load_solver_modules()  # before the limit, as a fork inherited them loaded
        with open(request, "rb") as f:
            name, cnf, want_proof = pickle.load(f)  # our own parent's bytes
        if memory_mb:
            limit = held_size() + memory_mb * MB
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        answer = _pickled_answer(name, cnf, want_proof)
    except BaseException as e:  # as a forked child says it: one line, exit 1 (MemoryError, a bad backend)
        os.write(2, f"{type(e).__name__}: {e}\n".encode())
        return 1
    data = memoryview(answer)
    while data:
        data = data[os.write(1, data) :]
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
