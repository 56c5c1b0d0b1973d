"""``cnfgen-queens decode``: solver output to a board, checked on its own."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cnfgen_queens.model.decode import FORMATS, render, write_png

from .arg_groups import add_output_argument
from .common import fail, output
from .model_input import add_input_arguments, load

if TYPE_CHECKING:
    import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input_arguments(p)
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="board",
        help="board (Unicode), positions (seed 001 style), json, line, svg or png (needs -o)",
    )
    p.add_argument("--ascii", action="store_true", help="Q and . instead of Unicode in --format board")
    add_output_argument(p)


def run(args: argparse.Namespace) -> int:

    if args.format == "png" and not args.output:
        fail("--format png needs -o FILE")
    inputs = [args.input, args.cnf]
    if args.output is not None:
        from cnfgen_queens.cnf.same_file import refuse_alias

        refuse_alias(args.output, inputs)  # before reading: the answer must survive a typo
    placement = load(args, clauses_only=False).placement
    with output(args.output, inputs) as out:  # atomic, and compressed as a .gz, .bz2 or .xz name says
        if args.format == "png":
            write_png(placement, out)
        else:
            out.write(render(placement, args.format, args.ascii).encode())
    return 0
