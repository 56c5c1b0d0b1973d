"""Binary (bitwise) at-most-one (Frisch et al. 2005; Prestwich).

A. M. Frisch, T. J. Peugniez, A. J. Doggett and P. W. Nightingale, "Solving
non-Boolean satisfiability problems with stochastic local search: a comparison
of encodings", J. Automated Reasoning 35 (2005) 143-179; S. D. Prestwich, "CNF
encodings", Handbook of Satisfiability (2009), ch. 2.  For n >= 2 inputs
x_0..x_{n-1} take m = ceil(log2 n) auxiliary bits b_0..b_{m-1}; input x_i forces
the bits to spell i in binary: ``(-x_i | b_j)`` when bit j of i is 1, else
``(-x_i | -b_j)``.  Two true inputs would need two bit patterns, so at most one
is true.

``n * ceil(log2 n)`` binary clauses and ``ceil(log2 n)`` auxiliaries; nothing for
n <= 1.  Propagation (as recorded here): one true input fixes every bit, and every
other input differs from it in some bit, so unit propagation falsifies it; the
tests measure this (True).
"""

from __future__ import annotations

from collections.abc import Sequence

from .base import Clause, Encoding, VarPool, register


def bits_for(n: int) -> int:
    """``ceil(log2 n)`` for n >= 1 (0 for n = 1)."""
    return (n - 1).bit_length()


def binary_clauses(lits: Sequence[int], codes: Sequence[int], bits: Sequence[int]) -> list[Clause]:
    """``(-x | +-b_j)`` so that ``x`` implies the bits spell ``code``; shared with bimander."""
    out: list[Clause] = []
    for x, code in zip(lits, codes, strict=True):
        out += [(-x, b if code >> j & 1 else -b) for j, b in enumerate(bits)]
    return out


def encode(lits: Sequence[int], pool: VarPool) -> list[Clause]:
    n = len(lits)
    if n <= 1:
        return []
    bits = [pool.new() for _ in range(bits_for(n))]
    return binary_clauses(lits, range(n), bits)


def counts(n: int) -> tuple[int, int]:
    if n <= 1:
        return 0, 0
    m = bits_for(n)
    return n * m, m


BINARY = register(
    Encoding(
        name="binary",
        build=encode,
        size=counts,
        description="Frisch et al. 2005 bitwise, n*ceil(log2 n) clauses, ceil(log2 n) auxiliaries",
        reference="A. M. Frisch et al., J. Autom. Reasoning 35 (2005) 143-179; S. Prestwich, Handbook of SAT ch. 2",
        propagation_complete=True,
        parsimonious=False,
    )
)
