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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
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


def heading(text: str) -> dict[str, str]:
    """A figure's heading in the table, as its field's metadata (``{unit}``: the time's unit, ``(s)`` or ``(CPU s)``:
    a time, shown in seconds)."""
    return {"heading": text}


@dataclass(frozen=True)
class GroupStats:
    """One line of the report table (``keys``: the ``by`` values, then the configuration keys that vary); the figures
    (:data:`FIGURES`) are its columns after the text ones, in this order (CSV and JSON: every field but ``keys``)."""

    task: str
    solver: str
    encoding: str
    runs: int = field(metadata=heading("runs"))  # stored runs (the virtual best line: the table's instances)
    missing: int = field(metadata=heading("missing"))  # instances of the table this line has no run on (unsolved)
    solved: int = field(metadata=heading("solved"))
    sat: int = field(metadata=heading("SAT"))  # solved with a verified model (task solve)
    unsat: int = field(metadata=heading("UNSAT"))  # solved as UNSAT (task solve), or a complete count (task count)
    wrong: int = field(metadata=heading("wrong"))
    # mean over the instances (missing ones too) of the mean score there; None: a limit unknown
    par2: float | None = field(metadata=heading("PAR-2 {unit}"))
    # median over the instances of the runs' median time there (where solved), seconds
    median: float | None = field(metadata=heading("median solved {unit}"))
    largest_n: int | None = field(metadata=heading("largest N solved"))  # the largest N with a solved run
    keys: tuple[tuple[str, Any], ...] = ()

    def key(self, name: str) -> Any:
        return dict(self.keys).get(name)


@dataclass(frozen=True)
class Figure:
    """A number column of the table: a field of :class:`GroupStats` and its heading."""

    name: str
    heading: str

    @property
    def time(self) -> bool:
        """A time (shown in seconds, headed with its unit)."""
        return "{unit}" in self.heading


FIGURES = tuple(Figure(f.name, f.metadata["heading"]) for f in fields(GroupStats) if "heading" in f.metadata)


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


def censored(runs: Iterable[Row], time: str = "wall") -> list[float]:
    """The times of runs, ``math.inf`` for an unsolved one: right-censored, it ran past its limit, slower than
    any solved one (a solved run without a time is left out)."""
    out = []
    for r in runs:
        out += censored_times([_seconds(r, time)], verdict(r))
    return out


def censored_times(times: list[float | None], judged: Verdict) -> list[float]:
    """:func:`censored` of runs of one verdict, given their times (None: not measured)."""
    if judged is not Verdict.SOLVED:
        return [math.inf] * len(times)
    return [t for t in times if t is not None]


@dataclass
class _Cell:
    """What a line's runs on one instance leave for the table (a run is not kept): their PAR-2 scores and
    censored times in the order they came, their answers, the instance's largest time limit."""

    n: int
    first_sat: bool  # the first run's answer was SAT (the virtual best line's answer there)
    board: bool  # an N-queens instance (its N counts for the largest N solved), not a DIMACS file
    scores: list[float | None] = field(default_factory=list)
    times: list[float] = field(default_factory=list)  # censored (a solved run without a time left out)
    solved: int = 0
    sat: int = 0  # solved as SAT
    wrong: int = 0
    limit: float | None = None  # the largest time limit of its runs

    def take(self, times: list[float | None], judged: Verdict, sat: bool, limit: float | None) -> None:
        """Runs of one verdict (``judged``; ``sat``: solved as SAT) and time limit, given their times (None: not
        measured): a solved run scores its time, any other twice the limit (None: unknown)."""
        penalty = None if limit is None else 2 * limit
        solved = judged is Verdict.SOLVED
        known = censored_times(times, judged)
        self.scores += known if solved else [penalty] * len(times)
        self.scores += [penalty] * (len(times) - len(known))  # solved without a time
        self.times += known
        self.solved += solved * len(times)
        self.sat += sat * len(times)
        self.wrong += (judged is Verdict.WRONG) * len(times)
        if limit is not None:
            self.limit = limit if self.limit is None else max(self.limit, limit)

    def merge(self, other: _Cell) -> None:
        """``other``'s runs after this one's (the seeds of an instance, when seeds are not instances)."""
        self.scores += other.scores
        self.times += other.times
        self.solved, self.sat, self.wrong = self.solved + other.solved, self.sat + other.sat, self.wrong + other.wrong
        if other.limit is not None:
            self.limit = other.limit if self.limit is None else max(self.limit, other.limit)

    @property
    def runs(self) -> int:
        return len(self.scores)

    def score(self) -> float | None:
        """The mean PAR-2 score of its runs (None when a limit is unknown)."""
        return None if None in self.scores else math.fsum(s for s in self.scores if s is not None) / len(self.scores)

    def median(self) -> float | None:
        """The median time of its runs, an unsolved run slower than any solved one (None when that median is
        unsolved: half its runs or more unsolved)."""
        median = statistics.median(self.times) if self.times else math.inf
        return None if median == math.inf else median


def _check(by: tuple[str, ...], time: str) -> None:
    if unknown := [k for k in by if k not in BY_KEYS] or ([time] if time not in TIMES else []):
        raise UsageError(f"cannot group or time by {', '.join(unknown)}: choose from {', '.join(BY_KEYS + TIMES)}")


@dataclass(frozen=True)
class _Table:
    """One table of the summary, what its lines are scored against: its task, its instances' time limits,
    its ``by`` keys, the configuration keys that vary."""

    task: str
    limits: dict[tuple[Any, ...], float | None]
    keys: list[tuple[str, Any]]
    varying: list[str]


class Summary:
    """The table's lines, from runs given one at a time (:meth:`add`), none of them kept: per task and ``by``
    values (a table each), per configuration (every key of :data:`CONFIG_KEYS`, those that vary told apart at
    the end), per instance (with its shuffle seed) a :class:`_Cell`.  :meth:`stats` is :func:`summarize`'s answer."""

    def __init__(self, by: Iterable[str] = (), time: str = "wall", vbs: bool = True) -> None:
        self.by, self.time, self.vbs = tuple(dict.fromkeys(by)), time, vbs
        _check(self.by, time)
        self.tables: dict[tuple[Any, ...], dict[tuple[Any, ...], dict[tuple[Any, ...], _Cell]]] = {}

    @property
    def columns(self) -> tuple[str, ...]:
        """The columns named by the user that a line reads (the ``by`` keys)."""
        return self.by

    def add(self, row: Row) -> None:
        self.route(row, verdict(row))([_seconds(row, self.time)])

    def route(self, row: Row, judged: Verdict) -> Callable[[list[float | None]], None]:
        """Where ``row`` goes, and every run judged alike with the same columns as it: its line's cell for its
        instance (made now when new); the function that takes those runs' times."""
        config = tuple(value_of(row, k) for k in CONFIG_KEYS)
        table = (row.task, value_of(row, "family"), *(value_of(row, k) for k in self.by))  # family: see stats
        lines = self.tables.setdefault(table, {})
        queens = generated(row.family)
        cells = lines.setdefault((row.solver_label, row.encoding if queens else FILES, *config), {})
        # a DIMACS file is itself (its content, whatever its name); a board with its seed, merged if not instances
        instance = (
            (row.n, board(row.variant), row.shuffle_seed)
            if queens
            else (row.n, None, None, row.gbd_hash or row.encoding)
        )
        if (cell := cells.get(instance)) is None:
            cell = cells[instance] = _Cell(row.n, row.status == "SAT", queens)
        sat = judged is Verdict.SOLVED and row.status == "SAT"
        return functools.partial(cell.take, judged=judged, sat=sat, limit=row.time_limit)

    def stats(self) -> list[GroupStats]:
        """The lines, each table's ranked by PAR-2 over the table's instances (then by more solved), and a virtual
        best line where there are two or more."""
        configs = {key[2:] for lines in self.tables.values() for key in lines}  # a few per store
        varying = [k for i, k in enumerate(CONFIG_KEYS) if k not in self.by and len({c[i] for c in configs}) > 1]
        shown = [CONFIG_KEYS.index(k) for k in varying]
        seeds = "shuffled" not in varying
        families = {table[1] for table in self.tables}
        by = self.by if "family" in self.by or len(families) < 2 else ("family", *self.by)  # files: tables of their own
        tables: dict[tuple[Any, ...], dict[tuple[Any, ...], dict[tuple[Any, ...], _Cell]]] = {}
        for table, full in self.tables.items():  # one family, or it is a by key already: as if it were not there
            tables[table if by[:1] == ("family",) and "family" not in self.by else (table[0], *table[2:])] = full
        out: list[GroupStats] = []
        for table, full in sorted(tables.items(), key=lambda t: _order(t[0])):
            lines: dict[tuple[Any, ...], dict[tuple[Any, ...], _Cell]] = {}
            for key, cells in full.items():  # a key that does not vary has one value: each line is one key
                on = lines.setdefault((key[0], key[1], *(key[2 + i] for i in shown)), {})
                for key_, cell in cells.items():
                    instance = key_ if seeds or len(key_) == 4 else (key_[0], key_[1], None)
                    if instance in on:
                        on[instance].merge(cell)
                    else:
                        on[instance] = cell
            limits: dict[tuple[Any, ...], float | None] = {}
            for on in lines.values():
                for i, cell in on.items():
                    limits[i] = max((t for t in (limits.get(i), cell.limit) if t is not None), default=None)
            scored = _Table(table[0], limits, list(zip(by, table[1:], strict=True)), varying)
            stats = [_line(scored, line, on) for line, on in lines.items()]
            inf = float("inf")
            stats.sort(
                key=lambda s: (inf if s.par2 is None else s.par2, -s.solved, s.solver, s.encoding, _order(s.keys))
            )
            out += stats
            if self.vbs and len(lines) > 1:
                out.append(_virtual_best(scored, lines))
        return out


def summarize(rows: Iterable[Row], by: Iterable[str] = (), time: str = "wall", vbs: bool = True) -> list[GroupStats]:
    """The table's lines: per task and ``by`` values (a table each), its configurations ranked by PAR-2
    over the table's instances (then by more solved), and a virtual best line where there are two or more.
    ``rows`` is read once, as it comes (:class:`Summary`): none of them is kept."""
    summary = Summary(by, time, vbs)
    for r in rows:
        summary.add(r)
    return summary.stats()


def _order(values: Iterable[Any]) -> tuple[Any, ...]:
    """A sort key for mixed values (None first, then numbers, then text)."""
    return tuple((v is not None, isinstance(v, str), v if not isinstance(v, str | tuple) else str(v)) for v in values)


def _line(scored: _Table, line: tuple[Any, ...], on: dict[tuple[Any, ...], _Cell]) -> GroupStats:
    """A configuration's line: PAR-2 is the mean over the table's instances of its runs' mean score on
    each (the runs' mean when every instance has as many runs), 2 x the limit where it has none."""
    missing = [scored.limits[i] for i in scored.limits.keys() - on.keys()]
    scores = [cell.score() for cell in on.values()]
    scores += [None if t is None else 2 * t for t in missing]
    medians = [m for cell in on.values() if (m := cell.median()) is not None]
    solved = sum(cell.solved for cell in on.values())
    sat = sum(cell.sat for cell in on.values())
    return GroupStats(
        scored.task,
        line[0],
        line[1],
        runs=sum(cell.runs for cell in on.values()),
        missing=len(missing),
        solved=solved,
        sat=sat,
        unsat=solved - sat,
        wrong=sum(cell.wrong for cell in on.values()),
        par2=None if any(s is None for s in scores) else math.fsum(s for s in scores if s is not None) / len(scores),
        median=statistics.median(medians) if medians else None,
        largest_n=max((cell.n for cell in on.values() if cell.solved and cell.board), default=None),
        keys=(*scored.keys, *zip(scored.varying, line[2:], strict=True)),
    )


def _virtual_best(scored: _Table, lines: dict[tuple[Any, ...], dict[tuple[Any, ...], _Cell]]) -> GroupStats:
    """Per instance, the best line there: the one that solved the largest share of its repeats there, of those
    the best score (the mean over its repeats).  Its score, answers and median there are the virtual best's;
    the instance is solved when each of that line's runs there was (an instance no line ran with a known
    limit: scored twice the table's limit there)."""
    best: dict[tuple[Any, ...], tuple[tuple[float, float], _Cell]] = {}
    for _, on in sorted(lines.items(), key=lambda line: _order(line[0])):  # a tie: the first line in order
        for i, cell in on.items():
            score = cell.score()
            if score is None:
                continue
            rank = (-cell.solved / cell.runs, score)
            if i not in best or rank < best[i][0]:
                best[i] = (rank, cell)
    won = {i: cell for i, (_, cell) in best.items() if cell.solved == cell.runs}
    scores = [best[i][0][1] if i in best else None if t is None else 2 * t for i, t in scored.limits.items()]
    medians = [m for _, cell in best.values() if (m := cell.median()) is not None]
    return GroupStats(
        scored.task,
        VBS,
        "(best line per instance)",
        runs=len(scored.limits),
        missing=0,
        solved=len(won),
        sat=sum(cell.first_sat for cell in won.values()),
        unsat=sum(not cell.first_sat for cell in won.values()),
        wrong=0,
        par2=None if any(s is None for s in scores) else math.fsum(s for s in scores if s is not None) / len(scores),
        median=statistics.median(medians) if medians else None,
        largest_n=max((cell.n for cell in won.values() if cell.board), default=None),
        keys=(*scored.keys, *((k, None) for k in scored.varying)),
    )


def missing_note(stats: list[GroupStats]) -> str | None:
    """The sentence to print when a line lacks runs on some instances of its table; else None."""
    short = [s for s in stats if s.missing]
    if not short:
        return None
    runs = sum(s.missing for s in short)
    return (
        f"{len(short)} line(s) lack {runs} run(s) on instances of their table that other lines ran (column "
        "missing); each counts as unsolved, 2 x the time limit, so that every line is scored on the same "
        "instances"
    )
