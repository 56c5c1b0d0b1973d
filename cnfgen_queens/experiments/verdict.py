"""The verdict on a run, kept apart from the solver's answer (its :class:`~..solvers.outcome.Status`).

As BenchExec separates a tool's result from its category (correct, wrong, unknown),
a run here is *solved*, *wrong* or *unsolved*.  The worker judges a run's answer as
``solve`` and ``cq.solve`` do, with the one judgement of
:mod:`cnfgen_queens.solutions.known_answer` (:class:`Verdict`, ``judge_answer``; a
count by :attr:`.Count.wrong`, as ``count`` judges it), and :func:`judge` adds the
batch's own rule: an answer after the time limit does not count, as in the SAT
competition.  A wrong answer: a model that violates a clause or whose queens are no
board of the instance (the row keeps status SAT, ``verified`` false and the reason in
``error``), an UNSAT on a board with a positive published count (OEIS A000170, A007705
on the torus; with ``break_symmetry`` too), a count other than the published one
(A002562 for a ``break_symmetry`` formula of the plain board; :func:`.published_count`).
A DIMACS file of ``instances.files`` has no known answer: its SAT is solved when its model satisfies
every clause, wrong when not; its UNSAT is solved, and the ``checked`` column says ``unchecked`` unless
a DRAT proof was verified.

Rows stored before the ``verdict`` column are judged by their columns alone
(:func:`verdict`): N-queens is unsatisfiable exactly for N = 2, 3, and such a row
recorded a refuted model only in its error text.
"""

from __future__ import annotations

import json
from typing import Protocol

from cnfgen_queens.model.known_counts import published_count

from ..solutions.known_answer import NOT_A_SOLUTION, Verdict
from ..solvers.outcome import Status
from .file_instances import generated

__all__ = ["NOT_A_SOLUTION", "UNSAT_N", "Judged", "Verdict", "judge", "verdict"]

UNSAT_N = (2, 3)  # the only board sizes without a solution


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
    @property
    def family(self) -> str | None: ...


def verdict(row: Judged) -> Verdict:
    """The stored verdict of ``row``; rows stored before the ``verdict`` column are judged now."""
    if row.verdict is not None:
        return row.verdict
    # such rows recorded a refuted model only in the error text the worker wrote
    refuted = row.status is Status.SAT and (row.error or "").startswith(NOT_A_SOLUTION)
    return judge(row, answer=Verdict.WRONG if refuted else None)


def judge(row: Judged, *, answer: Verdict | None = None) -> Verdict:
    """The verdict on ``row`` (its ``verdict`` field ignored): ``answer``, the worker's judgement of the run's
    answer (:func:`.known_answer.judge_answer`, a count's by :attr:`.Count.wrong`), unsolved when it came after
    the time limit; without it (a row stored before the worker judged), by the row's columns."""
    if answer is None:
        answer = _by_columns(row)
    if answer is Verdict.WRONG:
        return answer
    if row.time_limit is not None and row.wall is not None and row.wall > row.time_limit:
        return Verdict.UNSOLVED
    return answer


def _by_columns(row: Judged) -> Verdict:
    """The verdict of a row stored before its worker judged it: its count against the published one, its
    answer against N (UNSAT for N = 2, 3 only; nothing known of a variant)."""
    if row.task == "count":
        known = known_count(row)
        if row.count is not None and known is not None and row.count != known:
            return Verdict.WRONG
        return Verdict.SOLVED if row.count is not None else Verdict.UNSOLVED
    answered = row.status in (Status.SAT, Status.UNSAT)
    if answered and row.variant is None and generated(row.family) and (row.status is Status.SAT) == (row.n in UNSAT_N):
        return Verdict.WRONG  # SAT for N = 2, 3; UNSAT for any other N
    solved = (row.status is Status.SAT and bool(row.verified)) or row.status is Status.UNSAT
    return Verdict.SOLVED if solved else Verdict.UNSOLVED


def known_count(row: Judged) -> int | None:
    """The published count for ``row``'s instance (:func:`.published_count`); else None."""

    v = json.loads(row.variant) if row.variant is not None else {}
    other = bool(v.get("place") or v.get("holes")) or v.get("random_place") is not None
    breaks = bool(v.get("break_symmetry"))  # one model per orbit: A002562 on the plain board
    published = published_count(row.n, torus=bool(v.get("torus")), other_variant=other, break_symmetry=breaks)
    return None if published is None else published[0]
