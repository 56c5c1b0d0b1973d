"""The one accept-a-model step of every enumeration loop.

:class:`Acceptor` decodes a model, checks it, records it and gives its blocking clauses;
the embedded loop (:mod:`.embedded_loop`), the external loop (:mod:`.external_loop`) and
the cube counter (:mod:`.cube_count`) all use it, so a model is judged the same way
whichever solver produced it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import KW_ONLY, dataclass, field
from operator import neg
from typing import TYPE_CHECKING

from cnfgen_queens.cnf.dimacs import Header
from cnfgen_queens.cnf.scan import Cnf, violated_clause
from cnfgen_queens.enumeration.records import EnumerationError, Found
from cnfgen_queens.model.board import Placement
from cnfgen_queens.model.decode import BoardReader, Clause, DecodeError, as_line, blocking_clause, blocking_clauses
from cnfgen_queens.model.symmetry import orbit

if TYPE_CHECKING:
    from cnfgen_queens.model.variants import Variant


def clause_check(num_vars: int, clauses: Iterable[Clause]) -> Cnf:
    """The clauses, held for :class:`Acceptor`'s ``every_clause`` check (``--check-all``)."""
    import numpy as np

    held = list(clauses)
    lits = np.fromiter((x for c in held for x in (*c, 0)), dtype=np.int32)
    return Cnf(Header(num_vars, len(held)), lits)


@dataclass(eq=False)
class Acceptor:
    """Accept a model: decode, check, record; :meth:`blocks` gives the clauses that exclude it.

    Nothing a solver says is taken on trust: the model must decode to a valid placement
    (N queens, none attacking, the variant's constraints), lie inside the cube of
    ``assumptions`` (cell variables), and be new: not a placement recorded before,
    nor with ``symmetric`` an image of one.  ``seen`` may be shared by several acceptors.
    ``weigh`` (the symmetry-broken count) gives a found placement's weight: its orbit's size if it
    is the one counted for its orbit, 0 if another image is (it is blocked, not counted).

    The formula is ours, so the board is checked against the queens constraints in O(N)
    (:class:`.BoardReader`: rows, columns, diagonals, the variant's cells); ``every_clause``
    (``--check-all``) also evaluates every clause of the formula on the model.
    """

    n: int
    solver: str
    _: KW_ONLY
    variant: Variant | None = None
    symmetric: bool = False
    weigh: Callable[[Placement], int] | None = None
    assumptions: tuple[int, ...] = ()
    seen: set[Placement] = field(default_factory=set)
    every_clause: Cnf | None = None

    def __post_init__(self) -> None:
        self.cube = [divmod(a - 1, self.n) for a in self.assumptions]
        self.reader = BoardReader(self.n, self.variant)
        self._last: tuple[Found | None, Clause] = (None, ())  # the last found board and its blocking clause

    def check(self, model: Sequence[int]) -> Found:
        """The model's placement and weight, if it passes every check (raises EnumerationError)."""
        try:
            queens, placement = self.reader.read(model)
        except DecodeError as e:
            raise EnumerationError(f"{self.solver} returned a model that is not a solution: {e}") from None
        if self.every_clause is not None:
            self._check_every_clause(model)
        for r, c in self.cube:
            if placement[r] != c:
                raise EnumerationError(
                    f"{self.solver} returned {as_line(placement)} outside the cube {self.assumptions}"
                )
        if placement in self.seen:
            raise EnumerationError(f"{self.solver} returned a blocked placement again: {as_line(placement)}")
        found = Found(placement, self.weight(placement))
        self._last = (found, tuple(map(neg, queens)))
        return found

    def _check_every_clause(self, model: Sequence[int]) -> None:
        assert self.every_clause is not None
        bad = violated_clause(self.every_clause, (v for v in model if v > 0))
        if bad is not None:
            raise EnumerationError(
                f"{self.solver} returned a model that falsifies clause {bad[0] + 1} of the "
                f"formula: {' '.join(map(str, bad[1]))} 0"
            )

    def weight(self, placement: Placement) -> int:
        """How many boards a found placement stands for: its orbit's size when symmetry is used, else 1."""
        if self.weigh is not None:
            return self.weigh(placement)
        return len(orbit(placement)) if self.symmetric else 1

    def record(self, found: Found) -> None:
        """Remember a placement (with ``symmetric``, its whole orbit) as found."""
        if self.symmetric:
            self.seen.update(orbit(found.placement))
        else:
            self.seen.add(found.placement)

    def __call__(self, model: Sequence[int]) -> Found:
        found = self.check(model)
        self.record(found)
        return found

    def blocks(self, found: Found) -> list[Clause]:
        """The blocking clauses of a found placement (of every image with ``symmetric``)."""
        if self.symmetric:
            return blocking_clauses(found.placement, True)
        if self._last[0] is found:
            return [self._last[1]]  # built from the queens when it was checked
        return [blocking_clause(found.placement)]
