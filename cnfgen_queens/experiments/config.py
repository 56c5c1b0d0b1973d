"""The batch config: a YAML file, validated strictly into a frozen :class:`Config`.

Every error names the file, the line, the key path and what was expected
(``configs/x.yaml:7: instances.n[2]: expected a positive integer, got 'ten'``);
unknown and duplicate keys are errors, so a typo never passes silently.  The checker is
:mod:`.config_check`; the sections :mod:`.instance_config`, :mod:`.variant_config` and
:mod:`.executor_config` check their own keys.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..encodings.plugin_loading import load_plugin
from ..encodings.plugins import PluginError, PluginSource
from ..limits import DEFAULT_OUTPUT_MB, MAX_MEMORY, MAX_TIME
from ..solutions.api import ENGINES
from .config_check import MAX_INT, MAX_RUNS, Check, ConfigError
from .config_source import SourceError, path_problem, read
from .executor_config import SlurmSettings, executor_spec
from .file_instances import FILE_KEYS, InstanceFile, instance_files
from .instance_config import (
    INSTANCE_KEYS,
    MAX_COUNTING,
    MAX_MEASURED_N,
    MAX_N,
    board_sizes,
    column_alo_values,
    count_fits,
    encoding_names,
    grid_factors,
    grid_size,
    largest_kept,
    sizes_fit,
    with_files,
)
from .solver_config import SOLVER_KEYS, SolverEntry, proof_setting, solver_entries
from .spread import MIN_REPEATS
from .variant_config import VARIANT_KEYS, VariantSpec, variant_spec

__all__ = [  # what callers import from here, ConfigError and the limits included
    "ENGINES", "INSTANCE_KEYS", "LIMIT_KEYS", "MAX_COUNTING", "MAX_INT", "MAX_MEASURED_N", "MAX_MEMORY", "MAX_N",
    "MAX_RUNS", "MAX_TIME", "SOLVER_KEYS", "TASKS", "TOP_KEYS", "Config", "ConfigError", "SolverEntry", "digest",
    "load", "parse",
]  # fmt: skip

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
    slurm: SlurmSettings | None = None  # executor slurm: what its jobs ask (executor_config)
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
    variant = variant_spec(c, inst, ns)
    solvers = solver_entries(c, top, source, check_solvers=check_solvers)
    task = top.get("task", "solve")
    if task not in TASKS:
        c.expected("task", " or ".join(TASKS), task)
    if task == "count" and files:
        c.fail("instances.files", "task count counts N-queens boards: DIMACS files are for task solve")
    kept = list(largest_kept(ns, encodings, column_alo, group_size, max_clauses))
    if check_sizes:  # what gen-queens would refuse today (a config that ran before a guard came is still read)
        sizes_fit(c, kept, shuffled=bool(seeds))
    if task == "count":
        count_fits(c, kept)
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
        c.fail("repeats.max", f"{high}: a 95% confidence interval of the median needs {MIN_REPEATS} or more repeats "
               "(fewer cannot hold it whatever the times); a fixed repeats: N runs N")  # fmt: skip
    until = c.number(d["until"], "repeats.until")
    if until >= 1:
        c.fail("repeats.until", f"{until:g}: how far the interval may reach from the median on either side, "
               "relative to it: below 1 (0.05: 5%)")  # fmt: skip
    return low, high, until
