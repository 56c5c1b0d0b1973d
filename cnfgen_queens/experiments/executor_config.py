"""The ``executor:`` and ``slurm:`` keys of a batch config, validated (see :mod:`cnfgen_queens.execution.slurm`).

```yaml
executor: slurm                 # local (default) | dask | slurm; --executor on the command line wins
slurm:
  partition: short              # sbatch -p (default: the cluster's default partition)
  account: myproject            # sbatch -A
  jobs: 16                      # jobs at once, each one core running one run at a time
  time: 7200                    # seconds per job (default: an hour, or one run's time limit + 10 % + 60 s)
  memory: 4608                  # MB per job (default: the run's memory limit + 512)
  sbatch: [--qos=normal, --constraint=avx2]   # extra sbatch options, one '#SBATCH' line each
  log_dir: results/slurm-logs   # the jobs' output (default: slurm-logs/ beside the results file)
```

Where and how the runs execute does not change their results, so none of this is in the config hash.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..execution.slurm import DEFAULT_RUN_MEMORY, SlurmSettings, needed
from .config_check import Check as _Check

EXECUTORS = ("local", "dask", "slurm")
SLURM_KEYS = ("partition", "account", "jobs", "time", "memory", "sbatch", "log_dir")
MAX_JOBS = 100_000  # jobs at once (no more than the runs of the largest grid)


def executor_spec(
    c: _Check, top: dict[str, Any], time_limit: float, memory_limit: int | None, results: Path
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
        c.fail("slurm.time", f"{spec['time']} s per job cannot hold one run of limits.time {time_limit:g} s "
                             f"(with the margin: {need_time} s)")  # fmt: skip
    if settings.memory is not None and settings.memory < need_memory:
        run = f"limits.memory {memory_limit} MB" if memory_limit else f"{DEFAULT_RUN_MEMORY} MB (no limits.memory)"
        c.fail("slurm.memory", f"{settings.memory} MB per job cannot hold one run of {run} (with the margin: "
                               f"{need_memory} MB)")  # fmt: skip
    return executor, settings
