"""A run's columns, declared once: :class:`Row` is one run as a row of the results store, and each of its fields
carries its column's facts (:func:`about`), which :data:`RUN_COLUMNS` holds as :class:`Column` records: the store's
schema (:func:`runs_table`), the runs CSV, ``--where``, the checks of a store, the escaping of shown text and the
HTML report's runs table all read them (:mod:`.store` holds the file)."""

from __future__ import annotations

import dataclasses
import functools
import json
import sys
import typing
from dataclasses import dataclass, field
from typing import Any

from ..errors import printable
from ..model.formula import MAX_N
from ..solvers.outcome import Checked, Status
from .file_instances import QUEENS, generated
from .verdict import Verdict


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


SECONDS = Domain()  # a time, a load, MB measured
WHOLE = Domain(integer=True, high=2**63 - 1)  # a count, a seed, a limit
YES_NO = Domain(integer=True, high=1)
LEGACY_STATUSES = ("USAGE",)  # written once (a count the engine refused), read as ERROR


def about(
    meaning: str, *, domain: Domain | None = None, heading: str = "", measured: bool = False, text: bool = False
) -> dict[str, Any]:
    """A column's facts beside its name and type, as a field's metadata: what it holds (``meaning``, with its unit),
    the values it may hold besides NULL (``domain``, checked in a store or a runs CSV read; None: any of its type),
    how a table heads it (``heading``; its name when empty), whether it differs between identical runs
    (``measured``), whether it is a name a table, a note or a plot shows (``text``: escaped there)."""
    return {"meaning": meaning, "domain": domain, "heading": heading, "measured": measured, "text": text}


@dataclass(frozen=True, kw_only=True)
class Row:
    """One row of ``runs``: the table's columns are these fields, in this order, typed by their hints.

    Fields with a default are nullable columns added since schema version 1 (older files get them on open).
    """

    run_key: str = field(metadata=about("hash of the run's parameters (instance, solver, args, task, limits, repeat)"))
    config_hash: str = field(metadata=about("hash of the normalized config that ran it"))
    experiment: str = field(metadata=about("the config's experiment name", text=True))
    task: str = field(metadata=about("solve | count", domain=Domain(words=("solve", "count")), text=True))
    n: int = field(
        metadata=about(
            "board size N (0: a DIMACS file of instances.files)",
            domain=Domain(integer=True, low=1, high=MAX_N, file_zero=True),
            heading="N",
        )
    )
    encoding: str = field(metadata=about("the encoding (a DIMACS file: the file's name)", text=True))
    group_size: int | None = field(
        metadata=about("only for encodings that take it", domain=Domain(integer=True, low=1, high=MAX_N))
    )
    column_alo: bool = field(metadata=about("the CNF has the column at-least-one clauses", domain=YES_NO))
    shuffle_seed: int | None = field(
        metadata=about("the seed the CNF was shuffled with (None: not shuffled)", domain=WHOLE)
    )
    repeat: int = field(metadata=about("which repeat of the run (0 first)", domain=WHOLE))
    variables: int = field(metadata=about("variables of the CNF", domain=WHOLE))
    clauses: int = field(metadata=about("clauses of the CNF", domain=WHOLE))
    solver: str = field(metadata=about("the solver, as the config names it", text=True))
    solver_args: str = field(metadata=about("JSON list of extra arguments"))
    solver_version: str | None = field(metadata=about("the version the solver printed", text=True))
    time_limit: float | None = field(metadata=about("seconds", domain=SECONDS))
    memory_limit: int | None = field(metadata=about("MB", domain=WHOLE))
    status: Status = field(
        metadata=about(
            "the solver's answer: SAT UNSAT UNKNOWN TIMEOUT MEMOUT ERROR",
            domain=Domain(words=(*(s.value for s in Status), *LEGACY_STATUSES)),
        )
    )
    wall: float | None = field(
        metadata=about("seconds (the solver's)", domain=SECONDS, heading="wall (s)", measured=True)
    )
    cpu: float | None = field(metadata=about("seconds", domain=SECONDS, heading="CPU (s)", measured=True))
    peak_memory_mb: float | None = field(
        metadata=about("MB, the solver's peak", domain=SECONDS, heading="peak (MB)", measured=True)
    )
    count: int | None = field(metadata=about("solutions (task count)", domain=WHOLE))
    fundamental: int | None = field(metadata=about("solutions up to symmetry (task count, when known)", domain=WHOLE))
    verified: bool | None = field(
        metadata=about("the model was checked against every clause (and is an N-queens solution)", domain=YES_NO)
    )
    host: str | None = field(metadata=about("the host the run ran on", measured=True, text=True))
    started: str | None = field(metadata=about("UTC, ISO 8601", measured=True))
    finished: str | None = field(metadata=about("UTC, ISO 8601", measured=True))
    error: str | None = field(metadata=about("why the run failed, one line"))
    measured_by: str | None = field(
        default=None,
        metadata=about("cgroup (BenchExec, the whole process tree) | rusage", heading="measured by", text=True),
    )
    gbd_hash: str | None = field(
        default=None, metadata=about("GBD instance hash of the CNF solved (task solve)", heading="GBD hash")
    )
    variant: str | None = field(
        default=None,
        metadata=about("JSON: torus, place, holes, random_place, random_seed; None: plain N-queens", text=True),
    )
    check_time: float | None = field(
        default=None,
        metadata=about("seconds checking the model against the CNF (task solve)", domain=SECONDS, measured=True),
    )
    total_wall: float | None = field(
        default=None,
        metadata=about("seconds of the whole run: solver, check, decoding", domain=SECONDS, measured=True),
    )
    verdict: Verdict | None = field(
        default=None,
        metadata=about(
            "solved | wrong | unsolved (None: stored before the column, judged on reading)",
            domain=Domain(words=tuple(v.value for v in Verdict)),
        ),
    )
    output_limit: int | None = field(
        default=None,
        metadata=about("MB of solver output (stdout + stderr); None: stored before the column", domain=WHOLE),
    )
    engine: str | None = field(
        default=None,
        metadata=about("task count: cubes | loop (None: a solve, or stored before the column)", text=True),
    )
    machine: str | None = field(
        default=None,
        metadata=about("fingerprint of the machine it ran on (table machines); None: stored before", text=True),
    )
    load_avg: float | None = field(
        default=None,
        metadata=about("the 1-minute load average of its machine when it started", domain=SECONDS, measured=True),
    )
    checked: Checked | None = field(
        default=None,
        metadata=about(
            "how the answer was checked (model-verified, ...); None: no answer, or older",
            domain=Domain(words=tuple(c.value for c in Checked)),
        ),
    )
    break_symmetry: bool | None = field(
        default=None,
        metadata=about("the CNF has the lex-leader clauses (None, stored before: the variant says)", domain=YES_NO),
    )
    cores: str | None = field(
        default=None,
        metadata=about(
            'the CPU cores the run was pinned to ("0" or "2,3"; batch pin: true); None: not pinned',
            heading="pinned to cores",
        ),
    )
    family: str | None = field(
        default=None,
        metadata=about(
            "where the instance came from: queens (generated; None: stored before the column), or the folder of a "
            "DIMACS file of instances.files (n 0, encoding: the file's name, gbd_hash: what it is)",
            text=True,
        ),
    )

    def __post_init__(self) -> None:
        if type(self.status) is not Status:  # a word (a CSV, a hand-made row) becomes the enum
            object.__setattr__(self, "status", Status(self.status))
        if self.verdict is not None and type(self.verdict) is not Verdict:
            object.__setattr__(self, "verdict", Verdict(self.verdict))
        if self.checked is not None and type(self.checked) is not Checked:
            object.__setattr__(self, "checked", Checked(self.checked))
        if type(self.break_symmetry) is not bool:  # None: a row (or CSV) of before the column
            object.__setattr__(self, "break_symmetry", lex_leader(self.break_symmetry, self.variant))

    @property
    def solver_label(self) -> str:
        return _label(self.solver, self.solver_args)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def lex_leader(column: Any, variant: str | None) -> bool:
    """A run's ``break_symmetry``: its column, or where that is NULL (a store or runs CSV written before the
    column), its variant's key, where the batch recorded symmetry breaking before.

    >>> lex_leader(None, '{"break_symmetry": true}'), lex_leader(None, None), lex_leader(1, None)
    (True, False, True)
    """
    return bool(column) if column is not None else _variant_breaks(variant)


@functools.lru_cache(maxsize=1024)
def _variant_breaks(variant: str | None) -> bool:
    return variant is not None and '"break_symmetry"' in variant and bool(json.loads(variant).get("break_symmetry"))


@functools.lru_cache(maxsize=1024)
def _label(solver: str, args: str) -> str:
    """``solver`` and its JSON list of arguments as one string (a few distinct ones in a store of any size),
    one line whatever they hold (:func:`~cnfgen_queens.errors.printable`): a label is a table's cell."""
    return printable(" ".join((solver, *json.loads(args))))


SQL_TYPES = {
    str: "TEXT",
    int: "INTEGER",
    float: "REAL",
    bool: "INTEGER",
    Status: "TEXT",
    Verdict: "TEXT",
    Checked: "TEXT",
}


@dataclass(frozen=True)
class Column:
    """One column of a run, as :class:`Row` declares it: the store's ``runs`` table, the runs CSV (every column, in
    this order) and the HTML report's runs (those it carries) read it from here."""

    name: str
    type: type  # of its values (an enum of words: Status, Verdict, Checked)
    nullable: bool
    added: bool  # since schema version 1: NULL in an older file (which gets it on open), absent from an older CSV
    meaning: str  # what it holds, with its unit
    heading: str  # how a table heads it
    measured: bool  # differs between identical runs
    text: bool  # a name a table, a note or a plot shows (escaped there: report.shown_row)
    domain: Domain | None  # the values it may hold besides NULL (None: any of its type)

    @property
    def sql(self) -> str:
        """Its SQL type in the store."""
        return SQL_TYPES[self.type]

    @property
    def numeric(self) -> bool:
        """A number a table sorts and filters as one (a yes/no column is not)."""
        return self.type in (int, float)

    @property
    def decimals(self) -> int | None:
        """The decimals a table shows of it (None: as it is)."""
        return 3 if self.type is float else None


def _column(f: dataclasses.Field[Any], hint: Any) -> Column:
    args = typing.get_args(hint)
    facts = f.metadata
    return Column(
        name=f.name,
        type=next((t for t in args if t is not type(None)), hint),
        nullable=type(None) in args,
        added=f.default is not dataclasses.MISSING,
        meaning=facts["meaning"],
        heading=facts["heading"] or f.name,
        measured=facts["measured"],
        text=facts["text"],
        domain=facts["domain"],
    )


RUN_COLUMNS = tuple(_column(f, typing.get_type_hints(Row)[f.name]) for f in dataclasses.fields(Row))
COLUMN = {c.name: c for c in RUN_COLUMNS}
COLUMNS = tuple(COLUMN)  # the names, in the store's order
MEASURED = tuple(c.name for c in RUN_COLUMNS if c.measured)
SHOWN_TEXT = tuple(c.name for c in RUN_COLUMNS if c.text)
_YES_NO = tuple(c.name for c in RUN_COLUMNS if c.type is bool)


def column_types() -> dict[str, tuple[type, bool]]:
    """Each column's Python type and whether it is nullable."""
    return {c.name: (c.type, c.nullable) for c in RUN_COLUMNS}


def runs_table() -> str:
    columns = []
    for c in RUN_COLUMNS:
        constraint = " PRIMARY KEY" if c.name == "run_key" else "" if c.nullable else " NOT NULL"
        columns.append(f"    {c.name} {c.sql}{constraint}")
    return "CREATE TABLE IF NOT EXISTS runs (\n" + ",\n".join(columns) + "\n);"


STATUSES = {s.value: s for s in Status}
VERDICTS = {v.value: v for v in Verdict}
CHECKS = {c.value: c for c in Checked}


def row_of(values: tuple[Any, ...]) -> Row:
    d = dict(zip(COLUMNS, values, strict=True))
    for key in _YES_NO:
        if d[key] is not None:
            d[key] = bool(d[key])
    d["break_symmetry"] = lex_leader(d["break_symmetry"], d["variant"])
    d["status"] = STATUSES.get(d["status"], Status.ERROR)  # a word no longer written (an old count's USAGE)
    d["verdict"] = VERDICTS.get(d["verdict"])  # None: judged on reading
    d["checked"] = CHECKS.get(d["checked"])
    row = object.__new__(Row)  # what Row(**d) makes, without its checks (done above): 3x faster on 100,000 rows
    vars(row).update(d)
    return row
