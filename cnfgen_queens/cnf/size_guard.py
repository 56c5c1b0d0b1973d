"""What a CNF of ours may be before it is written: the one size guard of gen-queens and the batch.

A formula beyond DIMACS's 2^31-1 variables is refused; one of over :data:`LARGE_BYTES` or
:data:`LARGE_CLAUSES` needs ``allow_large`` (gen-queens ``--allow-large``; a batch has no such key, so
its config is refused, naming the instance); shuffling holds every clause in memory, so a shuffled
formula of over :data:`SHUFFLE_MAX_CLAUSES` needs ``allow_large`` too.  The size named is exact where
:mod:`.output_size` can compute it cheaply.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import UsageError
from .dimacs import MAX_VAR, clause_line
from .output_size import body_size, digit_sum

if TYPE_CHECKING:
    from cnfgen_queens.encodings import Clause
    from cnfgen_queens.model.formula import QueensFormula

LARGE_BYTES = 50 * 10**9  # above this (or LARGE_CLAUSES) a CNF needs allow_large
LARGE_CLAUSES = 2**31
SIZE_FROM = 1_000_000  # clauses from which the output size is computed (it needs numpy)
SIZE_FROM_UNBUILT = 2**25  # the same, for a caller that builds no template to size (a batch's check):
# under 33.5M clauses, 50 GB would take over 1,490 bytes a clause; every encoding's clauses are mostly binary
SHUFFLE_MAX_CLAUSES = 20_000_000  # about 1.1 GB on the vectorised path, 2.5 GB of clause tuples on the other


def human(size: int) -> str:
    """``size`` bytes in TB, GB or MB (one decimal)."""
    for unit, scale in (("TB", 10**12), ("GB", 10**9), ("MB", 10**6)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


def check_size(
    formula: QueensFormula,
    comments: Sequence[str] = (),
    blocks: Sequence[Clause] = (),
    *,
    allow_large: bool = False,
    shuffled_by: str | None = None,
    advice: str = "pass --allow-large to write it anyway",
    size_from: int | None = None,
) -> None:
    """UsageError, before anything is written, for a formula beyond the DIMACS variable limit, and
    (unless ``allow_large``) one over :data:`LARGE_BYTES` or :data:`LARGE_CLAUSES`, or shuffled (by the
    option ``shuffled_by``) with over :data:`SHUFFLE_MAX_CLAUSES` clauses; ``advice`` ends the message.
    The byte size is computed from ``size_from`` clauses on (default :data:`SIZE_FROM`)."""
    num_vars, num_clauses = formula.counts()
    clauses = num_clauses + len(blocks)
    if num_vars > MAX_VAR:
        raise UsageError(f"{formula.encoding} at N={formula.n} needs {num_vars:,} variables, above the DIMACS "
                         f"limit of 2^31-1; use a smaller N or another encoding")  # fmt: skip
    if allow_large:
        return
    if shuffled_by and clauses > SHUFFLE_MAX_CLAUSES:
        raise UsageError(f"{shuffled_by} holds every clause in memory: N={formula.n} {formula.encoding} has "
                         f"{clauses:,} clauses, above {SHUFFLE_MAX_CLAUSES:,}; {advice}")  # fmt: skip
    if clauses < (SIZE_FROM if size_from is None else size_from):
        return

    n2 = formula.n**2
    body, exact = body_size(formula)
    header = sum(len(c) + 3 for c in comments) + len(f"p cnf {num_vars} {clauses}\n")
    header += 9 + digit_sum(1, n2 + 1) + n2 + 2 if comments else 0  # the streamed c p show line
    size = header + body + sum(len(clause_line(c)) for c in blocks)
    if size <= LARGE_BYTES and clauses < LARGE_CLAUSES:
        return
    what = f"{size:,} bytes ({human(size)})" if exact else f"about {human(size)}"
    raise UsageError(f"N={formula.n} {formula.encoding} would write {what} and {clauses:,} clauses, above the "
                     f"limit of {human(LARGE_BYTES)} or 2^31 clauses; {advice}")  # fmt: skip
