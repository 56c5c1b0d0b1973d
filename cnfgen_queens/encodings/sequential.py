"""Sequential counter at-most-one (Sinz 2005).

C. Sinz, "Towards an Optimal CNF Encoding of Boolean Cardinality Constraints",
CP 2005, LNCS 3709, pp. 827-831.  For k = 1 with inputs x_1..x_n (n >= 2) and
auxiliary s_1..s_{n-1} ("some x_j with j <= i is true"):

    (-x_1 | s_1)
    (-x_i | s_i), (-s_{i-1} | s_i), (-x_i | -s_{i-1})    for 1 < i < n
    (-x_n | -s_{n-1})

``3n - 4`` binary clauses and ``n - 1`` auxiliary variables; nothing for n <= 1.
Propagation complete.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Clause, Encoding, VarPool, register

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np


def encode(lits: Sequence[int], pool: VarPool) -> list[Clause]:
    n = len(lits)
    if n <= 1:
        return []
    s = [pool.new() for _ in range(n - 1)]
    out: list[Clause] = [(-lits[0], s[0])]
    for i in range(1, n - 1):
        out += [(-lits[i], s[i]), (-s[i - 1], s[i]), (-lits[i], -s[i - 1])]
    out.append((-lits[n - 1], -s[n - 2]))
    return out


def counts(n: int) -> tuple[int, int]:
    return (3 * n - 4, n - 1) if n >= 2 else (0, 0)


def array(n: int) -> np.ndarray:
    """The clauses of inputs ``1..n`` (s_i = n + i) as rows, in :func:`encode`'s order."""
    import numpy as np

    if n <= 1:
        return np.zeros((0, 2), dtype=np.int64)
    x = np.arange(2, n, dtype=np.int64)  # x_i for 1 < i < n (1-based), s_i = n + i, s_{i-1} = n + i - 1
    s, before = x + n, x + n - 1
    middle = np.stack((-x, s, -before, s, -x, -before), axis=1).reshape(-1, 2)
    return np.concatenate(([[-1, n + 1]], middle, [[-n, -(2 * n - 1)]])).astype(np.int64)


SEQUENTIAL = register(
    Encoding(
        name="sequential",
        build=encode,
        size=counts,
        description="Sinz 2005 sequential counter, 3n-4 clauses, n-1 auxiliaries",
        reference="C. Sinz, CP 2005, LNCS 3709, 827-831",
        propagation_complete=True,
        parsimonious=False,
        width=2,
        array=array,
    )
)
