"""A results file is checked before it is read: every column ``report`` reads is there and of its type.

A store comes from outside as much as a config does (copied, merged by hand, written by another program),
so :func:`check_runs` looks at the whole ``runs`` table once, in SQL, before any row is turned into a
:class:`.store.Row`: a renamed ``status`` column would otherwise read as NULL (every run an ERROR, or
the wrong answer), and text in a number column would fail deep inside a summary.
"""

from __future__ import annotations

import dataclasses
import sqlite3
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..bounds import json_value
from ..errors import printable
from ..model.formula import MAX_N
from ..solvers.outcome import Checked, Status
from .file_instances import QUEENS, generated
from .store import Row, Store, StoreError, column_types
from .verdict import UNSAT_N, Verdict, judge, known_count, verdict

_SQLITE_TYPES = {str: "'text'", int: "'integer'", float: "'integer', 'real'", bool: "'integer'", Status: "'text'",
                 Verdict: "'text'", Checked: "'text'"}  # fmt: skip
_KIND = {str: "text", int: "an integer", float: "a number", bool: "0 or 1"}


@dataclass(frozen=True)
class Domain:
    """The values a column may hold besides NULL: one of ``words``, or a number in ``low..high``."""

    words: tuple[str, ...] = ()
    low: float = 0
    high: float = sys.float_info.max  # a finite number (SQLite's REAL holds Inf)
    integer: bool = False
    file_zero: bool = False  # 0 too, in a run on a DIMACS file of instances.files (its family not queens)

    @property
    def what(self) -> str:
        if self.words:
            return f"one of {', '.join(self.words)}"
        kind = "an integer" if self.integer else "a finite number"
        return f"{kind} in {self.low:g}..{self.high:g}" if self.high < 2**62 else f"{kind} >= {self.low:g}"

    def outside(self, column: str, columns: set[str]) -> str:
        """The SQL test true for a value of ``column`` outside the domain (NULL: false), in a table of ``columns``."""
        if self.words:
            return f"{column} NOT IN ({', '.join(repr(w) for w in self.words)})"
        test = f"NOT ({column} BETWEEN {self.low!r} AND {self.high!r})"
        if self.file_zero and "family" in columns:
            test += f" AND NOT ({column} = 0 AND family IS NOT NULL AND family != '{QUEENS}')"
        return test

    def holds(self, value: object, family: str | None = None) -> bool:
        """Whether ``value`` is in the domain, in a run of ``family``."""
        if value is None or (self.file_zero and value == 0 and not generated(family)):
            return True
        if self.words:
            return value in self.words
        return isinstance(value, int | float) and self.low <= value <= self.high  # NaN: False


_TIME = Domain()  # seconds
_COUNT = Domain(integer=True, high=2**63 - 1)
LEGACY_STATUSES = ("USAGE",)  # written once (a count the engine refused), read as ERROR
DOMAINS = {
    "task": Domain(words=("solve", "count")),
    "status": Domain(words=(*(s.value for s in Status), *LEGACY_STATUSES)),
    "verdict": Domain(words=tuple(v.value for v in Verdict)),
    "checked": Domain(words=tuple(c.value for c in Checked)),
    "n": Domain(integer=True, low=1, high=MAX_N, file_zero=True),
    "group_size": Domain(integer=True, low=1, high=MAX_N),
    "column_alo": Domain(integer=True, high=1),
    "break_symmetry": Domain(integer=True, high=1),
    "verified": Domain(integer=True, high=1),
    **dict.fromkeys(("shuffle_seed", "repeat", "variables", "clauses", "count", "fundamental"), _COUNT),
    **dict.fromkeys(("memory_limit", "output_limit"), _COUNT),
    **dict.fromkeys(("time_limit", "wall", "cpu", "peak_memory_mb", "check_time", "total_wall", "load_avg"), _TIME),
}


def check_runs(store: Store) -> None:
    """Raise StoreError, naming the column, when the runs table lacks a column of schema version 1 (a field of
    :class:`.Row` without a default; later ones may be missing from an older file), when a column holds
    a value of another type than its declared one (text in a number column, NULL in a NOT NULL one) or outside
    its domain (:data:`DOMAINS`), or when a JSON column holds other than its shape (:func:`json_refusal`).  The
    whole file is looked at once, in one scan (:func:`refused`); the queries that name the column and the run
    are run only when that scan found one."""
    check_values(store)
    _check_json(store)


def check_values(store: Store) -> None:
    """:func:`check_runs` but the JSON columns' shapes: the columns, then each row's values in one scan."""
    check_columns(store)
    try:  # a test in WHERE is a chain of jumps: half the time of the same test as a value of each row
        found = store.db.execute(f"SELECT 1 FROM runs WHERE {refused(store.columns)} LIMIT 1").fetchone()
    except sqlite3.Error as e:
        raise StoreError(f"{store.path}: cannot read runs ({e})") from None
    if found is not None:
        refuse_values(store)


def check_columns(store: Store) -> None:
    """StoreError when the runs table lacks a column of schema version 1 (see :func:`check_runs`)."""
    fields = dataclasses.fields(Row)
    missing = [f.name for f in fields if f.default is dataclasses.MISSING and f.name not in store.columns]
    if missing:
        more = f" (nor {', '.join(missing[1:])})" if missing[1:] else ""
        raise StoreError(f"{store.path}: the runs table has no column {missing[0]}{more}: not a results file as "
                         "cnfgen-queens writes it")  # fmt: skip


def refused(columns: set[str]) -> str:
    """The SQL test true for a row holding a value of another type than its column's, or outside the column's
    domain (NULL in a NOT NULL column too): what :func:`check_runs` refuses in a row, in one expression.

    It compares the value as stored (``+name``: no affinity) instead of asking its type where a comparison tells
    it (SQLite orders NULL, then numbers, then text, then blobs): a word of a domain is text, a value in a range
    of numbers is a number; ``typeof()`` is asked only whether an integer column holds a real (3.0 and 3 compare
    equal).  A million runs: 1 s, against 4 s for a ``typeof(name) NOT IN (...)`` of each column."""
    tests = []
    for name, (base, nullable) in column_types().items():
        if name not in columns:
            continue
        value, domain = f"+{name}", DOMAINS.get(name)
        if domain is not None:
            test = domain.outside(value, columns)  # a value of another storage class is outside too
        elif base in (int, bool):
            test = f"{name} IS NOT NULL AND typeof({name}) != 'integer'"
        elif base is float:
            test = f"{value} >= ''"  # text or a blob
        else:
            test = f"NOT ({value} >= '' AND {value} < x'')"  # not text (NULL: NULL, not true)
        if base in (int, bool) and domain is not None:
            test = f"typeof({name}) = 'real' OR {test}"
        if not nullable:
            test = f"{name} IS NULL OR {test}"
        tests.append(f"({test})")
    return " OR ".join(tests)


def refuse_values(store: Store) -> None:
    """StoreError naming the first column and run that holds a value of another type than its column's (of the
    whole file), else the first outside its column's domain; returns when there is none."""
    path, columns = store.path, store.columns
    types = column_types()
    tests = {}
    for name, (base, nullable) in types.items():
        if name in columns:
            allowed = _SQLITE_TYPES[base] + (", 'null'" if nullable else "")
            tests[name] = f"typeof({name}) NOT IN ({allowed})"
    where = " OR ".join(tests.values())
    try:
        bad = store.db.execute(f"SELECT quote(run_key), {', '.join(tests.values())} FROM runs WHERE {where} LIMIT 1")
        found = bad.fetchone()
        if found is None:
            _check_domains(store)
            return
        name = next(n for n, wrong in zip(tests, found[1:], strict=True) if wrong)
        value = store.db.execute(f"SELECT quote({name}) FROM runs WHERE quote(run_key) = ?", (found[0],)).fetchone()
    except sqlite3.Error as e:
        raise StoreError(f"{path}: cannot read runs ({e})") from None
    base, nullable = types[name]
    shown = str(value[0]) if len(str(value[0])) <= 40 else str(value[0])[:37] + "..."
    raise StoreError(f"{path}: column {name} holds {shown}, not {_KIND.get(base, 'text')}"
                     f"{' or NULL' if nullable else ''} (run {str(found[0])[:20]}): not a results file as "
                     "cnfgen-queens writes it")  # fmt: skip


def _check_domains(store: Store) -> None:
    """Every value of the right type is one its column can hold (:data:`DOMAINS`): a status word the tool
    writes, a time finite and >= 0, N within gen-queens' cap, ..., else StoreError naming the column and run."""
    present = {name: domain for name, domain in DOMAINS.items() if name in store.columns}
    tests = {name: domain.outside(name, store.columns) for name, domain in present.items()}
    try:
        found = store.db.execute(f"SELECT quote(run_key), {', '.join(tests.values())} FROM runs WHERE "
                                 f"{' OR '.join(tests.values())} LIMIT 1").fetchone()  # fmt: skip
        if found is None:
            return
        name = next(n for n, wrong in zip(tests, found[1:], strict=True) if wrong)
        (value,) = store.db.execute(f"SELECT quote({name}) FROM runs WHERE quote(run_key) = ?", (found[0],)).fetchone()
    except sqlite3.Error as e:
        raise StoreError(f"{store.path}: cannot read runs ({e})") from None
    raise StoreError(f"{store.path}: column {name} holds {_shown(str(value))}, not {present[name].what} (run "
                     f"{_shown(str(found[0]), 20)}): not a results file as cnfgen-queens writes it")  # fmt: skip


def _shown(text: str, width: int = 40) -> str:
    return printable(text if len(text) <= width else text[: width - 3] + "...")


_SHAPES = {"solver_args": (list, str, "a JSON list of strings"), "variant": (dict, None, "a JSON object or NULL")}
JSON_COLUMNS = tuple(_SHAPES)


def json_refusal(name: str, text: str) -> str | None:
    """What is wrong with ``text``, a value of the JSON column ``name`` (``solver_args``: a list of strings;
    ``variant``: an object), as the sentence's middle; None: it holds that."""
    kind, items, what = _SHAPES[name]
    try:
        value = json_value(text)
    except ValueError:
        value = None
    if not isinstance(value, kind) or (items is not None and not all(isinstance(v, items) for v in value)):
        shown = text if len(text) <= 40 else text[:37] + "..."
        return f"column {name} holds {shown!r}, not {what}"
    return None


def _check_json(store: Store) -> None:
    """The JSON columns (:func:`json_refusal`) hold their shape: a report reads them for labels and verdicts.  Their
    distinct values only: a few in a store of any size."""
    for name in JSON_COLUMNS:
        if name not in store.columns:  # variant: added since schema 1, missing from an older file
            continue
        for (text,) in store.db.execute(f"SELECT DISTINCT {name} FROM runs WHERE {name} IS NOT NULL"):
            if (wrong := json_refusal(name, text)) is not None:
                raise StoreError(f"{store.path}: {wrong}: not a results file as cnfgen-queens writes it")


def contradiction(row: Row) -> tuple[str, str] | None:
    """(column, what it holds and what that contradicts) when ``row`` counts as solved but :func:`.judge` does not
    judge its own fields so (a count not the published one, an UNSAT answer on a board that has solutions, a
    time above its limit, ...), or it has no time; None: nothing contradicts it (a run judged wrong or unsolved
    is left as it is: a refuted model is the worker's to know)."""
    if verdict(row) is not Verdict.SOLVED:
        return None
    if row.wall is None:
        return "wall", "NULL, but the run is solved (a solved run has its time)"
    judged = judge(row)
    if judged is Verdict.SOLVED:
        return None
    if row.time_limit is not None and row.wall > row.time_limit:
        return "wall", f"{row.wall:g}, above the run's time limit {row.time_limit:g} s, but the run is solved"
    if judged is Verdict.WRONG and row.task == "count":
        return "count", f"{row.count}, but N = {row.n} has {known_count(row)}"
    if judged is Verdict.WRONG:
        has = "none" if row.n in UNSAT_N else "solutions"
        return "status", f"{row.status}, but N = {row.n} has {has} (solved as {row.status})"
    return "verdict", f"solved, but the run is {judged} (status {row.status}, verified {row.verified})"


def checked_rows(rows: Iterable[Row], source: Path | str, line: int | None = None) -> Iterator[Row]:
    """``rows`` as they come, StoreError naming the run (or, with ``line``, the runs CSV's line, the first at
    ``line``) and the column at the first one that contradicts what the tool knows (:func:`contradiction`)."""
    for i, row in enumerate(rows):
        found = contradiction(row)
        if found is not None:
            where = f"line {line + i}" if line is not None else f"run {_shown(repr(row.run_key), 20)}"
            raise StoreError(
                f"{source}: column {found[0]} holds {found[1]} ({where}): not a results file as cnfgen-queens writes it"
            )
        yield row
