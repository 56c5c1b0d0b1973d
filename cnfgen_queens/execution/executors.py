"""Where work executes: local process pools, a Dask cluster, or Dask workers as SLURM jobs, behind one small
interface.

A batch's runs go to :class:`LocalExecutor` (spawned workers), :class:`DaskExecutor` or
:class:`SlurmExecutor` (why Dask workers in jobs: :mod:`.slurm`); the cube counter's groups to
:class:`.fork_pool.ForkPool` (forked workers) or the same Dask executors (:func:`cube_pool`).
All give ``submit(key, fn, *args)``, ``wait_any()`` (the futures that finished),
``result(future)`` and ``close(interrupted)``; the main thread never takes a future's lock
(:mod:`.landing`).  Local workers lead their own process group, and stopping a batch (Ctrl-C) ends their
processes (their solvers die with them); Dask tasks are cancelled and the cluster closed, which ends its
workers' processes.  The work directories of workers ended mid-task are swept after them.  A spawned or
Dask worker loads the plugins (encodings of one's own) the submitting process loaded before it runs a task
(:func:`~cnfgen_queens.encodings.plugin_loading.with_plugins`); a forked one has them already.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from cnfgen_queens.cnf.atomic import close_work_dir, open_work_dir, sweep_work_dirs_settled
from cnfgen_queens.encodings.plugin_loading import with_plugins
from cnfgen_queens.errors import UsageError, option, whole

from .fork_pool import ForkPool, may_start_a_worker, shutdown_interrupted
from .landing import Landing
from .slurm import ALIVE, HEAL_EVERY, SlurmSettings, check_submission, cluster_options, slurm_cluster_class
from .where import Where
from .worker_signals import (
    adopt_orphans,
    children,
    detached_spawns,
    end_children,
    end_orphans,
    end_workers,
    init_worker,
)

WORKER_SETUP = "cnfgen_queens.execution.worker_signals"  # Dask's preload of our LocalCluster's workers

WAIT_STEP = 0.2  # seconds of one wait for a finished run
DASK_POLL = 0.02  # seconds between two looks for finished Dask tasks


class LocalExecutor:
    """``concurrent.futures.ProcessPoolExecutor`` with ``jobs`` worker processes, spawned as they are needed by
    one thread that lasts as long as they do (:attr:`spawner`: a worker's SIGTERM on its parent's death,
    :func:`~.worker_signals.init_worker`, is tied to the thread that spawned it, and a worker spawned by a thread
    that ended soon after was killed with it) with the signals blocked (:func:`~.worker_signals.detached_spawns`:
    a terminal's signal reaches the batch, not them)."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self._known = children()  # not ours to end (end_orphans)
        self._orphans = adopt_orphans()
        with detached_spawns():
            self.pool = ProcessPoolExecutor(
                jobs,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=init_worker,
                initargs=(os.getpid(),),
            )  # spawn: workers are our children (see init_worker) and inherit no threads or locks
            self.spawner = ThreadPoolExecutor(1, thread_name_prefix="cnfgen-queens-spawner")
            self.spawner.submit(int).result()  # its thread started here, with the signals blocked for good
        self.pending: set[Future[Any]] = set()
        self.landing = Landing()

    @property
    def slots(self) -> int:
        return self.jobs

    def submit(self, key: str, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        def submitted() -> Future[Any]:
            return self.pool.submit(with_plugins(fn), *args)

        if may_start_a_worker(self.pool):  # whole, in the spawner (its signals blocked since it started)
            with main_script_unnamed():
                future = whole(submitted, thread=self.spawner.submit)
        else:  # it only queues its task
            future = submitted()
        self.pending.add(future)
        return self.landing.watch(future)

    def wait_any(self) -> list[Future[Any]]:
        """The futures that finished."""
        while self.pending:
            done = self.landing.take(WAIT_STEP)
            if done:
                self.pending.difference_update(done)
                return done
        return []

    def result(self, future: Future[Any]) -> Any:
        self.pending.discard(future)
        return self.landing.result(future)

    def close(self, interrupted: bool = False) -> None:
        self.landing.close()
        with self._orphans:
            if interrupted:
                shutdown_interrupted(self.pool, end_workers)
            try:
                self.pool.shutdown(wait=True, cancel_futures=True)
            finally:  # after its workers, whatever cut their shutdown short: a spawner left to the interpreter's
                self.spawner.shutdown()  # exit could end before the pool's own exit handler, and its workers with it
            if interrupted:
                end_orphans(self._known)
                sweep_work_dirs_settled()


@contextmanager
def main_script_unnamed() -> Iterator[None]:
    """While local workers are spawned: the main script unnamed (its ``__file__`` and ``__spec__`` set aside),
    so that multiprocessing does not have each worker run it again.  From ``python - <<EOF`` (``__file__``
    is ``<stdin>``) every worker died of a FileNotFoundError, and a script without the
    ``if __name__ == "__main__"`` guard started the batch again in each (RuntimeError): every run lost.  The
    workers need nothing of the script: each task is a function of this package."""
    main = sys.modules.get("__main__")
    kept = {name: getattr(main, name) for name in ("__file__", "__spec__") if hasattr(main, name)}
    for name in kept:
        setattr(main, name, None) if name == "__spec__" else delattr(main, name)
    try:
        yield
    finally:
        for name, value in kept.items():
            setattr(main, name, value)


SCHEDULER_TIMEOUT = 5  # seconds to reach a --scheduler before giving up (Dask's default is 30)
# seconds a signalled command waits for its LocalCluster to finish starting (one given up on keeps starting
# workers, which write in its scratch space once that is removed)
START_AFTER_SIGNAL = 10.0


class DaskExecutor:
    """A Dask distributed client: on ``scheduler`` (``tcp://host:8786``), on ``cluster`` (closed with the
    executor: SLURM's, :class:`SlurmExecutor`) or on a new LocalCluster.

    A LocalCluster keeps its workers' scratch space in a temporary directory of ours, removed by
    :meth:`close` (Dask leaves its ``dask-scratch-space`` in $TMPDIR for ever otherwise); its workers are
    detached from the terminal's signals (:mod:`.worker_signals`).  Finished futures come with their results
    (``as_completed(with_results=True)``): the main thread never waits on a future itself (:mod:`.landing`)."""

    def __init__(self, jobs: int, scheduler: str | None = None, cluster: Any = None) -> None:
        import dask
        from dask.distributed import Client, as_completed

        self.cluster = cluster
        self.client: Any = None
        self.scratch: str | None = None
        self._known: set[int] | None = None  # this process's children before a LocalCluster's start
        self._orphans = contextlib.ExitStack()  # a subreaper while a LocalCluster of ours runs (adopt_orphans)
        self.futures: set[Any] = set()
        self.outcomes: dict[Any, Any] = {}
        if cluster is not None:
            self.client = Client(cluster)
        elif scheduler:
            self.client = Client(scheduler, timeout=f"{SCHEDULER_TIMEOUT}s")
        else:
            scratch, self._scratch_lock = open_work_dir("dask")  # locked: the next run sweeps one a kill -9 left
            self._known = children()
            self._orphans = adopt_orphans()
            self.scratch = str(scratch)
            try:  # the scheduler's scratch space too (it takes no local_directory of its own)
                # not daemonic: a batch's task count by cubes starts its own worker process for the time limit
                with (
                    detached_spawns(),  # the thread below and what it spawns inherit the mask
                    dask.config.set({"temporary-directory": self.scratch, "distributed.worker.daemon": False}),
                ):
                    self._start_local(jobs)
            except BaseException:  # a signal too: close what was started
                self.close(interrupted=True)
                raise
        self.done = as_completed(with_results=True, raise_errors=False)
        self._slots, self._asked = 1, -1e9

    def _start_local(self, jobs: int) -> None:
        """A LocalCluster of ``jobs`` workers and a client on it, started whole (:func:`~cnfgen_queens.errors.whole`:
        one stopped half-started cannot be closed, Dask printed a traceback at exit).  After a signal the start is
        waited for, so that :meth:`close` closes it."""
        import logging

        from dask.distributed import Client, LocalCluster

        def start() -> tuple[Any, Any]:
            cluster = LocalCluster(
                n_workers=jobs,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # HTTP on a free port, no warning
                local_directory=self.scratch,
                silence_logs=logging.CRITICAL,
                memory_limit=0,  # the runner enforces the memory limit per run
                preload=[WORKER_SETUP],  # its own process group, before any task
            )
            try:
                return cluster, Client(cluster)
            except BaseException:
                with contextlib.suppress(BaseException):
                    cluster.close()
                raise

        def keep(started: tuple[Any, Any]) -> None:
            self.cluster, self.client = started

        keep(whole(start, keep, START_AFTER_SIGNAL))

    @property
    def slots(self) -> int:
        """Worker threads now (re-asked every 5 s: a cluster may grow while the batch runs)."""
        if time.monotonic() - self._asked > 5:
            self._slots, self._asked = max(1, sum(self.client.nthreads().values())), time.monotonic()
        return self._slots

    def submit(self, key: str, fn: Callable[..., Any], *args: Any) -> Any:
        future = self.client.submit(with_plugins(fn), *args, key=key, pure=False, retries=0)
        self.done.add(future)
        self.futures.add(future)
        return future

    def _take(self) -> list[Any]:
        batch = self.done.next_batch(block=False)
        self.outcomes.update(batch)
        self.futures.difference_update(f for f, _ in batch)
        return [f for f, _ in batch]

    def wait_any(self) -> list[Any]:
        """The futures that finished."""
        while self.futures:
            batch = self._take()
            if batch:
                return batch
            time.sleep(DASK_POLL)
        return []

    def ready(self, futures: list[Any]) -> list[Any]:
        """The futures of ``futures`` that are done."""
        self._take()
        return [f for f in futures if f in self.outcomes]

    def result(self, future: Any) -> Any:
        if future not in self.outcomes:  # asked for directly, not found by wait_any or ready
            self.futures.discard(future)
            return future.result()
        value = self.outcomes.pop(future)
        if future.status in ("error", "cancelled"):
            raise value
        return value

    def close(self, interrupted: bool = False, ending: float | None = None) -> bool:
        """Close the client and the cluster; when ``interrupted``, cancel the tasks first (``ending`` is not waited
        for): closing a LocalCluster ends its workers' processes, busy or not, and their work directories are
        swept after them.  Whether a task may have been cut short."""
        if interrupted and self.futures:
            self.done.clear()
            self.client.cancel(list(self.futures), force=True)
        try:
            if self.client is not None:
                self.client.close()
            if self.cluster is not None:
                self.cluster.close()
        finally:
            if self.scratch is not None:
                with self._orphans:  # every process that may write in the scratch space ended before it is removed
                    if interrupted and self.cluster is None and self._known is not None:
                        end_children(self._known)  # its start cut short: what it spawned is ended here
                    if interrupted:
                        end_orphans(self._known or set())
                close_work_dir(self.scratch, self._scratch_lock)
                self.scratch = None
                if interrupted:
                    sweep_work_dirs_settled()
        return interrupted


class SlurmExecutor(DaskExecutor):
    """``settings.jobs`` SLURM jobs, each a single-threaded Dask worker, and a client on their scheduler."""

    def __init__(self, settings: SlurmSettings, run_time: float | None = None, run_memory: int | None = None) -> None:
        cluster_class = slurm_cluster_class()

        self.settings = settings
        self.name = f"cnfgen-queens-{uuid.uuid4().hex[:8]}"  # this batch's jobs, by name (squeue -n)
        options = cluster_options(settings, run_time, run_memory, self.name)
        if shutil.which("sbatch") is None:
            raise UsageError("executor slurm: sbatch not found (SLURM's commands are needed where the batch runs)")
        cluster = cluster_class(**options)
        try:
            check_submission(cluster.job_script())
            cluster.scale(jobs=settings.jobs)
            super().__init__(settings.jobs, cluster=cluster)
        except BaseException:
            cluster.close()
            raise
        self._looked = time.monotonic()
        self._job_ids: dict[str, str] = {}  # worker name -> SLURM job id, once submitted

    @property
    def slots(self) -> int:
        """The jobs asked for: work is queued for them before they start."""
        return self.settings.jobs

    def submit(self, key: str, fn: Any, *args: Any) -> Any:
        future = self.client.submit(with_plugins(fn), *args, key=key, pure=False, retries=0)
        self.futures.add(future)
        return future

    def wait_any(self) -> list[Any]:
        """The futures that finished; every few seconds, ended jobs are replaced meanwhile."""
        from distributed import wait

        while True:
            if time.monotonic() - self._looked > HEAL_EVERY:
                self.replace_ended_jobs()
            try:
                done, _ = wait(list(self.futures), timeout=HEAL_EVERY, return_when="FIRST_COMPLETED")
            except TimeoutError:
                continue
            self.futures.difference_update(done)
            return list(done)

    def ready(self, futures: list[Any]) -> list[Any]:
        """The futures of ``futures`` that are done (a Dask future's state is no lock of Python's)."""
        return [f for f in futures if f.done()]

    def result(self, future: Any) -> Any:
        """The value of a finished future; its worker may have died meanwhile, and then the run is done again
        elsewhere: jobs are replaced while waiting."""
        while True:
            try:
                return future.result(timeout=HEAL_EVERY)
            except TimeoutError:
                self.replace_ended_jobs()

    def replace_ended_jobs(self) -> list[str]:
        """Submit a new job for each of ours SLURM no longer holds (cancelled, node down, out of time);
        returns the ids of the jobs that ended (none when squeue cannot answer now).

        A job is ours when its name is in the cluster's plan; once submitted, it ended when squeue does
        not list it alive, or when the cluster dropped it (its worker left the scheduler)."""
        self._looked = time.monotonic()
        alive = self._alive_jobs()
        if alive is None:
            return []
        ended: dict[str, str] = {}
        for name in list(self.cluster.worker_spec):
            job = self.cluster.workers.get(name)
            job_id = getattr(job, "job_id", None)
            if job_id:
                self._job_ids[name] = job_id
            if name in self._job_ids and (job is None or job_id not in alive):  # else: still being submitted
                ended[name] = self._job_ids.pop(name)
        if ended:
            for name in ended:  # forgotten, not closed: the cluster would first retire its worker, which may
                self.cluster.worker_spec.pop(name, None)  # be dead and yet known to the scheduler for a while
                self.cluster.workers.pop(name, None)
            self.cluster.scale(jobs=self.settings.jobs)
        return list(ended.values())

    def _alive_jobs(self) -> set[str] | None:
        try:
            out = subprocess.run(
                ["squeue", "-h", "-n", self.name, "-o", "%i %T"], capture_output=True, text=True, timeout=30
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        if out.returncode != 0:
            return None
        rows = [line.split() for line in out.stdout.splitlines()]
        return {row[0] for row in rows if len(row) == 2 and row[1] in ALIVE}


def make(
    kind: str,
    jobs: int,
    scheduler: str | None = None,
    *,
    slurm: SlurmSettings | None = None,
    run_limits: tuple[float | None, int | None] = (None, None),
) -> LocalExecutor | DaskExecutor:
    """The batch's executor; kind ``slurm`` asks ``slurm`` (default: ``jobs`` jobs), its jobs sized for one
    run of ``run_limits`` (seconds, MB)."""
    if kind == "dask":
        return DaskExecutor(jobs, scheduler)
    if scheduler:
        raise UsageError(f"{option('--scheduler')} needs {option('--executor', 'dask')}")
    if kind == "slurm":
        return SlurmExecutor(slurm or SlurmSettings(jobs=jobs), *run_limits)
    return LocalExecutor(jobs)


def cube_pool(where: Where) -> ForkPool | DaskExecutor:
    """The pool of the cube counter: forked local workers, Dask, or Dask workers as SLURM jobs (``jobs``
    of them, SLURM's defaults otherwise: ``SBATCH_PARTITION``, ``SBATCH_ACCOUNT``... apply)."""
    executor, jobs, scheduler = where.executor, where.jobs, where.scheduler
    if executor == "dask":
        return DaskExecutor(jobs, scheduler)
    if executor == "slurm":
        if scheduler:
            raise UsageError(f"{option('--scheduler')} needs {option('--executor', 'dask')}")
        return SlurmExecutor(SlurmSettings(jobs=jobs))
    if executor == "local":
        if scheduler:
            raise UsageError(f"{option('--scheduler')} needs {option('--executor', 'dask')}")
        return ForkPool(jobs)
    raise ValueError(f"unknown executor {executor!r}; valid: local, dask, slurm")
