"""Ladder (regular) at-most-one (Gent and Nightingale 2004).

I. P. Gent and P. Nightingale, "A new encoding of AllDifferent into SAT",
ModRef 2004; the ladder itself is from I. P. Gent and P. Prosser, SAT 2002.
At-most-one over x_1..x_n is exactly-one over n + 1 values, the last one "none".
Ladder variables y_1..y_n (y_i: "the value is above i") satisfy y_{i+1} -> y_i
(n - 1 clauses), and each input is channelled both ways:
``x_1 <-> -y_1`` (2 clauses) and ``x_i <-> y_{i-1} & -y_i`` for i >= 2 (3 clauses).

``4n - 2`` clauses and ``n`` auxiliaries; nothing for n <= 1.  Unlike the
sequential counter (the one-way half of this), the auxiliaries are functions of
the inputs, so an unprojected model count equals the board count.
Propagation complete: x_i true sets y_1..y_{i-1} and clears y_i..y_n, which
falsifies every other input.
"""

from __future__ import annotations

from collections.abc import Sequence

from .base import Clause, Encoding, VarPool, register


def encode(lits: Sequence[int], pool: VarPool) -> list[Clause]:
    n = len(lits)
    if n <= 1:
        return []
    y = [pool.new() for _ in range(n)]
    out: list[Clause] = [(-y[i + 1], y[i]) for i in range(n - 1)]
    out += [(-lits[0], -y[0]), (lits[0], y[0])]
    for i in range(1, n):
        out += [(-lits[i], y[i - 1]), (-lits[i], -y[i]), (lits[i], -y[i - 1], y[i])]
    return out


def counts(n: int) -> tuple[int, int]:
    return (4 * n - 2, n) if n >= 2 else (0, 0)


LADDER = register(
    Encoding(
        name="ladder",
        build=encode,
        size=counts,
        description="Gent-Nightingale 2004 ladder, 4n-2 clauses, n auxiliaries (defined by the inputs)",
        reference="I. P. Gent and P. Nightingale, ModRef 2004; I. P. Gent and P. Prosser, SAT 2002",
        propagation_complete=True,
        parsimonious=True,
    )
)
