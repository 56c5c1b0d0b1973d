"""Shared by ``decode`` and ``block``: read solver output, find N, undo a shuffle, check the board."""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

from ..board import Placement
from ..compressed import InputError
from .common import Exit, board_size, fail

if TYPE_CHECKING:
    import numpy as np

    from ..dimacs import Header

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


def _size_from_header(header: Header, path: str) -> int:
    """N from our header: the ``n=N`` description, else the length of ``p show``."""
    for c in header.comments:
        m = re.match(r"n=(\d+)\s", c + " ")
        if m:
            return int(m.group(1))
    show = header.comment_value("p show")
    if show:
        k = len(show.split()) - 1
        n = math.isqrt(k)
        if n * n == k and n > 0:
            return n
    fail(f"{path}: no 'n=N' or 'p show' comment to take N from; use -n N")


SMALL_ANSWER = 1 << 20  # answers up to this size are parsed whole; larger ones keep only the cell literals


def _holds(path: str, header: Header, size: int) -> bool:
    """Whether the CNF's body holds at least ``size`` bytes (read at most that far)."""
    from ..dimacs import open_body

    with open_body(path, header) as f:
        while size > 0 and (got := len(f.read(min(size, 1 << 22)))):
            size -= got
    return size <= 0


def _answer_text(name: str, path: str | None, cells: Callable[[np.ndarray], np.ndarray] | None) -> str:
    """The solver output as text; past SMALL_ANSWER bytes, v lines keep only the literals ``cells`` picks
    (and the 0), comments are dropped, so memory follows the board, not the output."""
    from ..compressed import open_input

    raw = sys.stdin.buffer if path is None or path == "-" else None
    try:
        f = open_input(name if raw is not None else path, _warn, raw=raw)  # type: ignore[arg-type]
        head = f.read(SMALL_ANSWER)
        if len(head) < SMALL_ANSWER or cells is None:
            return (head + f.read()).decode("utf-8", "replace")
        return _filtered(head, f, cells)
    except OSError as e:
        fail(f"cannot read {name}: {e.strerror or e}")
    except InputError as e:
        fail(str(e))


def _warn(msg: str) -> None:
    print(f"warning: {msg}", file=sys.stderr)


def _filtered(head: bytes, f: IO[bytes], cells: Callable[[np.ndarray], np.ndarray]) -> str:
    import numpy as np

    kept: list[bytes] = []
    other = 0
    data = head + f.readline()
    while data:
        v_lits: list[bytes] = []
        lines = data.splitlines()
        only_v = data[:1] == b"v" and data.count(b"\nv") + 1 == len(lines)
        if only_v and not data.translate(None, b"0123456789 -\t\r\nv"):  # v lines only: no loop over lines
            v_lits, lines = [data.replace(b"v", b" ")], []
        for line in lines:
            s = line.strip()
            if s[:2] == b"v " or s == b"v":
                v_lits.append(s[1:])
            elif s[:1] == b"s" or (s and s[:1] != b"c" and other < 5):  # answers; the first odd lines
                other += s[:1] != b"s"
                kept.append(s)
        if v_lits:
            text = b" ".join(v_lits)
            try:
                lits = np.fromstring(text, dtype=np.int64, sep=" ")
                ok = lits.size == len(text.split())
            except ValueError:
                ok = False
            if ok:
                lits = lits[(lits == 0) | cells(np.abs(lits))]
                kept.append(b"v " + b" ".join(b"%d" % x for x in lits.tolist()))
            else:  # the parser names the bad token
                kept.append(b"v " + text)
        data = f.read(SMALL_ANSWER)
        data += f.readline() if data else b""
    return b"\n".join(kept).decode("utf-8", "replace")


def load(args: argparse.Namespace) -> Decoded:
    """The checked placement in the solver output; exits 1 with 'no solution' on UNSAT."""
    from ..decode import DecodeError, placement_from_true_vars
    from ..solvers.parse import parse_competition, parse_minisat

    name = "<stdin>" if args.input in (None, "-") else args.input
    backward = forward = None
    if args.cnf:
        from ..dimacs import DimacsError, read_header_file
        from ..shuffle import ShuffleError, header_shuffle, header_shuffle_map, unshuffle_map

        try:
            header = read_header_file(args.cnf)
            n = _size_from_header(header, args.cnf)
            if header_shuffle(header) is not None and not _holds(args.cnf, header, header.num_vars):
                fail(f"{args.cnf}: its shuffle header names {header.num_vars} variables, more than the file holds")
            backward, forward = unshuffle_map(header), header_shuffle_map(header)
        except OSError as e:
            fail(f"cannot read {args.cnf}: {e.strerror or e}")
        except (DimacsError, ShuffleError) as e:
            fail(str(e))
    else:
        n = args.n
    if forward is not None:
        names = sorted(forward[v] for v in range(1, n * n + 1))

        def cells(var: np.ndarray) -> np.ndarray:
            import numpy as np

            return np.isin(var, names)
    else:

        def cells(var: np.ndarray) -> np.ndarray:
            return var <= n * n

    text = _answer_text(name, args.input, cells)
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
