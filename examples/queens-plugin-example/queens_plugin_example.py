"""Two-level pairwise at-most-one, a plugin for cnfgen-queens (docs/plugins.md).

The inputs are cut into groups of three.  Inside a group, pairwise clauses; each group gets a head
variable h with ``(-x | h)`` for each of its inputs; over the heads, pairwise again.  Two true inputs in
one group break a pairwise clause; in two groups they make two heads true.  One true input sets its head,
which sets every other head false, which sets every input of the other groups false: unit propagation
is complete.  A head may be true with no input of its group true, so an assignment of the inputs has
several extensions: not parsimonious (a model count needs the projection onto the cells).
"""

from __future__ import annotations

from collections.abc import Sequence

from cnfgen_queens import register_encoding

GROUP = 3


def pairs(lits: Sequence[int]) -> list[tuple[int, int]]:
    return [(-a, -b) for i, a in enumerate(lits) for b in lits[i + 1 :]]


def build(lits: Sequence[int], pool) -> list[tuple[int, ...]]:
    lits = list(lits)
    if len(lits) <= GROUP:
        return pairs(lits)
    heads: list[int] = []
    clauses: list[tuple[int, ...]] = []
    for start in range(0, len(lits), GROUP):
        group = lits[start : start + GROUP]
        head = pool.new()  # every auxiliary from the pool
        heads.append(head)
        clauses += pairs(group)
        clauses += [(-x, head) for x in group]
    return clauses + pairs(heads)


def size(n: int) -> tuple[int, int]:
    """(clauses, auxiliaries) in closed form; check-encoding compares it with what build makes."""
    if n <= GROUP:
        return n * (n - 1) // 2, 0
    groups = -(-n // GROUP)
    last = n - GROUP * (groups - 1)
    inside = (groups - 1) * GROUP * (GROUP - 1) // 2 + last * (last - 1) // 2
    return inside + n + groups * (groups - 1) // 2, groups


register_encoding(
    name="twolevel",
    build=build,
    description="two-level pairwise: groups of 3, a head per group, pairwise over the heads",
    reference="a plugin example (docs/plugins.md)",
    size=size,
    propagation_complete=True,
)
