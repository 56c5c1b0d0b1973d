"""``cnfgen-queens enumerate N``: every solution, by the blocking-clause loop."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .common import board_size, fail, positive_float, positive_int

TEXT_FORMATS = ("line", "board", "positions", "json")


def add_arguments(p: argparse.ArgumentParser, counting: bool = False) -> None:
    p.add_argument("n", type=board_size, metavar="N", help="board size")
    p.add_argument(
        "--solver",
        default="pysat:cadical195",
        help="pysat:NAME (incremental, in-process; default pysat:cadical195) or an external solver",
    )
    p.add_argument("-e", "--encoding", default="pairwise", help="at-most-one encoding (default: pairwise)")
    p.add_argument("--group-size", type=positive_int("group size"), default=None)
    p.add_argument("--column-alo", action="store_true", help="add the redundant at-least-one per column")
    p.add_argument(
        "--symmetric",
        action="store_true",
        help="one solution per orbit of the 8 symmetries, weighted by the orbit's size; also report the "
        "fundamental count (OEIS A002562). count: lex-leader symmetry breaking by cubes (pysat: solvers); "
        "otherwise all 8 images of each solution are blocked",
    )
    p.add_argument("--limit", type=positive_int("limit"), help="stop after K solutions")
    p.add_argument("--out", metavar="DIR", help="work directory of the external loop (solutions.txt, CNFs)")
    p.add_argument("--resume", action="store_true", help="continue the external loop in --out after a crash")
    p.add_argument(
        "--time-limit",
        type=positive_float("time limit"),
        help="seconds, per solver call (external) or for the whole loop (embedded)",
    )
    p.add_argument("--memory-limit", type=positive_int("memory limit"), help="MB per solver call (external)")
    p.add_argument("--solver-args", default="", help="extra arguments for the external solver")
    p.add_argument("--solvers-file", metavar="YAML", help="user solver profiles")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    if counting:
        p.add_argument(
            "--jobs",
            type=positive_int("jobs"),
            default=1,
            help="count symmetry-broken cubes of the first three rows in J processes (embedded solvers; "
            "see --symmetric)",
        )
    else:
        p.add_argument(
            "--format",
            choices=TEXT_FORMATS,
            default="line",
            help="how each solution is printed (line: 1-based column per row)",
        )
        p.add_argument("--ascii", action="store_true", help="Q and . for --format board")


class Progress:
    """A line on stderr every few seconds: solutions so far and the rate."""

    def __init__(self, quiet: bool, every: float = 5.0) -> None:
        self.quiet, self.every = quiet, every
        self.start = self.last = time.monotonic()

    def update(self, found: int) -> None:
        now = time.monotonic()
        if self.quiet or now - self.last < self.every:
            return
        self.last = now
        rate = found / (now - self.start)
        print(f"progress: {found} solutions, {rate:.0f}/s, {now - self.start:.0f} s", file=sys.stderr, flush=True)


def formula_from(args: argparse.Namespace):  # -> QueensFormula
    from ..encodings import UnknownEncoding
    from ..formula import QueensFormula

    try:
        return QueensFormula(args.n, args.encoding, args.column_alo, args.group_size)
    except (UnknownEncoding, ValueError) as e:
        fail(str(e))


def check_known(n: int, count: int, fundamental: int | None) -> int:
    """Compare with OEIS (data/known_counts.csv); loud on stderr and exit 1 when they differ."""
    from ..known_counts import known_counts

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

    from ..enumeration import EnumerationError, pysat_name, solutions

    formula = formula_from(args)
    external = pysat_name(args.solver) is None
    if args.resume and not args.out:
        fail("--resume needs --out DIR")
    if not external:
        external_only = {"--out": args.out, "--resume": args.resume, "--memory-limit": args.memory_limit,
                         "--solver-args": args.solver_args, "--solvers-file": args.solvers_file}  # fmt: skip
        given = [flag for flag, value in external_only.items() if value]
        if given:
            fail(f"{', '.join(given)} belong to the external loop; pysat: solvers run in-process")
        from ..enumeration import embedded_solver

        try:
            embedded_solver(args.solver)
        except EnumerationError as e:
            fail(str(e))
    kwargs: dict[str, object] = {}
    limits = None
    if external:
        from ..solvers import Limits, ProfileError, SolverNotFound, resolve

        try:
            resolve(args.solver, Path(args.solvers_file) if args.solvers_file else None)
        except (SolverNotFound, ProfileError) as e:
            fail(str(e))
        limits = Limits(args.time_limit, args.memory_limit)
        kwargs = {
            "solvers_file": Path(args.solvers_file) if args.solvers_file else None,
            "solver_args": tuple(shlex.split(args.solver_args)),
        }
    elif args.time_limit:
        from ..solvers import Limits

        limits = Limits(args.time_limit)
    progress = Progress(args.quiet)
    count = fundamental = 0
    stopped = None
    try:
        for found in solutions(
            formula,
            args.solver,
            symmetric=args.symmetric,
            workdir=Path(args.out) if args.out else None,
            resume=args.resume,
            limits=limits,
            **kwargs,
        ):
            emit(found)
            count += found.weight
            fundamental += 1
            progress.update(count)
            if args.limit and fundamental >= args.limit:
                stopped = f"stopped at --limit {args.limit}"
                break
    except EnumerationError as e:
        if e.status == "USAGE":
            fail(str(e))
        print(f"{args.prog}: error: {e}; {fundamental} solution(s) found before it", file=sys.stderr)
        print(f"partial count: {count}")
        return 1
    if args.symmetric:
        print(f"fundamental: {fundamental}")
    print(f"count: {count}")
    if stopped:
        print(f"{args.prog}: {stopped}; the count is not the total", file=sys.stderr)
        return 0
    return check_known(formula.n, count, fundamental if args.symmetric else None)


def run(args: argparse.Namespace) -> int:
    from ..decode import render

    def emit(found) -> None:
        text = render(found.placement, args.format, args.ascii)
        sys.stdout.write(text if args.format != "board" else text + "\n")
        sys.stdout.flush()

    return loop(args, emit)
