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
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

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


def isolation(quick: bool, work: Path) -> list[str]:
    from cnfgen_queens.cli import gen_main
    from cnfgen_queens.limits import Limits
    from cnfgen_queens.model.formula import QueensFormula
    from cnfgen_queens.solutions.api import Request, SolverChoice, count
    from cnfgen_queens.solvers import solve
    from cnfgen_queens.solvers.cgroup import unavailable_reason

    reason = unavailable_reason()
    if reason is not None:
        return [f"isolation: cgroup unavailable here ({reason}); nothing to compare"]
    out = []
    one = work / "one.cnf"
    one.write_text("p cnf 1 1\n1 0\n")
    calls = 5 if quick else 20
    walls: dict[str, list[float]] = {m: [] for m in MODES}
    for _ in range(calls):
        for mode in MODES:
            start = time.monotonic()
            solve(one, "kissat", limits=Limits(isolation=mode))
            walls[mode].append(time.monotonic() - start)
    med = {m: statistics.median(w) for m, w in walls.items()}
    out.append(
        f"per-call solve() of a 1-clause CNF with kissat, median of {calls}: cgroup {med['cgroup'] * 1000:.1f} ms, "
        f"rusage {med['none'] * 1000:.1f} ms; cgroup adds {(med['cgroup'] - med['none']) * 1000:.1f} ms per call "
        f"(x{med['cgroup'] / med['none']:.2f})"
    )
    n = 6 if quick else 8
    for mode in MODES:
        r = count(Request(QueensFormula(n), SolverChoice("kissat"), engine="loop", limits=Limits(isolation=mode)))
        out.append(f"count {n} kissat, isolation {mode}: {r.total} solutions, {r.solver_calls} calls, {r.wall:.2f} s")
    cases = [("php10", php(work / "php10.cnf", 9 if quick else 10))]
    qn = 40 if quick else 100
    queens = work / f"q{qn}.cnf"
    gen_main([str(qn), "-o", str(queens)])
    cases.append((f"queens{qn}", queens))
    repeats = 1 if quick else 3
    for name, cnf in cases:
        for solver in ("kissat", "minisat"):
            got: dict[str, list[tuple[float, float, float]]] = {m: [] for m in MODES}
            for _ in range(repeats):
                for mode in MODES:
                    o = solve(cnf, solver, limits=Limits(isolation=mode))
                    got[mode].append((o.wall, o.cpu or 0.0, o.peak_memory_mb or 0.0))
            cg = [statistics.median(v) for v in zip(*got["cgroup"], strict=True)]
            ru = [statistics.median(v) for v in zip(*got["none"], strict=True)]
            out.append(
                f"{name} {solver} (median of {repeats}): cgroup cpu {cg[1]:.3f} s peak {cg[2]:.1f} MB; "
                f"rusage cpu {ru[1]:.3f} s peak {ru[2]:.1f} MB; cpu ratio {cg[1] / max(ru[1], 1e-9):.3f}, "
                f"peak ratio {cg[2] / max(ru[2], 1e-9):.2f}"
            )
    return out


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bench.") as tmp:
        for line in isolation("--quick" in sys.argv, Path(tmp)):
            print(line, flush=True)
