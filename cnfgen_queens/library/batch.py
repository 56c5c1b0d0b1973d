"""Batch experiments from Python: a config as a dict or a YAML file, and the results as rows."""

from __future__ import annotations

from enum import Enum
from os import PathLike
from pathlib import Path
from typing import Any

from cnfgen_queens.errors import python_words
from cnfgen_queens.execution.where import Where
from cnfgen_queens.experiments import config as configs
from cnfgen_queens.experiments.batch import BatchRequest, Summary, executor_of
from cnfgen_queens.experiments.batch import run_batch as run
from cnfgen_queens.experiments.report import load_rows
from cnfgen_queens.experiments.store import COLUMNS

from .arguments import edge, existing


@edge
def run_batch(
    config: dict[str, Any] | str | Path,
    *,
    jobs: int | None = None,
    fresh: bool = False,
    retry_errors: bool = False,
    executor: str | None = None,
    scheduler: str | None = None,
    progress: bool = False,
) -> Summary:
    """Run a batch config (``cnfgen-queens batch``): a YAML file, or the same keys as a dict; results go
    to the config's ``results`` file as they finish, and a rerun does only what is missing.

    ``jobs``: parallel runs (default: the cores this process may use; with executor ``slurm``, jobs at once,
    default the config's ``slurm.jobs``); ``executor``: local, dask or slurm (default: the config's
    ``executor``, else local).  Returns the batch's Summary
    (``done``, ``solved``, ``failed``, ...).

    Examples:
        >>> import cnfgen_queens as cq
        >>> import tempfile
        >>> tmp = tempfile.TemporaryDirectory()
        >>> s = cq.run_batch({"instances": {"n": [6, 7], "encodings": ["pairwise"]}, "solvers": ["pysat:cadical195"],
        ...                "limits": {"time": 60}, "results": f"{tmp.name}/r.sqlite"}, jobs=1)
        >>> s.done, s.solved, s.failed
        (2, 2, [])
        >>> tmp.cleanup()
    """
    with python_words():
        if not isinstance(config, dict | str | PathLike):
            raise TypeError(f"config must be a dict or a YAML file's path, got {type(config).__name__}")
        parsed = (
            configs.parse(config, "<config>") if isinstance(config, dict) else configs.load(existing(config, "config"))
        )
        executor, jobs, slurm = executor_of(parsed, executor, jobs)
        where = Where(jobs=jobs, executor=executor, scheduler=scheduler)
        request = BatchRequest(
            where=where, slurm=slurm, fresh=fresh, retry_errors=retry_errors, progress=progress, log=lambda m: None
        )
        return run(parsed, request)


@edge
def load_results(path: str | Path, *, as_frame: bool = False) -> Any:
    """The runs of a results database (or a ``report --runs-csv`` file), one dict per run in the report's
    order, with the columns of ``report --runs-csv``; a pandas DataFrame with ``as_frame`` (pandas is not
    a dependency: install it to use this).

    Examples:
        >>> import cnfgen_queens as cq
        >>> import tempfile
        >>> tmp = tempfile.TemporaryDirectory()
        >>> _ = cq.run_batch({"instances": {"n": [6, 7], "encodings": ["pairwise"]}, "solvers": ["pysat:cadical195"],
        ...                "limits": {"time": 60}, "results": f"{tmp.name}/r.sqlite"}, jobs=1)
        >>> [(r["n"], r["status"], r["verified"]) for r in cq.load_results(f"{tmp.name}/r.sqlite")]
        [(6, 'SAT', True), (7, 'SAT', True)]
        >>> tmp.cleanup()
    """
    with python_words():
        rows = [
            {k: v.value if isinstance(v, Enum) else v for k, v in row.as_dict().items()}
            for row in load_rows(path)  # an existing file, checked at the edge
        ]
        if not as_frame:
            return rows
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("load_results(as_frame=True) needs pandas: pip install pandas") from None

        return pd.DataFrame(rows, columns=list(COLUMNS))
