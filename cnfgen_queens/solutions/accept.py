"""The one accept-a-model step of every enumeration loop.

:class:`Acceptor` decodes a model, checks it, records it and gives its blocking clauses;
the embedded loop (:mod:`.embedded_loop`), the external loop (:mod:`.external_loop`) and
the cube counter (:mod:`.cube_count`) all use it, so a model is judged the same way
whichever solver produced it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from cnfgen_queens.model.board import Placement
from cnfgen_queens.model.decode import Clause, DecodeError, as_line, blocking_clause, blocking_clauses, model_placement
from cnfgen_queens.model.symmetry import orbit
from cnfgen_queens.solutions.records import EnumerationError, Found

if TYPE_CHECKING:
    from cnfgen_queens.model.variants import Variant


class Acceptor:
    """Accept a model: decode, check, record; :meth:`blocks` gives the clauses that exclude it.

    Nothing a solver says is taken on trust: the model must decode to a valid placement
    (N queens, none attacking, the variant's constraints), lie inside the cube of
    ``assumptions`` (cell variables), and be new: not a placement recorded before,
    nor with ``symmetric`` an image of one.  ``seen`` may be shared by several acceptors.
    ``weigh`` (the symmetry-broken count) gives a found placement's weight: its orbit's size if it
    is the one counted for its orbit, 0 if another image is (it is blocked, not counted).
    """

    def __init__(
        self,
        n: int,
        solver: str,
        *,
        variant: Variant | None = None,
        symmetric: bool = False,
        weigh: Callable[[Placement], int] | None = None,
        assumptions: tuple[int, ...] = (),
        seen: set[Placement] | None = None,
    ) -> None:
        self.n, self.solver, self.variant = n, solver, variant
        self.symmetric, self.weigh, self.assumptions = symmetric, weigh, assumptions
        self.cube = [divmod(a - 1, n) for a in assumptions]
        self.seen: set[Placement] = set() if seen is None else seen

    def check(self, model: Sequence[int]) -> Found:
        """The model's placement and weight, if it passes every check (raises EnumerationError)."""
        try:
            placement = model_placement(self.n, model, self.variant)
        except DecodeError as e:
            raise EnumerationError(f"{self.solver} returned a model that is not a solution: {e}") from None
        if any(placement[r] != c for r, c in self.cube):
            raise EnumerationError(f"{self.solver} returned {as_line(placement)} outside the cube {self.assumptions}")
        if placement in self.seen:
            raise EnumerationError(f"{self.solver} returned a blocked placement again: {as_line(placement)}")
        return Found(placement, self.weight(placement))

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
        return [blocking_clause(found.placement)]
