"""Variable pool, the at-most-one encoding record, and the registry of encodings.

An encoding is a pure function ``(literals, pool, **params) -> clauses``: it takes
the input literals of one line and a :class:`VarPool` that hands out auxiliary
variables, and returns the clauses stating that at most one input is true.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

Clause = tuple[int, ...]


class VarPool:
    """Hands out fresh variables after ``top`` (the largest variable in use)."""

    def __init__(self, top: int = 0) -> None:
        self.top = top

    def new(self) -> int:
        self.top += 1
        return self.top


EncodeFn = Callable[..., list[Clause]]
CountFn = Callable[..., tuple[int, int]]


@dataclass(frozen=True)
class Encoding:
    """A registered at-most-one encoding.

    ``counts(n, **params)`` returns ``(clauses, auxiliary variables)`` for a line of
    ``n`` literals without building it; ``propagation_complete`` says whether unit
    propagation alone, with one input true, sets every other input false.
    """

    name: str
    encode: EncodeFn
    counts: CountFn
    description: str
    reference: str
    propagation_complete: bool
    params: tuple[str, ...] = field(default=())

    def __call__(self, lits: Sequence[int], pool: VarPool, **params: int) -> list[Clause]:
        return self.encode(lits, pool, **self.accepted(params))

    def count(self, n: int, **params: int) -> tuple[int, int]:
        return self.counts(n, **self.accepted(params))

    def accepted(self, params: dict[str, int]) -> dict[str, int]:
        """The subset of ``params`` this encoding takes (others belong to other encodings)."""
        return {k: v for k, v in params.items() if k in self.params and v is not None}


REGISTRY: dict[str, Encoding] = {}


def register(enc: Encoding) -> Encoding:
    if enc.name in REGISTRY:
        raise ValueError(f"encoding {enc.name!r} registered twice")
    REGISTRY[enc.name] = enc
    return enc


def measured_counts(encode: EncodeFn, n: int, **params: int) -> tuple[int, int]:
    """Counts by building the encoding of an ``n``-literal line (for encodings with no formula)."""
    pool = VarPool(n)
    clauses = encode(list(range(1, n + 1)), pool, **params)
    return len(clauses), pool.top - n


def pairwise_clauses(lits: Sequence[int]) -> list[Clause]:
    """All ``n(n-1)/2`` binary clauses ``(-a, -b)``; shared by several encodings."""
    n = len(lits)
    return [(-lits[i], -lits[j]) for i in range(n) for j in range(i + 1, n)]
