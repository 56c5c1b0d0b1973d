"""What a worker does: generate an instance into the cache, run one solver call or one count.

These functions run in worker processes (local pool or Dask), so they take and
return plain picklable records and never raise for a solver's failure: a failed
run is a :class:`Measurement` with status ``ERROR`` and the reason.
"""

from __future__ import annotations

import importlib.util
import socket
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from .grid import Instance, Run


@dataclass(frozen=True)
class Measurement:
    """The outcome of one run as the worker saw it."""

    status: str
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


NOT_A_SOLUTION = "model is not an N-queens solution"


def shuffle_supported() -> bool:
    """Whether the generator can shuffle (module ``cnfgen_queens.shuffle``)."""
    return importlib.util.find_spec("cnfgen_queens.shuffle") is not None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def generate(instance: Instance, cache_dir: str, expected_hash: str | None = None) -> tuple[str, str]:
    """(path, GBD hash) of ``instance``'s CNF in ``cache_dir``: reused when its hash is ``expected_hash``,
    else written again (atomically) and hashed: a file of unknown origin or changed since is never trusted."""
    from ..cnf_writer import write_cnf
    from ..dimacs import atomic_output
    from .instance_hash import gbd_hash

    path = Path(cache_dir) / instance.filename
    if expected_hash is not None and path.is_file():
        try:
            if gbd_hash(path) == expected_hash:
                return str(path), expected_hash
        except OSError:
            pass  # unreadable: write it again
    formula = instance.formula()
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_output(path) as out:
        write_cnf(out, formula, formula.header_comments(show=False), show=True, shuffle=instance.shuffle_seed)
    return str(path), gbd_hash(path)


def execute(run: Run, cnf_path: str | None) -> Measurement:
    """Run ``run`` (solve ``cnf_path`` or count solutions) under its limits; never raises for a failure."""
    host, started, t0 = socket.gethostname(), _now(), time.monotonic()
    try:
        if run.task == "count":
            m = _count(run)
        else:
            if cnf_path is None:
                raise RuntimeError("no instance file")
            m = _solve(run, Path(cnf_path))
    except Exception as e:  # a run that cannot even start is a result too
        m = Measurement("ERROR", wall=time.monotonic() - t0, error=f"{type(e).__name__}: {e}")
    return replace(m, host=host, started=started, finished=_now(), total_wall=time.monotonic() - t0)


def _solve(run: Run, cnf_path: Path) -> Measurement:
    from ..solvers import Limits, solve

    o = solve(cnf_path, run.solver.name, limits=Limits(run.time_limit, run.memory_limit), args=run.solver.args)
    status = getattr(o.status, "value", o.status)
    verified, error = o.verified, o.error
    if status == "SAT" and o.verified:
        error = _not_a_solution(run.instance, cnf_path, o.true_vars())
        verified = error is None
    return Measurement(status, o.version, o.wall, o.cpu, o.peak_memory_mb, verified=verified, error=error,
                       measured_by=o.measured_by, check_time=o.check_time)  # fmt: skip


def _not_a_solution(instance: Instance, cnf_path: Path, true_vars: set[int]) -> str | None:
    """Beyond the clause check: the model's queens (names unshuffled) must be an N-queens solution."""
    from ..decode import DecodeError, variant_placement

    if instance.shuffle_seed is not None:
        from ..dimacs import read_header_file
        from ..shuffle import unshuffle_map

        table = unshuffle_map(read_header_file(cnf_path))
        if table is None:
            return f"{NOT_A_SOLUTION}: the shuffled file has no shuffle comment"
        true_vars = {table[v] for v in true_vars if 0 < v < len(table)}
    try:
        variant_placement(instance.n, true_vars, instance.formula().variant if instance.is_variant else None)
    except DecodeError as e:
        return f"{NOT_A_SOLUTION}: {e}"
    return None


def _count(run: Run) -> Measurement:
    from ..enumeration import count_solutions
    from ..solvers import Limits, resolve

    formula = run.instance.formula()
    limits = Limits(run.time_limit, run.memory_limit)
    r = count_solutions(formula, run.solver.name, limits=limits)
    version = getattr(resolve(run.solver.name), "version", None)
    status = getattr(r.status, "value", r.status)
    measured_by = None if run.solver.name.startswith("pysat:") else _measured_by(limits.isolation)
    return Measurement(str(status), version, r.wall, count=r.count, fundamental=r.fundamental, error=r.error,
                       measured_by=measured_by)  # fmt: skip


def _measured_by(isolation: str) -> str:
    from ..solvers.cgroup import choose

    return "cgroup" if choose(isolation) == "cgroup" else "rusage"
