"""One run as a row of the results store: :class:`Row`, its columns and their SQL types, and the
conversion of a stored tuple back to a Row (:mod:`.store` holds the file)."""

from __future__ import annotations

import dataclasses
import functools
import json
import typing
from dataclasses import dataclass
from typing import Any

from ..errors import printable
from ..solvers.outcome import Checked, Status
from .verdict import Verdict


@dataclass(frozen=True, kw_only=True)
class Row:
    """One row of ``runs``: the table's columns are these fields, in this order, typed by their hints.

    Fields with a default are nullable columns added since schema version 1 (older files get them on open).
    """

    run_key: str  # hash of the run's parameters (instance, solver, args, task, limits, repeat)
    config_hash: str  # hash of the normalized config that ran it
    experiment: str
    task: str  # solve | count
    n: int
    encoding: str
    group_size: int | None  # only for encodings that take it
    column_alo: bool
    shuffle_seed: int | None
    repeat: int
    variables: int
    clauses: int
    solver: str  # as the config names it
    solver_args: str  # JSON list of extra arguments
    solver_version: str | None
    time_limit: float | None  # seconds
    memory_limit: int | None  # MB
    status: Status  # the solver's answer: SAT UNSAT UNKNOWN TIMEOUT MEMOUT ERROR
    wall: float | None  # seconds (the solver's)
    cpu: float | None  # seconds
    peak_memory_mb: float | None
    count: int | None  # solutions (task count)
    fundamental: int | None  # solutions up to symmetry (task count, when known)
    verified: bool | None  # the model was checked against every clause (and is an N-queens solution)
    host: str | None
    started: str | None  # UTC, ISO 8601
    finished: str | None
    error: str | None
    measured_by: str | None = None  # cgroup (BenchExec, the whole process tree) | rusage
    gbd_hash: str | None = None  # GBD instance hash of the CNF solved (task solve)
    variant: str | None = None  # JSON: torus, place, holes, random_place, random_seed; None: plain N-queens
    check_time: float | None = None  # seconds checking the model against the CNF (task solve)
    total_wall: float | None = None  # seconds of the whole run: solver, check, decoding
    verdict: Verdict | None = None  # solved | wrong | unsolved (None: stored before the column, judged on reading)
    output_limit: int | None = None  # MB of solver output (stdout + stderr); None: stored before the column
    engine: str | None = None  # task count: cubes | loop (None: a solve, or stored before the column)
    machine: str | None = None  # fingerprint of the machine it ran on (table machines); None: stored before
    load_avg: float | None = None  # the 1-minute load average of its machine when it started
    checked: Checked | None = None  # how the answer was checked (model-verified, ...); None: no answer, or older
    break_symmetry: bool | None = None  # the CNF has the lex-leader clauses (None, stored before: the variant says)
    cores: str | None = None  # the CPU cores the run was pinned to ("0" or "2,3"; batch pin: true); None: not pinned
    family: str | None = None  # where the instance came from: queens (generated; None: stored before the column),
    # or the folder of a DIMACS file of instances.files (n 0, encoding: the file's name, gbd_hash: what it is)

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


COLUMNS = tuple(f.name for f in dataclasses.fields(Row))
# these differ between identical runs
MEASURED = ("wall", "cpu", "peak_memory_mb", "host", "started", "finished", "check_time", "total_wall",
            "load_avg")  # fmt: skip
SQL_TYPES = {str: "TEXT", int: "INTEGER", float: "REAL", bool: "INTEGER", Status: "TEXT", Verdict: "TEXT",
              Checked: "TEXT"}  # fmt: skip


def column_types() -> dict[str, tuple[type, bool]]:
    """Each column's Python type and whether it is nullable, from :class:`Row`'s hints."""
    out = {}
    for name, hint in typing.get_type_hints(Row).items():
        args = typing.get_args(hint)
        base = next((t for t in args if t is not type(None)), hint)
        out[name] = (base, type(None) in args)
    return out


def runs_table() -> str:
    columns = []
    for name, (base, nullable) in column_types().items():
        constraint = " PRIMARY KEY" if name == "run_key" else "" if nullable else " NOT NULL"
        columns.append(f"    {name} {SQL_TYPES[base]}{constraint}")
    return "CREATE TABLE IF NOT EXISTS runs (\n" + ",\n".join(columns) + "\n);"


STATUSES = {s.value: s for s in Status}
VERDICTS = {v.value: v for v in Verdict}
CHECKS = {c.value: c for c in Checked}


def row_of(values: tuple[Any, ...]) -> Row:
    d = dict(zip(COLUMNS, values, strict=True))
    for key in ("column_alo", "verified"):
        if d[key] is not None:
            d[key] = bool(d[key])
    d["break_symmetry"] = lex_leader(d["break_symmetry"], d["variant"])
    d["status"] = STATUSES.get(d["status"], Status.ERROR)  # a word no longer written (an old count's USAGE)
    d["verdict"] = VERDICTS.get(d["verdict"])  # None: judged on reading
    d["checked"] = CHECKS.get(d["checked"])
    row = object.__new__(Row)  # what Row(**d) makes, without its checks (done above): 3x faster on 100,000 rows
    vars(row).update(d)
    return row
