"""Bimander at-most-one (Nguyen and Mai 2015).

V.-H. Nguyen and S. T. Mai, "A new method to encode the at-most-one constraint
into SAT", SoICT 2015, pp. 46-53.  The inputs are split into m consecutive groups
of ``group_size`` g (the last may be smaller; m = ceil(n / g)); each group gets
pairwise at-most-one, and the group index is written in binary on
ceil(log2 m) auxiliary bits: every input of group i forces the bits to spell i
(as in the binary encoding), so inputs of two different groups cannot both be true.

Default g = 2 (m = ceil(n/2) groups, PBLib's default ``N_HALF``); g = 1 is the
binary encoding, g >= n is pairwise.  ``--group-size`` is shared with commander.
Counts, with q = n // g full groups and remainder r: clauses
q*g(g-1)/2 + r(r-1)/2 + n*ceil(log2 m), auxiliaries ceil(log2 m); nothing for n <= 1.
Propagation complete: x true fixes the bits, which falsify every input of another
group; the pairwise clauses falsify the rest of its own group.
"""

from __future__ import annotations

from collections.abc import Sequence

from .base import Clause, Encoding, VarPool, pairwise_clauses, register
from .binary import binary_clauses, bits_for

DEFAULT_GROUP_SIZE = 2


def _check(group_size: int) -> None:
    if group_size < 1:
        raise ValueError(f"bimander group size must be at least 1, got {group_size}")


def encode(lits: Sequence[int], pool: VarPool, group_size: int = DEFAULT_GROUP_SIZE) -> list[Clause]:
    _check(group_size)
    n, g = len(lits), group_size
    if n <= 1:
        return []
    m = -(-n // g)
    bits = [pool.new() for _ in range(bits_for(m))]
    out: list[Clause] = []
    for i in range(m):
        group = lits[i * g : (i + 1) * g]
        out += pairwise_clauses(group)
        out += binary_clauses(group, [i] * len(group), bits)
    return out


def counts(n: int, group_size: int = DEFAULT_GROUP_SIZE) -> tuple[int, int]:
    _check(group_size)
    if n <= 1:
        return 0, 0
    g = group_size
    q, r = divmod(n, g)
    m = q + (r > 0)
    b = bits_for(m)
    return q * (g * (g - 1) // 2) + r * (r - 1) // 2 + n * b, b


BIMANDER = register(
    Encoding(
        name="bimander",
        build=encode,
        size=counts,
        description="Nguyen-Mai 2015 bimander, groups of g (default 2) + binary group index",
        reference="V.-H. Nguyen and S. T. Mai, SoICT 2015, 46-53",
        propagation_complete=True,
        parsimonious=False,
        params=("group_size",),
    )
)
