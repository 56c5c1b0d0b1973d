"""``cnfgen-queens block``: the blocking clause(s) of the placement in solver output.

Bare DIMACS clause lines over cell variables only (never auxiliaries), the
negated queens as in seed 000; appendable with ``>> blocks.cnf``.  For a
shuffled CNF (``--cnf``) the clause is written in the file's own variable names.
"""

from __future__ import annotations

import argparse
import sys

from cnfgen_queens.cnf.dimacs import clause_line
from cnfgen_queens.model.decode import blocking_clauses

from .model_input import add_input_arguments, load


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input_arguments(p)
    p.add_argument("--symmetric", action="store_true", help="one clause per distinct image under the 8 symmetries")


def run(args: argparse.Namespace) -> int:

    decoded = load(args, clauses_only=True)
    fwd = decoded.forward
    lines = []
    for clause in blocking_clauses(decoded.placement, args.symmetric):
        if fwd is not None:
            clause = tuple(-fwd[-lit] for lit in clause)
        lines.append(clause_line(clause))
    sys.stdout.write("".join(lines))
    return 0
