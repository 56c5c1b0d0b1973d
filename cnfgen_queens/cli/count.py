"""``cnfgen-queens count N``: the number of solutions (and orbits with --symmetric).

Parses and prints; which engine counts (``--engine``), the size cap and the OEIS check are
:mod:`cnfgen_queens.solutions.api`'s.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from cnfgen_queens.errors import printable
from cnfgen_queens.progress import Progress

from .arg_groups import add_executor_arguments, check_executor
from .enumerate import add_arguments as _add_arguments
from .enumerate import loop
from .run_options import cap_jobs

if TYPE_CHECKING:
    from cnfgen_queens.solutions.api import GroupCount

ENGINES = ("auto", "cubes", "loop")  # solutions.api.ENGINES, repeated so that parsing imports nothing


def add_arguments(p: argparse.ArgumentParser) -> None:
    _add_arguments(p, counting=True)
    add_executor_arguments(p)
    p.add_argument(
        "--engine",
        choices=ENGINES,
        default="auto",
        help="cubes: the search split into cubes, each counted by --solver (pysat: in its process, a binary by "
        "a restart loop per cube; --jobs, --executor): the plain "
        "board's canonical border cubes, the torus by its symmetry group, placed queens and blocked squares by "
        "their first free rows; loop: one blocking-clause loop over all solutions (any solver, --limit, "
        "--memory-limit); auto (default): cubes where they apply (placed queens or blocked squares: N <= 32)",
    )
    p.add_argument(
        "--certify",
        metavar="DIR",
        help="count every cube (no --symmetric) and write a certificate in DIR: each cube's boards and a DRAT "
        "proof that there are no others, a proof that the cubes cover the board, a manifest; "
        "check it with check-count DIR",
    )


def run(args: argparse.Namespace) -> int:
    cap_jobs(args)
    check_executor(args)
    update, close = tqdm_progress(args.quiet)
    try:
        code = loop(args, None, progress=update)
    finally:
        close()
    if args.certify and code == 0:
        shown = printable(" ".join(map(shlex.quote, [args.certify, *(f"--plugin={p}" for p in args.plugin)])))
        print(f"certificate: {printable(args.certify)} (cnfgen-queens check-count {shown} checks it)", file=sys.stderr)
    return code


def tqdm_progress(quiet: bool) -> tuple[Callable[[GroupCount, int | None], None], Callable[[], None]]:
    """The bar on stderr (groups of cubes done / total if known, solutions so far); off with ``quiet``
    or without a TTY."""

    bar = Progress("group", "cube groups", quiet=quiet, leave=True)
    solutions = 0

    def update(c: GroupCount, total: int | None) -> None:
        nonlocal solutions
        solutions += c.count
        bar.update(1, total=total, solutions=solutions)

    return update, bar.close
