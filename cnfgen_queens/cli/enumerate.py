"""``cnfgen-queens enumerate N``: every solution, by the blocking-clause loop."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from cnfgen_queens.cnf.same_file import refuse_alias
from cnfgen_queens.encodings import UnknownEncoding
from cnfgen_queens.errors import UsageError
from cnfgen_queens.limits import Deadline
from cnfgen_queens.model.decode import render
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.progress import Progress
from cnfgen_queens.solutions import api

from .arg_groups import (
    add_encoding_arguments,
    add_jobs_argument,
    add_limit_arguments,
    add_solver_arguments,
    encoding_of,
)
from .common import board_size, fail, positive_int
from .run_options import command_start, limits_from
from .variant_args import add_variant_arguments, variant_from

if TYPE_CHECKING:
    from cnfgen_queens.model.formula import QueensFormula
    from cnfgen_queens.solutions.api import Count, Found, GroupCount

TEXT_FORMATS = ("line", "board", "positions", "json")


def add_arguments(p: argparse.ArgumentParser, counting: bool = False) -> None:
    p.add_argument("n", type=board_size, metavar="N", help="board size")
    add_solver_arguments(p)
    add_encoding_arguments(p)
    p.add_argument(
        "--symmetric",
        action="store_true",
        help="one solution per orbit of the 8 symmetries, weighted by the orbit's size; also report the "
        "fundamental count (OEIS A002562). "
        + (
            "count by cubes (see --engine): only the canonical border cubes are searched (one queen per edge "
            "line, least under the 8 symmetries); otherwise all 8 images of each solution are blocked"
            if counting
            else "All 8 images of each solution are blocked"
        ),
    )
    p.add_argument(
        "--break-symmetry",
        action="store_true",
        help="solve gen-queens N --break-symmetry: its lex-leader clauses leave one board per orbit of the "
        "symmetries the board keeps (the least, read row by row), so the loop lists one board per orbit with any "
        "solver (count: A002562 on the plain board)",
    )
    p.add_argument(
        "--limit",
        type=positive_int("limit"),
        metavar="K",
        help="stop after K solutions (then `partial count: K`, exit 0)",
    )
    p.add_argument(
        "--check-all",
        action="store_true",
        help="evaluate every clause of the formula on every model (an embedded solver's model is otherwise "
        "checked as a board, in O(N): rows, columns, diagonals, the variant's cells; a binary's always is)",
    )
    p.add_argument(
        "--out",
        metavar="DIR",
        help="work directory of the external loop (solutions.txt, CNFs); no input "
        "may be one of the files it writes there",
    )
    p.add_argument("--resume", action="store_true", help="continue the external loop in --out after a crash")
    add_limit_arguments(p)
    p.add_argument(
        "--require-checked",
        action="store_true",
        help="treat a count that nothing checked (no published count for the board, no checked "
        "certificate) as an error (exit 1) instead of printing it marked unchecked",
    )
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
            help="count by cubes in J processes (any solver: pysat: or a binary; the variants too; see --engine; "
            "default 1)",
        )
    else:
        p.add_argument(
            "--format",
            choices=TEXT_FORMATS,
            default="line",
            help="how each solution is printed (line: 1-based column per row; json: one JSON object per line, "
            "and the count lines go to stderr, so stdout is JSON lines only)",
        )
        p.add_argument("--ascii", action="store_true", help="Q and . for --format board")


def formula_from(args: argparse.Namespace) -> QueensFormula:
    """The formula the options name (a bad encoding or variant is a one-line error, exit 2)."""

    variant = variant_from(args, args.n)
    try:
        return QueensFormula(args.n, encoding_of(args), args.column_alo, args.group_size, variant, args.break_symmetry)
    except (UnknownEncoding, ValueError) as e:  # UsageError is a ValueError
        fail(str(e))


def request(args: argparse.Namespace, formula: QueensFormula, report: api.Report) -> api.Request:
    """The options of ``enumerate``/``count`` as one :class:`~cnfgen_queens.solutions.api.Request` (``count``'s
    engine, jobs, executor, scheduler and certificate directory where its namespace has them); ``--out DIR``
    must not hold an input under a name the loop writes (exit 2, before any solver runs)."""
    import shlex

    certify = getattr(args, "certify", None)
    inputs = [
        *(("--holes", f) for f in args.holes),
        *(("--place-file", f) for f in args.place_file),
        ("--solvers-file", args.solvers_file),
        ("--solver", args.solver if os.sep in args.solver else None),
    ]
    try:
        if args.out:
            api.refuse_inputs_in(Path(args.out), inputs)
        if certify:  # the inputs against every file the certificate writes, by device and inode
            refuse_alias(certify, inputs, "--certify", own=api.CERTIFICATE_FILES)
    except UsageError as e:
        fail(str(e))

    try:
        solver_args = tuple(shlex.split(args.solver_args or ""))
    except ValueError as e:
        fail(f"--solver-args: {e}")
    where = api.Where(
        jobs=getattr(args, "jobs", 1),
        executor=getattr(args, "executor", None) or "local",
        scheduler=getattr(args, "scheduler", None),
        workdir=Path(args.out) if args.out else None,
        resume=args.resume,
    )
    solver = api.SolverChoice(args.solver, solver_args, Path(args.solvers_file) if args.solvers_file else None)
    return api.Request(
        formula,
        solver,
        engine=getattr(args, "engine", "loop"),
        limits=limits_from(args, args.time_limit, args.memory_limit),
        where=where,
        report=report,
        symmetric=args.symmetric,
        limit=args.limit,
        allow_large=args.allow_large,
        certify=Path(certify) if certify else None,
        check_all=args.check_all,
        require_checked=args.require_checked,
    )


def print_count(args: argparse.Namespace, result: Count) -> int:
    """The count lines on stdout (``count: K (checked)``, how it was checked beside it, ``wrong`` when it
    disagrees with the published count (why on one stderr line, exit 1); ``partial count`` when it stopped:
    at ``--limit``, exit 0; at a time or memory limit or an error, exit 1; a count ``--require-checked``
    refuses: one line on stderr, exit 1), the reason on stderr; the exit status.
    ``enumerate --format json`` keeps stdout to its JSON lines: the count lines go to stderr."""
    found = result.fundamental if result.fundamental is not None else result.total
    counts = sys.stderr if getattr(args, "format", None) == "json" else sys.stdout
    if result.limited:  # what was asked for (exit 0), but not the total: "partial", as after a time limit
        if args.symmetric:
            print(f"partial fundamental: {result.fundamental}", file=counts)
        print(f"partial count: {result.total}", file=counts)
        print(f"{args.prog}: {result.error}; the count is not the total", file=sys.stderr)
        return 0
    if result.refused:  # by --require-checked: a whole count nothing checked
        print(f"{args.prog}: error: {result.error}", file=sys.stderr)
        return 1
    if not result.complete:
        if result.engine == "cubes":
            of = "" if result.groups_total is None else f" of {result.groups_total}"
            print(f"{args.prog}: error: {result.error}; {result.groups_done}{of} cube groups counted", file=sys.stderr)
        else:
            print(f"{args.prog}: error: {result.error}; {found} solution(s) found before it", file=sys.stderr)
        print(f"partial count: {result.total}", file=counts)
        return 1
    if args.symmetric:
        print(f"fundamental: {result.fundamental}", file=counts)
    word = "wrong" if result.wrong else result.checked
    print(f"count: {result.total}" + (f" ({word})" if word else ""), file=counts)
    if result.wrong:  # the API's error for it (api.judged), word for word
        print(f"{args.prog}: error: {result.wrong}", file=sys.stderr)
        return 1
    return 0


def loop(
    args: argparse.Namespace,
    emit: Callable[[Found], None] | None,
    progress: Callable[[GroupCount, int | None], None] | None = None,
) -> int:
    """List (``emit``) or count every solution through :func:`cnfgen_queens.solutions.api.count` (the
    loop, unless the namespace is ``count``'s); ``progress`` per finished group of cubes."""

    formula = formula_from(args)
    calls = 0

    def on_call() -> None:
        nonlocal calls
        calls += 1
        bar.update(0, solver_calls=calls)

    def on_solution(found: Found) -> None:
        if emit is not None:
            emit(found)
        bar.update(found.weight)

    counting = request(args, formula, api.Report(progress, on_solution, on_call))
    deadline = Deadline.after(counting.limits.time, since=command_start())  # the user's clock, as solve's
    bar = Progress("sol", "solutions", total=None if args.limit else api.known_total(formula), quiet=args.quiet)
    try:
        result = api.count(counting, deadline)
    except UsageError as e:
        fail(str(e))
    finally:
        bar.close()
    return print_count(args, result)


def run(args: argparse.Namespace) -> int:

    def emit(found: Found) -> None:
        text = render(found.placement, args.format, args.ascii)
        sys.stdout.write(text if args.format != "board" else text + "\n")
        sys.stdout.flush()

    return loop(args, emit)
