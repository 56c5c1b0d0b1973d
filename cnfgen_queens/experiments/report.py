"""Summaries of a results database: solved counts, PAR-2 and median times per (solver, encoding).

PAR-2 is the SAT Competition's penalized average runtime: a solved run scores its
wall time, an unsolved one twice the time limit (SAT Competition 2017 onwards,
https://satcompetition.github.io/).  ``time="cpu"`` scores CPU time instead (what a
shared, loaded machine measures more faithfully); ``by`` splits the groups further by
board size and/or the redundant column clauses.  Whether a run is solved, wrong (reported,
never solved) or unsolved is its verdict (:mod:`.verdict`), not its status.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import statistics
import typing
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..bounds import read_text
from ..errors import UsageError
from .store import Row, Store
from .verdict import Verdict, verdict


@dataclass(frozen=True)
class GroupStats:
    """One line of the report table."""

    task: str
    solver: str
    encoding: str
    runs: int
    solved: int
    wrong: int
    par2: float | None  # mean over runs, seconds; None when an unsolved run has no time limit
    median: float | None  # median wall time of the solved runs, seconds
    largest_n: int | None  # the largest N with a solved run
    n: int | None = None  # with by=("n", ...): the board size of the group
    column_alo: bool | None = None  # with by=(..., "column_alo"): with the redundant column clauses or not


BY_KEYS = ("n", "column_alo")
MAX_RUNS_CSV = 1 << 30  # bytes of a runs CSV read at the most (1 GiB: about two million runs)
TIMES = ("wall", "cpu")


def _seconds(row: Row, time: str) -> float | None:
    return row.cpu if time == "cpu" else row.wall


def is_wrong(row: Row) -> bool:
    return verdict(row) is Verdict.WRONG


def is_solved(row: Row) -> bool:
    return verdict(row) is Verdict.SOLVED


def penalized(row: Row, time: str = "wall") -> float | None:
    """The PAR-2 score of one run (its wall or CPU seconds if solved, else twice the time limit)."""
    seconds = _seconds(row, time)
    if is_solved(row) and seconds is not None:
        return seconds
    return None if row.time_limit is None else 2 * row.time_limit


def par2(rows: Iterable[Row], time: str = "wall") -> float | None:
    scores = [penalized(r, time) for r in rows]
    if not scores or any(s is None for s in scores):
        return None
    return sum(s for s in scores if s is not None) / len(scores)


def summarize(rows: Iterable[Row], by: Iterable[str] = (), time: str = "wall") -> list[GroupStats]:
    """One :class:`GroupStats` per (task, solver with arguments, encoding, and the ``by`` keys: ``n``,
    ``column_alo``), best PAR-2 first within each task and ``by`` value; times are ``wall`` or ``cpu``."""
    by = tuple(by)
    if unknown := [k for k in by if k not in BY_KEYS] or ([time] if time not in TIMES else []):
        raise UsageError(f"cannot group or time by {', '.join(unknown)}: choose from {', '.join(BY_KEYS + TIMES)}")
    groups: dict[tuple[str, str, str, int | None, bool | None], list[Row]] = {}
    for r in rows:
        n = r.n if "n" in by else None
        alo = r.column_alo if "column_alo" in by else None
        groups.setdefault((r.task, r.solver_label, r.encoding, n, alo), []).append(r)
    out = []
    for (task, solver, encoding, n, alo), group in groups.items():
        solved = [r for r in group if is_solved(r)]
        times = [t for t in (_seconds(r, time) for r in solved) if t is not None]
        out.append(
            GroupStats(
                task,
                solver,
                encoding,
                len(group),
                len(solved),
                sum(is_wrong(r) for r in group),
                par2(group, time),
                statistics.median(times) if times else None,
                max((r.n for r in solved), default=None),
                n,
                alo,
            )
        )
    inf = float("inf")

    def order(s: GroupStats) -> tuple[Any, ...]:
        return (
            s.task,
            s.n or 0,
            bool(s.column_alo),
            inf if s.par2 is None else s.par2,
            -s.solved,
            s.solver,
            s.encoding,
        )

    out.sort(key=order)
    return out


def where(rows: Iterable[Row], conditions: Iterable[str]) -> list[Row]:
    """The rows whose fields match every ``FIELD=VALUE`` (as text: ``n=1000``, ``column_alo=true``,
    ``solver=kissat``); a field that is not a column is a usage error."""
    tests: list[tuple[str, str]] = []
    for cond in conditions:
        key, eq, value = cond.partition("=")
        if not eq or key not in Row.__dataclass_fields__:
            columns = ", ".join(Row.__dataclass_fields__)
            raise UsageError(f"--where {cond!r}: expected FIELD=VALUE with FIELD one of {columns}")
        tests.append((key, value.lower()))

    def text(value: Any) -> str:
        return "" if value is None else str(value).lower()

    return [r for r in rows if all(text(getattr(r, k)) == v for k, v in tests)]


def _grouped(stats: list[GroupStats]) -> list[str]:
    """The ``by`` keys the table was split by (columns shown only then)."""
    return [k for k in BY_KEYS if any(getattr(s, k) is not None for s in stats)]


def _num(value: float | None, digits: int = 3) -> str:
    return "" if value is None else f"{value:.{digits}f}"


HEADERS = ("solver", "encoding", "runs", "solved", "wrong", "PAR-2 (s)", "median solved (s)", "largest N solved")


def _cells(s: GroupStats, grouped: list[str]) -> list[str]:
    keys = [str(s.n) if k == "n" else str(s.column_alo).lower() for k in grouped]
    return [
        *keys,
        s.solver,
        s.encoding,
        str(s.runs),
        str(s.solved),
        str(s.wrong),
        _num(s.par2, 2),
        _num(s.median),
        "" if s.largest_n is None else str(s.largest_n),
    ]


def markdown(stats: list[GroupStats], time: str = "wall") -> str:
    """The table in GitHub Markdown (a task column only when the database holds more than one task;
    N and column_alo columns when the groups were split by them)."""
    tasks = len({s.task for s in stats}) > 1
    grouped = _grouped(stats)
    headers = [h.replace("(s)", "(CPU s)") if time == "cpu" else h for h in HEADERS]
    head = (["task"] if tasks else []) + ["N" if k == "n" else k for k in grouped] + headers
    text = len(grouped) + 2 + tasks
    lines = [
        "| " + " | ".join(head) + " |",
        "|" + "|".join("---" if i < text else "--:" for i in range(len(head))) + "|",
    ]
    for s in stats:
        lines.append("| " + " | ".join(([s.task] if tasks else []) + _cells(s, grouped)) + " |")
    return "\n".join(lines) + "\n"


def _rounded(d: dict[str, object]) -> dict[str, object]:
    return {k: round(v, 6) if isinstance(v, float) else v for k, v in d.items()}


def to_csv(stats: list[GroupStats]) -> str:
    buf = io.StringIO()
    grouped = _grouped(stats)
    names = [f for f in GroupStats.__dataclass_fields__ if f not in BY_KEYS or f in grouped]
    writer = csv.DictWriter(buf, fieldnames=names, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for s in stats:
        writer.writerow(_rounded(asdict(s)))
    return buf.getvalue()


def runs_csv(rows: list[Row]) -> str:
    """Every run as CSV (all columns), enough to redraw the plots without the database."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(Row.__dataclass_fields__), lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow(_rounded(r.as_dict()))
    return buf.getvalue()


def to_json(stats: list[GroupStats], rows: list[Row], time: str = "wall") -> str:
    limits = sorted({r.time_limit for r in rows if r.time_limit is not None})
    doc = {
        "par2": f"mean over runs of {time} time if solved, else 2 x time limit (seconds)",
        "time_limits": limits,
        "config_hashes": sorted({r.config_hash for r in rows}),
        "groups": [_rounded(asdict(s)) for s in stats],
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

    hints = typing.get_type_hints(Row)
    reader = csv.DictReader(io.StringIO(text))
    names = list(reader.fieldnames or ())
    fields = [f for f in dataclasses.fields(Row) if f.name in names]
    # columns added later (with a default) may be missing from an older CSV, in order; nothing else may
    required = [f.name for f in dataclasses.fields(Row) if f.default is dataclasses.MISSING or f.name in names]
    if names != required:
        raise UsageError("not a runs CSV of `cnfgen-queens report --runs-csv` (other columns)")
    out = []
    for line, raw in enumerate(reader, start=2):
        values: dict[str, Any] = {}
        for f in fields:
            text_value, kind = raw[f.name], hints[f.name]
            base = next((t for t in typing.get_args(kind) if t is not type(None)), kind)
            if text_value == "" and (base is not str or type(None) in typing.get_args(kind)):
                values[f.name] = None
            elif base is bool:
                if text_value not in ("True", "False"):
                    raise UsageError(f"line {line}: {f.name}: not True/False: {text_value!r}")
                values[f.name] = text_value == "True"
            else:
                try:
                    values[f.name] = base(text_value)
                except ValueError:
                    raise UsageError(f"line {line}: {f.name}: not a {base.__name__}: {text_value!r}") from None
        out.append(Row(**values))
    return out


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
        return store.rows()
