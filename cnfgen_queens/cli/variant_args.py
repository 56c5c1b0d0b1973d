"""The variant options shared by ``gen``, ``enumerate`` and ``count`` (see :mod:`cnfgen_queens.model.variants`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from cnfgen_queens.model.variants import VariantError, make_variant, parse_cell, read_cells

from .arg_groups import given_flags
from .common import fail, non_negative_int, type_error

if TYPE_CHECKING:
    import argparse

    from cnfgen_queens.model.variants import Variant

FLAGS = ("--place", "--place-file", "--block-square", "--holes", "--torus", "--random-place", "--seed")


def _cell(text: str) -> tuple[int, int]:

    try:
        return parse_cell(text)
    except VariantError as e:
        raise type_error(str(e)) from None


def add_variant_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("variants (coordinates are 1-based ROW,COLUMN, as decode prints them)")
    g.add_argument(
        "--place",
        type=_cell,
        action="append",
        default=[],
        metavar="R,C",
        help="a queen placed in advance (a unit clause; repeatable): n-queens completion",
    )
    g.add_argument(
        "--place-file",
        action="append",
        default=[],
        metavar="FILE",
        help="placed queens, one R,C per line ('#' comments)",
    )
    g.add_argument(
        "--block-square",
        type=_cell,
        action="append",
        default=[],
        metavar="R,C",
        help="a square where no queen may stand (repeatable): blocked n-queens",
    )
    g.add_argument("--holes", action="append", default=[], metavar="FILE", help="blocked squares, one R,C per line")
    g.add_argument(
        "--torus",
        action="store_true",
        help="modular board: diagonals wrap modulo N (solutions iff gcd(N, 6) = 1; OEIS A007705)",
    )
    g.add_argument(
        "--random-place",
        type=non_negative_int(),
        default=None,
        metavar="K",
        help="K more non-attacking queens at random (Gent, Jefferson and Nightingale 2017); needs --seed",
    )
    g.add_argument("--seed", type=non_negative_int(), default=None, metavar="S", help="seed of --random-place")


def given(args: argparse.Namespace) -> list[str]:
    """The variant flags present on the command line."""

    return given_flags(args, FLAGS)


def variant_from(args: argparse.Namespace, n: int) -> Variant:
    """The validated variant of the options, or a one-line usage error."""
    try:
        placed = list(args.place)
        for path in args.place_file:
            placed += read_cells(Path(path))
        holes = list(args.block_square)
        for path in args.holes:
            holes += read_cells(Path(path))
        return make_variant(n, placed, holes, args.torus, args.random_place, args.seed)
    except VariantError as e:
        fail(str(e))
