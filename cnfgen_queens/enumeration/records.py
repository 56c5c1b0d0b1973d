"""The records of the solution loops: what one solution is, how a loop stops, how a count ended.

One :class:`Count` for every engine (cubes or loop), with one :class:`.Status`: UNSAT means the
count is complete (the solver said UNSAT in every cube, or after the last blocking clause);
TIMEOUT, MEMOUT or ERROR mean it stopped, and ``total`` holds what was counted before.  ``checked``
says how a complete count was checked (:class:`.Checked`: ``published-count``, ``certified`` or
``unchecked``: the solver's UNSAT answers, taken on their word); a count refused by ``require_checked``
(``Count.refused``) is status ERROR with ``total`` the whole count.
"""

from __future__ import annotations

from dataclasses import dataclass

from cnfgen_queens.errors import option
from cnfgen_queens.model.board import Placement
from cnfgen_queens.solvers.outcome import Checked, Status


def refused() -> str:
    """How an answer ``require_checked`` refuses ends its error, in the caller's words (:func:`.errors.option`)."""
    return f"refused by {option('--require-checked')}"


WRONG = "a wrong count, built on the solver's UNSAT answers, which nothing checked"


class EnumerationError(RuntimeError):
    """The loop stopped before UNSAT (solver error, limit, bad model); found solutions are kept."""

    def __init__(self, message: str, status: Status = Status.ERROR) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Found:
    """One solution: the representative placement and the size of its orbit (1 unless symmetric)."""

    placement: Placement
    weight: int = 1


@dataclass(frozen=True, kw_only=True)
class GroupCount:
    """One group of cubes (``cube``: its fixed queens as literals): ``count`` weighs each canonical board
    by its orbit size; status UNSAT (exhausted), TIMEOUT or ERROR."""

    cube: tuple[int, ...]
    count: int
    fundamental: int
    solver_calls: int
    status: Status = Status.UNSAT
    error: str | None = None


@dataclass(frozen=True, kw_only=True)
class Count:
    """A whole count, by either engine.

    ``total`` solutions (all of them iff :attr:`complete`), ``fundamental`` orbits under the 8 symmetries
    (with ``symmetric``, else None); ``groups_done``/``groups_total`` for the cube engine (total None when
    the groups were not listed in advance); ``mismatches``: one line per disagreement with OEIS;
    ``limited``: the loop stopped at the number of solutions asked for.

    Examples:
        >>> import cnfgen_queens as cq
        >>> c = cq.count(cq.queens(7, torus=True))  # OEIS A007705
        >>> c.total, c.complete, c.engine, str(c.status), str(c.checked)
        (28, True, 'cubes', 'UNSAT', 'published-count')
    """

    total: int
    fundamental: int | None
    status: Status
    engine: str
    wall: float
    solver_calls: int
    groups_done: int | None = None
    groups_total: int | None = None
    error: str | None = None
    mismatches: tuple[str, ...] = ()
    limited: bool = False  # stopped at its limit of solutions (status UNKNOWN): not the total
    checked: Checked | None = None  # how a complete count was checked (None: not complete, nothing to check)
    refused: bool = False  # a whole count require_checked refused: nothing checked it, or it is wrong (ERROR)

    @property
    def complete(self) -> bool:
        """Every solution was counted: the solver said UNSAT at the end of every cube."""
        return self.status is Status.UNSAT

    @property
    def wrong(self) -> str | None:
        """Why a whole count is wrong (it disagrees with a published count: its ``mismatches``), or None; the
        CLI prints it beside ``count: K (wrong)``, the API makes it the count's error (status ERROR)."""
        if not self.mismatches:
            return None
        return "; ".join(self.mismatches) + f" ({WRONG})"
