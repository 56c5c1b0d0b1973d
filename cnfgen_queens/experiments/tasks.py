"""What a worker does: generate an instance into the cache, run one solver call or one count.

These functions run in worker processes (local pool or Dask), so they take and
return plain picklable records and never raise for a solver's failure: a failed
run is a :class:`Measurement` with status ``ERROR`` and the reason.
"""

from __future__ import annotations

import socket
import stat
import time
from collections import OrderedDict
from contextlib import nullcontext
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO, cast

from cnfgen_queens.cnf.atomic import atomic_output, work_dir
from cnfgen_queens.cnf.compressed import sniff
from cnfgen_queens.cnf.dimacs import read_header_file
from cnfgen_queens.cnf.gbd_hash import gbd_hash
from cnfgen_queens.cnf.scan import Cnf, read_cnf
from cnfgen_queens.cnf.writer import write_cnf

from ..errors import UsageError
from ..limits import Deadline, Limits
from ..solutions import api
from ..solutions.known_answer import Verdict, count_verdict, judge_answer
from ..solvers import RunContext, resolve, solve
from ..solvers.cgroup import choose, pinned
from ..solvers.outcome import Checked, Status
from .grid import Instance, Run
from .machine import Machine, load_average, this_machine
from .noise import Pin, claimed


@dataclass(frozen=True)
class Measurement:
    """The outcome of one run as the worker saw it (field names are :class:`.store.Row`'s columns)."""

    status: Status
    solver_version: str | None = None
    wall: float | None = None
    cpu: float | None = None
    peak_memory_mb: float | None = None
    count: int | None = None
    fundamental: int | None = None
    verified: bool | None = None
    host: str | None = None
    started: str | None = None
    finished: str | None = None
    error: str | None = None
    measured_by: str | None = None  # cgroup | rusage (None: nothing measured, e.g. an embedded count)
    check_time: float | None = None  # seconds checking the model against the CNF (or validating the file)
    total_wall: float | None = None  # seconds of the whole run: solver, check and decoding
    verdict: Verdict | None = None  # the judgement of the answer (:mod:`.known_answer`); None: no answer judged
    engine: str | None = None  # task count: the engine that counted (cubes | loop)
    machine: str | None = None  # the fingerprint of machine_info
    load_avg: float | None = None  # the machine's 1-minute load average when the run started
    machine_info: Machine | None = None  # the machine the run ran on (read in the worker: a SLURM node's)
    checked: Checked | None = None  # how the answer was checked (:func:`.known_answer.judge_answer`)
    cores: str | None = None  # the cores BenchExec confined the run to ("0", "2,3"; pin: true); None: not pinned


def error_text(e: Exception) -> str:
    """A failure in words for a message or a stored run's error: a :class:`UsageError`'s or our own sentence
    as it is, an ``OSError`` as its file and cause; only an unexpected kind (a bug) keeps its class name."""
    if isinstance(e, OSError) and e.strerror:
        return f"{e.filename}: {e.strerror}" if e.filename else e.strerror
    if isinstance(e, UsageError | RuntimeError | TimeoutError) and str(e):
        return str(e)
    return f"{type(e).__name__}: {e}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class GenerationTimeout(TimeoutError):
    """Writing an instance took longer than its runs' time limit (nothing is left in the cache)."""


class _WithinDeadline:
    """A binary file whose every write first checks ``deadline``: generating and caching an instance is
    part of its runs' time, so a time limit bounds the writing too."""

    def __init__(self, out: BinaryIO, deadline: Deadline, seconds: float) -> None:
        self.out, self.deadline, self.seconds = out, deadline, seconds

    def write(self, data: bytes) -> int:
        if self.deadline.expired():
            raise GenerationTimeout(f"time limit ({self.seconds:g} s) reached while writing the instance")
        return self.out.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.out, name)


def generate(
    instance: Instance, cache_dir: str, expected_hash: str | None = None, time_limit: float | None = None
) -> tuple[str, str]:
    """(path, GBD hash) of ``instance``'s CNF in ``cache_dir``: reused when its hash is ``expected_hash``,
    else written again (atomically) and hashed: a file of unknown origin or changed since is never trusted.
    A file of ``instances.files`` is its own path, hashed again (changed since the config was read: an error).
    Writing past ``time_limit`` seconds raises :class:`GenerationTimeout` (the partial file removed)."""

    if instance.file is not None:  # a file of instances.files: solved where it is, if it is still the same
        _check_hash(Path(instance.file), instance.file_hash or "")
        return instance.file, instance.file_hash or ""
    path = Path(cache_dir) / instance.filename
    if expected_hash is not None and path.is_file():
        try:
            if gbd_hash(path) == expected_hash:
                return str(path), expected_hash
        except OSError:
            pass  # unreadable: write it again
    formula = instance.formula()
    deadline = Deadline.after(time_limit)
    with atomic_output(path, owned=Path(cache_dir)) as out:  # folders made on the way, no link followed
        bounded = cast(BinaryIO, _WithinDeadline(out, deadline, time_limit or 0))
        write_cnf(bounded, formula, formula.header_comments(show=False), show=True, shuffle=instance.shuffle_seed)
    return str(path), gbd_hash(path)


def execute(
    run: Run, cnf_path: str | None, gbd_hash: str | None = None, output_dir: str | None = None, pin: Pin | None = None
) -> Measurement:
    """Run ``run`` (solve ``cnf_path`` or count solutions) under its limits; never raises for a failure.

    With ``gbd_hash`` (a worker on another node, reading the cache over a shared file system) the file
    is hashed first, and a file that is not the one generated is an ERROR, never solved.  With
    ``output_dir``, a binary solver's output is kept there as ``<run key>.log``.  With ``pin``, the run
    takes a free core set of it and BenchExec confines the solver there (:mod:`.noise`)."""
    host, started, t0 = socket.gethostname(), _now(), time.monotonic()
    machine, load = this_machine(), load_average()
    cores: tuple[int, ...] | None = None
    try:
        with claimed(pin) as cores, pinned(cores):
            if run.task == "count":
                m = _count(run)
            else:
                if cnf_path is None:
                    raise RuntimeError("no instance file")
                if gbd_hash is not None:
                    _check_hash(Path(cnf_path), gbd_hash)
                m = _solve(run, Path(cnf_path), None if output_dir is None else Path(output_dir) / f"{run.key}.log")
    except Exception as e:  # a run that cannot even start is a result too
        m = Measurement(Status.ERROR, wall=time.monotonic() - t0, error=error_text(e))
    confined = cores is not None and m.measured_by == "cgroup"  # pinned only where BenchExec ran it
    return replace(
        m,
        host=host,
        started=started,
        finished=_now(),
        total_wall=time.monotonic() - t0,
        machine=machine.fingerprint,
        load_avg=load,
        machine_info=machine,
        cores=",".join(map(str, cores)) if confined and cores is not None else None,
    )


def _check_hash(path: Path, expected: str) -> None:
    found = gbd_hash(path)
    if found != expected:
        raise RuntimeError(
            f"{path.name} on {socket.gethostname()} has GBD hash {found}, not {expected} as "
            "generated or read (changed, or a stale copy on this node): not solved"
        )


def _limits(run: Run) -> Limits:
    return Limits(run.time_limit, run.memory_limit, output=run.output_limit)


PARSE_ONCE_BYTES = 1 << 20  # instance files up to this size are parsed once per worker, not once per run
PARSED_KEPT = 32  # parsed files a worker keeps (the batch runs an instance's repeats one after another)
_parsed: OrderedDict[tuple[object, ...], Cnf] = OrderedDict()


def parsed(path: Path) -> Cnf | None:
    """``path`` parsed (every literal checked against the header), once per worker while the file is the same
    one (device, inode, size, change times); None for a file above :data:`PARSE_ONCE_BYTES`, read by each run."""
    st = path.stat()
    if st.st_size > PARSE_ONCE_BYTES or not stat.S_ISREG(st.st_mode) or sniff(path) is not None:
        return None  # a compressed file may hold far more than its size: streamed by each run, bounded
    key = (str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    cnf = _parsed.get(key)
    if cnf is None:
        cnf = _parsed[key] = read_cnf(path)
        while len(_parsed) > PARSED_KEPT:
            _parsed.popitem(last=False)
    _parsed.move_to_end(key)
    return cnf


def _solve(run: Run, cnf_path: Path, keep_output: Path | None = None) -> Measurement:

    cnf = parsed(cnf_path)
    with work_dir("proof") if run.proof else nullcontext(None) as tmp:  # the proof is checked, then removed
        o = solve(
            cnf_path,
            run.solver.name,
            limits=_limits(run),
            args=run.solver.args,
            solvers_file=run.solver.profiles,
            proof=None if tmp is None else Path(tmp) / "proof.drat",
            context=RunContext(cnf=cnf, keep_output=keep_output),
        )
    header = cnf.header if cnf is not None else read_header_file(cnf_path)
    judged = judge_answer(o, header, cnf_path)  # as solve and cq.solve judge it
    return Measurement(
        judged.answer,  # what the solver said; the judgement's word is `verdict` (and `verified`, `checked`)
        solver_version=o.version,
        wall=o.wall,
        cpu=o.cpu,
        peak_memory_mb=o.peak_memory_mb,
        verified=o.verified and judged.wrong is None,
        error=judged.wrong or o.error,
        measured_by=o.measured_by,
        check_time=o.check_time,
        verdict=judged.verdict,
        checked=judged.checked,
    )


def _count(run: Run) -> Measurement:
    """The count of the CLI's ``count`` (:func:`cnfgen_queens.solutions.api.count`, the run's engine); a
    request the engine refuses is an ERROR with the reason (never raised)."""

    limits = _limits(run)
    start = time.monotonic()
    try:
        solver = api.SolverChoice(run.solver.name, run.solver.args, run.solver.profiles)
        r = api.count(api.Request(run.instance.formula(), solver, engine=run.engine, limits=limits))
    except UsageError as e:
        return Measurement(Status.ERROR, wall=time.monotonic() - start, error=str(e))
    spec = resolve(run.solver.name, run.solver.profiles)  # the count's solver: its version, and who measured
    return Measurement(
        r.status,
        solver_version=spec.version,
        wall=r.wall,
        count=r.total if r.complete else None,
        fundamental=r.fundamental,
        error=r.error,
        measured_by=None if spec.embedded is not None else _measured_by(limits.isolation),
        engine=r.engine,
        verdict=count_verdict(r),
        checked=r.checked if r.complete else None,
    )


def _measured_by(isolation: str) -> str:

    return "cgroup" if choose(isolation) == "cgroup" else "rusage"
