"""The batch config: a YAML file, validated strictly into a frozen :class:`Config`.

Every error names the file, the line, the key path and what was expected
(``configs/x.yaml:7: instances.n[2]: expected a positive integer, got 'ten'``);
unknown and duplicate keys are errors, so a typo never passes silently.  In this module, in order: the
checker (:class:`ConfigError`, :class:`Check`), the :class:`Config` and :func:`load`/:func:`parse`, the
sections that check their own keys (instances, variants, ``instances.files``, solvers, executor), and the
reading of the YAML source (:func:`read`, aliases never expanded).
"""

from __future__ import annotations

import functools
import glob
import hashlib
import json
import math
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, NoReturn

from .. import encodings as registry  # `encodings` is a parameter name below
from ..bounds import read_text
from ..cnf.dimacs import read_header_file
from ..cnf.gbd_hash import gbd_hash
from ..cnf.writer import SIZE_FROM_UNBUILT, Asker, check_output
from ..encodings.plugin_loading import load_plugin
from ..encodings.plugins import PluginError, PluginSource
from ..errors import UsageError
from ..execution.slurm import DEFAULT_RUN_MEMORY, SlurmSettings, needed
from ..limits import DEFAULT_OUTPUT_MB, MAX_MEMORY, MAX_TIME
from ..model.formula import QueensFormula
from ..model.lex_leader import board_group
from ..model.variants import VariantError, make_variant, parse_cell
from ..solutions.api import ENGINES, check_held_size
from ..solvers import SolverNotFound, resolve
from ..solvers.profiles import Profile, ProfileError, embedded_facts, load_user_profiles, proof_writers, user_profile
from .file_instances import InstanceFile, label_of
from .spread import MIN_REPEATS

# --- the checker --------------------------------------------------------------------------------------------
# :class:`ConfigError` and the :class:`Check` that raises it; every section below checks through it.

MAX_RUNS = 1_000_000  # runs in the grid, computed as a product of its factors (what the coordinator holds)
MAX_INT = 2**63 - 1  # what SQLite stores


class ConfigError(UsageError):
    """A config that cannot be used; the message is one line naming file, line and key path."""


class Check:
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


# --- the config ---------------------------------------------------------------------------------------------

TASKS = ("solve", "count")
TOP_KEYS = ("experiment", "instances", "solvers", "solvers_file", "task", "engine", "limits", "repeats", "results",
            "keep_output", "executor", "slurm", "pin", "proof", "plugins")  # fmt: skip
LIMIT_KEYS = ("time", "memory", "output")


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
    slurm: SlurmSettings | None = None  # executor slurm: what its jobs ask (its section below)
    repeats_max: int | None = None  # repeats: {min, max, until}: more repeats of a cell while its
    repeats_until: float | None = None  # 95% CI reaches farther than ``until`` x its median from it (repeats: the min)
    pin: bool = False  # each run at once on cores of its own (experiments.noise; not in the hash: no result changes)
    files: tuple[InstanceFile, ...] = ()  # instances.files: DIMACS files solved beside the queens
    proof: bool = False  # every solver writes a DRAT proof, checked: an UNSAT is proof-verified (or not)
    plugins: tuple[PluginSource, ...] = ()  # loaded before the encodings are read; their sources' hashes in the hash

    @property
    def adaptive(self) -> bool:
        return self.repeats_max is not None

    def normalized(self) -> dict[str, Any]:
        """What determines the results (no file names), as plain JSON values."""
        out = self._normalized()
        if self.variant is not None:  # only then, so plain configs keep their hash
            out["instances"]["variant"] = self.variant.normalized()
        if self.output_limit != DEFAULT_OUTPUT_MB:  # likewise
            out["limits"]["output"] = self.output_limit
        if self.engine != "auto":  # likewise
            out["engine"] = self.engine
        if self.files:  # likewise
            out["instances"]["files"] = [f.normalized() for f in self.files]
        if self.proof:  # likewise
            out["proof"] = True
        if self.plugins:  # likewise; by content: the same source under another path is the same experiment
            out["plugins"] = [p.sha256 for p in self.plugins]
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
            "solvers": [s.normalized() for s in self.solvers],
            "task": self.task,
            "limits": {"time": self.time_limit, "memory": self.memory_limit},
            "repeats": self.repeats
            if self.repeats_max is None
            else {"min": self.repeats, "max": self.repeats_max, "until": self.repeats_until},
        }

    @property
    def hash(self) -> str:
        return digest(self.normalized())


def digest(value: Any) -> str:
    """A short stable hash of a JSON value (sorted keys, no spaces)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def load(path: Path | str, *, check_solvers: bool = True, check_sizes: bool = True) -> Config:
    """Read and validate ``path``; ``check_solvers`` resolves every solver name (needs the runner);
    ``check_sizes`` applies the size guards a run needs (off for a config read as the record of runs made)."""

    path = Path(path)
    try:
        data, lines = read(path)
    except SourceError as e:
        raise ConfigError(str(e)) from None
    return parse(data, str(path), lines, default_name=path.stem, check_solvers=check_solvers, check_sizes=check_sizes)


def parse(
    data: Any,
    source: str,
    lines: dict[str, int] | None = None,
    *,
    default_name: str = "experiment",
    check_solvers: bool = True,
    check_sizes: bool = True,
) -> Config:
    """Validate the YAML value ``data`` read from ``source``."""
    c = Check(source, lines or {})
    if data is None:
        c.fail("", "empty config (expected keys instances, solvers, limits)")
    top = c.mapping(data, "", TOP_KEYS)
    for key in ("instances", "solvers", "limits"):
        if key not in top:
            c.fail(key, "missing (required)")
    experiment = c.string(top.get("experiment", default_name), "experiment")
    inst = c.mapping(top["instances"], "instances", INSTANCE_KEYS + VARIANT_KEYS + FILE_KEYS)
    queens = "n" in inst or "encodings" in inst or "files" not in inst
    if queens and ("n" not in inst or "encodings" not in inst):
        c.fail("instances", "needs both n and encodings (and may name files beside them), or files alone")
    if not queens and (extra := [k for k in inst if k != "files"]):
        c.fail(f"instances.{extra[0]}", "applies to generated queens: give n and encodings too")
    plugins = _plugins(c, top.get("plugins", []), source)  # before any encoding name is read
    files = instance_files(c, inst["files"], source) if "files" in inst else ()
    ns = board_sizes(c, inst["n"]) if queens else ()
    column_alo = column_alo_values(c, inst.get("column_alo", False))
    group_size = inst.get("group_size")
    if group_size is not None:
        group_size = c.integer(group_size, "instances.group_size", maximum=MAX_N)
    encodings = encoding_names(c, inst["encodings"], ns, column_alo[0], group_size) if queens else ()
    seeds = None
    if "shuffle_seeds" in inst:
        seeds = c.unique_list(
            inst["shuffle_seeds"], "instances.shuffle_seeds", lambda v, p: c.integer(v, p, 0), "seeds (integers >= 0)"
        )
    max_clauses = inst.get("max_clauses")
    if max_clauses is not None:
        max_clauses = c.integer(max_clauses, "instances.max_clauses")
    # gen-queens's size and shuffle guards lifted, as gen-queens --allow-large; read here only (no result changes:
    # not in the hash); task count's cap stays, since count --allow-large also changes the engine
    allow_large = inst.get("allow_large", False)
    if not isinstance(allow_large, bool):
        c.expected("instances.allow_large", "true or false", allow_large)
    variant = variant_spec(c, inst, ns)
    solvers = solver_entries(c, top, source, check_solvers=check_solvers)
    task = _task(c, top, bool(files))
    kept = list(largest_kept(ns, encodings, column_alo, group_size, max_clauses))
    if check_sizes:  # what gen-queens would refuse today (a config that ran before a guard came is still read)
        sizes_fit(c, kept, shuffled=bool(seeds), allow_large=allow_large)
    if task == "count":
        count_fits(c, kept)
    engine = _engine(c, top, task)
    time_limit, memory, output = _limits(c, top, engine)
    repeats, repeats_max, until = _repeats(c, top.get("repeats", 1))
    factors = grid_factors(ns, encodings, column_alo, seeds, solvers, repeats_max or repeats, variant)
    grid_size(c, with_files(factors, len(files)))
    results = _results_path(c, top.get("results", f"results/{default_name}.sqlite"))
    keep_output = top.get("keep_output", False)
    if not isinstance(keep_output, bool):
        c.expected("keep_output", "true or false", keep_output)
    executor, slurm = executor_spec(c, top, time_limit, memory, results)
    pin = top.get("pin", False)
    if not isinstance(pin, bool):
        c.expected("pin", "true or false", pin)
    proof = proof_setting(c, top.get("proof", False), task, solvers)
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
        repeats_max=repeats_max,
        repeats_until=until,
        results=results,
        variant=variant,
        output_limit=output,
        engine=engine,
        keep_output=keep_output,
        executor=executor,
        slurm=slurm,
        pin=pin,
        files=files,
        proof=proof,
        plugins=plugins,
    )


def _task(c: Check, top: dict[str, Any], files: bool) -> str:
    """The config's task: solve (the default) or count, which counts boards and takes no DIMACS files."""
    task = top.get("task", "solve")
    if task not in TASKS:
        c.expected("task", " or ".join(TASKS), task)
    if task == "count" and files:
        c.fail("instances.files", "task count counts N-queens boards: DIMACS files are for task solve")
    return str(task)


def _engine(c: Check, top: dict[str, Any], task: str) -> str:
    """The count's engine (auto, cubes or loop); only task count has one."""
    engine = top.get("engine", "auto")
    if engine not in ENGINES:
        c.expected("engine", " or ".join(ENGINES), engine)
    if engine != "auto" and task != "count":
        c.fail("engine", f"{engine}: only task count has an engine")
    return str(engine)


def _limits(c: Check, top: dict[str, Any], engine: str) -> tuple[float, int | None, int]:
    """The limits of a run: time (seconds, required), memory (MB, not with engine cubes) and output (MB)."""
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
            c.fail(
                "limits.memory",
                "engine cubes cannot bound memory (its workers are not limited); drop "
                "limits.memory, or use engine loop or auto (the loop under a memory limit)",
            )
    output = c.integer(limits.get("output", DEFAULT_OUTPUT_MB), "limits.output", maximum=MAX_MEMORY)
    return time_limit, memory, output


def _plugins(c: Check, value: Any, source: str) -> tuple[PluginSource, ...]:
    """``plugins: [FILE.py | MODULE, ...]``, each loaded now (a file relative to the config's directory)."""
    if value == []:
        return ()
    base = str(Path(source).resolve().parent) if Path(source).is_file() else None

    def one(spec: Any, path: str) -> PluginSource:
        try:
            return load_plugin(c.string(spec, path), base)
        except PluginError as e:
            c.fail(path, str(e))

    return c.unique_list(value, "plugins", one, "plugin files or modules")


def _results_path(c: Check, value: Any) -> Path:
    """The results file; names the file system would refuse (too long, NUL) are config errors."""
    path = Path(c.string(value, "results"))
    problem = path_problem(path)
    if problem:
        c.fail("results", problem)
    return path


def _repeats(c: Check, value: Any) -> tuple[int, int | None, float | None]:
    """(repeats or min, max, until) of ``repeats: 5`` or ``repeats: {min: 3, max: 20, until: 0.05}``."""
    if not isinstance(value, dict):
        return c.integer(value, "repeats", maximum=MAX_RUNS), None, None
    d = c.mapping(value, "repeats", ("min", "max", "until"))
    for key in ("min", "max", "until"):
        if key not in d:
            c.fail(f"repeats.{key}", "missing (adaptive repeats need min, max and until)")
    low = c.integer(d["min"], "repeats.min", minimum=2, maximum=MAX_RUNS)
    high = c.integer(d["max"], "repeats.max", minimum=low, maximum=MAX_RUNS)
    if high < MIN_REPEATS:  # until could never be met: the rule would run every cell to max anyway
        c.fail(
            "repeats.max",
            f"{high}: a 95% confidence interval of the median needs {MIN_REPEATS} or more repeats "
            "(fewer cannot hold it whatever the times); a fixed repeats: N runs N",
        )
    until = c.number(d["until"], "repeats.until")
    if until >= 1:
        c.fail(
            "repeats.until",
            f"{until:g}: how far the interval may reach from the median on either side, "
            "relative to it: below 1 (0.05: 5%)",
        )
    return low, high, until


# --- instances ----------------------------------------------------------------------------------------------
# The ``instances`` section of a batch config: board sizes, encodings, ``column_alo``, and the size
# checks made on the largest instances before anything is expanded or run (the grid's run count, what
# gen-queens and ``task: count`` would refuse).

INSTANCE_KEYS = ("n", "encodings", "column_alo", "group_size", "shuffle_seeds", "max_clauses", "allow_large")

# What a config may ask, checked before anything is expanded or counted (each error names its key)
MAX_N = 100_000  # board size
MAX_MEASURED_N = 200  # board size for encodings whose counts are measured by building them (pysat:*)
MAX_COUNTING = 200_000  # sum of N over every (N, encoding): counting an instance's size costs O(N)


def largest_kept(
    ns: tuple[int, ...],
    encodings: tuple[str, ...],
    column_alo: tuple[bool, ...],
    group: int | None,
    max_clauses: int | None,
) -> Iterator[tuple[int, QueensFormula]]:
    """(index, formula) of the largest instance of each encoding that ``max_clauses`` keeps (sizes grow
    with N): what the checks below look at, before any run."""
    for i, name in enumerate(encodings):
        size = group if registry.get(name).takes_group_size else None
        for n in sorted(ns, reverse=True):
            formula = QueensFormula(n, name, any(column_alo), size)
            if max_clauses is None or formula.counts()[1] <= max_clauses:
                yield i, formula
                break


def count_fits(c: Check, kept: list[tuple[int, QueensFormula]]) -> None:
    """``task: count`` holds each formula in memory: the largest kept instances are checked against the cap
    (``solutions.api.check_held_size``) here, rather than stored as an ERROR row at run time."""
    for i, formula in kept:
        try:
            check_held_size(formula, escape="a smaller N for task count", option="encoding ")
        except UsageError as e:
            c.fail(f"instances.encodings[{i}]", f"task count: {e}")


BATCH = Asker(
    "instances.shuffle_seeds",
    "use a smaller N, instances.max_clauses to leave it out, or instances.allow_large: true to run it anyway",
    SIZE_FROM_UNBUILT,
)


def sizes_fit(c: Check, kept: list[tuple[int, QueensFormula]], *, shuffled: bool, allow_large: bool) -> None:
    """What gen-queens refuses, the batch refuses before any run (cnf.writer): the largest kept
    instances within the DIMACS variable limit, the size guard, and the shuffle's memory bound (the last two
    lifted by ``allow_large``, as gen-queens --allow-large)."""
    for i, formula in kept:
        try:
            check_output(formula, (), allow_large=allow_large, shuffle=0 if shuffled else None, asker=BATCH)
        except UsageError as e:
            c.fail(f"instances.encodings[{i}]", str(e))


def grid_factors(
    ns: tuple[int, ...],
    encodings: tuple[str, ...],
    column_alo: tuple[bool, ...],
    seeds: tuple[int, ...] | None,
    solvers: tuple[object, ...],
    repeats: int,
    variant: VariantSpec | None = None,
) -> list[tuple[int, str]]:
    """The factors whose product is the grid's run count, as (count, what): the one list that both the
    size check below and ``batch --dry-run`` print (before ``max_clauses`` leaves instances out); with
    DIMACS files, :func:`with_files` of it."""
    boards = (len(ns), "N") if variant is None else (variant.placements(ns), "(N, K, seed) boards")
    factors = [boards, (len(encodings), "encodings")]
    factors += [(len(column_alo), "column_alo values")] if len(column_alo) > 1 else []
    factors += [(len(seeds), "seeds")] if seeds else []
    return [*factors, (len(solvers), "solvers"), (repeats, "repeats")]


def with_files(factors: list[tuple[int, str]], files: int) -> list[tuple[int, str]]:
    """:func:`grid_factors` of a grid that also solves ``files`` DIMACS files (instances.files): the generated
    instances (the product of the factors before solvers and repeats) and the files are one sum."""
    if not files:
        return factors
    queens = math.prod(k for k, _ in factors[:-2])
    what = f"instances ({queens} generated + {files} files)" if queens else "files"
    return [(queens + files, what), *factors[-2:]]


def shown(factors: list[tuple[int, str]]) -> str:
    """``3 N x 2 encodings x ... = R runs``: the factors and their product."""
    return f"{' x '.join(f'{k} {what}' for k, what in factors)} = {math.prod(k for k, _ in factors)} runs"


def grid_size(c: Check, factors: list[tuple[int, str]]) -> None:
    """The grid's size as a product of its factors (:func:`grid_factors`), checked before anything is
    expanded."""
    if math.prod(k for k, _ in factors) > MAX_RUNS:
        c.fail("grid", f"{shown(factors)}, over the limit of {MAX_RUNS}")


def board_sizes(c: Check, value: Any) -> tuple[int, ...]:
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


def column_alo_values(c: Check, value: Any) -> tuple[bool, ...]:
    """``true``, ``false`` or a list of them (a grid axis: each instance with and without)."""
    values = value if isinstance(value, list) else [value]
    if not values or not all(isinstance(v, bool) for v in values):
        c.expected("instances.column_alo", "true, false or a list of them", value)
    if len(set(values)) != len(values):
        c.fail("instances.column_alo", f"{value} lists a value twice")
    return tuple(values)


def encoding_names(
    c: Check, value: Any, ns: tuple[int, ...], column_alo: bool, group_size: int | None
) -> tuple[str, ...]:
    """The ``encodings`` list (or ``all``), each name checked by sizing its smallest instance."""
    if value == "all":
        value = registry.names()
    if isinstance(value, list) and sum(ns) * len(value) > MAX_COUNTING:  # before sizing any instance
        c.fail(
            "instances.n",
            f"the N sum to {sum(ns)}, x {len(value)} encodings = {sum(ns) * len(value)}, over the limit of "
            f"{MAX_COUNTING} (sizing an instance costs O(N): fewer or smaller N)",
        )

    def one(name: Any, path: str) -> str:
        name = c.string(name, path)
        try:
            enc = registry.get(name)
        except ValueError as e:  # UnknownEncoding lists the valid names
            c.fail(path, str(e).replace("--plugin FILE.py", "plugins: [FILE.py]"))
        if not enc.size_declared and max(ns) > MAX_MEASURED_N:  # before counting anything
            c.fail(path, f"{name} counts are measured by building it: N up to {MAX_MEASURED_N}, not {max(ns)}")
        try:
            QueensFormula(min(ns), name, column_alo, group_size if enc.takes_group_size else None).counts()
        except ValueError as e:  # a bad group size
            c.fail(path, str(e).replace("--group-size", "group_size"))
        return name

    names = c.unique_list(value, "instances.encodings", one, "encoding names (or the word all)")
    if group_size is not None and not any(registry.get(e).takes_group_size for e in names):
        c.fail("instances.group_size", f"none of {', '.join(names)} takes a group size")
    return names


# --- instances: variant keys --------------------------------------------------------------------------------
# The ``instances:`` variant keys of a batch config, validated (see :mod:`cnfgen_queens.model.variants`).
#
# ```yaml
# instances:
#   n: [20, 30, 50]
#   encodings: [pairwise]
#   torus: false                    # wrapped diagonals
#   place: ["1,1", [3, 2]]          # queens placed in advance, 1-based ROW,COLUMN
#   holes: ["2,5"]                  # blocked squares
#   random_place_fraction: {from: 0, to: 0.8, step: 0.1}   # K = round(fraction * N); or
#   # random_place: [0, 5, 10]      # K itself
#   random_seeds: {from: 0, to: 19} # one instance per seed (required with random placement)
#   break_symmetry: [false, true]   # lex-leader clauses (gen-queens --break-symmetry); true, false or both
# ```
#
# Every (N, K, seed) is generated while the config is checked, so an impossible
# placement is an error naming the key, not a failed run.

VARIANT_KEYS = ("torus", "place", "holes", "random_place", "random_place_fraction", "random_seeds", "break_symmetry")
RANGE_KEYS = ("from", "to", "step")
MAX_RANGE = 100_000  # entries of one from/to/step range


@dataclass(frozen=True)
class VariantSpec:
    """The ``instances:`` variant keys: cells 0-based; random placement by K or by K/N, with seeds."""

    torus: bool = False
    place: tuple[tuple[int, int], ...] = ()
    holes: tuple[tuple[int, int], ...] = ()
    random_place: tuple[int, ...] | None = None
    random_fraction: tuple[float, ...] | None = None
    random_seeds: tuple[int, ...] | None = None
    break_symmetry: tuple[bool, ...] = (False,)  # one value, or both as a grid axis

    def ks(self, n: int) -> tuple[int | None, ...]:
        """The random-placement sizes for board size ``n`` (None: no random placement)."""
        if self.random_fraction is not None:
            return tuple(dict.fromkeys(int(f * n + 0.5) for f in self.random_fraction))
        return self.random_place if self.random_place is not None else (None,)

    def seeds(self, k: int | None) -> tuple[int | None, ...]:
        return (None,) if k is None or self.random_seeds is None else self.random_seeds

    def placements(self, ns: tuple[int, ...]) -> int:
        """The (N, K, seed) instances this spec makes of the board sizes ``ns``."""
        return len(self.break_symmetry) * sum(len(ks) * len(self.seeds(ks[0])) for ks in map(self.ks, ns))

    def normalized(self) -> dict[str, Any]:
        extra = {"break_symmetry": list(self.break_symmetry)} if self.break_symmetry != (False,) else {}
        return extra | {
            "torus": self.torus,
            "place": [list(c) for c in self.place],
            "holes": [list(c) for c in self.holes],
            "random_place": None if self.random_place is None else list(self.random_place),
            "random_place_fraction": None if self.random_fraction is None else list(self.random_fraction),
            "random_seeds": None if self.random_seeds is None else list(self.random_seeds),
        }


def _range(c: Check, value: dict[str, Any], path: str, number: bool) -> list[Any]:
    spec = c.mapping(value, path, RANGE_KEYS)
    for key in ("from", "to"):
        if key not in spec:
            c.fail(f"{path}.{key}", "missing (a range needs from and to)")
    if number:
        lo, hi = (_fraction(c, spec[k], f"{path}.{k}") for k in ("from", "to"))
        step = spec.get("step", 0.1)
        if isinstance(step, bool) or not isinstance(step, int | float) or not 0 < step <= 1:
            c.expected(f"{path}.step", "a number in (0, 1]", step)
        if lo > hi:
            c.fail(path, f"empty range: from {lo} > to {hi}, the grid would have no runs")
        count = int((hi - lo) / step + 1e-9) + 1  # counted before any value is made
        if count > MAX_RANGE:
            c.fail(path, f"{count} entries (step {step:g}), more than {MAX_RANGE}")
        return [round(lo + i * step, 10) for i in range(count)]
    lo, hi = c.integer(spec["from"], f"{path}.from", 0), c.integer(spec["to"], f"{path}.to", 0)
    step = c.integer(spec.get("step", 1), f"{path}.step")
    if lo > hi:
        c.fail(path, f"empty range: from {lo} > to {hi}, the grid would have no runs")
    if (hi - lo) // step + 1 > MAX_RANGE:
        c.fail(path, f"more than {MAX_RANGE} entries")
    return list(range(lo, hi + 1, step))


def _fraction(c: Check, value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        c.expected(path, "a number between 0 and 1", value)
    return float(value)


def _list(c: Check, inst: dict[str, Any], key: str, number: bool = False) -> tuple[Any, ...] | None:
    if key not in inst:
        return None
    path = f"instances.{key}"
    value = inst[key]
    if isinstance(value, dict):
        value = _range(c, value, path, number)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        value = [value]
    item = (lambda v, p: _fraction(c, v, p)) if number else (lambda v, p: c.integer(v, p, 0))
    what = "fractions (0..1)" if number else "integers (>= 0)"
    return c.unique_list(value, path, item, what)


def _cells(c: Check, inst: dict[str, Any], key: str) -> tuple[tuple[int, int], ...]:

    value = inst.get(key, [])
    path = f"instances.{key}"
    if not isinstance(value, list):
        c.expected(path, 'a list of squares ("ROW,COLUMN" or [ROW, COLUMN], 1-based)', value)
    out = []
    for i, v in enumerate(value):
        if isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            v = f"{v[0]},{v[1]}"
        if not isinstance(v, str):
            c.expected(f"{path}[{i}]", '"ROW,COLUMN" or [ROW, COLUMN]', v)
        try:
            out.append(parse_cell(v))
        except VariantError as e:
            c.fail(f"{path}[{i}]", str(e))
    return tuple(out)


def variant_spec(c: Check, inst: dict[str, Any], ns: tuple[int, ...]) -> VariantSpec | None:
    """The validated variant keys of ``instances`` (None when there are none)."""

    if not any(k in inst for k in VARIANT_KEYS):
        return None
    torus = inst.get("torus", False)
    if not isinstance(torus, bool):
        c.expected("instances.torus", "true or false", torus)
    ks, fractions = _list(c, inst, "random_place"), _list(c, inst, "random_place_fraction", number=True)
    seeds = _list(c, inst, "random_seeds")
    if ks is not None and fractions is not None:
        c.fail("instances.random_place_fraction", "give random_place or random_place_fraction, not both")
    if (ks is not None or fractions is not None) != (seeds is not None):
        c.fail("instances.random_seeds", "random placement needs random_seeds, and random_seeds needs random_place")
    breaks = inst.get("break_symmetry", False)
    breaks = breaks if isinstance(breaks, list) else [breaks]
    if not breaks or not all(isinstance(b, bool) for b in breaks) or len(set(breaks)) != len(breaks):
        c.expected("instances.break_symmetry", "true, false or a list of both", inst.get("break_symmetry"))
    spec = VariantSpec(torus, _cells(c, inst, "place"), _cells(c, inst, "holes"), ks, fractions, seeds, tuple(breaks))
    key = "random_place_fraction" if fractions is not None else "random_place" if ks is not None else "place"
    values = len(fractions or ks or ())
    if len(ns) * values > 10 * MAX_RANGE:  # before computing the K of each N
        c.fail(f"instances.{key}", f"{len(ns)} N x {values} values: more than {10 * MAX_RANGE} to size")
    if spec.placements(ns) > MAX_RANGE:  # before generating any
        c.fail(f"instances.{key}", f"{spec.placements(ns)} (N, K, seed) placements, more than {MAX_RANGE}")
    for n in ns:
        for k in spec.ks(n):
            for seed in spec.seeds(k):
                try:
                    v = make_variant(n, spec.place, spec.holes, torus, k, seed)
                except VariantError as e:
                    c.fail(f"instances.{key}", f"n={n}: {e}")
                if True in spec.break_symmetry:
                    try:
                        board_group(n, v)
                    except UsageError as e:
                        c.fail("instances.break_symmetry", f"n={n}: {e}")
    return spec


# --- instances.files ----------------------------------------------------------------------------------------
# ``instances.files``: DIMACS files (plain or .gz/.bz2/.xz) solved beside the queens.  Each glob is
# relative to the config's folder; every file is read as ``solve`` reads one (its header through
# :func:`~cnfgen_queens.cnf.dimacs.read_header_file`, the same bounds) and kept once by its GBD hash.

FILE_KEYS = ("files",)
MAX_FILES = 10_000  # files one config names (each is hashed when the config is read)


def instance_files(c: Check, value: Any, source: str) -> tuple[InstanceFile, ...]:
    """The files ``instances.files`` names (globs relative to the config's folder), sorted by path, each
    once (by GBD hash: a copy under another name is the same instance); a glob matching nothing, a file
    ``solve`` would refuse or too many files are config errors naming the glob."""
    patterns = value if isinstance(value, list) else [value]
    if not patterns or not all(isinstance(p, str) and p.strip() for p in patterns):
        c.expected("instances.files", "a list of file names or globs (relative to the config's folder)", value)
    base = Path(source).parent if not source.startswith("<") else Path()  # "<config>": a mapping from Python
    found: dict[str, tuple[int, Path]] = {}
    for i, pattern in enumerate(patterns):
        full = Path(pattern).expanduser()
        full = full if full.is_absolute() else base / full
        matches = sorted(Path(m) for m in glob.glob(str(full), recursive=True) if Path(m).is_file())
        if not matches:
            c.fail(f"instances.files[{i}]", f"no file matches {pattern!r} (relative to {base.resolve()})")
        for m in matches:
            found.setdefault(str(m.resolve()), (i, m))
        if len(found) > MAX_FILES:
            c.fail(f"instances.files[{i}]", f"over {MAX_FILES} files: the grid would be too large")
    files: dict[str, InstanceFile] = {}
    for path_text, (i, shown) in sorted(found.items()):
        path = Path(path_text)
        try:
            header = read_header_file(path, None)
            digest = gbd_hash(path)
        except (UsageError, OSError) as e:  # DimacsError, InputError (a corrupt archive), unreadable
            cause = getattr(e, "strerror", None) or str(e)
            c.fail(f"instances.files[{i}]", cause if str(shown) in cause else f"{shown}: {cause}")
        files.setdefault(
            digest,
            InstanceFile(
                path_text, path.parent.name or "files", label_of(path), digest, header.num_vars, header.num_clauses
            ),
        )
    return tuple(files.values())


# --- solvers ------------------------------------------------------------------------------------------------
# The ``solvers`` section of a batch config, with ``solvers_file`` and ``proof``: each solver as a
# :class:`SolverEntry`, a name (a built-in profile, a path, ``pysat:NAME``), a profile of the config's own
# (inline: an entry with a ``command``, the schema of ``--solvers-file``; or by name from ``solvers_file``),
# and its extra arguments; checked by resolving each name as ``solve`` does.

PROFILE_KEYS = (
    "command",
    "time_flags",
    "memory_flags",
    "proof_flags",
    "output",
    "sat_exit",
    "unsat_exit",
    "unknown_exit",
    "version_args",
    "install",
    "quirks",
    "native",
)  # a solvers file's (solvers.profiles)
SOLVER_KEYS = ("name", "args", *PROFILE_KEYS)  # with command: an inline profile


@dataclass(frozen=True)
class SolverEntry:
    """A solver as the config names it (profile, path or ``pysat:NAME``) and extra arguments; ``profile``: the
    config's own profile of that name (inline, or from its ``solvers_file``), which workers run it by."""

    name: str
    args: tuple[str, ...] = ()
    profile: Profile | None = None

    @property
    def profiles(self) -> dict[str, Profile] | None:
        """The user profile to resolve the name with (None: the built-in profiles)."""
        return None if self.profile is None else {self.name: self.profile}

    def normalized(self) -> dict[str, Any]:
        """Name and arguments, and a user profile's command and flags (only then, so older configs keep their
        hash; a changed command is another solver)."""
        out: dict[str, Any] = {"name": self.name, "args": list(self.args)}
        if self.profile is not None:
            out["profile"] = {k: v for k, v in self.profile.described().items() if k != "source"}
        return out

    @cached_property
    def label(self) -> str:
        return " ".join((self.name, *self.args))


def solver_entries(c: Check, top: dict[str, Any], source: str, *, check_solvers: bool) -> tuple[SolverEntry, ...]:
    """The ``solvers`` of the config mapping ``top`` read from ``source`` (with its ``solvers_file``), each
    resolved when ``check_solvers``."""
    from_file = _solvers_file(c, top.get("solvers_file"), source)
    solvers = c.unique_list(top["solvers"], "solvers", lambda v, p: _solver(c, v, p, from_file), "solvers")
    if check_solvers:
        _resolve_all(c, solvers)
    return solvers


def _solvers_file(c: Check, value: Any, source: str) -> dict[str, Profile]:
    """The profiles of ``solvers_file: FILE`` (the schema of ``--solvers-file``; a relative path is relative
    to the config's folder), by name; none without the key."""
    if value is None:
        return {}
    path = Path(c.string(value, "solvers_file")).expanduser()
    if not path.is_absolute() and not source.startswith("<"):  # "<config>": a mapping given from Python
        path = Path(source).parent / path
    try:
        return load_user_profiles(path)
    except ProfileError as e:
        c.fail("solvers_file", str(e))


def _solver(c: Check, value: Any, path: str, from_file: dict[str, Profile]) -> SolverEntry:
    if isinstance(value, str):
        name = c.string(value, path)
        return SolverEntry(name, profile=from_file.get(name))
    spec = c.mapping(value, path, SOLVER_KEYS)
    if "name" not in spec:
        c.fail(f"{path}.name", "missing (a solver entry needs a name)")
    name = c.string(spec["name"], f"{path}.name")
    args = spec.get("args", [])
    plain = (str, int, float)
    if not isinstance(args, list) or not all(isinstance(a, plain) and not isinstance(a, bool) for a in args):
        c.expected(f"{path}.args", "a list of strings", args)
    profile = from_file.get(name)
    inline = {k: v for k, v in spec.items() if k in PROFILE_KEYS}
    if inline:  # an inline profile: the schema of a solvers file's entry
        if "command" not in inline:
            c.fail(f"{path}.command", f"missing (an inline profile needs a command; it has {', '.join(inline)})")
        if profile is not None:
            c.fail(path, f"{name} is also a profile of solvers_file {profile.source}: name one or the other")
        try:
            profile = user_profile(f"{c.source}: {path}", name, inline)
        except ProfileError as e:
            c.fail(path, str(e).split(f"solver {name!r}: ", 1)[-1])
    return SolverEntry(name, tuple(str(a) for a in args), profile)


def _resolve_all(c: Check, solvers: tuple[SolverEntry, ...]) -> None:

    for i, entry in enumerate(solvers):
        try:
            spec = resolve(entry.name, entry.profiles)
        except SolverNotFound as e:
            c.fail(f"solvers[{i}]", f"unknown or missing solver: {e}")
        if entry.args and getattr(spec, "embedded", None) is not None:
            c.fail(f"solvers[{i}].args", f"the embedded solver {entry.name} takes no arguments")


def proof_setting(c: Check, value: Any, task: str, solvers: tuple[SolverEntry, ...]) -> bool:
    """``proof: true``: every solver of the grid must write DRAT proofs (its profile's or pysat backend's record)."""
    if not isinstance(value, bool):
        c.expected("proof", "true or false", value)
    if value and task != "solve":
        c.fail("proof", "proofs are for task solve (count --certify certifies a count)")
    for i, entry in enumerate(solvers if value else ()):
        try:
            spec = resolve(entry.name, entry.profiles)
        except SolverNotFound:
            continue  # not checked (check_solvers false): the run says why
        writes = spec.profile.proof if spec.profile is not None else embedded_facts(spec.embedded or "").proof
        if not writes:
            c.fail(
                f"solvers[{i}]", f"{entry.name} writes no DRAT proof (proof: true); those that do: {proof_writers()}"
            )
    return value


# --- executor and slurm -------------------------------------------------------------------------------------
# The ``executor:`` and ``slurm:`` keys of a batch config, validated (see :mod:`cnfgen_queens.execution.slurm`).
#
# ```yaml
# executor: slurm                 # local (default) | dask | slurm; --executor on the command line wins
# slurm:
#   partition: short              # sbatch -p (default: the cluster's default partition)
#   account: myproject            # sbatch -A
#   jobs: 16                      # jobs at once, each one core running one run at a time
#   time: 7200                    # seconds per job (default: an hour, or one run's time limit + 10 % + 60 s)
#   memory: 4608                  # MB per job (default: the run's memory limit + 512)
#   sbatch: [--qos=normal, --constraint=avx2]   # extra sbatch options, one '#SBATCH' line each
#   log_dir: results/slurm-logs   # the jobs' output (default: slurm-logs/ beside the results file)
# ```
#
# Where and how the runs execute does not change their results, so none of this is in the config hash.

EXECUTORS = ("local", "dask", "slurm")
SLURM_KEYS = ("partition", "account", "jobs", "time", "memory", "sbatch", "log_dir")
MAX_JOBS = 100_000  # jobs at once (no more than the runs of the largest grid)


def executor_spec(
    c: Check, top: dict[str, Any], time_limit: float, memory_limit: int | None, results: Path
) -> tuple[str, SlurmSettings | None]:
    """(the config's executor, its SLURM settings or None without a ``slurm:`` section)."""
    executor = top.get("executor", "local")
    if executor not in EXECUTORS:
        c.expected("executor", " or ".join(EXECUTORS), executor)
    if "slurm" not in top:
        return executor, None
    spec = c.mapping(top["slurm"], "slurm", SLURM_KEYS)
    sbatch = spec.get("sbatch", [])
    if not isinstance(sbatch, list) or not all(isinstance(a, str) and a.startswith("-") for a in sbatch):
        c.expected("slurm.sbatch", "a list of sbatch options (strings starting with -)", sbatch)
    for i, line in enumerate(sbatch):
        if "\n" in line:
            c.fail(f"slurm.sbatch[{i}]", "one option per entry, no line break")

    def text(key: str) -> str | None:
        return None if spec.get(key) is None else c.string(spec[key], f"slurm.{key}")

    settings = SlurmSettings(
        jobs=c.integer(spec.get("jobs", 1), "slurm.jobs", maximum=MAX_JOBS),
        partition=text("partition"),
        account=text("account"),
        time=None if spec.get("time") is None else c.number(spec["time"], "slurm.time"),
        memory=None if spec.get("memory") is None else c.integer(spec["memory"], "slurm.memory"),
        sbatch=tuple(sbatch),
        log_dir=text("log_dir") or str(results.parent / "slurm-logs"),
    )
    need_time, need_memory = needed(time_limit, memory_limit)
    if settings.time is not None and settings.time < need_time:
        c.fail(
            "slurm.time",
            f"{spec['time']} s per job cannot hold one run of limits.time {time_limit:g} s "
            f"(with the margin: {need_time} s)",
        )
    if settings.memory is not None and settings.memory < need_memory:
        run = f"limits.memory {memory_limit} MB" if memory_limit else f"{DEFAULT_RUN_MEMORY} MB (no limits.memory)"
        c.fail(
            "slurm.memory",
            f"{settings.memory} MB per job cannot hold one run of {run} (with the margin: {need_memory} MB)",
        )
    return executor, settings


# --- reading the YAML source --------------------------------------------------------------------------------
# Reading a config file: YAML composed once, with the line of every key path and bounded alias expansion.
#
# YAML aliases share one node, so a 444-byte file can name 9^9 values (the
# "billion laughs" bomb).  Nothing here expands an alias: the expanded size is
# counted over the node graph (memoized, linear in the file) and refused above
# :data:`MAX_NODES` before anything walks the data; a self-referencing alias is
# refused too.

MAX_NODES = 100_000  # values after expanding aliases; a hand-written 10 KB config has a few thousand
MAX_BYTES = 1_000_000  # a config file larger than this is not a hand-written config
NAME_MAX, PATH_MAX = 255, 4096  # bytes in one file name, in a path (Linux)


class SourceError(UsageError):
    """A config file that cannot be read; the message is one line naming the file (and line, key)."""


def read(path: Path) -> tuple[Any, dict[str, int]]:
    """(the YAML value of ``path``, the line of every key path); duplicate keys are errors."""
    import yaml

    source = str(path)
    try:
        text = read_text(path, MAX_BYTES, "config file", SourceError)  # a device or FIFO: bounded too
    except (OSError, UnicodeDecodeError) as e:
        raise SourceError(f"cannot read {source}: {getattr(e, 'strerror', None) or e}") from None
    loader = None
    try:
        loader = _loader()(text)  # a NUL or other control character is refused here (ReaderError)
        node = loader.get_single_node()
        lines: dict[str, int] = {}
        if node is None:
            return None, lines
        _Walk(source, lines)._bounded(node, "")
        return loader.construct_document(node), lines
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise SourceError(f"{where}: not valid YAML: {problem}") from None
    except RecursionError:
        raise SourceError(f"{source}: nested too deeply") from None
    finally:
        if loader is not None:
            loader.dispose()


@functools.cache
def _loader() -> Any:
    """PyYAML's SafeLoader (YAML 1.1) that also reads as numbers the floats of YAML 1.2 it reads as text
    (``5.5e0``, ``1e3``: 1.1 wants a dot and a signed exponent); the values 1.1 reads otherwise than 1.2 are
    refused by :func:`yaml_1_1`."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    exponent = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$")
    Loader.add_implicit_resolver(_YAML + "float", exponent, list("-+0123456789."))
    return Loader


class _Walk:
    """One pass over the node graph: lines, duplicate keys, expanded sizes (each node visited once)."""

    def __init__(self, source: str, lines: dict[str, int]) -> None:
        self.source, self.lines = source, lines
        self.sizes: dict[int, int] = {}  # id(node) -> values it expands to
        self.open: set[int] = set()  # nodes on the current path (an alias to one of them is a cycle)

    def fail(self, node: Any, path: str, message: str) -> None:
        raise SourceError(f"{self.source}:{node.start_mark.line + 1}: {path or '(top level)'}: {message}")

    def node(self, node: Any, path: str) -> int:
        """The expanded size of ``node`` (at key path ``path``); refuses more than MAX_NODES."""
        import yaml

        self.lines.setdefault(path, node.start_mark.line + 1)
        if id(node) in self.sizes:  # an alias of a node already counted: its size, no second walk
            return self.sizes[id(node)]
        if id(node) in self.open:
            self.fail(node, path, "a YAML alias refers to itself")
        if isinstance(node, yaml.ScalarNode) and node.style is None and (why := yaml_1_1(node.tag, node.value)):
            self.fail(node, path, why)
        self.open.add(id(node))
        size = 1
        if isinstance(node, yaml.MappingNode):
            seen: set[str] = set()
            for key, value in node.value:
                name = str(key.value)
                sub = f"{path}.{name}" if path else name
                if name in seen:
                    raise SourceError(f"{self.source}:{key.start_mark.line + 1}: {sub}: duplicate key")
                seen.add(name)
                self.lines[sub] = key.start_mark.line + 1  # the key's line, also for a value on the next lines
                size += 1 + self._bounded(value, sub)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                size += self._bounded(item, f"{path}[{i}]")
        self.open.discard(id(node))
        self.sizes[id(node)] = size
        return size

    def _bounded(self, node: Any, path: str) -> int:
        size = self.node(node, path)
        if size > MAX_NODES:
            self.fail(node, path, f"{size} values (YAML aliases expanded), over the limit of {MAX_NODES}")
        return size


_YAML = "tag:yaml.org,2002:"


def yaml_1_1(tag: str, value: str) -> str | None:
    """Why a plain (unquoted) scalar that YAML 1.1 (PyYAML) resolves to ``tag`` cannot be read as written, or
    None: a value YAML 1.1 and YAML 1.2 read differently (a date, a base-60 number, underscores in a number,
    a leading 0, ``yes``/``on``), or an integer of more digits than Python converts.  Each is refused, so a
    config means what it says under either version."""
    quote = f"quote it ('{value}') to mean the text"
    if tag == _YAML + "timestamp":
        return f"{value} is a date in YAML 1.1 (text in YAML 1.2), not a number: write a number, or {quote}"
    if tag == _YAML + "bool" and value.lower() not in ("true", "false"):
        return f"{value} is a boolean in YAML 1.1 (text in YAML 1.2): write true or false, or {quote}"
    if tag not in (_YAML + "int", _YAML + "float"):
        return None
    digits = sum(c.isdigit() for c in value)
    if digits > (limit := sys.get_int_max_str_digits()):
        kind = "an integer" if tag == _YAML + "int" else "a number"
        return f"{kind} of {digits} digits, more than {limit}"
    if ":" in value:
        return f"{value} is a base-60 number in YAML 1.1 (text in YAML 1.2): write the number, or {quote}"
    if "_" in value:
        return f"{value} is a number with underscores in YAML 1.1 (text in YAML 1.2): write it without, or {quote}"
    if re.fullmatch(r"[-+]?0[0-9_]+|[-+]?0b[01_]+", value):
        return f"{value} is octal or binary in YAML 1.1 (a decimal or text in YAML 1.2): write the decimal number"
    return None


def path_problem(path: Path) -> str | None:
    """Why the file system would refuse ``path`` (a NUL, a name or the path too long); None if nothing."""

    raw = os.fsencode(path)
    longest = max((len(os.fsencode(part)) for part in path.parts), default=0)
    if b"\0" in raw:
        return "a file name cannot contain a NUL character"
    if longest > NAME_MAX:
        return f"a name of {longest} bytes in the path: the file system allows {NAME_MAX}"
    if len(raw) >= PATH_MAX:
        return f"a path of {len(raw)} bytes: the file system allows {PATH_MAX - 1}"
    return None
