"""Where a request's work runs: how many workers, on which executor, the Dask scheduler, and the
directory a durable loop keeps its state in (``--out DIR``, ``--resume``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cnfgen_queens.errors import UsageError, option

EXECUTORS = ("local", "dask", "slurm")


@dataclass(frozen=True)
class Where:
    """``jobs`` workers on ``executor`` (local forked processes, Dask at ``scheduler``, Dask workers as SLURM
    jobs); ``workdir``: the external loop's directory (a temporary one when None), ``resume`` it."""

    jobs: int = 1
    executor: str = "local"
    scheduler: str | None = None
    workdir: Path | None = None
    resume: bool = False

    def __post_init__(self) -> None:
        if self.scheduler is not None and self.executor != "dask":  # used by nothing else: refused, not ignored
            raise UsageError(f"{option('--scheduler')} needs {option('--executor', 'dask')}")

    @property
    def parallel(self) -> bool:
        """More than one worker, or workers elsewhere: what only the cube engines do."""
        return self.jobs > 1 or self.executor != "local"


ONE_WORKER = Where()  # this process, or one local worker where a deadline must be able to stop it
