"""Whether a solver's UNSAT contradicts what a CNF's own header says it is.

A file that ``gen`` wrote names its formula in a comment (``n=8 encoding=pairwise column_alo=false``,
plus a variant's lines). When the ``p cnf`` line still has that formula's exact size (no blocking
clauses merged in, no variables added) and OEIS publishes a count for it (A000170 for the plain board,
A007705 for the torus) that is positive, an UNSAT answer is wrong: ``batch`` stores such a run with
verdict ``wrong`` (:mod:`cnfgen_queens.experiments.verdict`), and ``solve`` says so
(:func:`contradicted_unsat`). Comments can lie; the size check keeps the claim to unchanged files.
"""

from __future__ import annotations

import re
from pathlib import Path

from cnfgen_queens.cnf.dimacs import Header
from cnfgen_queens.cnf.scan import CnfFile, check_stream
from cnfgen_queens.model.formula import HEADER_BREAK, QueensFormula
from cnfgen_queens.model.known_counts import published_count
from cnfgen_queens.model.variants import VariantError, from_header

DESCRIPTION = re.compile(r"n=(\d+) encoding=(\S+)(?: group_size=(\d+))? column_alo=(true|false)$")


def contradicted_unsat(header: Header, path: Path | None = None) -> str | None:
    """Why UNSAT is a wrong answer for the CNF of ``header`` (the sentence to print), or None when
    nothing known contradicts it (no description, a changed size, a variant without a published count).
    ``path``: the file, whose clauses are then counted too (blocking clauses appended under an unchanged
    header: ``block >> q8.cnf``); only boards with a published count get there, so the file is small."""
    m = next((m for c in header.comments if (m := DESCRIPTION.match(c.strip()))), None)
    if m is None:
        return None
    n, encoding, group, alo = int(m[1]), m[2], m[3], m[4] == "true"
    try:
        variant = from_header(header.comments)
    except VariantError:
        return None
    if variant.placed or variant.holes:
        return None
    published = published_count(n, torus=variant.torus)
    if published is None or published[0] == 0:  # unknown N, or N = 2, 3: UNSAT is right
        return None
    try:
        broken = any(c.strip().startswith(HEADER_BREAK) for c in header.comments)  # SAT iff the board has a solution
        formula = QueensFormula(n, encoding, alo, int(group) if group else None, variant, broken)
        if formula.counts() != (header.num_vars, header.num_clauses):
            return None  # clauses added (block, merge) or taken away: no longer the formula described
        if path is not None and check_stream(CnfFile(path, str(path)), None, _quiet).clauses != header.num_clauses:
            return None  # more (or fewer) clauses than the header says
    except ValueError:  # an unknown encoding, a bad group size: a header we did not write
        return None
    board = "torus " if variant.torus else ""
    return (f"the solver answered UNSAT, but the header describes {n}-queens {board}({encoding}), which has "
            f"{published[0]} solutions (OEIS {published[1]}): a wrong answer")  # fmt: skip


def _quiet(message: str) -> None:
    """Warnings about the file are solve's to print (once), not this check's."""
