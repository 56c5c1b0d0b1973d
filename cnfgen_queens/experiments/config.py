"""The batch config: a YAML file, validated strictly into a frozen :class:`Config`.

Every error names the file, the line, the key path and what was expected
(``configs/x.yaml:7: instances.n[2]: expected a positive integer, got 'ten'``);
unknown and duplicate keys are errors, so a typo never passes silently.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, NoReturn

from cnfgen_queens.cnf.write_limits import SIZE_FROM_UNBUILT, check_output
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.solutions.api import check_held_size

from .. import encodings
from .. import encodings as registry
from ..errors import UsageError
from ..limits import DEFAULT_OUTPUT_MB, MAX_MEMORY, MAX_TIME
from ..solvers import SolverNotFound, resolve
from .config_source import SourceError, path_problem, read
from .executor_config import SlurmSettings, executor_spec
from .variant_config import RANGE_KEYS, VARIANT_KEYS, VariantSpec, variant_spec

TASKS = ("solve", "count")
TOP_KEYS = ("experiment", "instances", "solvers", "task", "engine", "limits", "repeats", "results", "keep_output",
            "executor", "slurm")  # fmt: skip
ENGINES = ("auto", "cubes", "loop")  # solutions.api.ENGINES (task count)
INSTANCE_KEYS = ("n", "encodings", "column_alo", "group_size", "shuffle_seeds", "max_clauses")
LIMIT_KEYS = ("time", "memory", "output")
SOLVER_KEYS = ("name", "args")

# What a config may ask, checked before anything is expanded or counted (each error names its key)
MAX_RUNS = 1_000_000  # runs in the grid, computed as a product of its factors (what the coordinator holds)
MAX_N = 100_000  # board size
MAX_MEASURED_N = 200  # board size for encodings whose counts are measured by building them (pysat:*)
MAX_COUNTING = 200_000  # sum of N over every (N, encoding): counting an instance's size costs O(N)
MAX_INT = 2**63 - 1  # what SQLite stores


class ConfigError(UsageError):
    """A config that cannot be used; the message is one line naming file, line and key path."""


@dataclass(frozen=True)
class SolverEntry:
    """A solver as the config names it (profile, path or ``pysat:NAME``) and extra arguments."""

    name: str
    args: tuple[str, ...] = ()

    @cached_property
    def label(self) -> str:
        return " ".join((self.name, *self.args))


@dataclass(frozen=True)
class Config:
    """A validated batch config; ``results`` is relative to the working directory."""

    source: str
    experiment: str
    ns: tuple[int, ...]
    encodings: tuple[str, ...]
    column_alo: tuple[bool, ...]  # one value, or both as a grid axis
    group_size: int | None
    shuffle_seeds: tuple[int, ...] | None
    max_clauses: int | None
    solvers: tuple[SolverEntry, ...]
    task: str
    time_limit: float
    memory_limit: int | None
    repeats: int
    results: Path
    variant: VariantSpec | None = None
    output_limit: int = DEFAULT_OUTPUT_MB  # MB of solver output (stdout + stderr) per run
    engine: str = "auto"  # task count: how it counts (solutions.api.choose_engine)
    keep_output: bool = False  # keep each binary solver's output (not in the hash: it changes no result)
    executor: str = "local"  # where the runs execute (not in the hash: it does not change results)
    slurm: SlurmSettings | None = None  # executor slurm: what its jobs ask (executor_config)

    def normalized(self) -> dict[str, Any]:
        """What determines the results (no file names), as plain JSON values."""
        out = self._normalized()
        if self.variant is not None:  # only then, so plain configs keep their hash
            out["instances"]["variant"] = self.variant.normalized()
        if self.output_limit != DEFAULT_OUTPUT_MB:  # likewise
            out["limits"]["output"] = self.output_limit
        if self.engine != "auto":  # likewise
            out["engine"] = self.engine
        return out

    def _normalized(self) -> dict[str, Any]:
        return {
            "instances": {
                "n": list(self.ns),
                "encodings": list(self.encodings),
                # a single value stays a bool, so configs written before the axis keep their hash
                "column_alo": self.column_alo[0] if len(self.column_alo) == 1 else list(self.column_alo),
                "group_size": self.group_size,
                "shuffle_seeds": None if self.shuffle_seeds is None else list(self.shuffle_seeds),
                "max_clauses": self.max_clauses,
            },
            "solvers": [{"name": s.name, "args": list(s.args)} for s in self.solvers],
            "task": self.task,
            "limits": {"time": self.time_limit, "memory": self.memory_limit},
            "repeats": self.repeats,
        }

    @property
    def hash(self) -> str:
        return digest(self.normalized())


def digest(value: Any) -> str:
    """A short stable hash of a JSON value (sorted keys, no spaces)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def load(path: Path | str, *, check_solvers: bool = True) -> Config:
    """Read and validate ``path``; ``check_solvers`` resolves every solver name (needs the runner)."""

    path = Path(path)
    try:
        data, lines = read(path)
    except SourceError as e:
        raise ConfigError(str(e)) from None
    return parse(data, str(path), lines, default_name=path.stem, check_solvers=check_solvers)


class _Check:
    """Raises :class:`ConfigError` with file, line and key path."""

    def __init__(self, source: str, lines: dict[str, int]) -> None:
        self.source, self.lines = source, lines

    def fail(self, path: str, message: str) -> NoReturn:
        line = self.line(path)
        where = f"{self.source}:{line}" if line else self.source
        raise ConfigError(f"{where}: {path or '(top level)'}: {message}")

    def line(self, path: str) -> int | None:
        """The line of ``path``, or of its nearest parent present in the file."""
        while path and path not in self.lines:
            path = path[: path.rindex("[")] if path.endswith("]") else path.rpartition(".")[0]
        return self.lines.get(path)

    def expected(self, path: str, what: str, got: Any) -> NoReturn:
        self.fail(path, f"expected {what}, got {_show(got)}")

    def mapping(self, value: Any, path: str, allowed: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.expected(path, f"a mapping with keys {', '.join(allowed)}", value)
        for key in value:
            if key not in allowed:
                sub = f"{path}.{key}" if path else str(key)
                self.fail(sub, f"unknown key {key!r}; valid: {', '.join(allowed)}")
        return value

    def integer(self, value: Any, path: str, minimum: int = 1, maximum: int = MAX_INT) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            what = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
            self.expected(path, what, value)
        if value > maximum:
            self.fail(path, f"{value} is over the limit of {maximum}")
        return value

    def number(self, value: Any, path: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < float("inf"):
            self.expected(path, "a positive finite number", value)
        return float(value)

    def string(self, value: Any, path: str) -> str:
        if not isinstance(value, str) or not value.strip():
            self.expected(path, "a non-empty string", value)
        return value

    def unique_list(self, value: Any, path: str, item: Callable[[Any, str], Any], what: str) -> tuple[Any, ...]:
        if not isinstance(value, list):
            self.expected(path, f"a list of {what}", value)
        if not value:
            self.fail(path, f"empty list: the grid would have no runs (expected at least one {what[:-1]})")
        if len(value) > MAX_RUNS:  # every entry multiplies the grid
            self.fail(path, f"{len(value)} entries: the grid would have over {MAX_RUNS} runs (the limit)")
        first: dict[Any, int] = {}
        for i, v in enumerate(value):
            checked = item(v, f"{path}[{i}]")
            if first.setdefault(checked, i) != i:
                self.fail(f"{path}[{i}]", f"duplicate entry {_show(v)}")
        return tuple(first)


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing (null)"
    return repr(value)


def parse(
    data: Any,
    source: str,
    lines: dict[str, int] | None = None,
    *,
    default_name: str = "experiment",
    check_solvers: bool = True,
) -> Config:
    """Validate the YAML value ``data`` read from ``source``."""
    c = _Check(source, lines or {})
    if data is None:
        c.fail("", "empty config (expected keys instances, solvers, limits)")
    top = c.mapping(data, "", TOP_KEYS)
    for key in ("instances", "solvers", "limits"):
        if key not in top:
            c.fail(key, "missing (required)")
    experiment = c.string(top.get("experiment", default_name), "experiment")
    inst = c.mapping(top["instances"], "instances", INSTANCE_KEYS + VARIANT_KEYS)
    if "n" not in inst or "encodings" not in inst:
        c.fail("instances", "needs both n and encodings")
    ns = _board_sizes(c, inst["n"])
    column_alo = _column_alo(c, inst.get("column_alo", False))
    group_size = inst.get("group_size")
    if group_size is not None:
        group_size = c.integer(group_size, "instances.group_size", maximum=MAX_N)
    encodings = _encodings(c, inst["encodings"], ns, column_alo[0], group_size)
    seeds = None
    if "shuffle_seeds" in inst:
        seeds = c.unique_list(
            inst["shuffle_seeds"], "instances.shuffle_seeds", lambda v, p: c.integer(v, p, 0), "seeds (integers >= 0)"
        )
    max_clauses = inst.get("max_clauses")
    if max_clauses is not None:
        max_clauses = c.integer(max_clauses, "instances.max_clauses")
    variant = variant_spec(c, inst, ns)
    solvers = c.unique_list(top["solvers"], "solvers", lambda v, p: _solver(c, v, p), "solvers")
    if check_solvers:
        _resolve_all(c, solvers)
    task = top.get("task", "solve")
    if task not in TASKS:
        c.expected("task", " or ".join(TASKS), task)
    for i, entry in enumerate(solvers):
        if task == "count" and entry.args:
            c.fail(f"solvers[{i}].args", "solver arguments are not supported with task count")
    kept = list(_largest_kept(ns, encodings, column_alo, group_size, max_clauses))
    _sizes_fit(c, kept, shuffled=bool(seeds))
    if task == "count":
        _count_fits(c, kept)
    engine = top.get("engine", "auto")
    if engine not in ENGINES:
        c.expected("engine", " or ".join(ENGINES), engine)
    if engine != "auto" and task != "count":
        c.fail("engine", f"{engine}: only task count has an engine")
    limits = c.mapping(top["limits"], "limits", LIMIT_KEYS)
    if "time" not in limits:
        c.fail("limits.time", "missing (required: seconds per run; PAR-2 needs it)")
    time_limit = c.number(limits["time"], "limits.time")
    if time_limit > MAX_TIME:
        c.fail("limits.time", f"{limits['time']} seconds is over the limit of {MAX_TIME} (what solvers accept)")
    memory = limits.get("memory")
    if memory is not None:
        memory = c.integer(memory, "limits.memory", maximum=MAX_MEMORY)
        if engine == "cubes":  # choose_engine would refuse every run
            c.fail("limits.memory", "engine cubes cannot bound memory (its workers are not limited); drop "
                   "limits.memory, or use engine loop or auto (the loop under a memory limit)")  # fmt: skip
    output = c.integer(limits.get("output", DEFAULT_OUTPUT_MB), "limits.output", maximum=MAX_MEMORY)
    repeats = c.integer(top.get("repeats", 1), "repeats", maximum=MAX_RUNS)
    _grid_size(c, ns, encodings, column_alo, seeds, solvers, repeats, variant)
    results = _results_path(c, top.get("results", f"results/{default_name}.sqlite"))
    keep_output = top.get("keep_output", False)
    if not isinstance(keep_output, bool):
        c.expected("keep_output", "true or false", keep_output)
    executor, slurm = executor_spec(c, top, time_limit, memory, results)
    return Config(
        source=source,
        experiment=experiment,
        ns=ns,
        encodings=encodings,
        column_alo=column_alo,
        group_size=group_size,
        shuffle_seeds=seeds,
        max_clauses=max_clauses,
        solvers=solvers,
        task=task,
        time_limit=time_limit,
        memory_limit=memory,
        repeats=repeats,
        results=results,
        variant=variant,
        output_limit=output,
        engine=engine,
        keep_output=keep_output,
        executor=executor,
        slurm=slurm,
    )


def _largest_kept(ns: tuple[int, ...], encodings: tuple[str, ...], column_alo: tuple[bool, ...], group: int | None,
                  max_clauses: int | None) -> Iterator[tuple[int, QueensFormula]]:  # fmt: skip
    """(index, formula) of the largest instance of each encoding that ``max_clauses`` keeps (sizes grow
    with N): what the checks below look at, before any run."""
    for i, name in enumerate(encodings):
        size = group if registry.get(name).takes_group_size else None
        for n in sorted(ns, reverse=True):
            formula = QueensFormula(n, name, any(column_alo), size)
            if max_clauses is None or formula.counts()[1] <= max_clauses:
                yield i, formula
                break


def _count_fits(c: _Check, kept: list[tuple[int, QueensFormula]]) -> None:
    """``task: count`` holds each formula in memory: the largest kept instances are checked against the cap
    (``solutions.api.check_held_size``) here, rather than stored as an ERROR row at run time."""
    for i, formula in kept:
        try:
            check_held_size(formula, escape="a smaller N for task count", option="encoding ")
        except UsageError as e:
            c.fail(f"instances.encodings[{i}]", f"task count: {e}")


def _sizes_fit(c: _Check, kept: list[tuple[int, QueensFormula]], *, shuffled: bool) -> None:
    """What gen-queens refuses, the batch refuses before any run (cnf.write_limits): the largest kept
    instances within the DIMACS variable limit, the size guard, and the shuffle's memory bound."""
    for i, formula in kept:
        try:
            check_output(formula, (), shuffle=0 if shuffled else None, shuffled_by="instances.shuffle_seeds",
                         advice="use a smaller N, or instances.max_clauses to leave it out",
                         size_from=SIZE_FROM_UNBUILT)  # fmt: skip
        except UsageError as e:
            c.fail(f"instances.encodings[{i}]", str(e))


def _results_path(c: _Check, value: Any) -> Path:
    """The results file; names the file system would refuse (too long, NUL) are config errors."""
    path = Path(c.string(value, "results"))
    problem = path_problem(path)
    if problem:
        c.fail("results", problem)
    return path


def _grid_size(
    c: _Check,
    ns: tuple[int, ...],
    encodings: tuple[str, ...],
    column_alo: tuple[bool, ...],
    seeds: tuple[int, ...] | None,
    solvers: tuple[SolverEntry, ...],
    repeats: int,
    variant: VariantSpec | None = None,
) -> None:
    """The grid's size as a product of its factors, checked before anything is expanded."""
    boards = (len(ns), "N") if variant is None else (variant.placements(ns), "(N, K, seed) boards")
    factors = [boards, (len(encodings), "encodings")]
    factors += [(len(column_alo), "column_alo values")] if len(column_alo) > 1 else []
    factors += [(len(seeds), "seeds")] if seeds else []
    factors += [(len(solvers), "solvers"), (repeats, "repeats")]
    runs = 1
    for k, _ in factors:
        runs *= k
    if runs > MAX_RUNS:
        shown = " x ".join(f"{k} {what}" for k, what in factors)
        c.fail("grid", f"{shown} = {runs} runs, over the limit of {MAX_RUNS}")


def _board_sizes(c: _Check, value: Any) -> tuple[int, ...]:
    if isinstance(value, dict):
        spec = c.mapping(value, "instances.n", RANGE_KEYS)
        for key in ("from", "to"):
            if key not in spec:
                c.fail(f"instances.n.{key}", "missing (a range needs from and to)")
        lo = c.integer(spec["from"], "instances.n.from", maximum=MAX_N)
        hi = c.integer(spec["to"], "instances.n.to", maximum=MAX_N)
        step = c.integer(spec.get("step", 1), "instances.n.step")
        if lo > hi:
            c.fail("instances.n", f"empty range: from {lo} > to {hi}, the grid would have no runs")
        sizes = range(lo, hi + 1, step)
        if len(sizes) > MAX_RUNS:
            c.fail("instances.n", f"{len(sizes)} board sizes: the grid would have over {MAX_RUNS} runs (the limit)")
        return tuple(sizes)
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    board_size = lambda v, p: c.integer(v, p, maximum=MAX_N)
    return c.unique_list(value, "instances.n", board_size, "board sizes (positive integers)")


def _column_alo(c: _Check, value: Any) -> tuple[bool, ...]:
    """``true``, ``false`` or a list of them (a grid axis: each instance with and without)."""
    values = value if isinstance(value, list) else [value]
    if not values or not all(isinstance(v, bool) for v in values):
        c.expected("instances.column_alo", "true, false or a list of them", value)
    if len(set(values)) != len(values):
        c.fail("instances.column_alo", f"{value} lists a value twice")
    return tuple(values)


def _encodings(c: _Check, value: Any, ns: tuple[int, ...], column_alo: bool, group_size: int | None) -> tuple[str, ...]:

    if value == "all":
        value = encodings.names()
    if isinstance(value, list) and sum(ns) * len(value) > MAX_COUNTING:  # before sizing any instance
        c.fail(
            "instances.n",
            f"the N sum to {sum(ns)}, x {len(value)} encodings = {sum(ns) * len(value)}, over the limit of "
            f"{MAX_COUNTING} (sizing an instance costs O(N): fewer or smaller N)",
        )

    def one(name: Any, path: str) -> str:
        name = c.string(name, path)
        if name.startswith("pysat:") and max(ns) > MAX_MEASURED_N:  # before counting anything
            c.fail(path, f"{name} counts are measured by building it: N up to {MAX_MEASURED_N}, not {max(ns)}")
        try:
            takes_group = encodings.get(name).takes_group_size
            QueensFormula(min(ns), name, column_alo, group_size if takes_group else None).counts()
        except ValueError as e:  # UnknownEncoding lists the valid names; a bad group size
            c.fail(path, str(e).replace("--group-size", "group_size"))
        return name

    names = c.unique_list(value, "instances.encodings", one, "encoding names (or the word all)")
    if group_size is not None and not any(encodings.get(e).takes_group_size for e in names):
        c.fail("instances.group_size", f"none of {', '.join(names)} takes a group size")
    return names


def _solver(c: _Check, value: Any, path: str) -> SolverEntry:
    if isinstance(value, str):
        return SolverEntry(c.string(value, path))
    spec = c.mapping(value, path, SOLVER_KEYS)
    if "name" not in spec:
        c.fail(f"{path}.name", "missing (a solver entry needs a name)")
    args = spec.get("args", [])
    plain = (str, int, float)
    if not isinstance(args, list) or not all(isinstance(a, plain) and not isinstance(a, bool) for a in args):
        c.expected(f"{path}.args", "a list of strings", args)
    return SolverEntry(c.string(spec["name"], f"{path}.name"), tuple(str(a) for a in args))


def _resolve_all(c: _Check, solvers: tuple[SolverEntry, ...]) -> None:

    for i, entry in enumerate(solvers):
        try:
            spec = resolve(entry.name)
        except SolverNotFound as e:
            c.fail(f"solvers[{i}]", f"unknown or missing solver: {e}")
        if entry.args and getattr(spec, "embedded", None) is not None:
            c.fail(f"solvers[{i}].args", f"the embedded solver {entry.name} takes no arguments")
