"""``cnfgen-queens batch CONFIG.yaml``: run a YAML-configured grid of experiments into SQLite."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError, printable
from ..execution.slurm import job_limits, slurm_time
from ..execution.where import Where
from ..experiments import adaptive
from ..experiments.batch import BatchRequest, executor_of, run_batch
from ..experiments.config import ConfigError, grid_factors, load, shown, with_files
from ..experiments.grid import expand
from ..experiments.store import EmptyStore, Store, StoreError
from ..experiments.store_env import ResultsUnwritable
from .arg_groups import add_executor_arguments, add_jobs_argument, check_executor
from .bundle import add_bundle_options, write_bundle
from .common import fail

if TYPE_CHECKING:
    from ..experiments.config import Config


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    """Where and how a grid's runs go (``batch`` and ``rerun`` alike): jobs, executor, retries, progress."""
    add_jobs_argument(
        p, default=None, help="parallel runs (default: the number of cores); with --scheduler the cluster decides"
    )
    add_executor_arguments(p)
    p.add_argument("--retry-errors", action="store_true", help="run again the runs stored with status ERROR")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "config",
        metavar="CONFIG.yaml",
        help="the experiment config, YAML (its keys: the documentation's page Batch experiments and reports)",
    )
    add_run_arguments(p)
    p.add_argument("--fresh", action="store_true", help="delete every stored result in the results file, start over")
    p.add_argument("--dry-run", action="store_true", help="print the grid size and the runs, run nothing")
    p.add_argument(
        "--bundle",
        metavar="ARTIFACT",
        help="when every run is done, pack the results with what produced them into ARTIFACT (.tar.gz; as "
        "`cnfgen-queens bundle` does)",
    )
    add_bundle_options(p)


def run(args: argparse.Namespace) -> int:

    check_executor(args)
    try:
        config = load(args.config)
    except ConfigError as e:
        fail(str(e))
    except RecursionError:  # a YAML alias that contains itself
        fail(f"{args.config}: a YAML alias refers to itself")
    try:
        if args.dry_run:
            return _dry_run(config, args)
        code = _run(config, args)
    except StoreError as e:
        fail(str(e))
    if args.bundle and code == 0:
        write_bundle(config.results, Path(args.bundle), args, config)
    elif args.bundle:
        print(
            f"{args.prog}: note: --bundle: not written, not every run is done (run again, or bundle the "
            "results with `cnfgen-queens bundle`)",
            file=sys.stderr,
        )
    return code


def _dry_run(config: Config, args: argparse.Namespace) -> int:

    runs, oversized = expand(config)
    done: set[str] = set()
    if config.results.exists():  # a foreign file (or a directory) is refused here too
        try:
            with Store(config.results, readonly=True) as store:
                done = set() if args.fresh else store.done_keys(retry_errors=args.retry_errors)
        except EmptyStore:
            pass  # an empty file (or database) is taken: nothing done yet
    c = config
    factors = grid_factors(c.ns, c.encodings, c.column_alo, c.shuffle_seeds, c.solvers, c.repeats, c.variant)
    factors = with_files(factors, len(c.files))
    left_out = f", less {len(oversized)} instances over max_clauses: {len(runs)} runs" if oversized else ""
    todo = sum(r.key not in done for r in runs)
    where = printable(str(c.results))
    print(f"grid: {shown(factors)}{left_out}; {todo} to do, {len(runs) - todo} already in {where}")
    if c.adaptive:
        print(adaptive.bound(c, len(runs)))
    if (args.executor or c.executor) == "slurm":
        print(_slurm_line(c, args.jobs))
    for inst in oversized:
        print(f"left out: n={inst.n} {inst.encoding} ({inst.clauses} clauses > max_clauses {c.max_clauses})")
    sys.stdout.writelines(f"{'done' if r.key in done else 'todo'} {r.key} {printable(r.describe())}\n" for r in runs)
    return 0


def _slurm_line(config: Config, jobs: int | None) -> str:
    _, _, s = executor_of(config, "slurm", jobs)
    assert s is not None
    seconds, memory = job_limits(s, config.time_limit, config.memory_limit)
    where = "".join(f" {flag} {v}" for flag, v in (("-p", s.partition), ("-A", s.account)) if v)
    return printable(
        f"executor slurm: {s.jobs} jobs at once{where}, each 1 core, {slurm_time(seconds)} and {memory} "
        f"MB (one run's limits and the margin){''.join(' ' + o for o in s.sbatch)}; logs in {s.log_dir}"
    )


def _run(config: Config, args: argparse.Namespace, only: frozenset[str] | None = None) -> int:
    """Run the batch of ``config`` (``only`` these run keys: rerun --sample) as the options say; its exit status."""
    from concurrent.futures.process import BrokenProcessPool

    executor, jobs, slurm = executor_of(config, args.executor, args.jobs)
    try:  # SIGTERM and SIGHUP stop the batch as Ctrl-C does (cli._guard)
        summary = run_batch(
            config,
            BatchRequest(
                where=Where(jobs=jobs, executor=executor, scheduler=args.scheduler),
                slurm=slurm,
                fresh=args.fresh,
                retry_errors=args.retry_errors,
                progress=not args.no_progress,
                log=lambda m: print(printable(m), file=sys.stderr),
                note=lambda m: print(printable(m), flush=True),  # stdout, with the summary line: stderr is for errors
                only=only,
            ),
        )
    except ImportError as e:
        fail(f"executor {executor} needs {e.name or e}: pip install 'cnfgen-queens[{executor}]'")
    except ResultsUnwritable as e:  # a full disk, a read-only folder: the sentence names the file and the cause
        fail(str(e), 1)
    except OSError as e:
        fail(f"cannot start the batch: {e}", 1)
    except UsageError:  # a results file or config problem: the guard prints it as it is
        raise
    except ValueError as e:  # dask's word on a malformed --scheduler address
        fail(f"--scheduler {args.scheduler}: {e}" if args.scheduler else str(e))
    except BrokenProcessPool:
        fail("a worker process died (killed or out of memory); finished runs are saved: run again to resume", 1)
    results = printable(str(config.results))  # every line one line, whatever the name holds
    print(
        f"{summary.done} runs done ({summary.solved} solved), {summary.skipped} already stored, "
        f"{summary.total} in the grid; results in {results} ({summary.seconds:.1f} s)"
    )
    if summary.elsewhere:
        print(f"{summary.elsewhere} runs left to another batch process on {results} (run again to check)")
    for line in summary.failed:
        print(f"{args.prog}: error: {printable(line)}", file=sys.stderr)
    if summary.interrupted:
        print(
            f"{args.prog}: {summary.stopped_by}; workers stopped, {summary.done} finished runs saved in {results}, "
            "run again to resume",
            file=sys.stderr,
        )
        return summary.exit_code
    return 1 if summary.failed else 0
