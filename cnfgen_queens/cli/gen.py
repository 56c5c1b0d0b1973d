"""``gen-queens N``: write the N-queens CNF (or its OPB / MiniZinc model)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cnfgen_queens.cnf.dimacs import Clause
from cnfgen_queens.cnf.writer import check_output, tune_malloc, write_cnf
from cnfgen_queens.errors import UsageError, warn
from cnfgen_queens.model.formula import QueensFormula

from .. import encodings
from ..encodings import UnknownEncoding
from .arg_groups import add_encoding_arguments, add_output_argument, encoding_of, given_flags
from .common import board_size, fail, line_length, non_negative_int, output
from .variant_args import FLAGS as VARIANT_FLAGS
from .variant_args import add_variant_arguments, variant_from

if TYPE_CHECKING:
    import argparse

DEFAULT_LINE_LENGTH = 8  # of --list-encodings
LIST_IGNORES = ("--encoding", "--column-alo", "--block", "--no-comments", "--output", "--allow-large", "--shuffle")
BREAK_HELP = (
    "add lex-leader clauses that keep one board per orbit of the symmetries the board keeps: the 8 maps of the "
    "square (those that keep the placed queens and blocked squares), the torus group with --torus (N <= 16); "
    "auxiliary variables after the encoding's, the header names the group (the documentation's page Generator "
    "and encodings)"
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("n", type=board_size, metavar="N", nargs="?", help="board size (N >= 1)")
    add_encoding_arguments(p)
    p.add_argument(
        "--block",
        action="append",
        default=[],
        metavar="FILE",
        help="append the blocking clauses of FILE (repeatable): clauses over the N*N cell variables "
        "x(r,c) = r*N+c+1 only, in unshuffled names, as `cnfgen-queens block` prints them",
    )
    p.add_argument("--no-comments", action="store_true", help="no comment header")
    add_output_argument(p)
    p.add_argument(
        "--allow-large",
        action="store_true",
        help="write a CNF of over 50 GB or 2^31 clauses (refused without it: the size is named first)",
    )
    p.add_argument(
        "--format",
        choices=("cnf", "opb", "mzn"),
        default="cnf",
        help="cnf (DIMACS, default), opb (pseudo-Boolean: '= 1' per row, '<= 1' per other line) "
        "or mzn (MiniZinc: all_different on q, q+i, q-i)",
    )
    p.add_argument(
        "--shuffle",
        type=non_negative_int("seed"),
        metavar="SEED",
        default=None,
        help="permute clause order, literal order and variable names with this seed (recorded in "
        "the header, so decode/block can undo it); holds all clauses in memory",
    )
    p.add_argument(
        "--list-encodings",
        action="store_true",
        help="list the encodings with their clause and auxiliary counts for a line of LEN literals (-n LEN, or "
        "N: a row of the N-board; default 8), UP: unit propagation complete, PAR: parsimonious (one auxiliary "
        "extension per allowed input assignment: model counts need no projection), as check-encoding measures",
    )
    p.add_argument(
        "-n",
        "--line-length",
        type=line_length("line length"),
        default=None,
        metavar="LEN",
        help="line length for --list-encodings (default 8; refused without it: the board size is N)",
    )
    p.add_argument("--break-symmetry", action="store_true", help=BREAK_HELP)
    add_variant_arguments(p)


def list_encodings(length: int, group_size: int | None, board: QueensFormula | None = None) -> None:
    """The table of ``--list-encodings``; with ``board`` (``N --break-symmetry``), a last row for the
    lex-leader clauses of that board."""
    rows = encodings.sizes(length, group_size)  # validates every parameter before a line is printed
    print(f"{'encoding':<18} {'clauses':>8} {'aux':>6}  {'UP':<3} {'PAR':<3} description   (n = {length} literals)")
    for row in rows:
        up, par = _yes_no(row.propagation_complete), _yes_no(row.parsimonious)
        plugin = f" [plugin {row.plugin}]" if row.plugin else ""
        print(f"{row.name:<18} {row.clauses:>8} {row.aux:>6}  {up:<3} {par:<3} {row.description}{plugin}")
    if board is not None:
        clauses, aux = board.group.size()
        where = f"{board.n}-torus" if board.variant.torus else f"{board.n}x{board.n} board"
        print(
            f"{'--break-symmetry':<18} {clauses:>8} {aux:>6}  {'-':<3} {'-':<3} lex-leader chains of the {where}: "
            f"{board.group.order} maps (N = {board.n}, whatever the encoding)"
        )


def _yes_no(flag: bool | None) -> str:
    """A column of ``--list-encodings``: UP (propagation complete), PAR (parsimonious: one auxiliary extension
    per allowed input assignment, model counts kept without projection); ``?`` not stated."""
    return "?" if flag is None else ("yes" if flag else "no")


def run(args: argparse.Namespace) -> int:
    if args.list_encodings:
        ignored = given_flags(args, LIST_IGNORES + ((), VARIANT_FLAGS)[not args.break_symmetry])
        if ignored or args.format != "cnf":
            fail(f"{ignored[0] if ignored else '--format'} does not apply to --list-encodings")
        if args.n is not None and args.line_length is not None and args.n != args.line_length:
            fail(f"two line lengths for --list-encodings: N {args.n} and -n {args.line_length}; give one")
        length = args.line_length or args.n or DEFAULT_LINE_LENGTH
        board = None
        if args.break_symmetry:
            if args.n is None:
                fail("--list-encodings --break-symmetry needs N (the board size)")
            try:
                board = QueensFormula(args.n, variant=variant_from(args, args.n), break_symmetry=True)
            except ValueError as e:
                fail(str(e))
        try:
            list_encodings(length, args.group_size, board)
        except ValueError as e:
            fail(str(e))
        return 0
    if args.line_length is not None:
        fail("-n/--line-length applies to --list-encodings only (the board size is N)")
    if args.n is None:
        fail("missing N (the board size)")
    if args.format != "cnf":
        return run_export(args)
    return run_cnf(args)


def run_export(args: argparse.Namespace) -> int:
    cnf_only = given_flags(
        args, ("--encoding", "--group-size", "--column-alo", "--block", "--shuffle", "--break-symmetry", *VARIANT_FLAGS)
    )
    if cnf_only:
        fail(f"{cnf_only[0]} applies to --format cnf only")
    from cnfgen_queens.cnf.exports import mzn_comments, mzn_text, opb_comments, write_opb

    command = None if args.no_comments else args.command_line
    with output(args.output) as out:
        if args.format == "opb":
            write_opb(out, args.n, [] if args.no_comments else opb_comments(args.n, command))
        else:
            out.write(mzn_text(args.n, [] if args.no_comments else mzn_comments(args.n, command)).encode())
    return 0


def run_cnf(args: argparse.Namespace) -> int:
    variant = variant_from(args, args.n)
    try:
        formula = QueensFormula(
            args.n, encoding_of(args), args.column_alo, args.group_size, variant, args.break_symmetry
        )
    except (UnknownEncoding, ValueError) as e:
        fail(str(e))
    cells = args.n * args.n
    blocks = _blocks(args.block, cells)
    comments = [] if args.no_comments else formula.header_comments(args.command_line, show=False)
    try:
        check_output(formula, comments, blocks, allow_large=args.allow_large, shuffle=args.shuffle)
    except UsageError as e:
        fail(str(e))
    if args.shuffle is not None and args.no_comments:
        warn("--no-comments drops the shuffle seed: decode/block cannot undo it")
    with output(args.output, [*args.block, *args.holes, *args.place_file]) as out:
        tune_malloc(formula, args.shuffle)  # the process is ours alone
        write_cnf(out, formula, comments, blocks, show=not args.no_comments, shuffle=args.shuffle)
    return 0


def _blocks(paths: list[str], cells: int) -> list[Clause]:
    """The clauses of the ``--block`` files: over the N*N cell variables only."""
    if not paths:
        return []
    from pathlib import Path

    from cnfgen_queens.cnf.dimacs import DimacsError, VariableBeyond
    from cnfgen_queens.cnf.merge import read_blocks

    blocks: list[Clause] = []
    for path in paths:
        try:
            blocks += read_blocks(Path(path), cells)  # cell variables only: an auxiliary's name is the encoding's
        except OSError as e:
            fail(f"cannot read {path}: {e.strerror or e}")
        except VariableBeyond as e:
            fail(
                f"{e.where}: literal {e.literal} is not a cell variable: --block takes clauses over the N*N = "
                f"{cells} cells 1..{cells} (x(r,c) = r*N+c+1, unshuffled), as `cnfgen-queens block` prints"
            )
        except DimacsError as e:
            fail(str(e))
    return blocks
