"""``cnfgen-queens rerun ARTIFACT --results NEW.sqlite``: a bundle's experiment run again here (experiments.rerun)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import UsageError, printable
from ..experiments.rerun import prepare
from ..experiments.store import StoreError
from ..experiments.store_env import ResultsUnwritable
from .arg_groups import check_executor
from .batch import _run, add_run_arguments
from .common import fail, non_negative_int, positive_int


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("bundle", metavar="ARTIFACT", help="a bundle written by `cnfgen-queens bundle` or `batch --bundle`")
    p.add_argument("--results", required=True, metavar="NEW.sqlite", help="the results file of the rerun")
    p.add_argument(
        "--sample",
        type=positive_int("sample"),
        metavar="K",
        help="K runs per cell (solver and instance, all shuffle seeds and repeats), drawn with --sample-seed: the same "
        "runs every time, so a rerun resumes (default: the whole grid)",
    )
    p.add_argument(
        "--sample-seed", type=non_negative_int(), default=0, metavar="S", help="the seed of --sample (default 0)"
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="refuse to run (exit 2) when a solver's version or binary SHA-256 differs from the bundle's",
    )
    add_run_arguments(p)


def run(args: argparse.Namespace) -> int:
    check_executor(args)
    say = lambda m: print(printable(m), file=sys.stderr)
    try:
        ready = prepare(Path(args.bundle), Path(args.results), k=args.sample, seed=args.sample_seed, log=say)
    except ResultsUnwritable as e:
        fail(str(e), 1)
    except (UsageError, StoreError) as e:
        fail(str(e))
    except OSError as e:
        fail(f"cannot rerun {args.bundle}: {e.strerror or e}", 1)
    for line in ready.differences:
        say(f"{args.prog}: difference: {line}")
    if ready.differences and args.strict:
        fail(f"{len(ready.differences)} solver difference(s) from the bundle (--strict): nothing run")
    if not ready.differences:
        say("every solver as in the bundle (version and binary SHA-256)")
    args.fresh = False
    return _run(ready.config, args, ready.only)
