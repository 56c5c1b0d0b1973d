#!/usr/bin/env python3
"""Every performance figure of issue 6, measured side by side in one run.

1. Generator: ``gen-queens`` vs PySAT (CardEnc + CNF.to_file) for pairwise N=200 and
   sequential N=1000 (wall, clauses/s, peak RSS); peak RSS of every encoding at a large N.
2. Start-up: ``gen-queens 8``, ``decode``, ``block``, ``merge``: median wall of 10; ``import cnfgen_queens``
   (the Python API's names load on first use) and with the API loaded.
3. Counting: ``count 14 --jobs 2`` (symmetry-broken cubes) vs one PySAT CaDiCaL 1.9.5
   blocking loop over the full formula, vs the code before issue 15, and vs a C bit-board
   backtracker compiled here (scripts/bench_count.py; count 15 and 16 are there too).
4. External loop: ``scripts/enumerate.sh 8`` with kissat.
5. Isolation: cgroup (BenchExec) vs process group + rusage on the same runs (bench_isolation.py).
6. Instance statistics: ``cnfgen-queens stats`` on pairwise N=100 (1.6M clauses; target < 60 s),
   with ``--no-graph`` beside it, so the share of the graph (VIG, communities) shows.
7. Batch (issue 11): ``--dry-run`` of the refused and the largest allowed configs; the GBD instance hash
   against gbdc, SHA-256 and writing the file again (``scripts/bench_batch.py``).
8. I/O (issue 10, ``scripts/bench_io.py``): the streaming model check on the 708 MB N = 300 pairwise
   CNF against ``wc -l``, ``solve --time-limit 2`` on it, gen-queens N = 10000 peak RSS.
9. Issue 33 (``scripts/bench_throughput.py``, tables of ``scripts/benchlib.py`` against the issue's figures):
   ``throughput``: 10,000 tiny runs with ``--jobs 2``, runs/s of each thousand, the coordinator's memory;
   ``certify``: ``count 12 --jobs 2 --certify`` then ``check-count --jobs 2``.
10. Speed (issue 33, ``scripts/bench_speed.py``): the generator against a C writer, the runner's own pass
    against a solver that only reads, start-up against ``python -c pass``.
11. ``--time-limit 1`` (``scripts/bench_time_limit.py``): the whole command's wall time on hostile solvers
    (goal: T + 0.5 s) and how late SIGTERM comes after the deadline, fresh fork and kept child.

``--quick`` shrinks every case (for a smoke run); the targets are checked on the full run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_batch
import bench_count
import bench_enum
import bench_gen
import bench_io
import bench_isolation
import bench_speed
import bench_throughput
import bench_time_limit
import benchlib

BIN = bench_enum.BIN

BASELINE_LOOP = """
import sys
from pysat.solvers import Solver
from cnfgen_queens.model.formula import QueensFormula
n = int(sys.argv[1])
count = 0
with Solver(name="cadical195", bootstrap_with=QueensFormula(n).clauses()) as s:
    while s.solve():
        model = s.get_model()
        s.add_clause([-v for v in model[: n * n] if v > 0])
        count += 1
print(count)
"""


def wall_of(argv: list[str], expect: str | None = None) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=bench_enum.env())
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 10) or (expect is not None and proc.stdout.split()[-1:] != [expect]):
        raise SystemExit(f"{argv[:4]} failed: {proc.returncode} {proc.stdout[-200:]} {proc.stderr[-300:]}")
    return wall


def generator(quick: bool, work: Path) -> list[str]:
    out = []
    cases = bench_gen.QUICK_CASES if quick else bench_gen.FULL_CASES
    for encoding, n in cases:
        ours = bench_gen.measure("gen-queens", encoding, n, work)
        theirs = bench_gen.measure("pysat", encoding, n, work)
        out.append(
            f"{encoding} N={n}: gen-queens {ours.wall:.2f} s {ours.peak_mb:.0f} MB; PySAT {theirs.wall:.2f} s "
            f"{theirs.peak_mb:.0f} MB; speed-up x{theirs.wall / ours.wall:.1f}"
        )
    big = {"pairwise": 200, "sequential": 1000, "commander": 1000, "binary": 1000, "product": 1000,
           "bimander": 1000, "ladder": 1000, "nested": 60, "pysat:seqcounter": 300, "pysat:totalizer": 200}  # fmt: skip
    if quick:
        big = {k: max(8, v // 5) for k, v in big.items()}
    for encoding, n in big.items():
        run = bench_gen.measure("gen-queens", encoding, n, work)
        out.append(f"peak RSS {encoding} N={n}: {run.peak_mb:.0f} MB ({run.wall:.2f} s, {run.num_clauses:,} clauses)")
    return out


def startup(work: Path) -> list[str]:
    cnf, answer, blocks = work / "q8.cnf", work / "q8.out", work / "b.cnf"
    subprocess.run([str(BIN / "gen-queens"), "8", "-o", str(cnf)], check=True)
    proc = subprocess.run([str(BIN / "cnfgen-queens"), "solve", str(cnf)], capture_output=True, text=True)
    answer.write_text(proc.stdout)
    blocks.write_text(subprocess.run([str(BIN / "cnfgen-queens"), "block", str(answer), "-n", "8"],
                                     capture_output=True, text=True, check=True).stdout)  # fmt: skip
    cq = str(BIN / "cnfgen-queens")
    cmds = {
        "gen-queens 8": [str(BIN / "gen-queens"), "8"],
        "decode": [cq, "decode", str(answer), "-n", "8"],
        "block": [cq, "block", str(answer), "-n", "8"],
        "merge": [cq, "merge", str(cnf), str(blocks), "-o", str(work / "m.cnf")],
        "import cnfgen_queens (the API's names load on first use)": [sys.executable, "-c", "import cnfgen_queens"],
        "import cnfgen_queens; cnfgen_queens.queens (the whole API)": [
            sys.executable,
            "-c",
            "import cnfgen_queens; cnfgen_queens.queens",
        ],
        "python -c pass (floor)": [sys.executable, "-c", "pass"],
    }
    return [f"start-up {name}: {statistics.median(wall_of(c) for _ in range(10)) * 1000:.0f} ms (median of 10)"
            for name, c in cmds.items()]  # fmt: skip


def counting(quick: bool, work: Path) -> list[str]:
    """Issue 6's figure (one blocking loop) and issue 15's (bench_count.py: the code before it, the C backtracker)."""
    n = 11 if quick else 14
    known = {11: "2680", 14: "365596"}[n]
    base = wall_of([sys.executable, "-c", BASELINE_LOOP, str(n)], known)
    cubes = wall_of([str(BIN / "cnfgen-queens"), "count", str(n), "--jobs", "2", "--quiet"], known)
    out = [f"count {n}: one PySAT CaDiCaL 1.9.5 blocking loop {base:.2f} s; count --jobs 2 {cubes:.2f} s; "
           f"speed-up x{base / cubes:.1f}"]  # fmt: skip
    out += bench_count.speedup(n, 1, bench_count.baseline_tree(work))
    out += bench_count.backtracker(n, work, cubes)
    return out


def external(quick: bool) -> list[str]:
    n, known = (6, "4") if quick else (8, "92")
    wall = wall_of(["bash", str(bench_enum.ROOT / "scripts" / "enumerate.sh"), str(n)], known)
    return [f"scripts/enumerate.sh {n} (kissat): {wall:.2f} s wall"]


def stats(quick: bool, work: Path) -> list[str]:
    n = 30 if quick else 100
    cnf = work / f"stats-pairwise-{n}.cnf"
    subprocess.run([str(BIN / "gen-queens"), str(n), "-o", str(cnf)], check=True)
    out = []
    for extra in ([], ["--no-graph"]):
        wall, peak = bench_gen.run_child([str(BIN / "cnfgen-queens"), "stats", str(cnf), *extra], work)
        label = " ".join(["stats", *extra])
        out.append(f"{label} pairwise N={n} ({cnf.stat().st_size / 1e6:.0f} MB): {wall:.1f} s wall, {peak:.0f} MB peak")
    return out


def issue33(part: Callable[[benchlib.Table, bool, Path], None], quick: bool, work: Path) -> list[str]:
    """One of issue 33's tables (scripts/bench_throughput.py), as lines."""
    table = benchlib.Table(f"issue 33 {part.__name__}")
    part(table, quick, work)
    return table.render().splitlines()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="small cases: a smoke run, not the targets")
    parts_all = ["generator", "startup", "counting", "external", "isolation", "stats", "batch", "io", "speed",
                 "throughput", "certify", "timelimit"]  # fmt: skip
    ap.add_argument("--only", choices=parts_all, action="append")
    args = ap.parse_args(argv)
    parts = args.only or parts_all
    with tempfile.TemporaryDirectory(prefix="bench.") as tmp:
        work = Path(tmp)
        for part in parts:
            lines = {
                "generator": lambda: generator(args.quick, work),
                "startup": lambda: startup(work),
                "counting": lambda: counting(args.quick, work),
                "external": lambda: external(args.quick),
                "isolation": lambda: bench_isolation.isolation(args.quick, work),
                "stats": lambda: stats(args.quick, work),
                "batch": lambda: bench_batch.figures(args.quick),  # issue 11: config limits, instance hash
                "io": lambda: bench_io.io_figures(args.quick, work),
                "throughput": lambda: issue33(bench_throughput.batch, args.quick, work),
                "certify": lambda: issue33(bench_throughput.certify, args.quick, work),
                "speed": lambda: bench_speed.figures(args.quick, work),  # issue 33: against C, the solver, Python
                "timelimit": lambda: bench_time_limit.figures(args.quick),
            }[part]()
            for line in lines:
                print(line, flush=True)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
