"""A solver's command as started: no Python code runs between fork and exec, whatever threads this process has.

A ``preexec_fn`` runs Python in the forked child, where a lock another thread held at the fork (malloc's,
logging's, the import lock, a Dask worker's) stays held for ever.  Instead the command is put behind small
programs that set up the child themselves and exec the next one, so that ``subprocess`` forks (``vfork``) and
execs with nothing in between: util-linux's ``setpriv --pdeathsig KILL`` (SIGKILL when the thread that
started it dies: a killed batch worker), ``prlimit --as`` (RLIMIT_AS, soft and hard) and, under BenchExec,
``/bin/sh`` writing its own pid into the run's cgroups before it execs the solver (:data:`JOIN`), so the
solver is in them from its first instruction.

util-linux is part of every Debian and Ubuntu system; where ``setpriv`` is missing the run does not die with
its parent (the runner still stops it at its limits), and where ``prlimit`` is missing the runner sets the
limit right after the start (:func:`resource.prlimit`), so the solver's first instants run without it.
"""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

# sh -c JOIN cgroup-join COUNT FILE... ARGV...: write this shell's pid (the run's: exec keeps it) into COUNT files
JOIN = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 126; shift; n=$((n - 1)); done; exec "$@"'


@lru_cache(maxsize=1)
def util_linux() -> tuple[str | None, str | None]:
    """The paths of util-linux's ``setpriv`` and ``prlimit`` (None where one is missing: not util-linux)."""
    return shutil.which("setpriv"), shutil.which("prlimit")


def command(argv: Sequence[str], memory_mb: int | None = None, cgroup_files: Sequence[str] = ()) -> list[str]:
    """``argv`` behind ``setpriv`` (dies with the starting thread), ``prlimit`` (RLIMIT_AS of ``memory_mb``; None:
    none) and, with ``cgroup_files`` (BenchExec's ``cgroup.procs`` or ``tasks`` files), the shell that joins them.
    The command's path is looked up here, as ``exec`` would: one that cannot start raises OSError, as
    ``subprocess`` does."""
    found = shutil.which(argv[0])
    if found is None:
        error = errno.EACCES if os.sep in argv[0] and Path(argv[0]).is_file() else errno.ENOENT
        raise OSError(error, os.strerror(error), argv[0])
    setpriv, prlimit = util_linux()
    started = [found, *argv[1:]]
    if cgroup_files:
        started = ["/bin/sh", "-c", JOIN, "cgroup-join", str(len(cgroup_files)), *cgroup_files, *started]
    if memory_mb is not None and prlimit is not None:
        started = [prlimit, f"--as={int(memory_mb) * 1024 * 1024}", "--", *started]
    if setpriv is not None:
        started = [setpriv, "--pdeathsig", "KILL", "--", *started]
    return started
