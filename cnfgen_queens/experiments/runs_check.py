"""A results file is checked before it is read: every column ``report`` reads is there and of its type.

A store comes from outside as much as a config does (copied, merged by hand, written by another program),
so :func:`check_runs` looks at the whole ``runs`` table once, in SQL, before any row is turned into a
:class:`.store.Row`: a renamed ``status`` column would otherwise read as NULL (every run an ERROR, or
the wrong answer), and text in a number column would fail deep inside a summary.
"""

from __future__ import annotations

import dataclasses
import sqlite3

from ..bounds import json_value
from ..solvers.outcome import Checked, Status
from .store import Row, Store, StoreError, column_types
from .verdict import Verdict

_SQLITE_TYPES = {str: "'text'", int: "'integer'", float: "'integer', 'real'", bool: "'integer'", Status: "'text'",
                 Verdict: "'text'", Checked: "'text'"}  # fmt: skip
_KIND = {str: "text", int: "an integer", float: "a number", bool: "0 or 1"}


def check_runs(store: Store) -> None:
    """Raise StoreError, naming the column, when the runs table lacks a column of schema version 1 (a field of
    :class:`.Row` without a default; later ones may be missing from an older file), or when a column holds
    a value of another type than its declared one (text in a number column, NULL in a NOT NULL one)."""
    path, columns = store.path, store.columns
    fields = dataclasses.fields(Row)
    missing = [f.name for f in fields if f.default is dataclasses.MISSING and f.name not in columns]
    if missing:
        more = f" (nor {', '.join(missing[1:])})" if missing[1:] else ""
        raise StoreError(f"{path}: the runs table has no column {missing[0]}{more}: not a results file as "
                         "cnfgen-queens writes it")  # fmt: skip
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
            _check_json(store)
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


def _check_json(store: Store) -> None:
    """The JSON columns (``solver_args``: a list of strings; ``variant``: an object or NULL) hold that: a report
    reads them for labels and verdicts.  Their distinct values only: a few in a store of any size."""
    shapes = {"solver_args": (list, str, "a JSON list of strings"), "variant": (dict, None, "a JSON object or NULL")}
    for name, (kind, items, what) in shapes.items():
        for (text,) in store.db.execute(f"SELECT DISTINCT {name} FROM runs WHERE {name} IS NOT NULL"):
            try:
                value = json_value(text)
            except ValueError:
                value = None
            if not isinstance(value, kind) or (items is not None and not all(isinstance(v, items) for v in value)):
                shown = text if len(text) <= 40 else text[:37] + "..."
                raise StoreError(f"{store.path}: column {name} holds {shown!r}, not {what}: not a results file as "
                                 "cnfgen-queens writes it")  # fmt: skip
