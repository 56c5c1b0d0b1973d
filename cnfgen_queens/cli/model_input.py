"""Shared by ``decode`` and ``block``: read solver output, find N, undo a shuffle, check the board."""

from __future__ import annotations

import argparse
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from ..board import Placement
from .common import Exit, board_size, fail, read_input

EXIT_NO_SOLUTION = 1
MINISAT_FIRST = ("SAT", "UNSAT", "INDET")


def add_input_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "input",
        nargs="?",
        metavar="FILE",
        help="solver output: s/v lines (kissat, cadical, ..., `cnfgen-queens solve`) or a minisat "
        "result file; '-' or nothing for stdin",
    )
    size = p.add_mutually_exclusive_group(required=True)
    size.add_argument("-n", type=board_size, metavar="N", help="board size")
    size.add_argument("--cnf", metavar="CNF", help="the CNF that was solved (gives N, undoes --shuffle)")


@dataclass(frozen=True)
class Decoded:
    placement: Placement
    forward: list[int] | None  # original -> file variable names, for a shuffled CNF


def _size_from_header(header, path: str) -> int:
    """N from our header: the ``n=N`` description, else the length of ``p show``."""
    for c in header.comments:
        m = re.match(r"n=(\d+)\s", c + " ")
        if m:
            if int(m.group(1)) == 0:
                fail(f"{path}: the header says n=0, which is no board size; use -n N")
            return int(m.group(1))
    show = header.comment_value("p show")
    if show:
        k = len(show.split()) - 1
        n = math.isqrt(k)
        if n * n == k and n > 0:
            return n
    fail(f"{path}: no 'n=N' or 'p show' comment to take N from; use -n N")


def load(args: argparse.Namespace) -> Decoded:
    """The checked placement in the solver output; exits 1 with 'no solution' on UNSAT."""
    from ..decode import DecodeError, placement_from_true_vars
    from ..solvers.parse import parse_competition, parse_minisat

    name, data = read_input(args.input)
    text = data.decode("utf-8", "replace")
    backward = forward = None
    if args.cnf:
        from ..dimacs import DimacsError, read_header_file
        from ..shuffle import ShuffleError, header_shuffle_map, unshuffle_map

        try:
            header = read_header_file(Path(args.cnf))
            n = _size_from_header(header, args.cnf)
            backward, forward = unshuffle_map(header), header_shuffle_map(header)
        except OSError as e:
            fail(f"cannot read {args.cnf}: {e.strerror or e}")
        except (DimacsError, ShuffleError) as e:
            fail(str(e))
    else:
        n = args.n
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    claim = parse_minisat(text) if first in MINISAT_FIRST else parse_competition(text)
    if claim.problem:
        fail(f"{name}: {claim.problem}", EXIT_NO_SOLUTION)
    if claim.answer == "UNSAT":
        # decode prints the answer; block keeps its stdout for clauses only (>> blocks.cnf)
        print("no solution", file=sys.stderr if args.prog.endswith("block") else sys.stdout)
        raise Exit(EXIT_NO_SOLUTION)
    if claim.model is None:
        what = "UNKNOWN answer" if claim.answer == "UNKNOWN" else "no model (no v lines, no SAT result)"
        fail(f"{name}: {what}", EXIT_NO_SOLUTION)
    if claim.answer is None:
        print(f"warning: {name}: v lines without an s line; decoding them anyway", file=sys.stderr)
    lits = set(claim.model)
    clash = next((v for v in lits if v > 0 and -v in lits), None)
    if clash is not None:
        fail(f"{name}: the model sets variable {clash} both true and false", EXIT_NO_SOLUTION)
    true = (v for v in claim.model if v > 0)
    if backward is not None:
        true = (backward[v] for v in true if v < len(backward))
    try:
        return Decoded(placement_from_true_vars(n, true), forward)
    except DecodeError as e:
        fail(f"{name}: not a solution: {e}", EXIT_NO_SOLUTION)
