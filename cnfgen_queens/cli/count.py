"""``cnfgen-queens count N``: the number of solutions (and orbits with --symmetric)."""

from __future__ import annotations

import argparse

from .common import fail
from .enumerate import add_arguments as _add_arguments
from .enumerate import check_known, formula_from, loop
from .run_options import cap_jobs
from .variant_args import given as variant_flags


def add_arguments(p: argparse.ArgumentParser) -> None:
    _add_arguments(p, counting=True)


def run(args: argparse.Namespace) -> int:
    cap_jobs(args)
    if args.jobs > 1:
        from ..enumeration import count_cubes, pysat_name

        if pysat_name(args.solver) is None:
            fail("--jobs needs an embedded pysat: solver (the cubes run in-process)")
        clash = {"--symmetric": args.symmetric, "--limit": args.limit, "--time-limit": args.time_limit,
                 "--out": args.out, "--resume": args.resume, "--memory-limit": args.memory_limit,
                 "--solver-args": args.solver_args, "--solvers-file": args.solvers_file}  # fmt: skip
        given = [flag for flag, value in clash.items() if value]
        if given:
            fail(f"--jobs does not combine with {', '.join(given)}")
        formula = formula_from(args)
        if formula.variant.active:
            fail(f"--jobs does not combine with {variant_flags(args)[0]}: the cubes use the board's mirror symmetry")
        count = count_cubes(formula, args.solver, jobs=args.jobs, depth=2)
        print(f"count: {count}")
        return check_known(formula.n, count, None)
    return loop(args, lambda found: None)
