"""What a CNF file may be before it is written: the DIMACS variable limit, the size cap, the shuffle cap.

``gen-queens`` and the Python library (:meth:`cnfgen_queens.library.Formula.write`) check the same
formula the same way, before a byte is written, with the same words (options named as flags); a batch
checks every instance of its config with it too (``shuffled_by`` and ``advice`` name its config keys).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cnfgen_queens.cnf.dimacs_write import MAX_VAR, Clause, clause_line
from cnfgen_queens.errors import UsageError, option

if TYPE_CHECKING:
    from collections.abc import Sequence

    from cnfgen_queens.model.formula import QueensFormula

LARGE_BYTES = 50 * 10**9  # above this (or LARGE_CLAUSES) gen-queens asks for --allow-large
LARGE_CLAUSES = 2**31
SIZE_FROM = 1_000_000  # clauses from which the output size is computed (it needs numpy)
SHUFFLE_MAX_CLAUSES = 20_000_000  # about 1.1 GB on the vectorised path, 2.5 GB of clause tuples on the other
SIZE_FROM_UNBUILT = 2**25  # SIZE_FROM for a caller that builds no template to size (a batch's check): under
# 33.5M clauses, 50 GB would take over 1,490 bytes a clause; every encoding's clauses are mostly binary


def human(size: int) -> str:
    """``size`` bytes in TB, GB or MB with one decimal (bytes below a MB)."""
    for unit, scale in (("TB", 10**12), ("GB", 10**9), ("MB", 10**6)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


@dataclass(frozen=True)
class Asker:
    """Who asks for an output, as :func:`check_output` words and sizes a refusal: ``shuffled_by`` names what
    asked for the shuffle and ``advice`` ends a refusal (default: the flag ``--allow-large``); the byte size is
    computed from ``size_from`` clauses on (default :data:`SIZE_FROM`)."""

    shuffled_by: str = "--shuffle"
    advice: str | None = None
    size_from: int | None = None


GEN_QUEENS = Asker()


def check_output(
    formula: QueensFormula,
    comments: Sequence[str],
    blocks: Sequence[Clause] = (),
    *,
    allow_large: bool = False,
    shuffle: int | None = None,
    asker: Asker = GEN_QUEENS,
) -> None:
    """Raise UsageError, before anything is written, for a formula beyond DIMACS's 2^31-1 variables, and
    without ``allow_large`` for one of over :data:`LARGE_BYTES` or :data:`LARGE_CLAUSES`, or a shuffled one
    of over :data:`SHUFFLE_MAX_CLAUSES` (a shuffle holds every clause in memory).

    ``comments`` are the header's lines (their bytes count); ``blocks`` the extra clauses written after.
    ``asker`` words the refusal (:class:`Asker`)."""
    shuffled_by, advice, size_from = asker.shuffled_by, asker.advice, asker.size_from
    num_vars, num_clauses = formula.counts()
    clauses = num_clauses + len(blocks)
    allow = option("--allow-large")  # allow_large=True from the Python API
    if num_vars > MAX_VAR:
        raise UsageError(f"{formula.encoding} at N={formula.n} needs {num_vars:,} variables, above the DIMACS "
                         "limit of 2^31-1; use a smaller N or another encoding")  # fmt: skip
    if not allow_large and clauses >= (SIZE_FROM if size_from is None else size_from):
        from cnfgen_queens.cnf.output_size import body_bound, body_size, digit_sum

        n2 = formula.n**2
        header = sum(len(c) + 3 for c in comments) + len(f"p cnf {num_vars} {clauses}\n")
        header += 9 + digit_sum(1, n2 + 1) + n2 + 2 if comments else 0  # the streamed c p show line
        header += sum(len(clause_line(c)) for c in blocks)
        bound = body_bound(formula)  # enough when it is under the limit: no template to build
        if bound is not None and header + bound <= LARGE_BYTES and clauses < LARGE_CLAUSES:
            body, exact = bound, False
        else:
            body, exact = body_size(formula)
        size = header + body
        if size > LARGE_BYTES or clauses >= LARGE_CLAUSES:
            what = f"{size:,} bytes ({human(size)})" if exact else f"about {human(size)}"
            raise UsageError(f"N={formula.n} {formula.encoding} would write {what} and {clauses:,} clauses, above "
                             f"the limit of {human(LARGE_BYTES)} or 2^31 clauses; "
                             f"{advice or f'pass {allow} to write it anyway'}")  # fmt: skip
    if shuffle is not None and clauses > SHUFFLE_MAX_CLAUSES and not allow_large:
        raise UsageError(f"{shuffled_by} holds every clause in memory: N={formula.n} {formula.encoding} has "
                         f"{clauses:,} clauses, above {SHUFFLE_MAX_CLAUSES:,}; "
                         f"{advice or f'pass {allow} to try anyway'}")  # fmt: skip
