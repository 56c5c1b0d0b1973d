"""The report's table: one line per configuration, scored over a common instance set.

PAR-2 is the SAT Competition's penalized average runtime: a solved run scores its time, an
unsolved one twice the time limit (SAT Competition 2017 onwards, https://satcompetition.github.io/).
Lines are compared as the SAT competition and BenchExec's table-generator compare tools: over the
same instances.  Within a table (a task and the ``by`` values), the instances are every
(N, variant, shuffle seed) that any line ran (without the seed when the table compares shuffled and
unshuffled CNFs); a line without a run on one of them (an instance ``max_clauses`` left out for its
encoding, a solver added later) counts it as *missing*: unsolved, scored twice the time limit.  The
repeats of a run are not instances: each line is scored on an instance over the repeats it ran there,
however many (adaptive repeats stop a steady cell early and run a noisy one longer), so no line is
penalised for stopping early.  A line's PAR-2 is the mean over the instances of its runs' mean score
on each (with one run per instance, the SAT competition's mean over runs); its median solved time is
the median over the instances of its runs' median time on each (an unsolved run slower than any solved
one; an instance whose median is unsolved has none).  A line is a configuration:
task, solver with its arguments, encoding, and where the table holds more than one value, the group
size, the column clauses (``column_alo``), the symmetry breaking (``break_symmetry``) and whether the
CNF was shuffled.  DIMACS files of ``instances.files`` are tables of their own, one per ``family`` (the
file's folder; generated instances are ``queens``): a line there is a solver on the family's files
(encoding ``(files)``), each file an instance.  The *virtual best solver* line takes, per instance, the best
line there (the one that solved the largest share of its repeats there, then the better score): its score,
answers and median time.
"""

from __future__ import annotations

import functools
import json
import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError
from .file_instances import QUEENS, generated
from .store import Row
from .verdict import Verdict, verdict

BY_KEYS = (
    "n",
    "column_alo",
    "encoding",
    "solver",
    "group_size",
    "shuffle_seed",
    "variant",
    "repeat",
    "experiment",
    "family",
)
FILES = "(files)"  # the encoding of a line of DIMACS files (each file an instance)
CONFIG_KEYS = ("group_size", "column_alo", "break_symmetry", "shuffled")  # told apart when a table holds several
TIMES = ("wall", "cpu")
VBS = "virtual best"


@dataclass(frozen=True)
class GroupStats:
    """One line of the report table (``keys``: the ``by`` values, then the configuration keys that vary)."""

    task: str
    solver: str
    encoding: str
    runs: int  # stored runs (the virtual best line: the table's instances)
    missing: int  # instances of the table this line has no run on (scored unsolved)
    solved: int
    sat: int  # solved with a verified model (task solve)
    unsat: int  # solved as UNSAT (task solve), or a complete count (task count)
    wrong: int
    par2: float | None  # mean over the instances (missing ones too) of the mean score there; None: a limit unknown
    median: float | None  # median over the instances of the runs' median time there (where solved), seconds
    largest_n: int | None  # the largest N with a solved run
    keys: tuple[tuple[str, Any], ...] = ()

    def key(self, name: str) -> Any:
        return dict(self.keys).get(name)


def value_of(row: Row, key: str) -> Any:
    """``row``'s value for a ``by`` or configuration key (``solver``: with its arguments, as the table shows)."""
    if key == "solver":
        return row.solver_label
    if key == "shuffled":
        return row.shuffle_seed is not None
    if key == "variant":
        return board(row.variant)
    if key == "break_symmetry":
        return bool(row.break_symmetry)
    if key == "family":
        return row.family or QUEENS
    return getattr(row, key)


@functools.lru_cache(maxsize=1024)
def board(variant: str | None) -> str | None:
    """A run's variant (JSON) without ``break_symmetry``, which is a column of its own: the board of the instance,
    None for plain N-queens.  A board with and without the lex-leader clauses is one instance to pair on."""
    if variant is None or '"break_symmetry"' not in variant:
        return variant
    v = json.loads(variant)
    v.pop("break_symmetry", None)
    plain = not (v.get("torus") or v.get("place") or v.get("holes") or v.get("random_place") is not None)
    return None if plain else json.dumps(v)  # as the batch writes a variant without the key


def _seconds(row: Row, time: str) -> float | None:
    return row.cpu if time == "cpu" else row.wall


def penalized(row: Row, time: str = "wall") -> float | None:
    """The PAR-2 score of one run (its wall or CPU seconds if solved, else twice the time limit)."""
    seconds = _seconds(row, time)
    if verdict(row) is Verdict.SOLVED and seconds is not None:
        return seconds
    return None if row.time_limit is None else 2 * row.time_limit


def par2(rows: Iterable[Row], time: str = "wall") -> float | None:
    scores = [penalized(r, time) for r in rows]
    if not scores or any(s is None for s in scores):
        return None
    return sum(s for s in scores if s is not None) / len(scores)


def _instance(row: Row, seeds: bool) -> tuple[Any, ...]:
    """The instance a run is scored on: its board, and its shuffle seed unless the table compares shuffled
    against unshuffled CNFs (then the seeds are runs of one instance); its repeats are runs of one instance."""
    if not generated(row.family):  # a DIMACS file: itself (its content, whatever its name)
        return (row.n, None, None, row.gbd_hash or row.encoding)
    return (row.n, board(row.variant), row.shuffle_seed if seeds else None)


def _cell_score(runs: list[Row], time: str) -> float | None:
    """The mean PAR-2 score of a line's runs on one instance (None when a limit is unknown)."""
    scores = [penalized(r, time) for r in runs]
    return None if None in scores else sum(s for s in scores if s is not None) / len(scores)


def censored(runs: Iterable[Row], time: str = "wall") -> list[float]:
    """The times of runs, ``math.inf`` for an unsolved one: right-censored, it ran past its limit, slower than
    any solved one (a solved run without a time is left out)."""
    out = []
    for r in runs:
        if verdict(r) is not Verdict.SOLVED:
            out.append(math.inf)
        elif (t := _seconds(r, time)) is not None:
            out.append(t)
    return out


def _cell_median(runs: list[Row], time: str) -> float | None:
    """The median time of a line's runs on one instance, an unsolved run slower than any solved one (None when
    that median is unsolved: half its runs or more unsolved)."""
    times = censored(runs, time)
    median = statistics.median(times) if times else math.inf
    return None if median == math.inf else median


def _cells(group: list[Row], seeds: bool) -> dict[tuple[Any, ...], list[Row]]:
    on: dict[tuple[Any, ...], list[Row]] = {}
    for r in group:
        on.setdefault(_instance(r, seeds), []).append(r)
    return on


def _check(by: tuple[str, ...], time: str) -> None:
    if unknown := [k for k in by if k not in BY_KEYS] or ([time] if time not in TIMES else []):
        raise UsageError(f"cannot group or time by {', '.join(unknown)}: choose from {', '.join(BY_KEYS + TIMES)}")


@dataclass(frozen=True)
class _Table:
    """One table of the summary, what its lines are scored against: its task, its instances' time limits,
    the time scored, its ``by`` keys, the configuration keys that vary, whether seeds are instances."""

    task: str
    limits: dict[tuple[Any, ...], float | None]
    time: str
    keys: list[tuple[str, Any]]
    varying: list[str]
    seeds: bool


def summarize(rows: Iterable[Row], by: Iterable[str] = (), time: str = "wall", vbs: bool = True) -> list[GroupStats]:
    """The table's lines: per task and ``by`` values (a table each), its configurations ranked by PAR-2
    over the table's instances (then by more solved), and a virtual best line where there are two or more."""
    by = tuple(dict.fromkeys(by))
    _check(by, time)
    rows = list(rows)
    if "family" not in by and len({value_of(r, "family") for r in rows}) > 1:  # files: tables of their own
        by = ("family", *by)
    varying = [k for k in CONFIG_KEYS if k not in by and len({value_of(r, k) for r in rows}) > 1]
    tables: dict[tuple[Any, ...], dict[tuple[Any, ...], list[Row]]] = {}
    for r in rows:
        table = (r.task, *(value_of(r, k) for k in by))
        line = (r.solver_label, r.encoding if generated(r.family) else FILES, *(value_of(r, k) for k in varying))
        tables.setdefault(table, {}).setdefault(line, []).append(r)
    out: list[GroupStats] = []
    seeds = "shuffled" not in varying
    for table, lines in sorted(tables.items(), key=lambda t: _order(t[0])):
        limits: dict[tuple[Any, ...], float | None] = {}
        for group in lines.values():
            for r in group:
                i = _instance(r, seeds)
                limits[i] = max((t for t in (limits.get(i), r.time_limit) if t is not None), default=None)
        scored = _Table(table[0], limits, time, list(zip(by, table[1:], strict=True)), varying, seeds)
        stats = [_line(scored, line, group) for line, group in lines.items()]
        inf = float("inf")
        stats.sort(key=lambda s: (inf if s.par2 is None else s.par2, -s.solved, s.solver, s.encoding, _order(s.keys)))
        out += stats
        if vbs and len(lines) > 1:
            out.append(_virtual_best(scored, lines))
    return out


def _order(values: Iterable[Any]) -> tuple[Any, ...]:
    """A sort key for mixed values (None first, then numbers, then text)."""
    return tuple((v is not None, isinstance(v, str), v if not isinstance(v, str | tuple) else str(v)) for v in values)


def _line(scored: _Table, line: tuple[Any, ...], group: list[Row]) -> GroupStats:
    """A configuration's line: PAR-2 is the mean over the table's instances of its runs' mean score on
    each (the runs' mean when every instance has as many runs), 2 x the limit where it has none."""
    task, limits, time, keys, varying, seeds = (scored.task, scored.limits, scored.time, scored.keys, scored.varying,
                                                scored.seeds)  # fmt: skip
    solved = [r for r in group if verdict(r) is Verdict.SOLVED]
    on = _cells(group, seeds)
    missing = [limits[i] for i in limits.keys() - on.keys()]
    scores = [_cell_score(runs, time) for runs in on.values()]
    scores += [None if t is None else 2 * t for t in missing]
    medians = [m for runs in on.values() if (m := _cell_median(runs, time)) is not None]
    return GroupStats(
        task,
        line[0],
        line[1],
        runs=len(group),
        missing=len(missing),
        solved=len(solved),
        sat=sum(r.status == "SAT" for r in solved),
        unsat=sum(r.status != "SAT" for r in solved),
        wrong=sum(verdict(r) is Verdict.WRONG for r in group),
        par2=None if any(s is None for s in scores) else sum(s for s in scores if s is not None) / len(scores),
        median=statistics.median(medians) if medians else None,
        largest_n=max((r.n for r in solved if generated(r.family)), default=None),
        keys=(*keys, *zip(varying, line[2:], strict=True)),
    )


def _virtual_best(scored: _Table, lines: dict[tuple[Any, ...], list[Row]]) -> GroupStats:
    """Per instance, the best line there: the one that solved the largest share of its repeats there, of those
    the best score (the mean over its repeats).  Its score, answers and median there are the virtual best's;
    the instance is solved when each of that line's runs there was (an instance no line ran with a known
    limit: scored twice the table's limit there)."""
    task, limits, time, keys, varying, seeds = (scored.task, scored.limits, scored.time, scored.keys, scored.varying,
                                                scored.seeds)  # fmt: skip
    best: dict[tuple[Any, ...], tuple[tuple[float, float], list[Row]]] = {}
    for group in lines.values():
        for i, runs in _cells(group, seeds).items():
            score = _cell_score(runs, time)
            if score is None:
                continue
            rank = (-sum(verdict(r) is Verdict.SOLVED for r in runs) / len(runs), score)
            if i not in best or rank < best[i][0]:
                best[i] = (rank, runs)
    won = {i: runs for i, (_, runs) in best.items() if all(verdict(r) is Verdict.SOLVED for r in runs)}
    scores = [best[i][0][1] if i in best else None if t is None else 2 * t for i, t in limits.items()]
    medians = [m for _, runs in best.values() if (m := _cell_median(runs, time)) is not None]
    return GroupStats(
        task,
        VBS,
        "(best line per instance)",
        runs=len(limits),
        missing=0,
        solved=len(won),
        sat=sum(runs[0].status == "SAT" for runs in won.values()),
        unsat=sum(runs[0].status != "SAT" for runs in won.values()),
        wrong=0,
        par2=None if any(s is None for s in scores) else sum(s for s in scores if s is not None) / len(scores),
        median=statistics.median(medians) if medians else None,
        largest_n=max((runs[0].n for runs in won.values() if generated(runs[0].family)), default=None),
        keys=(*keys, *((k, None) for k in varying)),
    )


def missing_note(stats: list[GroupStats]) -> str | None:
    """The sentence to print when a line lacks runs on some instances of its table; else None."""
    short = [s for s in stats if s.missing]
    if not short:
        return None
    runs = sum(s.missing for s in short)
    return (f"{len(short)} line(s) lack {runs} run(s) on instances of their table that other lines ran (column "
            "missing); each counts as unsolved, 2 x the time limit, so that every line is scored on the same "
            "instances")  # fmt: skip
