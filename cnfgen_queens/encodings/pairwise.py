"""Pairwise (binomial) at-most-one: the seeds' formulation.

One binary clause ``(-x_i, -x_j)`` per pair i < j: ``n(n-1)/2`` clauses and no
auxiliary variables.  Propagation complete.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Clause, Encoding, VarPool, pairwise_clauses, register

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np


def encode(lits: Sequence[int], pool: VarPool) -> list[Clause]:
    return pairwise_clauses(lits)


def counts(n: int) -> tuple[int, int]:
    return n * (n - 1) // 2, 0


def array(n: int) -> np.ndarray:
    """The clauses of inputs ``1..n`` as rows ``(-i, -j)``, i < j, in :func:`encode`'s order."""
    import numpy as np

    i, j = np.triu_indices(n, 1)
    return -np.stack((i, j), axis=1).astype(np.int64) - 1


PAIRWISE = register(
    Encoding(
        name="pairwise",
        build=encode,
        size=counts,
        description="all binary clauses -a|-b (the seeds' formulation)",
        reference="binomial encoding; seeds 000, 002, 004",
        propagation_complete=True,
        parsimonious=True,
        width=2,
        array=array,
    )
)
