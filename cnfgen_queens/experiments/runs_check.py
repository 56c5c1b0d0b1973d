"""A results file is checked before it is read: every column ``report`` reads is there and of its type.

A store comes from outside as much as a config does (copied, merged by hand, written by another program),
so :func:`check_runs` looks at the whole ``runs`` table once, in SQL, before any row is turned into a
:class:`.store.Row`: a renamed ``status`` column would otherwise read as NULL (every run an ERROR, or
the wrong answer), and text in a number column would fail deep inside a summary.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..bounds import json_value
from ..errors import printable
from .row import COLUMN, RUN_COLUMNS, column_types
from .store import Row, Store, StoreError
from .verdict import UNSAT_N, Verdict, judge, known_count, verdict

_SQLITE_TYPES = {"TEXT": "'text'", "INTEGER": "'integer'", "REAL": "'integer', 'real'"}  # typeof() of each SQL type
_KIND = {str: "text", int: "an integer", float: "a number", bool: "0 or 1"}


DOMAINS = {c.name: c.domain for c in RUN_COLUMNS if c.domain is not None}  # the values a column may hold


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
    missing = [c.name for c in RUN_COLUMNS if not c.added and c.name not in store.columns]
    if missing:
        more = f" (nor {', '.join(missing[1:])})" if missing[1:] else ""
        raise StoreError(
            f"{store.path}: the runs table has no column {missing[0]}{more}: not a results file as "
            "cnfgen-queens writes it"
        )


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
    tests = {}
    for c in RUN_COLUMNS:
        if c.name in columns:
            allowed = _SQLITE_TYPES[c.sql] + (", 'null'" if c.nullable else "")
            tests[c.name] = f"typeof({c.name}) NOT IN ({allowed})"
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
    base, nullable = COLUMN[name].type, COLUMN[name].nullable
    shown = str(value[0]) if len(str(value[0])) <= 40 else str(value[0])[:37] + "..."
    raise StoreError(
        f"{path}: column {name} holds {shown}, not {_KIND.get(base, 'text')}"
        f"{' or NULL' if nullable else ''} (run {str(found[0])[:20]}): not a results file as "
        "cnfgen-queens writes it"
    )


def _check_domains(store: Store) -> None:
    """Every value of the right type is one its column can hold (:data:`DOMAINS`): a status word the tool
    writes, a time finite and >= 0, N within gen-queens' cap, ..., else StoreError naming the column and run."""
    present = {name: domain for name, domain in DOMAINS.items() if name in store.columns}
    tests = {name: domain.outside(name, store.columns) for name, domain in present.items()}
    try:
        found = store.db.execute(
            f"SELECT quote(run_key), {', '.join(tests.values())} FROM runs WHERE {' OR '.join(tests.values())} LIMIT 1"
        ).fetchone()
        if found is None:
            return
        name = next(n for n, wrong in zip(tests, found[1:], strict=True) if wrong)
        (value,) = store.db.execute(f"SELECT quote({name}) FROM runs WHERE quote(run_key) = ?", (found[0],)).fetchone()
    except sqlite3.Error as e:
        raise StoreError(f"{store.path}: cannot read runs ({e})") from None
    raise StoreError(
        f"{store.path}: column {name} holds {_shown(str(value))}, not {present[name].what} (run "
        f"{_shown(str(found[0]), 20)}): not a results file as cnfgen-queens writes it"
    )


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
