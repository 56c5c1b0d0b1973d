"""The batch loop: skip finished runs, generate instances once, run the rest, commit each result.

Work is fed to the executor a few tasks ahead of its free slots: an instance is
generated first, then its runs go to the front of the queue, so results arrive
smallest N first and a Ctrl-C wastes little.  Every result is written to the
store by this (parent) process the moment it arrives (those that arrive together in one transaction);
runs are claimed :data:`CLAIM_BLOCK` at a time.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from itertools import islice
from pathlib import Path
from typing import Any

from cnfgen_queens.execution import executors
from cnfgen_queens.execution.slurm import SlurmSettings
from cnfgen_queens.execution.where import ONE_WORKER, Where

from ..cnf.atomic import close_work_dir, open_work_dir
from ..cnf.owned import open_dir, refuse_links, refuse_planted
from ..errors import Terminated
from ..progress import Progress
from ..solvers import SolverNotFound, resolve
from ..solvers.cgroup import usable_cores
from ..solvers.finished import RESULT_SUFFIX
from ..solvers.outcome import Status
from . import noise
from .adaptive import next_round, tally
from .config import Config, SolverEntry
from .grid import VARIANT_FIELDS, Instance, Run, build
from .store import OUTPUT_DIR, Row, Store, StoreError
from .store_env import cache_full, unwritable
from .tasks import GenerationTimeout, Measurement, error_text, execute, generate
from .verdict import Verdict, judge, verdict

CACHE_DIR = "cnf-cache"
CLAIM_BLOCK = 64  # runs claimed in one transaction (released at the end if not run)


@dataclass(frozen=True)
class BatchRequest:
    """How a batch runs, as one value: where (``jobs`` workers on ``executor``, the Dask ``scheduler``; the
    SLURM ``slurm`` settings for executor slurm), ``fresh`` (delete the stored runs first), ``retry_errors``,
    the ``progress`` bar, ``log`` and ``note`` (stdout) for what it says, the core sets of ``pin``, the runs
    ``only`` (the others are not of this batch's grid)."""

    where: Where = ONE_WORKER
    slurm: SlurmSettings | None = None
    fresh: bool = False
    retry_errors: bool = False
    progress: bool = True
    log: Callable[[str], None] = print
    note: Callable[[str], None] | None = None
    pin: noise.Pin | None = None
    only: frozenset[str] | None = None  # the run keys to run (a sample of the grid: rerun --sample); None: all


@dataclass
class Summary:
    """What a batch did."""

    total: int
    skipped: int
    done: int = 0
    solved: int = 0
    failed: list[str] = field(default_factory=list)
    interrupted: bool = False
    terminated: bool = False  # by SIGTERM or SIGHUP (interrupted is set too)
    stopped_by: str = "interrupted"  # what stopped it: "interrupted", "terminated (SIGTERM)", ...
    exit_code: int = 130  # 128 + the signal that stopped it
    seconds: float = 0.0
    elsewhere: int = 0  # runs left to another batch process on the same results file (claimed there)
    note: str | None = None  # the noise guard's line at the start (the load left too few idle cores)


def cache_dir(config: Config) -> Path:
    """Instances are cached next to the results file, shared by every config writing there."""
    return config.results.parent / CACHE_DIR


def make_row(config: Config, run: Run, m: Measurement, gbd_hash: str | None = None) -> Row:
    """The stored row of ``run``: its instance's and measurement's fields by name, and its verdict."""
    inst = run.instance
    params = inst.params()
    row = Row(
        **{name: getattr(inst, name) for name in INSTANCE_COLUMNS},
        **{name: getattr(m, name) for name in MEASUREMENT_COLUMNS},
        run_key=run.key,
        config_hash=config.hash,
        experiment=config.experiment,
        task=run.task,
        repeat=run.repeat,
        solver=run.solver.name,
        solver_args=json.dumps(list(run.solver.args)),
        time_limit=run.time_limit,
        memory_limit=run.memory_limit,
        output_limit=run.output_limit,
        gbd_hash=gbd_hash,
        variant=json.dumps({k: params[k] for k in VARIANT_FIELDS if k in params}) if inst.is_variant else None,
    )
    return replace(row, verdict=judge(row, answer=m.verdict))


def profile_of(entry: SolverEntry) -> dict[str, Any]:
    """What the store keeps of a solver beside its version: its profile's command template and flags (the
    config's own, a built-in or the generic one of a path) and its arguments; an embedded solver's name."""
    try:
        spec = resolve(entry.name, entry.profiles)
    except SolverNotFound:  # gone since the config was read: its rows say so
        return {"unresolved": entry.name}
    if spec.profile is None:
        return {"embedded": spec.embedded}
    return {**spec.profile.described(), "args": list(entry.args)}


_ROW_FIELDS = {f.name for f in fields(Row)}
INSTANCE_COLUMNS = tuple(f.name for f in fields(Instance) if f.name in _ROW_FIELDS)
MEASUREMENT_COLUMNS = tuple(f.name for f in fields(Measurement) if f.name in _ROW_FIELDS)


def executor_of(config: Config, executor: str | None, jobs: int | None) -> tuple[str, int, SlurmSettings | None]:
    """(executor, parallel runs, SLURM settings) of a batch: the caller's executor, else the config's; with
    slurm, ``jobs`` jobs at once, else the config's ``slurm.jobs``; else ``jobs`` workers or the cores."""
    executor = executor or config.executor
    if executor != "slurm":
        return executor, jobs or usable_cores(), None
    slurm = config.slurm or SlurmSettings(log_dir=str(config.results.parent / "slurm-logs"))
    slurm = replace(slurm, jobs=jobs) if jobs else slurm
    return executor, slurm.jobs, slurm


def _refuse_planted(config: Config, todo: list[Run], by_instance: dict[Instance, list[Run]]) -> None:
    """Before any run: :class:`~..cnf.owned.PlantedLink` for a link (symbolic or hard) planted in the batch's
    own folders where it will write, the folders themselves or a file in them (an instance, a run's output)."""
    base = config.results.parent
    own = (CACHE_DIR, *((OUTPUT_DIR,) if config.keep_output else ()))
    refuse_links(base, own)  # both checked before either is made
    if config.task == "count":  # nothing cached, no solver output kept
        return
    refuse_planted(base, CACHE_DIR, (inst.filename for inst in by_instance if inst.file is None), hard_links=True)
    if config.keep_output:
        kept = (f"{r.key}{suffix}" for r in todo for suffix in (".log", RESULT_SUFFIX))
        refuse_planted(base, OUTPUT_DIR, kept, hard_links=True)


def plan(config: Config, store: Store | None, retry_errors: bool = False) -> tuple[list[Run], list[Run]]:
    """(every run of the grid, the runs not yet in ``store``)."""
    runs = build(config)
    done = store.done_keys(retry_errors=retry_errors) if store is not None else set()
    return runs, [r for r in runs if r.key not in done]


def run_batch(config: Config, request: BatchRequest) -> Summary:
    """Run every unfinished run of ``config`` (see :func:`_round`); with adaptive repeats
    (:mod:`.adaptive`), then round after round the next repeats of every cell not yet clear.  An adaptive
    grid's ``total`` and ``skipped`` count every repeat its cells have (:func:`.adaptive.tally`).  With
    ``pin: true``, each run at once on cores of its own (:mod:`.noise`; PinRefused before anything runs)."""
    if not config.pin:
        return _rounds(config, request)
    sets = noise.pin_cores(config, request.where.executor, request.where.jobs)
    path, fd = open_work_dir("pin")  # the lock files of the core sets, one per set
    try:
        return _rounds(config, replace(request, pin=noise.Pin(str(path), sets)))
    finally:
        close_work_dir(path, fd)


def _rounds(config: Config, request: BatchRequest) -> Summary:
    summary = _round(config, request, announce=True)
    while config.adaptive and summary.done and not summary.interrupted and not summary.failed:
        step = _round(config, replace(request, fresh=False))
        if not step.done and not step.interrupted:
            break
        summary.done, summary.solved, summary.seconds = (
            summary.done + step.done,
            summary.solved + step.solved,
            summary.seconds + step.seconds,
        )
        summary.failed += step.failed
        summary.elsewhere += step.elsewhere
        summary.interrupted, summary.terminated = step.interrupted, step.terminated
        summary.stopped_by, summary.exit_code = step.stopped_by, step.exit_code
    if config.adaptive:
        with Store(config.results, readonly=True) as store:
            summary.total = tally(config, store.done_keys(retry_errors=request.retry_errors))[0]
    return summary


def _round(config: Config, request: BatchRequest, announce: bool = False) -> Summary:
    """Run every unfinished run of ``config``; results go to ``config.results`` as they finish.

    Executor ``slurm`` submits ``request.slurm`` (default: ``jobs`` jobs) sized for one run of the config's limits.
    On a cluster (``dask``, ``slurm``) each worker checks the GBD hash of the cached CNF before solving it.
    ``announce`` (the first round): a local batch stores its start and, on a busy machine, says so to ``note``
    before its first run (:mod:`.noise`); ``pin``: the core sets its runs take."""

    start = time.monotonic()
    try:
        return _run_batch(config, start, request, announce)
    except sqlite3.Error as e:  # SQLite's words for a full disk or a read-only folder: said as the cause
        raise unwritable(config.results, e) or StoreError(f"{config.results}: {e}") from None


def _run_batch(config: Config, start: float, request: BatchRequest, announce: bool) -> Summary:
    with Store(config.results) as store:
        summary, todo = _todo(config, store, request)
        if not todo:
            return summary
        batch = _Batch(config, request, store, summary, todo)
        pool = batch.pool
        try:
            batch.begin(announce)
            while batch.queue or batch.in_flight:
                batch.feed()
                batch.collect()
        except KeyboardInterrupt as e:
            batch.stopped(e)
            pool.close(interrupted=True)
        except BaseException:
            pool.close(interrupted=True)
            raise
        else:
            pool.close()
        finally:
            batch.bar.close()
            store.release()  # runs claimed but not stored are free for the next batch
    summary.seconds = time.monotonic() - start
    return summary


def _todo(config: Config, store: Store, request: BatchRequest) -> tuple[Summary, list[Run]]:
    """(the round's summary so far, the runs it has to do): the grid's runs not stored yet (every one with
    ``fresh``), only those of ``request.only``, then the next adaptive repeats of the cells not yet clear."""
    fresh, retry_errors = request.fresh, request.retry_errors
    runs, todo = plan(config, None if fresh else store, retry_errors)
    extra = [] if fresh else next_round(config, store)  # adaptive repeats: the next of each unclear cell
    if request.only is not None:  # a sample of the grid (rerun --sample)
        runs, todo = [r for r in runs if r.key in request.only], [r for r in todo if r.key in request.only]
    summary = Summary(len(runs), len(runs) - len(todo))
    if config.adaptive and not fresh:  # every repeat stored counts, not only the min's
        summary.total, summary.skipped = tally(config, store.done_keys(retry_errors=retry_errors))
    return summary, todo + extra


class _Batch:
    """One round's work under way: what is queued (instances to generate, then their runs), what is in flight
    on the pool, what this process has claimed, and what it has recorded in the store."""

    def __init__(self, config: Config, request: BatchRequest, store: Store, summary: Summary, todo: list[Run]) -> None:
        self.config, self.request, self.store, self.summary = config, request, store, summary
        self.by_instance: dict[Instance, list[Run]] = {}
        for r in todo:
            self.by_instance.setdefault(r.instance, []).append(r)
        _refuse_planted(config, todo, self.by_instance)
        where, run_limits = request.where, (config.time_limit, config.memory_limit)  # slurm: what each job asks for
        self.pool = executors.make(
            where.executor, where.jobs, where.scheduler, slurm=request.slurm, run_limits=run_limits
        )  # before --fresh deletes
        self.queue: deque[tuple[str, Any]] = deque()
        if config.task == "count":
            self.queue.extend(("run", (r, None, None)) for r in todo)
        else:
            self.queue.extend(("generate", inst) for inst in self.by_instance)
        self.known = store.instance_hashes()  # a cached file is reused only when its GBD hash is still this
        self.hashes: dict[Instance, str] = {}
        for folder in (CACHE_DIR, *((OUTPUT_DIR,) if config.keep_output else ())):  # never through a link
            os.close(open_dir(config.results.parent, Path(folder), create=True))
        self.cache = str(cache_dir(config).resolve())  # absolute: workers may run elsewhere (same shared path)
        self.stale = 2 * config.time_limit + 600  # a claim of another host this old is abandoned
        self.kept: str | None = None
        if config.keep_output:
            kept = config.results.parent.resolve() / OUTPUT_DIR
            kept.mkdir(parents=True, exist_ok=True)
            self.kept = str(kept)
        self.bar = Progress("run", None, total=len(todo), quiet=not request.progress, tty_only=False, leave=True)
        self.in_flight: dict[Any, tuple[str, Any]] = {}
        self.adding: list[str] | None = None  # the run keys being stored
        self.claimed: set[str] = set()  # runs this process holds (claimed a block at a time)
        self.refused: set[str] = set()  # runs another batch process holds or has stored
        self.machines: set[str] = set()  # fingerprints recorded by this batch
        self.solvers: set[tuple[SolverEntry, str | None]] = set()  # solvers and versions recorded by this batch

    def begin(self, announce: bool) -> None:
        """``--fresh``'s deletion, the config recorded and, on the first round of a local batch, its start (the
        load a cluster's runs meet is their nodes')."""
        config, request, store = self.config, self.request, self.store
        if request.fresh:
            deleted = store.clear()
            if deleted:
                request.log(f"--fresh: deleted {deleted} stored runs from {config.results}")
        store.record_config(config.hash, config.experiment, config.source, config.normalized())
        if announce and request.where.executor == "local":
            begun = noise.start(config, request.where.jobs, request.pin is not None)
            noise.record(store, begun)
            self.summary.note = begun.note
            if begun.note is not None and request.note is not None:
                request.note(begun.note)

    def feed(self) -> None:
        """Submit queued work until the pool has two tasks per slot; runs are claimed a block at a time."""
        while self.queue and len(self.in_flight) < 2 * self.pool.slots:
            kind, item = self.queue.popleft()
            if kind == "run" and item[0].key not in self.claimed:  # the next runs too: one transaction
                block = [item[0].key, *(i[0].key for k, i in islice(self.queue, CLAIM_BLOCK - 1) if k == "run")]
                self.claimed |= self.store.claim_many(
                    block, retry_errors=self.request.retry_errors, stale_after=self.stale
                )
                self.refused.update(k for k in block if k not in self.claimed)
            if kind == "run" and item[0].key in self.refused:
                self.summary.elsewhere += 1  # another batch process on this file runs it (or has stored it)
                continue
            if kind == "generate":
                future = self.pool.submit(
                    f"generate-{item.key}", generate, item, self.cache, self.known.get(item.key), self.config.time_limit
                )
            else:
                future = self.pool.submit(f"run-{item[0].key}", execute, *item, self.kept, self.request.pin)
            self.in_flight[future] = (kind, item)

    def collect(self) -> None:
        """Take what finished: an instance's runs queued first, the rows of runs stored together (one
        transaction, even when interrupted)."""
        rows: list[Row] = []
        try:
            for future in self.pool.wait_any():
                kind, item = self.in_flight.pop(future)
                try:
                    value = self.pool.result(future)
                except GenerationTimeout as e:  # its runs' time is up before any solver starts
                    timed_out = Measurement(Status.TIMEOUT, wall=self.config.time_limit, error=str(e))
                    rows += [make_row(self.config, run, timed_out) for run in self.by_instance[item]]
                    continue
                except Exception as e:
                    self._failed(kind, item, e)
                    continue
                if kind == "generate":
                    self._generated(item, value)
                else:
                    rows.append(self._row(item[0], value))
        finally:
            if rows:
                self._store(rows)

    def _failed(self, kind: str, item: Any, e: Exception) -> None:
        full = cache_full(Path(self.cache), e) if kind == "generate" else None
        if full is not None:  # every instance after it would fail alike: the batch stops
            raise full from None
        what = f"generating {item.file or item.filename}" if kind == "generate" else item[0].describe()
        self.summary.failed.append(f"{what}: {error_text(e)}")
        if kind == "run":
            self.store.release([item[0].key])

    def _generated(self, inst: Instance, value: tuple[str, str]) -> None:
        """An instance is in the cache: recorded, and its runs go to the front of the queue."""
        path, self.hashes[inst] = value
        self.store.record_instance(inst.key, inst.file or Path(path).name, self.hashes[inst])
        check = self.hashes[inst] if self.request.where.executor != "local" else None  # a shared file system may lag
        self.queue.extendleft(reversed([("run", (r, path, check)) for r in self.by_instance[inst]]))

    def _row(self, run: Run, m: Measurement) -> Row:
        """The row of a finished run; its solver's version and its machine recorded the first time they come."""
        if (run.solver, m.solver_version) not in self.solvers:
            self.store.record_solver(run.solver.label, profile_of(run.solver), m.solver_version)
            self.solvers.add((run.solver, m.solver_version))
        if m.machine_info is not None and m.machine_info.fingerprint not in self.machines:
            self.store.record_machine(m.machine_info.fingerprint, m.machine_info.as_dict())
            self.machines.add(m.machine_info.fingerprint)
        return make_row(self.config, run, m, self.hashes.get(run.instance))

    def _store(self, rows: list[Row]) -> None:
        self.adding = [row.run_key for row in rows]  # an interrupt as add_many() returns finds them
        self.store.add_many(rows)
        self.adding = None
        self.summary.done += len(rows)  # no call between these, so no signal handler runs here
        self.summary.solved += sum(verdict(row) is Verdict.SOLVED for row in rows)
        self.bar.update(len(rows), solved=self.summary.solved)

    def stopped(self, e: KeyboardInterrupt) -> None:
        """Ctrl-C, SIGTERM or SIGHUP: said in the summary, with the rows that were being stored counted if in."""
        summary = self.summary
        summary.interrupted, summary.terminated = True, isinstance(e, Terminated)
        summary.stopped_by, summary.exit_code = str(e) or "interrupted", getattr(e, "exit_code", 130)
        if self.adding is not None:
            summary.done += len(set(self.adding) & self.store.done_keys())
