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
from ..solvers import SolverNotFound, resolve, solver_child
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
    try:
        if not config.pin:
            return _rounds(config, request)
        sets = noise.pin_cores(config, request.where.executor, request.where.jobs)
        path, fd = open_work_dir("pin")  # the lock files of the core sets, one per set
        try:
            return _rounds(config, replace(request, pin=noise.Pin(str(path), sets)))
        finally:
            close_work_dir(path, fd)
    finally:
        solver_child.close()  # runs made in this process (one job) kept a solver child: it ends with the batch


def _rounds(config: Config, request: BatchRequest) -> Summary:
    summary = _round(config, request, announce=True)
    while config.adaptive and summary.done and not summary.interrupted and not summary.failed:
        step = _round(config, replace(request, fresh=False))
        if not step.done and not step.interrupted:
            break
        summary.done, summary.solved, summary.seconds = summary.done + step.done, summary.solved + step.solved, \
            summary.seconds + step.seconds  # fmt: skip
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
    jobs, executor, scheduler = request.where.jobs, request.where.executor, request.where.scheduler
    slurm, fresh, retry_errors, pin = request.slurm, request.fresh, request.retry_errors, request.pin
    progress, log, note = request.progress, request.log, request.note
    with Store(config.results) as store:
        runs, todo = plan(config, None if fresh else store, retry_errors)
        extra = [] if fresh else next_round(config, store)  # adaptive repeats: the next of each unclear cell
        if request.only is not None:  # a sample of the grid (rerun --sample)
            runs, todo = [r for r in runs if r.key in request.only], [r for r in todo if r.key in request.only]
        summary = Summary(len(runs), len(runs) - len(todo))
        if config.adaptive and not fresh:  # every repeat stored counts, not only the min's
            summary.total, summary.skipped = tally(config, store.done_keys(retry_errors=retry_errors))
        todo += extra
        if not todo:
            return summary
        by_instance: dict[Instance, list[Run]] = {}
        for r in todo:
            by_instance.setdefault(r.instance, []).append(r)
        _refuse_planted(config, todo, by_instance)
        run_limits = (config.time_limit, config.memory_limit)  # executor slurm: what each job asks for, plus a margin
        pool = executors.make(executor, jobs, scheduler, slurm=slurm, run_limits=run_limits)  # before --fresh deletes
        queue: deque[tuple[str, Any]] = deque()
        if config.task == "count":
            queue.extend(("run", (r, None, None)) for r in todo)
        else:
            queue.extend(("generate", inst) for inst in by_instance)
        known = store.instance_hashes()  # a cached file is reused only when its GBD hash is still this
        hashes: dict[Instance, str] = {}
        for folder in (CACHE_DIR, *((OUTPUT_DIR,) if config.keep_output else ())):  # never through a link
            os.close(open_dir(config.results.parent, Path(folder), create=True))
        cache = str(cache_dir(config).resolve())  # absolute: workers may run elsewhere (same shared path)
        stale = 2 * config.time_limit + 600  # a claim of another host this old is abandoned
        kept = None
        if config.keep_output:
            kept = config.results.parent.resolve() / OUTPUT_DIR
            kept.mkdir(parents=True, exist_ok=True)
        bar = Progress("run", None, total=len(todo), quiet=not progress, tty_only=False, leave=True)
        in_flight: dict[Any, tuple[str, Any]] = {}
        adding: list[str] | None = None  # the run keys being stored
        claimed: set[str] = set()  # runs this process holds (claimed a block at a time)
        refused: set[str] = set()  # runs another batch process holds or has stored
        machines: set[str] = set()  # fingerprints recorded by this batch
        solvers: set[tuple[SolverEntry, str | None]] = set()  # solvers and versions recorded by this batch
        try:
            if fresh:
                deleted = store.clear()
                if deleted:
                    log(f"--fresh: deleted {deleted} stored runs from {config.results}")
            store.record_config(config.hash, config.experiment, config.source, config.normalized())
            if announce and executor == "local":  # the load a cluster's runs meet is their nodes'
                begun = noise.start(config, jobs, pin is not None)
                noise.record(store, begun)
                summary.note = begun.note
                if begun.note is not None and note is not None:
                    note(begun.note)
            while queue or in_flight:
                while queue and len(in_flight) < 2 * pool.slots:
                    kind, item = queue.popleft()
                    if kind == "run" and item[0].key not in claimed:  # the next runs too: one transaction
                        block = [item[0].key, *(i[0].key for k, i in islice(queue, CLAIM_BLOCK - 1) if k == "run")]
                        claimed |= store.claim_many(block, retry_errors=retry_errors, stale_after=stale)
                        refused.update(k for k in block if k not in claimed)
                    if kind == "run" and item[0].key in refused:
                        summary.elsewhere += 1  # another batch process on this file runs it (or has stored it)
                        continue
                    if kind == "generate":
                        future = pool.submit(f"generate-{item.key}", generate, item, cache, known.get(item.key),
                                             config.time_limit)  # fmt: skip
                    else:
                        future = pool.submit(f"run-{item[0].key}", execute, *item, None if kept is None else str(kept),
                                             pin)  # fmt: skip
                    in_flight[future] = (kind, item)
                rows: list[Row] = []
                try:
                    for future in pool.wait_any():
                        kind, item = in_flight.pop(future)
                        try:
                            value = pool.result(future)
                        except GenerationTimeout as e:  # its runs' time is up before any solver starts
                            timed_out = Measurement(Status.TIMEOUT, wall=config.time_limit, error=str(e))
                            rows += [make_row(config, run, timed_out) for run in by_instance[item]]
                            continue
                        except Exception as e:
                            full = cache_full(Path(cache), e) if kind == "generate" else None
                            if full is not None:  # every instance after it would fail alike: the batch stops
                                raise full from None
                            what = (
                                f"generating {item.file or item.filename}" if kind == "generate" else item[0].describe()
                            )
                            summary.failed.append(f"{what}: {error_text(e)}")
                            if kind == "run":
                                store.release([item[0].key])
                            continue
                        if kind == "generate":
                            path, hashes[item] = value
                            store.record_instance(item.key, item.file or Path(path).name, hashes[item])
                            check = hashes[item] if executor != "local" else None  # a shared file system may lag
                            queue.extendleft(reversed([("run", (r, path, check)) for r in by_instance[item]]))
                            continue
                        rows.append(make_row(config, item[0], value, hashes.get(item[0].instance)))
                        if (item[0].solver, value.solver_version) not in solvers:
                            store.record_solver(item[0].solver.label, profile_of(item[0].solver), value.solver_version)
                            solvers.add((item[0].solver, value.solver_version))
                        if value.machine_info is not None and value.machine_info.fingerprint not in machines:
                            store.record_machine(value.machine_info.fingerprint, value.machine_info.as_dict())
                            machines.add(value.machine_info.fingerprint)
                finally:  # what arrived together is stored together (one transaction), even when interrupted
                    if rows:
                        adding = [row.run_key for row in rows]  # an interrupt as add_many() returns finds them
                        store.add_many(rows)
                        adding = None
                        summary.done += len(rows)  # no call between these, so no signal handler runs here
                        summary.solved += sum(verdict(row) is Verdict.SOLVED for row in rows)
                        bar.update(len(rows), solved=summary.solved)
        except KeyboardInterrupt as e:
            summary.interrupted, summary.terminated = True, isinstance(e, Terminated)
            summary.stopped_by, summary.exit_code = str(e) or "interrupted", getattr(e, "exit_code", 130)
            if adding is not None:
                summary.done += len(set(adding) & store.done_keys())
            pool.close(interrupted=True)
        except BaseException:
            pool.close(interrupted=True)
            raise
        else:
            pool.close()
        finally:
            bar.close()
            store.release()  # runs claimed but not stored are free for the next batch
    summary.seconds = time.monotonic() - start
    return summary
