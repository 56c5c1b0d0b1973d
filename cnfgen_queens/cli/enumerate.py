"""``cnfgen-queens enumerate N``: every solution, by the blocking-clause loop."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .arg_groups import (
    add_encoding_arguments,
    add_jobs_argument,
    add_limit_arguments,
    add_solver_arguments,
    encoding_of,
    given_flags,
)
from .common import board_size, fail, positive_int
from .run_options import limits_from
from .variant_args import add_variant_arguments, given, variant_from

if TYPE_CHECKING:
    from cnfgen_queens.model.formula import QueensFormula

TEXT_FORMATS = ("line", "board", "positions", "json")
EXTERNAL_ONLY = ("--out", "--resume", "--solver-args", "--solvers-file", "--output-limit", "--isolation")


def add_arguments(p: argparse.ArgumentParser, counting: bool = False) -> None:
    p.add_argument("n", type=board_size, metavar="N", help="board size")
    add_solver_arguments(p)
    add_encoding_arguments(p)
    p.add_argument(
        "--symmetric",
        action="store_true",
        help="one solution per orbit of the 8 symmetries, weighted by the orbit's size; also report the "
        "fundamental count (OEIS A002562). count by cubes (see --engine): only the canonical border cubes are "
        "searched (one queen per edge line, least under the 8 symmetries); otherwise all 8 images of each "
        "solution are blocked",
    )
    p.add_argument("--limit", type=positive_int("limit"), help="stop after K solutions")
    p.add_argument("--out", metavar="DIR", help="work directory of the external loop (solutions.txt, CNFs)")
    p.add_argument("--resume", action="store_true", help="continue the external loop in --out after a crash")
    add_limit_arguments(p)
    p.add_argument("--quiet", "--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument(
        "--allow-large",
        action="store_true",
        help="run a formula of over 20,000,000 clauses (refused without it: every loop holds the formula in "
        "memory); --time-limit then also bounds building and writing it",
    )
    add_variant_arguments(p)
    if counting:
        add_jobs_argument(
            p,
            default=1,
            help="count the canonical border cubes in J processes (embedded solvers; see --engine)",
        )
    else:
        p.add_argument(
            "--format",
            choices=TEXT_FORMATS,
            default="line",
            help="how each solution is printed (line: 1-based column per row)",
        )
        p.add_argument("--ascii", action="store_true", help="Q and . for --format board")


CUBES_ESCAPE = "count --engine loop --allow-large (cubes build it in every worker)"


def formula_from(args: argparse.Namespace, by_cubes: bool = False) -> QueensFormula:
    """The formula the options name; refused (exit 2) when it is over the size held in memory
    (:func:`.enumeration.check_held_size`) without --allow-large, and ``by_cubes`` even with it (the
    cube counter builds it in every worker: with J local workers, each may hold 1/J of the cap).
    Every loop and the cube counter get it here."""
    from cnfgen_queens.model.formula import QueensFormula
    from cnfgen_queens.solutions.embedded_loop import check_held_size

    from ..encodings import UnknownEncoding

    variant = variant_from(args, args.n)
    if variant.active and args.symmetric:
        fail(f"--symmetric does not combine with {given(args)[0]}: the 8 board symmetries do not hold for variants")
    try:
        formula = QueensFormula(args.n, encoding_of(args), args.column_alo, args.group_size, variant)
        if by_cubes:
            from cnfgen_queens.solutions.embedded_loop import HELD_CLAUSES

            copies = max(1, args.jobs) if args.executor == "local" else 1  # Dask workers may be other machines
            escape = CUBES_ESCAPE
            if copies > 1:
                escape += f"; --jobs {copies} holds {copies} copies, so the limit is {HELD_CLAUSES:,} / {copies}"
            check_held_size(formula, cap=HELD_CLAUSES // copies, escape=escape)
        else:
            check_held_size(formula, args.allow_large)
    except (UnknownEncoding, ValueError) as e:  # UsageError is a ValueError
        fail(str(e))
    return formula


def check_count(formula: QueensFormula, count: int, fundamental: int | None) -> int:
    """:func:`check_known` for plain N-queens; the torus against OEIS A007705; nothing known otherwise."""
    v = formula.variant
    if not v.active:
        return check_known(formula.n, count, fundamental)
    from cnfgen_queens.model.variants import TORUS_COUNTS

    if v.torus and not v.placed and not v.holes and formula.n in TORUS_COUNTS:
        known = TORUS_COUNTS[formula.n]
        if count != known:
            print(
                f"MISMATCH: counted {count} torus solutions for N={formula.n}, OEIS A007705 says {known}",
                file=sys.stderr,
            )
            return 1
    return 0


def check_known(n: int, count: int, fundamental: int | None) -> int:
    """Compare with OEIS (data/known_counts.csv); loud on stderr and exit 1 when they differ."""
    from cnfgen_queens.model.known_counts import known_counts

    known = known_counts().get(n)
    if known is None:
        return 0
    status = 0
    if count != known[0]:
        print(f"MISMATCH: counted {count} solutions for N={n}, OEIS A000170 says {known[0]}", file=sys.stderr)
        status = 1
    if fundamental is not None and known[1] is not None and fundamental != known[1]:
        print(
            f"MISMATCH: counted {fundamental} fundamental solutions for N={n}, OEIS A002562 says {known[1]}",
            file=sys.stderr,
        )
        status = 1
    return status


def loop(args: argparse.Namespace, emit) -> int:
    """Run the loop, calling ``emit(found)`` for each solution; prints the count lines."""
    import shlex

    from cnfgen_queens.solutions.embedded_loop import EnumerationError, EnumerationOptions, pysat_name, solutions

    formula = formula_from(args)
    external = pysat_name(args.solver) is None
    if args.resume and not args.out:
        fail("--resume needs --out DIR")
    if not external:
        external_only = given_flags(args, EXTERNAL_ONLY)
        if external_only:
            fail(f"{', '.join(external_only)} belong to the external loop; a pysat: solver runs in a child of this "
                 "process")  # fmt: skip
        from cnfgen_queens.solutions.embedded_loop import embedded_solver

        embedded_solver(args.solver)  # UsageError: exit 2
    solvers_file = Path(args.solvers_file) if args.solvers_file else None
    solver_args: tuple[str, ...] = ()
    limits = None
    if external:
        from ..solvers import ProfileError, SolverNotFound, resolve

        try:
            resolve(args.solver, solvers_file)
        except (SolverNotFound, ProfileError) as e:
            fail(str(e))
        limits = limits_from(args, args.time_limit, args.memory_limit)
        try:
            solver_args = tuple(shlex.split(args.solver_args))
        except ValueError as e:
            fail(f"--solver-args: {e}")
    elif args.time_limit or args.memory_limit:  # the forked embedded loop (forked_loop.py) holds both
        limits = limits_from(args, args.time_limit, args.memory_limit)
    from cnfgen_queens.model.known_counts import known_counts

    known = known_counts().get(formula.n)
    from ..progress import Progress

    progress = Progress("sol", "solutions", total=None if known is None or args.limit else known[0], quiet=args.quiet)
    calls = 0

    def on_call() -> None:
        nonlocal calls
        calls += 1
        progress.update(0, solver_calls=calls)

    options = EnumerationOptions(
        symmetric=args.symmetric,
        limits=limits,
        on_call=on_call,
        workdir=Path(args.out) if args.out else None,
        resume=args.resume,
        solvers_file=solvers_file,
        solver_args=solver_args,
    )
    count = fundamental = 0
    stopped = None
    try:
        for found in solutions(formula, args.solver, options):
            emit(found)
            count += found.weight
            fundamental += 1
            progress.update(found.weight)
            if args.limit and fundamental >= args.limit:
                stopped = f"stopped at --limit {args.limit}"
                break
    except EnumerationError as e:
        progress.close()
        print(f"{args.prog}: error: {e}; {fundamental} solution(s) found before it", file=sys.stderr)
        print(f"partial count: {count}")
        return 1
    finally:
        progress.close()
    if args.symmetric:
        print(f"fundamental: {fundamental}")
    print(f"count: {count}")
    if stopped:
        print(f"{args.prog}: {stopped}; the count is not the total", file=sys.stderr)
        return 0
    return check_count(formula, count, fundamental if args.symmetric else None)


def run(args: argparse.Namespace) -> int:
    from cnfgen_queens.model.decode import render

    def emit(found) -> None:
        text = render(found.placement, args.format, args.ascii)
        sys.stdout.write(text if args.format != "board" else text + "\n")
        sys.stdout.flush()

    return loop(args, emit)
