"""``gen-queens N``: write the N-queens CNF."""

from __future__ import annotations

import argparse
from pathlib import Path

from .common import board_size, fail, output, positive_int


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("n", type=board_size, metavar="N", nargs="?", help="board size (N >= 1)")
    p.add_argument("-e", "--encoding", default="pairwise", help="at-most-one encoding (default: pairwise)")
    p.add_argument("--group-size", type=positive_int("group size"), default=None,
                   help="group size of the commander encoding (default 3)")
    p.add_argument("--column-alo", action="store_true", help="add the redundant at-least-one per column")
    p.add_argument("--block", action="append", default=[], metavar="FILE",
                   help="append the blocking clauses of FILE (repeatable)")
    p.add_argument("--no-comments", action="store_true", help="no comment header")
    p.add_argument("-o", "--output", metavar="FILE", help="write FILE atomically instead of stdout")
    p.add_argument("--list-encodings", action="store_true", help="list the encodings and exit")


def run(args: argparse.Namespace) -> int:
    from ..dimacs import DimacsError, read_blocks, write_clauses, write_header
    from ..encodings import UnknownEncoding
    from ..formula import QueensFormula

    if args.list_encodings:
        from .. import encodings

        for name in encodings.names():
            enc = encodings.get(name)
            print(f"{name:<12} {enc.description}")
        return 0
    if args.n is None:
        fail("missing N (the board size)")
    try:
        formula = QueensFormula(args.n, args.encoding, args.column_alo, args.group_size)
    except (UnknownEncoding, ValueError) as e:
        fail(str(e))
    num_vars, num_clauses = formula.counts()
    blocks = []
    for path in args.block:
        try:
            blocks += read_blocks(Path(path), num_vars)
        except OSError as e:
            fail(f"cannot read {path}: {e.strerror or e}")
        except DimacsError as e:
            fail(str(e))
    comments = [] if args.no_comments else formula.header_comments(args.command_line)
    with output(args.output) as out:
        write_header(out, num_vars, num_clauses + len(blocks), comments)
        written = write_clauses(out, formula.clauses()) + write_clauses(out, blocks)
    if written != num_clauses + len(blocks):  # an internal invariant, never expected
        fail(f"internal error: wrote {written} clauses, header says {num_clauses + len(blocks)}", 1)
    return 0
