"""SLURM: Dask workers started as SLURM jobs (dask-jobqueue's ``SLURMCluster``), one core and one run
at a time each; what they ask SLURM for.  The executor is :class:`.executors.SlurmExecutor`.

Why Dask workers in jobs and not one ``sbatch`` array task per run: a batch's runs are often tiny
(milliseconds for small N) and the cube counter's groups tinier, so a job per run would pay SLURM's
scheduling and a Python start-up per run; a worker job runs many.  The batch process stays the only
writer of the results file (it receives every result), so the SQLite store needs no merging.  The
cost: compute nodes must reach the batch's host over TCP (the Dask scheduler runs in the batch).

Limits: each job asks SLURM for one run's limits plus a margin (:func:`job_limits`); the run inside
keeps its own limits and measurement (the runner, BenchExec cgroups where the node allows).  Jobs that
end while the batch runs (``scancel``, a node going down, the wall time) are submitted anew, so the
cluster keeps its size; Dask gives their runs to other workers.  A worker whose batch died (even by
SIGKILL) ends itself after :data:`DEATH_TIMEOUT` seconds, and SLURM then ends the job.
"""

from __future__ import annotations

import math
import signal
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from typing import Any

from cnfgen_queens.errors import UsageError

TIME_MARGIN = 60.0  # seconds a job asks beyond one run's time limit (plus 10 %): start-up, model check
MEMORY_MARGIN = 512  # MB a job asks beyond one run's memory limit: the Dask worker and our runner
DEFAULT_RUN_MEMORY = 1024  # MB per run when the run has no memory limit (SLURM needs a figure)
MIN_JOB_TIME = 3600  # seconds: a job runs many runs, so it asks at least an hour unless told
DEATH_TIMEOUT = 30  # seconds a worker waits for a batch that is gone before it ends (and its job)
HEAL_EVERY = 5.0  # seconds between looks at the jobs (squeue) while the batch runs
# squeue states of a job that holds (or will hold) a worker; not COMPLETING: its worker is gone
ALIVE = {"PENDING", "CONFIGURING", "RUNNING", "SUSPENDED", "REQUEUED", "RESIZING", "REQUEUE_HOLD"}


@dataclass(frozen=True)
class SlurmSettings:
    """What the jobs ask SLURM for (the YAML's ``slurm:`` section; None: SLURM's default or derived)."""

    jobs: int = 1  # jobs at once, each one core running one run at a time
    partition: str | None = None
    account: str | None = None
    time: float | None = None  # seconds per job (None: from the run's time limit, at least an hour)
    memory: int | None = None  # MB per job (None: the run's memory limit plus the margin)
    sbatch: tuple[str, ...] = ()  # extra sbatch options, one per '#SBATCH' line: '--qos=short'
    log_dir: str | None = None  # the jobs' stdout and stderr (None: SLURM's default, the working directory)


def needed(run_time: float | None, run_memory: int | None) -> tuple[int, int]:
    """(seconds, MB) a job needs to hold one run of these limits, margins included."""
    seconds = math.ceil((run_time or 0.0) * 1.1 + TIME_MARGIN)
    return seconds, (run_memory or DEFAULT_RUN_MEMORY) + MEMORY_MARGIN


def job_limits(settings: SlurmSettings, run_time: float | None, run_memory: int | None) -> tuple[int, int]:
    """(seconds, MB) each job asks: the settings', or one run's limits with the margins; UsageError when
    the settings' are too small to hold one run."""
    need_time, need_memory = needed(run_time, run_memory)
    seconds = math.ceil(settings.time) if settings.time is not None else max(MIN_JOB_TIME, need_time)
    memory = settings.memory if settings.memory is not None else need_memory
    if seconds < need_time:
        raise UsageError(
            f"slurm time {seconds} s per job cannot hold one run of {run_time} s (with the margin: {need_time} s)"
        )
    if memory < need_memory:
        raise UsageError(
            f"slurm memory {memory} MB per job cannot hold one run of {run_memory} MB (with the "
            f"margin: {need_memory} MB)"
        )
    return seconds, memory


def slurm_time(seconds: int) -> str:
    """SLURM's ``D-HH:MM:SS``."""
    minutes, s = divmod(seconds, 60)
    hours, m = divmod(minutes, 60)
    days, h = divmod(hours, 24)
    return f"{days}-{h:02d}:{m:02d}:{s:02d}"


def cluster_options(
    settings: SlurmSettings, run_time: float | None, run_memory: int | None, name: str
) -> dict[str, Any]:
    seconds, memory = job_limits(settings, run_time, run_memory)
    options: dict[str, Any] = dict(
        cores=1,
        processes=1,
        memory=f"{memory} MiB",
        job_mem=f"{memory}M",
        walltime=slurm_time(seconds),
        queue=settings.partition,
        account=settings.account,
        job_name=name,
        job_extra_directives=["--no-requeue", *settings.sbatch],  # a job that ends is replaced, not requeued
        worker_extra_args=["--memory-limit", "0"],  # the runner enforces each run's memory limit itself
        death_timeout=DEATH_TIMEOUT,
        log_directory=settings.log_dir,
        scheduler_options={"dashboard": False},
        shebang="#!/usr/bin/env bash",
    )
    return options


def check_submission(script: str) -> None:
    """``sbatch --test-only``: a job SLURM would refuse (partition, account, memory, time) is a UsageError
    now, not workers that never come."""
    with tempfile.NamedTemporaryFile("w", suffix=".sh", prefix="cnfgen-queens-") as f:
        f.write(script)
        f.flush()
        try:
            out = subprocess.run(["sbatch", "--test-only", f.name], capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            raise UsageError("executor slurm: sbatch --test-only did not answer in 60 s") from None
    if out.returncode != 0:
        why = " ".join(out.stderr.split()) or f"exit status {out.returncode}"
        raise UsageError(f"executor slurm: SLURM refuses the job: {why}")


def slurm_cluster_class() -> Any:
    """dask-jobqueue's ``SLURMCluster``; importing it sets a SIGINT handler that exits with status 0
    (``dask_jobqueue.runner``), so ours (Ctrl-C stops the batch, exit status 130) is put back."""
    previous = signal.getsignal(signal.SIGINT)
    try:
        from dask_jobqueue import SLURMCluster
    except ImportError:
        raise UsageError("executor slurm needs dask-jobqueue: pip install 'cnfgen-queens[slurm]'") from None
    finally:
        if previous is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, previous)
    return SLURMCluster
