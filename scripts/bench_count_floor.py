#!/usr/bin/env python3
"""The floor of counting by one SAT call per board (issue 26, item 4), measured in one process.

Issue 26 asked for ``count 14 --jobs 2`` in at most 1.25 s on a quiet machine.  The count finds one
board per orbit of the 8 symmetries (45,752 for N = 14) with one solver call each, so the target is a
budget per board: two cores for 1.25 s, less the start-up of the command and its two workers, shared by
45,752 boards.  This script prints that budget beside what the solver's call alone costs, for every
way of making the call cheaper that we tried:

1. ``budget``: the wall of ``cnfgen-queens count 4 --jobs 2`` (start-up, pool, nothing to search) and the
   CPU µs per board left for N = 14 within 1.25 s on 2 cores.
2. ``solvers``: the cube engine (:func:`cnfgen_queens.counting.cube_count.count_symmetric`, the
   default count) with each PySAT solver that can count, CPU µs per board split into the solver call
   and the rest, and MiniSat's search per call (conflicts, decisions, propagations).
3. ``variants``: the whole board split by the queens of rows 0..d-1 (fresh solver per row-0 queen),
   the pairwise formula against native AtMost-1 constraints (Minicard, one per line), against
   CaDiCaL 1.9.5 continuing one search through an IPASIR-UP lazy propagator that rejects each model
   with its blocking clause (no new solve call per board), and against cubes of depth 1..5.

Every count printed is checked against OEIS A000170.  Quote ratios of one run only.  Prints a table of
scripts/benchlib.py per part (``--markdown``: for docs/performance.md); the solver rows set the budget
beside them when it was measured in the same run.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib

from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.known_counts import known_counts

TARGET = 1.25  # seconds for count 14 --jobs 2 (issue 26)
CORES = 2
A000170 = {n: total for n, (total, _) in known_counts().items()}
SOLVERS = ("cadical195", "cadical153", "minisat22", "minicard", "glucose4", "maplesat")


def budget(n: int, fundamental: int) -> tuple[float, float]:
    """(median wall of 7 ``count 4 --jobs 2``, CPU µs per board left for ``count n --jobs 2`` in TARGET)."""
    command = [str(benchlib.BIN / "cnfgen-queens"), "count", "4", "--jobs", "2", "--quiet"]
    fixed = benchlib.side_by_side({"count 4": command}, 7)["count 4"].wall
    return fixed, max(0.0, (TARGET - fixed) * CORES) / fundamental * 1e6


def engine(n: int, solver: str) -> tuple[float, float, int, dict[str, float]]:
    """The default count engine in this process with ``solver``: (CPU s, of which solver calls, boards,
    search statistics per call summed over the groups' solvers where PySAT gives them)."""
    import pysat.solvers as ps

    from cnfgen_queens.counting.cube_count import count_symmetric
    from cnfgen_queens.enumeration.embedded_loop import embedded_spec
    from cnfgen_queens.enumeration.request import Request

    spent = [0.0]
    stats: dict[str, float] = {}
    solve, delete = ps.Solver.solve, ps.Solver.delete

    def timed(self: Any, *args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return solve(self, *args, **kwargs)
        finally:
            spent[0] += time.process_time() - start

    def counted(self: Any) -> Any:
        if self.solver is not None and hasattr(self.solver, "accum_stats"):
            for key, value in (self.solver.accum_stats() or {}).items():
                stats[key] = stats.get(key, 0) + value
        return delete(self)

    ps.Solver.solve, ps.Solver.delete = timed, counted
    got: list[Any] = []
    try:
        spec = embedded_spec(f"pysat:{solver}")
        cpu = benchlib.call(lambda: got.append(count_symmetric(Request(QueensFormula(n)), spec))).cpu
    finally:
        ps.Solver.solve, ps.Solver.delete = solve, delete
    c = got[0]
    assert c.total == A000170[n], (solver, c.total)
    return cpu, spent[0], c.fundamental, {k: v / c.solver_calls for k, v in stats.items()}


def lines(n: int) -> list[list[int]]:
    """The cells of every row, column and diagonal of length > 1, as variables."""
    formula = QueensFormula(n)
    return [vs for line in formula.lines() if len(vs := formula.board.line_vars(line)) > 1]


def partials(n: int, depth: int) -> Iterator[tuple[int, ...]]:
    """Non-attacking queens on rows 0..depth-1, as column tuples."""

    def grow(cols: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        if len(cols) == depth:
            yield cols
            return
        r = len(cols)
        for c in range(n):
            if all(c != c2 and abs(c - c2) != r - r2 for r2, c2 in enumerate(cols)):
                yield from grow((*cols, c))

    return grow(())


def split_count(n: int, depth: int, name: str, native: bool = False, lazy: bool = False) -> tuple[float, float, int]:
    """All boards, row-0 queen fixed per fresh solver and rows 1..depth-1 as assumptions: (CPU s, of which
    in the solver, boards).  ``native``: AtMost-1 constraints instead of pairwise clauses; ``lazy``: one
    solve per solver, each model rejected by a lazy IPASIR-UP propagator that hands back its blocking
    clause."""
    from pysat.solvers import Solver

    line_vars = lines(n)
    alo = [[r * n + c + 1 for c in range(n)] for r in range(n)] + [[r * n + c + 1 for r in range(n)] for c in range(n)]
    pairs = [(-a, -b) for vs in line_vars for i, a in enumerate(vs) for b in vs[i + 1 :]]
    cubes: dict[int, list[list[int]]] = {}
    for cols in partials(n, depth):
        cubes.setdefault(cols[0], []).append([r * n + c + 1 for r, c in enumerate(cols)][1:])
    boards, in_solver = 0, 0.0

    def run() -> None:
        nonlocal boards, in_solver
        for first, assumptions in sorted(cubes.items()):
            solver = Solver(name=name, bootstrap_with=alo + ([] if native else pairs) + [[first + 1]])
            if native:
                for vs in line_vars:
                    solver.add_atmost(vs, 1)
            if lazy:
                rejector = _rejector(n)
                solver.connect_propagator(rejector)
                for v in range(1, n * n + 1):
                    solver.observe(v)
                t = time.process_time()
                assert not solver.solve()
                in_solver += time.process_time() - t
                boards += rejector.found
            else:
                for cube in assumptions:
                    while True:
                        t = time.process_time()
                        sat = solver.solve(assumptions=cube)
                        in_solver += time.process_time() - t
                        if not sat:
                            break
                        boards += 1
                        solver.add_clause([-v for v in solver.get_model()[: n * n] if v > 0])
            solver.delete()

    cpu = benchlib.call(run).cpu
    assert boards == A000170[n], (name, depth, boards)
    return cpu, in_solver, boards


def _rejector(n: int) -> Any:
    """A lazy propagator: every complete model is counted and rejected by its blocking clause."""
    from pysat.engines import Propagator

    class Rejector(Propagator):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.is_lazy = True
            self.found = 0
            self.pending: list[int] | None = None

        def on_assignment(self, lit: int, fixed: bool = False) -> None:
            pass

        def on_new_level(self) -> None:
            pass

        def on_backtrack(self, to: int) -> None:
            pass

        def check_model(self, model: list[int]) -> bool:
            self.found += 1
            self.pending = [-v for v in model if 0 < v <= n * n]
            return False

        def decide(self) -> int:
            return 0

        def propagate(self) -> list[int]:
            return []

        def provide_reason(self, lit: int) -> list[int]:
            return []

        def has_clause(self) -> bool:
            return self.pending is not None

        def add_clause(self) -> list[int]:
            clause, self.pending = self.pending or [], None
            return clause

    return Rejector()


def add(table: benchlib.Table, label: str, cpu: float, solver: float, boards: int, **more: Any) -> None:
    """One figure: CPU µs per board, the solver call's share and the rest in the note."""
    note = f"solver call {solver / boards * 1e6:.1f}, the rest {(cpu - solver) / boards * 1e6:.1f}"
    extra = more.pop("note", "")
    table.add(label, cpu / boards * 1e6, "µs/board", note=f"{note}{'; ' + extra if extra else ''}", **more)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("-n", type=int, default=14, help="board size of the engine figures (default 14)")
    ap.add_argument("--split-n", type=int, default=12, help="board size of the variant figures (default 12)")
    ap.add_argument("--only", choices=("budget", "solvers", "variants"), action="append")
    ap.add_argument("--markdown", action="store_true", help="print the tables as Markdown (docs/performance.md)")
    args = ap.parse_args(argv)
    parts = args.only or ["budget", "solvers", "variants"]
    left: float | None = None
    if "budget" in parts:
        table = benchlib.Table(f"count floor: the budget of count {args.n} --jobs 2")
        fundamental = engine(args.n, "cadical195")[2]
        fixed, left = budget(args.n, fundamental)
        table.add("count 4 --jobs 2 (start-up, workers)", fixed, "s", note="median of 7")
        table.add(
            f"CPU per board left for count {args.n} --jobs 2 in {TARGET} s on {CORES} cores",
            left,
            "µs",
            note=f"{fundamental:,} boards",
        )
        table.print(markdown=args.markdown)
    if "solvers" in parts:
        table = benchlib.Table(f"count floor: the default count engine, N = {args.n}, one process")
        for name in SOLVERS:
            cpu, solver, boards, stats = engine(args.n, name)
            search = ", ".join(f"{k} {v:.1f}" for k, v in sorted(stats.items()) if k != "restarts")
            add(
                table,
                name,
                cpu,
                solver,
                boards,
                reference=left,
                against="the budget" if left is not None else "",
                note=f"per call: {search}" if search else "",
            )
        table.print(markdown=args.markdown)
    if "variants" in parts:
        n = args.split_n
        table = benchlib.Table(f"count floor: all {A000170[n]:,} boards of N = {n}, a fresh solver per row-0 queen")
        for depth in range(1, 6):
            for name in ("cadical195", "minisat22"):
                add(table, f"{name}, cubes over rows 0..{depth - 1}", *split_count(n, depth, name))
        add(table, "minicard, pairwise clauses, rows 0..1", *split_count(n, 2, "minicard"))
        add(table, "minicard, native AtMost-1 per line, rows 0..1", *split_count(n, 2, "minicard", native=True))
        add(table, "cadical195, lazy propagator, one solve, row 0", *split_count(n, 1, "cadical195", lazy=True))
        table.print(markdown=args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
