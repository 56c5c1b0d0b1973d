"""Variable pool, the at-most-one encoding record, and the registry of encodings.

An encoding is a pure function ``(literals, pool, **params) -> clauses``: it takes
the input literals of one line and a :class:`VarPool` that hands out auxiliary
variables, and returns the clauses stating that at most one input is true.
The :class:`Encoding` record registered for it is called and counted one way each
(``enc(lits, pool, **params)``, ``enc.count(n, **params)``), says which parameters it
takes, and states the ``positional`` rule that the fast writer relies on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

Clause = tuple[int, ...]

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    import numpy as np

    EncodeFn = Callable[..., list[Clause]]
    CountFn = Callable[..., tuple[int, int]]
    ArrayFn = Callable[[int], np.ndarray]  # n -> the template's clauses as rows of one 2-D int64 array


class VarPool:
    """Hands out fresh variables after ``top`` (the largest variable in use)."""

    def __init__(self, top: int = 0) -> None:
        self.top = top

    def new(self) -> int:
        self.top += 1
        return self.top


@dataclass(frozen=True)
class Encoding:
    """A registered at-most-one encoding.

    One way to build and one way to count: ``enc(lits, pool, **params)`` returns the
    clauses over ``lits`` (auxiliaries from ``pool``), ``enc.count(n, **params)``
    returns ``(clauses, auxiliary variables)`` for a line of ``n`` literals without
    building it.  Both take the parameters of every encoding and pass on only the ones
    in ``params`` (see :meth:`accepted`); ``build`` and ``size`` are the module's raw
    functions behind them.  ``propagation_complete`` says whether unit propagation
    alone, with one input true, sets every other input false.

    ``positional`` is the rule the fast writer (:func:`cnfgen_queens.cnf.writer.write_body_fast`) relies
    on: the clauses depend only on the positions of the inputs, not on their values.
    That is, with ``t = enc.template(n)`` (inputs ``1..n``, auxiliaries ``n+1..n+a``),
    the encoding of any ``n`` distinct variables ``lits`` from a pool at ``top`` is
    ``t`` with ``i -> lits[i-1]`` and ``n+j -> top+j``, clause for clause, in order.
    Every registered encoding states it (tests/encodings/test_encodings_api.py checks it); an
    encoding that chose clauses by variable value would say ``positional=False`` and
    be written clause by clause.

    ``parsimonious`` says whether every allowed input assignment extends to exactly one assignment of the
    auxiliaries (then a model count needs no projection); ``propagation_complete`` and ``parsimonious`` are
    claims that the conformance gate (:mod:`.conformance`, ``check-encoding``) measures.

    Two optional statements speed up large files (the same tests check them against ``template``):
    ``width``, the most literals a clause has at any ``n`` (the output's size is then bounded without
    building a template), and ``array``, the template of a line of ``n`` parameterless inputs built by numpy,
    its clauses as the rows of one 2-D array (auxiliaries numbered as ``template`` numbers them).
    """

    name: str
    build: EncodeFn = field(repr=False)
    size: CountFn = field(repr=False)
    description: str
    reference: str
    propagation_complete: bool
    params: tuple[str, ...] = field(default=())
    positional: bool = True
    width: int | None = None
    array: ArrayFn | None = field(default=None, repr=False)
    parsimonious: bool | None = None  # one auxiliary extension per allowed input assignment (None: not stated)
    size_declared: bool = True  # ``size`` is a closed form (False: counts measured by building)
    builtin: bool = True  # shipped with the package (False: a plugin's, encodings.plugins)

    def __call__(self, lits: Sequence[int], pool: VarPool, **params: int | None) -> list[Clause]:
        return self.build(lits, pool, **self.accepted(params))

    def count(self, n: int, **params: int | None) -> tuple[int, int]:
        return self.size(n, **self.accepted(params))

    def template(self, n: int, **params: int | None) -> tuple[list[Clause], int]:
        """(the clauses over inputs ``1..n`` with auxiliaries from ``n + 1``, the auxiliary count)."""
        pool = VarPool(n)
        clauses = self(list(range(1, n + 1)), pool, **params)
        return clauses, pool.top - n

    def array_template(self, n: int, **params: int | None) -> tuple[np.ndarray, int] | None:
        """``template(n)`` as (2-D array of the clauses, auxiliary count) when ``array`` builds it, else None."""
        if self.array is None or self.accepted(params):
            return None
        return self.array(n), self.count(n)[1]

    @property
    def takes_group_size(self) -> bool:
        """Whether ``group_size`` is one of this encoding's parameters (commander, bimander)."""
        return "group_size" in self.params

    def accepted(self, params: Mapping[str, int | None]) -> dict[str, int]:
        """The subset of ``params`` this encoding takes (others belong to other encodings; None is unset)."""
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
