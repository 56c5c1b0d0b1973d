"""``cnfgen-queens block``: the blocking clause(s) of the placement in solver output.

Bare DIMACS clause lines over the N*N primary cell variables x(r,c) = r*N+c+1 only
(never auxiliaries), the negated queens as in seed 000; appendable with
``>> blocks.cnf``.  A shuffled CNF's answer is mapped back first (its shuffle
comes from ``--cnf`` or solve's ``c cnf-header`` lines), so the clause is in
unshuffled names whatever was solved: what ``gen-queens --block`` takes, and
what ``merge`` renames into a shuffled base.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from cnfgen_queens.cnf.dimacs import clause_line
from cnfgen_queens.model.decode import blocking_clauses

from .model_input import add_input_arguments, load

if TYPE_CHECKING:
    import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input_arguments(p)
    p.add_argument("--symmetric", action="store_true", help="one clause per distinct image under the 8 symmetries")


def run(args: argparse.Namespace) -> int:

    placement = load(args, clauses_only=True).placement
    sys.stdout.write("".join(clause_line(clause) for clause in blocking_clauses(placement, args.symmetric)))
    return 0
