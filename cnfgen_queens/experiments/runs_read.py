"""The runs of a results database as ``report`` reads them (:class:`Runs`): by row, each a :class:`.store.Row`
checked, matched against ``--where`` and escaped, or in one pass by kind of run (:meth:`Runs.tally`), where
the runs alike in every column the outputs read are checked, judged and routed once."""

from __future__ import annotations

import collections
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from .report import _conditions, _matches, shown_row
from .row import COLUMNS, MEASURED, row_of
from .runs_check import JSON_COLUMNS, check_runs, check_values, checked_rows, contradiction, json_refusal
from .store import Row, Store, StoreError
from .verdict import Verdict, verdict

KEY_COLUMNS = (
    "task",
    "family",
    "solver",
    "solver_args",
    "encoding",
    "group_size",
    "column_alo",
    "break_symmetry",
    "variant",
    "shuffle_seed",
    "n",
    "gbd_hash",
    "machine",
    "config_hash",
    "verdict",
    "status",
    "verified",
    "count",
    "time_limit",
)
# What a run's verdict (.verdict), its facts (.runs_check.contradiction), its line and instance of the table, its cell
# of the spread and its side of a comparison read of it, besides its time: whether that is known and above its limit,
# and (a row stored before the verdict column) its error.  Runs alike in these are judged and counted alike.
PER_RUN = frozenset({"run_key", "error", *MEASURED} - {"host"})  # a value a run (nearly): no key to group runs by


class Taker(Protocol):
    """What a pass over the runs feeds (the table, the spread, the comparison, ...): :meth:`route` is asked once for
    the first run of each kind (its :data:`KEY_COLUMNS` and :attr:`columns`, its verdict), and gives the function
    that takes the times of every run of that kind; :meth:`add` takes one run."""

    @property
    def columns(self) -> tuple[str, ...]: ...
    def add(self, row: Row) -> None: ...
    def route(self, row: Row, judged: Verdict) -> Callable[[list[float | None]], None]: ...


class Runs:
    """The runs of a results database as ``report`` reads them, from the file again on each pass over them, so
    that a million runs are never all held: the file checked (:func:`.runs_check.check_runs`), each row checked
    against the facts (:func:`.runs_check.checked_rows`), kept when it matches every ``--where`` condition
    (:func:`where`), its text escaped (:func:`shown_row`).  :meth:`tally` is the one pass of the table, the spread
    and the comparison: the same, in SQL and by kind of run, not by row."""

    def __init__(self, path: Path | str, conditions: Iterable[str] = (), *, ordered: bool = True) -> None:
        self.path, self.ordered = path, ordered  # ordered: as Store.rows orders them; else as stored (faster)
        self.tests = _conditions(conditions)
        self.checked = False  # the whole file checked once
        with Store(path, readonly=True):  # a results file, not another program's database
            pass

    def __iter__(self) -> Iterator[Row]:
        with Store(self.path, readonly=True) as store:
            if not self.checked:
                check_runs(store)  # every column read is there, of its type
                self.checked = True
            for r in checked_rows(store.each_row(ordered=self.ordered), self.path):
                if all(_matches(r, k, v) for k, v in self.tests):
                    yield shown_row(r)

    def tally(self, takers: Sequence[Taker], time: str = "wall") -> None:
        """Every run that matches ``--where`` given to each of ``takers``, in the order of the file, its ``time``
        (wall or cpu) the one its takers use.  The file's values are checked first, in one scan
        (:func:`.runs_check.check_values`); then SQLite hands over the columns of :data:`KEY_COLUMNS` (and those the
        takers and ``--where`` name) and the times; the runs alike in every one of them are a kind, which is
        checked (its JSON, its facts), judged, matched and routed once, at its first run (a million runs: a few
        thousand kinds), and each run adds its time to its kind's list.  A store refused is named as a pass over
        its rows names it (:meth:`__iter__`).  A column named that holds a value per run (:data:`PER_RUN`,
        ``--where wall=1``) makes it that pass over rows."""
        named = {c for taker in takers for c in taker.columns} | {k for k, _ in self.tests}
        if named & PER_RUN:
            for row in self:
                for taker in takers:
                    taker.add(row)
            return
        columns = (*KEY_COLUMNS, *sorted(named - {*KEY_COLUMNS}))
        with Store(self.path, readonly=True) as store:
            check_values(store)
            present = store.columns
            error = "error" if "verdict" not in present else "CASE WHEN verdict IS NULL THEN error END"
            select = [c if c in present else f"NULL AS {c}" for c in columns]  # a column added since: NULL
            select += [f"{error} AS error", "wall IS NULL", "wall > time_limit", "wall", "cpu"]
            keys, at = len(select) - 2, len(select) - (1 if time == "cpu" else 2)
            kinds: dict[tuple[Any, ...], Any] = {}
            found: list[tuple[list[float | None], list[Callable[[list[float | None]], None]]]] = []
            try:
                for values in store.db.execute(f"SELECT {', '.join(select)} FROM runs"):
                    times = kinds.get(key := values[:keys])
                    if times is None:
                        times = kinds[key] = self._kind(store, (*columns, "error"), values, takers, found)
                    times.append(values[at])
            except sqlite3.Error as e:
                raise StoreError(f"{self.path}: cannot read runs ({e})") from None
        self.checked = True
        for times, routes in found:
            for route in routes:
                route(times)

    def _kind(
        self, store: Store, names: tuple[str, ...], values: tuple[Any, ...], takers: Sequence[Taker], found: list[Any]
    ) -> Any:
        """The list of times of the runs of the kind of ``values`` (a run's columns ``names``, then the tests of
        :meth:`tally`'s query, wall and CPU time), the kind checked, judged, and routed to ``takers`` (``found``);
        a kind outside ``--where``: a list that keeps nothing."""
        wall, cpu = values[-2:]
        known = dict(zip(names, values, strict=False))
        if any(known[c] is not None and json_refusal(c, known[c]) for c in JSON_COLUMNS):
            raise self._refusal(store)
        row = row_of(tuple(known.get(c, wall if c == "wall" else cpu if c == "cpu" else None) for c in COLUMNS))
        if contradiction(row) is not None:
            raise self._refusal(store)
        if not all(_matches(row, k, v) for k, v in self.tests):
            return collections.deque(maxlen=0)
        row = shown_row(row)
        judged = verdict(row)
        times: list[float | None] = []
        found.append((times, [taker.route(row, judged) for taker in takers]))
        return times

    def _refusal(self, store: Store) -> StoreError:
        """The error a pass over the rows raises for this store (the first value refused, or run whose facts
        contradict it), found again the slow way: :meth:`tally` found there is one."""
        check_runs(store)
        for _ in checked_rows(store.each_row(ordered=False), self.path):
            pass
        return StoreError(
            f"{self.path}: a run holds what cnfgen-queens never writes: not a results file as cnfgen-queens writes it"
        )
