"""The noise guard: a batch's word on the load it starts under, and ``pin: true``.

A batch on the local executor reads the load average when it starts its runs (:func:`start`).  Its
``jobs`` runs at once need that many idle cores; when the load average is at or above the cores minus
``jobs`` plus one (the other processes hold at least one whole core of those the runs need), it says so
in one ``note:`` line on stdout, before the runs, where its summary line goes too (stderr carries only
errors, one line each: a failing batch's stderr stays one line under any load).  Every start is stored
in the results file's ``batches`` table, busy or not, and ``report --machines`` counts the busy ones.

``pin: true`` gives each run at once cores of its own: BenchExec's core assignment
(``benchexec.resources.get_cpu_cores_per_run``, :func:`..solvers.cgroup.core_assignment`) splits the
cores this process may use into ``jobs`` disjoint sets, and each run takes a free set for its
duration (a lock file per set, :func:`claimed`), which BenchExec's cpuset cgroup confines the solver
to (``RunExecutor.execute_run(cores=...)``).  Each row stores its cores (``cores``; None: not pinned).
Refused in one line where it cannot work: no cgroups or no cpuset controller, more runs at once than
cores, an executor other than local (SLURM and Dask place runs themselves), a solver that runs inside
the worker (``pysat:NAME``), ``task: count`` (its engines run solver calls in parallel themselves).
"""

from __future__ import annotations

import fcntl
import os
import socket
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import astuple, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..solvers.cgroup import IsolationUnavailable, core_assignment, usable_cores
from ..solvers.profiles import EMBEDDED_PREFIX
from . import machine
from .store import Row, Store

if TYPE_CHECKING:
    from .config import Config


class PinRefused(UsageError):
    """``pin: true`` where the machine or the batch does not allow it; the message says why."""


@dataclass(frozen=True)
class BatchStart:
    """A batch's start, as the ``batches`` table stores it (one row per batch process and results file)."""

    started: str  # UTC, ISO 8601
    host: str
    pid: int
    config_hash: str
    jobs: int  # runs at once
    cores: int | None  # the cores this process may use
    load_avg: float | None  # the 1-minute load average then
    note: str | None  # the line the batch printed (None: quiet enough)
    pinned: bool  # pin: true


def busy_note(load: float | None, cores: int | None, jobs: int) -> str | None:
    """The batch's line when the load leaves its ``jobs`` runs fewer idle cores than they need; else None."""
    if load is None or not cores or load < cores - jobs + 1:
        return None
    idle = max(0.0, cores - load)
    return (
        f"note: load average {load:g} on {cores} cores ({idle:g} idle) as the batch starts {jobs} run(s) at once: "
        "their times will carry the other processes' load (stored with the runs; report --machines counts "
        "them)"
    )


def start(config: Config, jobs: int, pinned: bool) -> BatchStart:
    load, cores = machine.load_average(), usable_cores()
    return BatchStart(
        datetime.now(UTC).isoformat(timespec="seconds"),
        socket.gethostname(),
        os.getpid(),
        config.hash,
        jobs,
        cores,
        load,
        busy_note(load, cores, jobs),
        pinned,
    )


def record(store: Store, b: BatchStart) -> None:
    names = [f.name for f in fields(BatchStart)]
    store.db.execute(f"INSERT INTO batches ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})", astuple(b))


def stored(path: Path | str) -> list[BatchStart]:
    """The batch starts a results database holds (none for a runs CSV or a file older than the table)."""
    if str(path).lower().endswith(".csv"):
        return []
    names = ", ".join(f.name for f in fields(BatchStart))
    with Store(path, readonly=True) as store:
        try:
            found = list(store.db.execute(f"SELECT {names} FROM batches ORDER BY started, pid"))
        except sqlite3.OperationalError:  # written before the table
            return []
    out = [dict(zip(names.split(", "), values, strict=True)) for values in found]
    return [BatchStart(**{**b, "pinned": bool(b["pinned"])}) for b in out]


def lines(rows: list[Row], batches: list[BatchStart]) -> list[str]:
    """The report's lines on the batches that started busy and on the runs that were pinned (none to say: [])."""
    out = []
    busy = [b for b in batches if b.note is not None]
    if busy:
        worst = max(busy, key=lambda b: (b.load_avg or 0.0) - (b.cores or 0) + b.jobs)
        out.append(
            f"{len(busy)} of {len(batches)} batch starts had the load average above the idle cores their "
            f"runs needed (the worst: load {worst.load_avg:g} on {worst.cores} cores, {worst.jobs} run(s) at "
            f"once, {worst.started})"
        )
    pinned = [r for r in rows if r.cores is not None]
    if pinned:
        sets: dict[str, int] = {}
        for r in pinned:
            sets[r.cores or ""] = sets.get(r.cores or "", 0) + 1
        shown = "; ".join(f"{cores}: {n}" for cores, n in sorted(sets.items()))
        out.append(
            f"{len(pinned)} of {len(rows)} runs were pinned to cores of their own (pin: true; runs per core "
            f"set: {shown})"
        )
    return out


def section(rows: list[Row], db: Path | str) -> str:
    """The report's machines section of ``rows`` (stored in ``db``): each machine with its runs and the load at
    their start (:func:`.machine.section`), then :func:`lines`; empty when no run names its machine."""
    found = machine.section(rows, machine.stored(db))
    return found + "".join(f"\n{line}\n" for line in lines(rows, stored(db))) if found else ""


def pin_cores(config: Config, executor: str, jobs: int) -> tuple[tuple[int, ...], ...]:
    """The core sets of a ``pin: true`` batch (one per run at once); PinRefused saying why where it cannot pin."""
    if executor != "local":
        raise PinRefused(
            f"pin: true pins the runs of the local executor; executor {executor} places its runs "
            "itself (drop pin, or run locally)"
        )
    if config.task == "count":
        raise PinRefused("pin: true pins solve runs; task count runs its solver calls in parallel itself")
    inside = [s.name for s in config.solvers if s.name.startswith(EMBEDDED_PREFIX)]
    if inside:
        raise PinRefused(
            f"pin: true pins binary solvers under BenchExec; {inside[0]} runs inside the worker "
            "process (name a binary solver, or drop pin)"
        )
    try:
        return tuple(tuple(cores) for cores in core_assignment(jobs))
    except IsolationUnavailable as e:
        raise PinRefused(f"pin: true is not possible here: {e}") from None


@dataclass(frozen=True)
class Pin:
    """What a worker needs to take a core set: the batch's lock directory and the sets (picklable)."""

    lock_dir: str
    cores: tuple[tuple[int, ...], ...]


@contextmanager
def claimed(pin: Pin | None) -> Iterator[tuple[int, ...] | None]:
    """A free core set of ``pin``, held (a lock file) until the block ends; None without ``pin``.  The pool has as
    many workers as sets, so one is free whenever a run starts (a killed worker's lock goes with it)."""
    if pin is None:
        yield None
        return
    for i, cores in enumerate(pin.cores):
        fd = os.open(os.path.join(pin.lock_dir, f"cores-{i}"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        try:
            yield cores
        finally:
            os.close(fd)
        return
    raise RuntimeError(f"pin: all {len(pin.cores)} core sets are taken (more runs at once than the batch's jobs)")
