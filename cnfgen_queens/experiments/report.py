"""The report's outputs: the table (:mod:`.summary`) as Markdown, CSV or JSON, every run as CSV,
``--where`` filters, and rows read back from a results database or a runs CSV.

Whether a run is solved, wrong (reported, never solved) or unsolved is its verdict (:mod:`.verdict`),
not its status.  Times are printed to three significant figures (at most millisecond resolution);
CSV and JSON keep the values (rounded to microseconds).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import statistics
from collections.abc import Iterable
from dataclasses import asdict
from operator import attrgetter
from pathlib import Path
from typing import Any

from ..bounds import read_text
from ..errors import UsageError, printable
from .row import COLUMN, COLUMNS, RUN_COLUMNS, SHOWN_TEXT
from .runs_check import DOMAINS, check_runs, checked_rows
from .store import Row, Store, StoreError
from .summary import BY_KEYS, FIGURES, TIMES, VBS, GroupStats, Summary, missing_note, par2, penalized, summarize
from .verdict import Verdict, verdict

__all__ = ["BY_KEYS", "TIMES", "VBS", "GroupStats", "Summary", "missing_note", "par2", "penalized", "summarize"]

MAX_RUNS_CSV = 1 << 30  # bytes of a runs CSV read at the most (1 GiB: about two million runs)
TRUE, FALSE = ("true", "1", "yes"), ("false", "0", "no")


def is_wrong(row: Row) -> bool:
    return verdict(row) is Verdict.WRONG


def is_solved(row: Row) -> bool:
    return verdict(row) is Verdict.SOLVED


_SHOWN = attrgetter(*SHOWN_TEXT)


def shown_row(row: Row) -> Row:
    """``row`` with the text of :data:`SHOWN_TEXT` escaped (:func:`~cnfgen_queens.errors.printable`), so that a
    name holding a newline or a tab (a store is a file from outside) is one cell of every table, note and
    page; a row needing none is the same object."""
    if "".join(map(str, _SHOWN(row))).isprintable():  # the common case, without a step per column
        return row
    changes: dict[str, Any] = {
        n: printable(v) for n in SHOWN_TEXT if (v := getattr(row, n)) is not None and not v.isprintable()
    }
    return dataclasses.replace(row, **changes)


def shown_rows(rows: Iterable[Row]) -> list[Row]:
    """``rows``, each :func:`shown_row`."""
    return [shown_row(r) for r in rows]


def _conditions(conditions: Iterable[str]) -> list[tuple[str, str]]:
    """``FIELD=VALUE`` conditions as (field, value as the table prints it, lower case); a field that is not a
    column is a usage error."""
    tests: list[tuple[str, str]] = []
    for cond in conditions:
        key, eq, value = cond.partition("=")
        if not eq or key not in COLUMN:
            columns = ", ".join(COLUMNS)
            raise UsageError(f"--where {cond!r}: expected FIELD=VALUE with FIELD one of {columns}")
        tests.append((key, value.strip().lower()))
    return tests


def where(rows: Iterable[Row], conditions: Iterable[str]) -> list[Row]:
    """The rows whose fields match every ``FIELD=VALUE`` as the table prints them (case-insensitive):
    ``n=1000``, ``column_alo=true`` (or True, 1, yes), ``solver=kissat`` or ``solver=kissat --sat`` (the
    table's label, with the arguments), ``time_limit=60``; a field that is not a column is a usage error."""
    tests = _conditions(conditions)
    return [r for r in rows if all(_matches(r, k, v) for k, v in tests)]


def _matches(row: Row, key: str, want: str) -> bool:
    value = getattr(row, key)
    if key == "solver":
        return want in (row.solver.lower(), row.solver_label.lower())
    if value is None:
        return want in ("", "none")
    if isinstance(value, bool):
        return want in (TRUE if value else FALSE)
    if isinstance(value, int | float):
        try:
            return float(want) == value
        except ValueError:
            return False
    return str(value).lower() == want


def seconds(value: float | None) -> str:
    """Seconds to three significant figures, at most three decimals (0.00412 -> 0.004, 12.345 -> 12.3)."""
    if value is None:
        return ""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    decimals = min(3, max(0, 2 - math.floor(math.log10(abs(value)))))
    return f"{value:.{decimals}f}"


def _text(value: Any) -> str:
    if value is None:
        return ""
    return str(value).lower() if isinstance(value, bool) else str(value)


def columns(stats: list[GroupStats], time: str = "wall") -> tuple[list[str], list[list[str]], int]:
    """(headings, the lines' cells, how many leading columns are text): the table that Markdown and the
    HTML overview show (a task column when there are several tasks, ``missing`` when any line lacks runs)."""
    tasks = len({s.task for s in stats}) > 1
    keys = [k for k, _ in stats[0].keys] if stats else []
    missing = any(s.missing for s in stats)
    unit = "(CPU s)" if time == "cpu" else "(s)"
    text = ["task"] * tasks + ["N" if k == "n" else k for k in keys] + ["solver", "encoding"]
    figures = [f for f in FIGURES if f.name != "missing" or missing]  # missing: where any line lacks runs
    numbers = [f.heading.format(unit=unit) for f in figures]
    cells = []
    for s in stats:
        values = [_text(v) for _, v in s.keys]
        shown = [seconds(getattr(s, f.name)) if f.time else _text(getattr(s, f.name)) for f in figures]
        cells.append([*[s.task] * tasks, *values, s.solver, s.encoding, *shown])
    return text + numbers, cells, len(text)


def cell(text: str) -> str:
    """``text`` as one cell of a Markdown table: one line, a ``|`` in it escaped."""
    return printable(text).replace("|", "\\|")


def markdown(stats: list[GroupStats], time: str = "wall") -> str:
    """The table in GitHub Markdown (see :func:`columns`)."""
    head, cells, text = columns(stats, time)
    cells = [[cell(c) for c in line] for line in cells]
    lines = [
        "| " + " | ".join(head) + " |",
        "|" + "|".join("---" if i < text else "--:" for i in range(len(head))) + "|",
    ]
    lines += ["| " + " | ".join(line) + " |" for line in cells]
    return "\n".join(lines) + "\n"


def _rounded(d: dict[str, object]) -> dict[str, object]:
    return {k: round(v, 6) if isinstance(v, float) else v for k, v in d.items()}


def _flat(s: GroupStats) -> dict[str, object]:
    d = asdict(s)
    del d["keys"]
    return _rounded({**d, **dict(s.keys)})


def to_csv(stats: list[GroupStats]) -> str:
    buf = io.StringIO()
    keys = [k for k, _ in stats[0].keys] if stats else []
    names = [f for f in GroupStats.__dataclass_fields__ if f != "keys"] + keys
    writer = csv.DictWriter(buf, fieldnames=names, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for s in stats:
        writer.writerow(_flat(s))
    return buf.getvalue()


def runs_csv(rows: list[Row]) -> str:
    """Every run as CSV (all columns), enough to redraw the plots without the database."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(COLUMNS), lineterminator="\n")
    writer.writeheader()
    for r in rows:  # one line a run, whatever a text holds (an error, a name)
        writer.writerow({k: printable(v) if isinstance(v, str) else v for k, v in _rounded(r.as_dict()).items()})
    return buf.getvalue()


def to_json(stats: list[GroupStats], rows: list[Row], time: str = "wall") -> str:
    limits = sorted({r.time_limit for r in rows if r.time_limit is not None})
    doc = {
        "par2": f"mean over the table's instances of a line's mean score over its runs there: {time} time if "
        "solved, else 2 x time limit (seconds); an instance a line has no run on is missing and counts as unsolved",
        "time_limits": limits,
        "config_hashes": sorted({r.config_hash for r in rows}),
        "groups": [_flat(s) for s in stats],
    }
    return json.dumps(doc, indent=2) + "\n"


def medians_by_n(rows: Iterable[Row]) -> dict[tuple[str, str], dict[int, float | None]]:
    """(solver, encoding) -> N -> median wall time of that N's runs (None when any was unsolved)."""
    cells: dict[tuple[str, str], dict[int, list[Row]]] = {}
    for r in rows:
        cells.setdefault((r.solver_label, r.encoding), {}).setdefault(r.n, []).append(r)
    out: dict[tuple[str, str], dict[int, float | None]] = {}
    for key, by_n in cells.items():
        out[key] = {
            n: statistics.median(r.wall for r in group if r.wall is not None)
            if all(is_solved(r) and r.wall is not None for r in group)
            else None
            for n, group in sorted(by_n.items())
        }
    return out


def rows_from_runs_csv(text: str) -> list[Row]:
    """Rows back from :func:`runs_csv` (so plots and tables can be redrawn without the database)."""

    reader = csv.DictReader(io.StringIO(text))
    names = list(reader.fieldnames or ())
    found = [c for c in RUN_COLUMNS if c.name in names]
    # columns added later may be missing from an older CSV, in order; nothing else may
    if names != [c.name for c in RUN_COLUMNS if not c.added or c.name in names]:
        raise UsageError("not a runs CSV of `cnfgen-queens report --runs-csv` (other columns)")
    out = []
    for line, raw in enumerate(reader, start=2):
        values: dict[str, Any] = {}
        for c in found:
            text_value, base = raw[c.name], c.type
            if text_value == "" and (base is not str or c.nullable):
                values[c.name] = None
            elif base is bool:
                if text_value not in ("True", "False"):
                    raise UsageError(f"line {line}: {c.name}: not True/False: {text_value!r}")
                values[c.name] = text_value == "True"
            else:
                try:
                    values[c.name] = base(text_value)
                except ValueError:
                    raise UsageError(f"line {line}: {c.name}: not a {base.__name__}: {text_value!r}") from None
        for name, domain in DOMAINS.items():  # as a store's values are checked (n: by the run's family)
            if name in values and not domain.holds(values[name], values.get("family")):
                raise UsageError(f"line {line}: column {name} holds {raw[name]}, not {domain.what}")
        out.append(Row(**values))
    try:
        return list(checked_rows(out, "runs CSV", line=2))
    except StoreError as e:
        raise UsageError(str(e).removeprefix("runs CSV: ")) from None


def load_rows(path: Path | str) -> list[Row]:
    """The rows of a results database, or of a runs CSV (``report --runs-csv``; told apart by the
    extension); UsageError naming the file when it is neither."""
    name = str(path)
    if name.lower().endswith(".csv"):
        try:
            return rows_from_runs_csv(read_text(path, MAX_RUNS_CSV, "runs CSV"))
        except OSError as e:
            raise UsageError(f"cannot read {name}: {e.strerror or e}") from None
        except (ValueError, UnicodeDecodeError) as e:  # UsageError and TooLarge are ValueErrors
            raise UsageError(str(e) if str(e).startswith(name) else f"{name}: {e}") from None
    with Store(path, readonly=True) as store:
        check_runs(store)  # every column read is there, of its type
        return list(checked_rows(store.rows(), path))  # each row as the facts allow
