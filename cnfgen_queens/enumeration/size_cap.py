"""The size cap of a formula held in memory (policy of :mod:`.api`, which re-exports these names).

Every loop holds the formula (the embedded solver; the cube counter's workers, one copy each; the
external solver), so a formula over :data:`HELD_CLAUSES` clauses is refused with what to do instead.
"""

from __future__ import annotations

from dataclasses import replace

from cnfgen_queens.errors import UsageError, from_python
from cnfgen_queens.errors import option as flag
from cnfgen_queens.model.formula import QueensFormula

# PySAT CaDiCaL 1.9.5 holds ~100 B per pairwise clause (2 GB at the cap); N = 1000 sequential (12.0M clauses,
# 5.0M variables) 3.2 GB once built, 5.5 GB peak solving: the cap admits every compact encoding at N = 1000
HELD_CLAUSES = 20_000_000
COMPACT = ("sequential", "product", "commander", "ladder", "bimander", "binary")  # suggested instead
CUBES_ESCAPE = "count --engine loop --allow-large (cubes build it in every worker)"


def check_held_size(
    formula: QueensFormula,
    allow_large: bool = False,
    cap: int | None = None,
    escape: str | None = None,
    option: str = "-e ",
) -> None:
    """Raise UsageError, naming N, the encoding, its clause count, the cap and what to do instead, for a
    formula of more than ``cap`` (default :data:`HELD_CLAUSES`) clauses, unless ``allow_large``.

    Every loop holds the formula in memory (the embedded solver; the cube counter's workers, one copy
    each; the external solver), so the closed-form count of :meth:`.QueensFormula.counts` decides."""
    limit = HELD_CLAUSES if cap is None else cap
    escape = escape or f"pass {flag('--allow-large')}"
    clauses = formula.counts()[1]
    if allow_large or clauses <= limit:
        return
    options = [replace(formula, encoding=e, group_size=None) for e in COMPACT if e != formula.encoding]
    best = min(options, key=lambda f: f.counts()[1])
    use = flag("--encoding", best.encoding) if from_python() and option == "-e " else f"{option}{best.encoding}"
    instead = f"use {use} ({best.counts()[1]:,} clauses)" if best.counts()[1] <= limit else "use a smaller N"
    raise UsageError(
        f"N={formula.n} {formula.encoding} has {clauses:,} clauses, above the limit of {limit:,} for a formula "
        f"held in memory (about 100 bytes a clause in the solver); {instead}, or {escape}"
    )


def check_size(
    formula: QueensFormula, engine: str, *, jobs: int = 1, executor: str = "local", allow_large: bool = False
) -> None:
    """The size cap of ``engine``: the loop holds one copy (``allow_large`` lifts the cap); cubes build the
    formula in every worker (J local workers: 1/J of the cap each; never lifted)."""
    if engine == "loop":
        check_held_size(formula, allow_large)
        return
    copies = max(1, jobs) if executor == "local" else 1  # Dask workers may be other machines
    clauses = formula.counts()[1]
    if copies > 1 and clauses <= HELD_CLAUSES < clauses * copies:  # one copy fits: the cause is the jobs
        most = HELD_CLAUSES // clauses
        raise UsageError(
            f"{flag('--jobs', copies)}: each local worker holds a copy of N={formula.n} "
            f"{formula.encoding} ({clauses:,} clauses), {clauses * copies:,} clauses in all, above the "
            f"limit of {HELD_CLAUSES:,} for formulas held in memory; use {flag('--jobs', most)} "
            "or fewer"
        )
    escape = f"{flag('--engine', 'loop')}, {flag('--allow-large')}" if from_python() else CUBES_ESCAPE
    if copies > 1:
        escape += f"; {flag('--jobs', copies)} holds {copies} copies, so the limit is {HELD_CLAUSES:,} / {copies}"
    check_held_size(formula, cap=HELD_CLAUSES // copies, escape=escape)
