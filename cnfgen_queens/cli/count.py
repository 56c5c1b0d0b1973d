"""``cnfgen-queens count N``: the number of solutions (and orbits with --symmetric).

``--engine auto`` (the default) counts by canonical border cubes (:mod:`cnfgen_queens.solutions.cube_count`)
with an embedded solver on the plain board, and by the blocking-clause loop otherwise: with an
external solver, a variant, ``--limit``, ``--memory-limit`` or ``--allow-large``.  ``--engine loop`` forces the loop
(the seeds' method, e.g. to study it), ``--engine cubes`` refuses what cubes cannot do.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from .arg_groups import add_executor_arguments, check_executor, given_flags
from .common import fail
from .enumerate import EXTERNAL_ONLY, check_known, formula_from, loop
from .enumerate import add_arguments as _add_arguments
from .run_options import cap_jobs
from .variant_args import given as variant_flags

if TYPE_CHECKING:
    from cnfgen_queens.solutions.cube_count import CubeCount


def add_arguments(p: argparse.ArgumentParser) -> None:
    _add_arguments(p, counting=True)
    add_executor_arguments(p)
    p.add_argument(
        "--engine",
        choices=ENGINES,
        default="auto",
        help="cubes: only the canonical border cubes are searched, each by an embedded solver (--jobs, "
        "--executor); loop: one blocking-clause loop over all solutions (any solver, variants, --limit, "
        "--memory-limit); auto (default): cubes where they apply",
    )


ENGINES = ("auto", "cubes", "loop")
LOOP_ONLY = ("--limit", "--out", "--resume", "--allow-large", "--memory-limit")  # the cube counter cannot honour these


def run(args: argparse.Namespace) -> int:
    cap_jobs(args)
    from cnfgen_queens.solutions.embedded_loop import pysat_name

    check_executor(args)
    parallel = parallel_flags(args)
    embedded = pysat_name(args.solver) is not None
    if args.engine == "loop":
        if parallel:
            fail(f"--engine loop does not combine with {parallel[0]}: the loop is one solver (use --engine cubes)")
        return loop(args, lambda found: None)
    if not embedded and (parallel or args.engine == "cubes"):
        what = parallel[0] if parallel else "--engine cubes"
        fail(f"{what} needs an embedded pysat: solver (each cube is solved by one); without it, {args.solver} "
             "counts by the blocking-clause loop")  # fmt: skip
    auto_cubes = embedded and not variant_flags(args) and not given_flags(args, LOOP_ONLY)
    if args.engine == "cubes" or parallel or auto_cubes:
        return count_by_cubes(args)
    return loop(args, lambda found: None)


def parallel_flags(args: argparse.Namespace) -> list[str]:
    """The options that ask for several cube workers: ``--jobs J`` (J > 1), ``--executor dask``."""
    return [flag for flag, on in (("--jobs", args.jobs > 1), ("--executor dask", args.executor == "dask")) if on]


def count_by_cubes(args: argparse.Namespace) -> int:
    from cnfgen_queens.solutions.cube_count import DONE, count_symmetric

    from ..errors import UsageError

    external_only = given_flags(args, EXTERNAL_ONLY)
    if external_only:  # the loop's own words: these are for an external solver, whichever the engine
        fail(f"{', '.join(external_only)}: for an external solver only; {args.solver} is embedded")
    clash = given_flags(args, LOOP_ONLY)
    if clash:
        fail(f"counting by cubes (--jobs, --executor, --engine cubes) does not combine with {', '.join(clash)}; "
             "--engine loop runs the blocking-clause loop")  # fmt: skip
    formula = formula_from(args, by_cubes=True)
    if formula.variant.active:
        flag = variant_flags(args)[0]
        what = (parallel_flags(args) or ["--engine cubes"])[0]
        fail(f"{what} does not combine with {flag}: it counts one board per orbit of the 8 board symmetries "
             f"(rotations and mirror symmetry), and {flag} breaks them")  # fmt: skip
    update, close = tqdm_progress(args.quiet)
    try:
        result = count_symmetric(
            formula,
            args.solver,
            jobs=args.jobs,
            executor=args.executor,
            scheduler=args.scheduler,
            time_limit=args.time_limit,
            progress=update,
        )
    except UsageError as e:  # a solver that cannot count (a ValueError: not the executor's)
        fail(str(e))
    except (OSError, TimeoutError, ValueError) as e:  # e.g. no Dask scheduler at that address
        fail(f"{args.executor} executor: {e}")
    finally:
        close()
    if result.status != DONE:
        of = "" if result.cubes_total is None else f" of {result.cubes_total}"
        print(f"{args.prog}: error: {result.error}; {result.cubes_done}{of} cube groups counted", file=sys.stderr)
        print(f"partial count: {result.count}")
        return 1
    if args.symmetric:
        print(f"fundamental: {result.fundamental}")
    print(f"count: {result.count}")
    return check_known(formula.n, result.count, result.fundamental if args.symmetric else None)


def tqdm_progress(quiet: bool) -> tuple[Callable[[CubeCount, int | None], None], Callable[[], None]]:
    """The bar on stderr (groups of cubes done / total if known, solutions so far); off with ``quiet``
    or without a TTY."""
    from ..progress import Progress

    bar = Progress("group", "cube groups", quiet=quiet, leave=True)
    solutions = 0

    def update(c: CubeCount, total: int | None) -> None:
        nonlocal solutions
        solutions += c.count
        bar.update(1, total=total, solutions=solutions)

    return update, bar.close
