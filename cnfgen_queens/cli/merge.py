"""``cnfgen-queens merge BASE BLOCKS...``: append blocking clauses, header count corrected."""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

from cnfgen_queens.cnf.dimacs import DimacsError
from cnfgen_queens.cnf.merge import merge
from cnfgen_queens.cnf.read_once import NoWriter, readable
from cnfgen_queens.cnf.shuffle import ShuffleError

from .arg_groups import add_output_argument
from .common import fail, output


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("base", metavar="BASE.cnf", help="the DIMACS file to extend (copied, not parsed)")
    p.add_argument(
        "blocks",
        nargs="+",
        metavar="BLOCKS",
        help="bare clause lines or full DIMACS files, in unshuffled names (renamed by BASE's shuffle "
        "comment, if any); variables must be within BASE's header",
    )
    add_output_argument(p)


def run(args: argparse.Namespace) -> int:
    given = [args.base, *args.blocks]
    try:
        with contextlib.ExitStack() as spooled:  # a FIFO or pipe is read once, into a file of ours
            read = [Path(p) if p == "-" else spooled.enter_context(readable(p)).path for p in given]
            try:
                with output(args.output, args.blocks) as out:  # over BASE: the documented in-place update
                    merge(read[0], read[1:], out)
            except DimacsError as e:
                fail(_named(str(e), read, given))
    except NoWriter as e:
        fail(str(e))
    except ShuffleError as e:
        fail(f"{args.base}: {e}")
    except OSError as e:
        fail(f"cannot read {e.filename or args.base}: {e.strerror or e}")
    return 0


def _named(message: str, read: list[Path], given: list[str]) -> str:
    """``message`` with the files read named as the user gave them (a FIFO's copy as the FIFO)."""
    for path, name in zip(read, given, strict=True):
        message = message.replace(str(path), name)
    return message
