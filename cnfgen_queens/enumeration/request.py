"""A request to count or list every solution, as one frozen value: what to count, with which solver, under
which limits, where it runs and what to report back.  The CLI, the library and the batch each build one;
:mod:`cnfgen_queens.solutions.api` checks it once, resolves its solver once (a :class:`.SolverSpec`) and
hands the engines the request whole (a record here, below the engines, so that each of them takes it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cnfgen_queens.enumeration.records import Found, GroupCount
from cnfgen_queens.execution.where import Where
from cnfgen_queens.limits import Limits
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.solvers.default import DEFAULT_SOLVER
from cnfgen_queens.solvers.profiles import ProfileSource


@dataclass(frozen=True)
class SolverChoice:
    """The solver: ``pysat:NAME`` (embedded) or a binary by name or path, its extra ``args``
    (``--solver-args``) and the user's ``profiles`` that describe unknown binaries (``--solvers-file``, or a
    config's own profiles)."""

    name: str = DEFAULT_SOLVER
    args: tuple[str, ...] = ()
    profiles: ProfileSource | None = None


@dataclass(frozen=True)
class Report:
    """What to report back as the work goes: ``progress(group, total)`` per finished group of cubes,
    ``on_solution`` per solution and ``on_call`` per solver call of the loop."""

    progress: Callable[[GroupCount, int | None], None] | None = None
    on_solution: Callable[[Found], None] | None = None
    on_call: Callable[[], None] | None = None


@dataclass(frozen=True)
class Request:
    """Count (or list) the solutions of ``formula``.

    ``engine``: ``auto``, ``cubes`` or ``loop`` (:func:`.choose_engine`); ``symmetric``: count the orbits
    too (the loop lists one board per orbit); ``limit``: stop the loop after that many solutions;
    ``allow_large``: hold a formula over the size cap; ``certify``: write a DRAT certificate there;
    ``check_all``: evaluate every clause on every model; ``require_checked``: an unchecked count is an ERROR."""

    formula: QueensFormula
    solver: SolverChoice = field(default_factory=SolverChoice)
    engine: str = "auto"
    limits: Limits = field(default_factory=Limits)
    where: Where = field(default_factory=Where)
    report: Report = field(default_factory=Report)
    symmetric: bool = False
    limit: int | None = None
    allow_large: bool = False
    certify: Path | None = None
    check_all: bool = False
    require_checked: bool = False
