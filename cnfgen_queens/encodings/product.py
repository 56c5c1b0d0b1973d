"""Two-dimensional product at-most-one (Chen 2010), recursive.

J. Chen, "A new SAT encoding of the at-most-one constraint", ModRef 2010.  The
n inputs are laid out row by row on a p x q grid, p = ceil(sqrt n) and
q = ceil(n / p); input k sits at (k // q, k % q).  Row variables u_1..u_p and
column variables v_1..v_q get ``(-x | u_row)`` and ``(-x | v_col)`` for every
input (2n clauses), and at-most-one is imposed on the u's and on the v's by the
same encoding, recursively.  Two true inputs differ in their row or their column,
so they would need two true u's or two true v's.  Lines of at most
``PAIRWISE_MAX`` (6) inputs are encoded pairwise: up to 6 the product costs more
clauses than pairwise (n = 6: 16 against 15).

Counts (exact recurrence): C(n) = 2n + C(p) + C(q), A(n) = p + q + A(p) + A(q) for
n > 6; C(n) = n(n-1)/2, A(n) = 0 for n <= 6 (about 2n + 4 sqrt(n) clauses).
Propagation complete: x true sets its u and v, whose at-most-ones falsify every
other u and v, and every other input shares none of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from math import isqrt

from .base import Clause, Encoding, VarPool, pairwise_clauses, register

PAIRWISE_MAX = 6


def grid(n: int) -> tuple[int, int]:
    """``(p, q)``: p = ceil(sqrt n) rows, q = ceil(n / p) columns."""

    p = isqrt(n - 1) + 1 if n > 0 else 0
    return p, -(-n // p) if p else 0


def encode(lits: Sequence[int], pool: VarPool) -> list[Clause]:
    n = len(lits)
    if n <= PAIRWISE_MAX:
        return pairwise_clauses(lits)
    p, q = grid(n)
    rows = [pool.new() for _ in range(p)]
    cols = [pool.new() for _ in range(q)]
    out: list[Clause] = []
    for k, x in enumerate(lits):
        out += [(-x, rows[k // q]), (-x, cols[k % q])]
    return out + encode(rows, pool) + encode(cols, pool)


@cache
def counts(n: int) -> tuple[int, int]:
    if n <= PAIRWISE_MAX:
        return n * (n - 1) // 2 if n > 1 else 0, 0
    p, q = grid(n)
    cp, ap = counts(p)
    cq, aq = counts(q)
    return 2 * n + cp + cq, p + q + ap + aq


PRODUCT = register(
    Encoding(
        name="product",
        build=encode,
        size=counts,
        description="Chen 2010 2-D product, recursive, ~2n+4sqrt(n) clauses (pairwise up to 6)",
        reference="J. Chen, ModRef 2010",
        propagation_complete=True,
        parsimonious=False,
    )
)
