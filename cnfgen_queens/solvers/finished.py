"""How a supervised run ended (:class:`Finished`), whichever runner ran it, and the output cap both poll.

Shared by the process-group runner (:mod:`.process`) and the cgroup runner (:mod:`.cgroup`),
so that neither imports the other's records.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

STDERR_KEEP = 64 * 1024  # bytes of a run's stderr kept (its tail)
MB = 1024 * 1024


@dataclass(frozen=True)
class Finished:
    """How a process run ended."""

    exit_code: int  # -signal when killed by a signal
    wall: float
    cpu: float | None  # user + system, of the process and its reaped children (cgroup: the whole tree)
    peak_memory_mb: float | None  # sampled peak resident set size (cgroup: of the whole tree)
    stdout: bytes  # run_forked: the child's bytes; run_process: empty, the output is in ``stdout_file``
    stderr: bytes  # run_process: the last STDERR_KEEP bytes
    timed_out: bool  # we stopped it at its time limit
    leftovers: int  # processes we had to kill after the main process ended
    stdout_file: Path | None = None
    output_exceeded: bool = False  # stopped because stdout + stderr passed the output limit
    memory_exceeded: bool = False  # the cgroup's memory limit was reached
    measured_by: str = "rusage"  # "cgroup" or "rusage"
    signals: tuple[tuple[str, float], ...] = ()  # what stopped it: (SIGTERM or SIGKILL, time.monotonic() then)


class OutputCap:
    """True once the output files together hold more than ``limit_mb`` (polled: a fast
    printer may overshoot by what it writes between two polls), or once ``abort`` is set (the
    input check beside the run found the input bad: the run is stopped as at the cap)."""

    def __init__(self, paths: Sequence[Path], limit_mb: int | None, abort: threading.Event | None = None) -> None:
        self.paths = tuple(paths)
        self.limit = None if limit_mb is None else limit_mb * MB
        self.hit = False
        self.abort = abort

    @property
    def aborted(self) -> bool:
        return self.abort is not None and self.abort.is_set()

    def __call__(self) -> bool:
        if self.aborted:
            return True
        if self.limit is None or self.hit:
            return self.hit
        total = 0
        for path in self.paths:
            with contextlib.suppress(OSError):
                total += os.stat(path).st_size
        self.hit = total > self.limit
        return self.hit


def tail(path: Path, size: int = STDERR_KEEP) -> bytes:
    """The last ``size`` bytes of a file (empty when it is missing)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - size))
            return f.read()
    except OSError:
        return b""


STDERR_MARK = b"\nc --- stderr ---\n"  # between a kept output's stdout and its stderr
RESULT_SUFFIX = ".result"  # a kept result file (MiniSat's style) beside the kept output, <run key>.result


def keep(run: Finished, path: Path, result_file: Path | None = None) -> None:
    """Write what the solver printed to ``path`` (atomically): its stdout, then its stderr (the last 64 KB) after
    :data:`STDERR_MARK`; a solver's ``result_file`` (where MiniSat writes its answer), when it wrote one, beside
    it with :data:`RESULT_SUFFIX`."""
    import shutil

    from cnfgen_queens.cnf.atomic import atomic_output

    with atomic_output(path, owned=path.parent) as out:  # a link planted there is refused, not followed
        if run.stdout_file is not None and run.stdout_file.exists():
            with open(run.stdout_file, "rb") as f:
                shutil.copyfileobj(f, out)
        else:
            out.write(run.stdout)
        if run.stderr:
            out.write(STDERR_MARK + run.stderr)
    if result_file is not None and result_file.is_file():
        kept = path.with_suffix(RESULT_SUFFIX)
        with atomic_output(kept, owned=kept.parent) as out, open(result_file, "rb") as f:
            shutil.copyfileobj(f, out)
