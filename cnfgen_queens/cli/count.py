"""``cnfgen-queens count N``: the number of solutions (and orbits with --symmetric)."""

from __future__ import annotations

import argparse

from .common import fail
from .enumerate import add_arguments as _add_arguments
from .enumerate import check_known, formula_from, loop


def add_arguments(p: argparse.ArgumentParser) -> None:
    _add_arguments(p, counting=True)


def run(args: argparse.Namespace) -> int:
    if args.jobs > 1:
        from ..enumeration import count_cubes, pysat_name

        if pysat_name(args.solver) is None:
            fail("--jobs needs an embedded pysat: solver (the cubes run in-process)")
        if args.symmetric or args.limit or args.time_limit:
            fail("--jobs does not combine with --symmetric, --limit or --time-limit")
        formula = formula_from(args)
        count = count_cubes(formula, args.solver, jobs=args.jobs, depth=2)
        print(f"count: {count}")
        return check_known(formula.n, count, None)
    return loop(args, lambda found: None)
