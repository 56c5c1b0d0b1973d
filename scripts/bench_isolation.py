#!/usr/bin/env python3
"""Isolation: cgroup (BenchExec) vs process group + rusage, on the same runs, side by side.

1. Per-call overhead: ``solve()`` of a one-clause CNF with kissat, the modes interleaved
   (median of the calls): what every call of an external enumeration pays.
2. ``count N`` with kissat (one solver call per solution plus one): whole wall per mode.
3. The same solver runs measured both ways (CPU time and peak memory), interleaved:
   pigeonhole PHP(10, 9) (UNSAT) and N-queens pairwise (SAT), with kissat and minisat.
   Where they differ: cgroup memory is what the tree charged to its cgroup (pages of
   shared libraries already cached elsewhere are not; page cache of files it writes is),
   rusage is the solver's own VmHWM / ru_maxrss; cgroup CPU covers every descendant.

The cases alternate within each round (scripts/benchlib.py, side by side in this process); prints a
benchlib table (``--markdown``: for docs/performance.md).  ``--quick``: fewer calls, smaller instances.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout's package
sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib

ROOT = Path(__file__).resolve().parent.parent

MODES = ("cgroup", "none")


def php(path: Path, pigeons: int) -> Path:
    """Write the pigeonhole formula PHP(pigeons, pigeons - 1) to ``path``: unsatisfiable, exponential for
    resolution (minutes for CaDiCaL from 12 pigeons)."""
    holes = pigeons - 1
    var = lambda p, h: p * holes + h + 1
    clauses = [[var(p, h) for h in range(holes)] for p in range(pigeons)]
    clauses += [[-var(p, h), -var(q, h)] for h in range(holes) for p in range(pigeons) for q in range(p + 1, pigeons)]
    body = "".join(" ".join(map(str, c)) + " 0\n" for c in clauses)
    path.write_text(f"p cnf {pigeons * holes} {len(clauses)}\n{body}")
    return path


def run(cnf: Path, solver: str, mode: str, status: str) -> Callable[[], benchlib.Sample]:
    """A case of benchlib.side_by_side: ``solve(cnf, solver)`` under ``--isolation mode``, its figures as the
    run measured them (cgroup: the tree's; none: rusage); the benchmark ends unless the answer is ``status``."""
    from cnfgen_queens.limits import Limits
    from cnfgen_queens.solvers import solve

    def case() -> benchlib.Sample:
        o = solve(cnf, solver, limits=Limits(isolation=mode))
        if o.status.name != status or o.measured_by != ("cgroup" if mode == "cgroup" else "rusage"):
            raise SystemExit(f"{cnf.name} {solver} --isolation {mode}: {o.status.name} measured by {o.measured_by}")
        return benchlib.Sample(o.wall, o.cpu or 0.0, o.peak_memory_mb or 0.0, 0.0, o.exit_code or 0)

    return case


def figures(table: benchlib.Table, quick: bool, work: Path) -> None:
    """The figures of the docstring into ``table`` (cgroup must be available)."""
    from cnfgen_queens.cli import gen_main
    from cnfgen_queens.limits import Limits
    from cnfgen_queens.model.formula import QueensFormula
    from cnfgen_queens.model.known_counts import known_counts
    from cnfgen_queens.solutions.api import Request, SolverChoice, count
    from cnfgen_queens.solvers import solve

    rusage = "process group + rusage"
    one = work / "one.cnf"
    one.write_text("p cnf 1 1\n1 0\n")
    calls = 5 if quick else 20
    per_call = {m: benchlib.in_process(partial(solve, one, "kissat", limits=Limits(isolation=m))) for m in MODES}
    walls = benchlib.side_by_side(per_call, calls)
    cgroup, none = walls["cgroup"].wall, walls["none"].wall
    table.add(
        "solve() of a 1-clause CNF with kissat, cgroup",
        cgroup,
        "s",
        reference=none,
        against=rusage,
        note=f"median of {calls}; cgroup adds {(cgroup - none) * 1000:.1f} ms a call",
    )
    n = 6 if quick else 8
    want = known_counts()[n][0]
    results: dict[str, Any] = {}

    def counting(mode: str) -> None:
        limits = Limits(isolation=mode)
        results[mode] = count(Request(QueensFormula(n), SolverChoice("kissat"), engine="loop", limits=limits))

    counted = benchlib.side_by_side({m: benchlib.in_process(partial(counting, m)) for m in MODES}, 1)
    for mode in MODES:
        r = results[mode]
        if r.total != want:
            raise SystemExit(f"count {n} kissat, isolation {mode}: {r.total} solutions, not {want}")
        isolated = mode == "cgroup"
        table.add(
            f"count {n} kissat (the loop), {mode if isolated else rusage}",
            counted[mode].wall,
            "s",
            reference=counted["none"].wall if isolated else None,
            against=rusage if isolated else "",
            note=f"{r.total} solutions, {r.solver_calls} calls",
        )
    pigeons = 9 if quick else 10
    cases = [(f"php{pigeons}", php(work / f"php{pigeons}.cnf", pigeons), "UNSAT")]
    qn = 40 if quick else 100
    queens = work / f"q{qn}.cnf"
    gen_main([str(qn), "-o", str(queens)])
    cases.append((f"queens{qn}", queens, "SAT"))
    repeats = 1 if quick else 3
    for name, cnf, status in cases:
        for solver in ("kissat", "minisat"):
            got = benchlib.side_by_side({m: run(cnf, solver, m, status) for m in MODES}, repeats)
            cg, ru = got["cgroup"], got["none"]
            table.add(
                f"{name} {solver}: CPU, cgroup",
                cg.cpu,
                "s",
                reference=ru.cpu,
                against="rusage",
                note=f"median of {repeats}",
            )
            table.add(
                f"{name} {solver}: peak memory, cgroup",
                cg.peak_mb,
                "MB",
                reference=ru.peak_mb,
                against="rusage (VmHWM / ru_maxrss)",
            )


def isolation(quick: bool, work: Path) -> list[str]:
    """The figures as the lines of a benchlib table (scripts/bench.py), or one line saying why there are none."""
    from cnfgen_queens.solvers.cgroup import unavailable_reason

    reason = unavailable_reason()
    if reason is not None:
        return [f"isolation: cgroup unavailable here ({reason}); nothing to compare"]
    table = benchlib.Table("isolation: cgroup (BenchExec) against process group + rusage")
    figures(table, quick, work)
    return table.render().splitlines()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="5 calls, count 6, PHP(9, 8), N = 40, one repeat")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown (docs/performance.md)")
    args = ap.parse_args(argv)
    from cnfgen_queens.solvers.cgroup import unavailable_reason

    reason = unavailable_reason()
    if reason is not None:
        print(f"isolation: cgroup unavailable here ({reason}); nothing to compare")
        return 0
    table = benchlib.Table("isolation: cgroup (BenchExec) against process group + rusage")
    with tempfile.TemporaryDirectory(prefix="bench.") as tmp:
        figures(table, args.quick, Path(tmp))
    table.print(markdown=args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
