"""Commander at-most-one (Klieber and Kwon 2007).

W. Klieber and G. Kwon, "Efficient CNF Encoding for Selecting 1 from N Objects",
CFV 2007.  The inputs are split into consecutive groups of ``group_size`` (g,
default 3; the last group may be smaller).  Each group of two or more gets a
commander c with pairwise at-most-one inside the group and ``c <-> OR(group)``:
``(-c | x_1 | ... | x_m)`` and ``(-x_i | c)``.  A group of one is its own commander.
The commanders are encoded recursively the same way; at most g inputs are
encoded pairwise.

Counts for n inputs (q = n // g full groups, remainder r, m = q + (r > 0)):
clauses C(n) = q*(g(g-1)/2 + g + 1) + [r >= 2]*(r(r-1)/2 + r + 1) + C(m) and
auxiliaries A(n) = q + [r >= 2] + A(m), with C(n) = n(n-1)/2, A(n) = 0 for n <= g.
Propagation complete.
"""

from __future__ import annotations

from collections.abc import Sequence

from .base import Clause, Encoding, VarPool, pairwise_clauses, register

DEFAULT_GROUP_SIZE = 3


def _check(group_size: int) -> None:
    if group_size < 2:
        raise ValueError(f"commander group size must be at least 2, got {group_size}")


def encode(lits: Sequence[int], pool: VarPool, group_size: int = DEFAULT_GROUP_SIZE) -> list[Clause]:
    _check(group_size)
    out: list[Clause] = []
    level = list(lits)
    while len(level) > group_size:
        commanders: list[int] = []
        for start in range(0, len(level), group_size):
            group = level[start : start + group_size]
            if len(group) == 1:
                commanders.append(group[0])
                continue
            c = pool.new()
            commanders.append(c)
            out += pairwise_clauses(group)
            out.append((-c, *group))
            out += [(-x, c) for x in group]
        level = commanders
    out += pairwise_clauses(level)
    return out


def counts(n: int, group_size: int = DEFAULT_GROUP_SIZE) -> tuple[int, int]:
    _check(group_size)
    g = group_size
    clauses = aux = 0
    while n > g:
        q, r = divmod(n, g)
        clauses += q * (g * (g - 1) // 2 + g + 1)
        aux += q
        if r >= 2:
            clauses += r * (r - 1) // 2 + r + 1
            aux += 1
        n = q + (r > 0)
    return clauses + n * (n - 1) // 2, aux


COMMANDER = register(
    Encoding(
        name="commander",
        build=encode,
        size=counts,
        description="Klieber-Kwon 2007 commander, recursive groups of g (default 3)",
        reference="W. Klieber and G. Kwon, CFV 2007",
        propagation_complete=True,
        parsimonious=True,
        params=("group_size",),
    )
)
