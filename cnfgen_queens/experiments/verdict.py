"""The verdict on a run, kept apart from the solver's answer (its :class:`~..solvers.outcome.Status`).

As BenchExec separates a tool's result from its category (correct, wrong, unknown),
a run here is *solved*, *wrong* or *unsolved*, judged in one place (:func:`judge`).
A run is solved when it ends SAT with a verified model or UNSAT (``task: solve``), or
with a complete count (``task: count``), within its time limit (an answer after the
limit does not count, as in the SAT competition).  An answer contradicting the known
facts is *wrong*: N-queens is unsatisfiable exactly for N = 2, 3; counts are OEIS
A000170; a model must satisfy every clause of the CNF it answers (an invalid model is a
wrong answer, as in the SAT competition; the row keeps status SAT, ``verified`` false and
the violated clause in ``error``); the queens of a model must not attack each other; for
variants, the model keeps the placed queens and avoids the blocked squares, and torus
counts are OEIS A007705.  A count of a ``break_symmetry`` formula (one model per orbit) is
judged against A002562 on the plain board, and against nothing on the torus
(:func:`.published_count` says which).
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Protocol

from cnfgen_queens.model.known_counts import published_count

from ..solvers.outcome import Status

UNSAT_N = (2, 3)  # the only board sizes without a solution
NOT_A_SOLUTION = "model is not an N-queens solution"  # how the worker words a refuted model


class Judged(Protocol):
    """What a verdict reads of a run: the fields of :class:`.store.Row` it needs (a protocol, so that
    this module does not import the store, which imports it)."""

    @property
    def verdict(self) -> Verdict | None: ...
    @property
    def status(self) -> Status: ...
    @property
    def task(self) -> str: ...
    @property
    def n(self) -> int: ...
    @property
    def count(self) -> int | None: ...
    @property
    def verified(self) -> bool | None: ...
    @property
    def error(self) -> str | None: ...
    @property
    def time_limit(self) -> float | None: ...
    @property
    def wall(self) -> float | None: ...
    @property
    def variant(self) -> str | None: ...


class Verdict(StrEnum):
    """The judgement of one run (stored as these words in the ``verdict`` column)."""

    SOLVED = "solved"
    WRONG = "wrong"
    UNSOLVED = "unsolved"


def verdict(row: Judged) -> Verdict:
    """The stored verdict of ``row``; rows stored before the ``verdict`` column are judged now."""
    if row.verdict is not None:
        return row.verdict
    # such rows recorded a refuted model only in the error text the worker wrote
    refuted = row.status is Status.SAT and (row.error or "").startswith(NOT_A_SOLUTION)
    return judge(row, refuted=refuted)


def judge(row: Judged, *, refuted: bool = False) -> Verdict:
    """The verdict on ``row`` (its ``verdict`` field ignored); ``refuted``: the worker found the model
    is no solution of the instance (a fact only the worker, holding the model, can establish)."""
    if _wrong(row, refuted):
        return Verdict.WRONG
    if row.time_limit is not None and row.wall is not None and row.wall > row.time_limit:
        return Verdict.UNSOLVED
    if row.task == "count":
        solved = row.count is not None
    else:
        solved = (row.status is Status.SAT and bool(row.verified)) or row.status is Status.UNSAT
    return Verdict.SOLVED if solved else Verdict.UNSOLVED


def _wrong(row: Judged, refuted: bool) -> bool:
    if row.task == "count":
        known = known_count(row)
        return row.count is not None and known is not None and row.count != known
    if row.status is Status.SAT and refuted:
        return True
    if row.variant is not None:  # completion and blocked instances may be UNSAT
        return False
    if row.status is Status.SAT:
        return row.n in UNSAT_N
    return row.status is Status.UNSAT and row.n not in UNSAT_N


def known_count(row: Judged) -> int | None:
    """The published count for ``row``'s instance (:func:`.published_count`); else None."""

    v = json.loads(row.variant) if row.variant is not None else {}
    other = bool(v.get("place") or v.get("holes")) or v.get("random_place") is not None
    breaks = bool(v.get("break_symmetry"))  # one model per orbit: A002562 on the plain board
    published = published_count(row.n, torus=bool(v.get("torus")), other_variant=other, break_symmetry=breaks)
    return None if published is None else published[0]
