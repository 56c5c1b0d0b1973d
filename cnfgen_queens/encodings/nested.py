"""Nested-implication at-most-one of seed 003 (Nesi's course notes), as clauses.

The notes write at-most-one of x_1..x_n as
``(x_1 -> -x_2 & ... & -x_n) & (-x_1 -> ((x_2 -> -x_3 & ... & -x_n) & (-x_2 -> ...)))``.
Turned into CNF without simplification, the pair i < j gives the clause
``(x_1 | ... | x_{i-1} | -x_i | -x_j)``: ``n(n-1)/2`` clauses of growing width
(literal total in :func:`literal_count`), no auxiliaries.
Propagation complete: x_i true falsifies x_1..x_{i-1} in order, then the rest.
"""

from __future__ import annotations

from collections.abc import Sequence

from .base import Clause, Encoding, VarPool, register


def encode(lits: Sequence[int], pool: VarPool) -> list[Clause]:
    n = len(lits)
    return [(*lits[:i], -lits[i], -lits[j]) for i in range(n) for j in range(i + 1, n)]


def counts(n: int) -> tuple[int, int]:
    return n * (n - 1) // 2, 0


def literal_count(n: int) -> int:
    """Total literals: sum over i of (n-1-i) clauses of width i + 2."""
    return sum((n - 1 - i) * (i + 2) for i in range(n))


NESTED = register(
    Encoding(
        name="nested",
        build=encode,
        size=counts,
        description="seed 003's nested implications, n(n-1)/2 clauses of growing width",
        reference="M. Nesi, course notes on N-queens (seed 003)",
        propagation_complete=True,
        parsimonious=True,
    )
)
