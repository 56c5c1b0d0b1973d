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

``--quick`` shrinks every case (for a smoke run); the targets are checked on the full run.  Timed by
scripts/benchlib.py (``measure``, ``side_by_side``): each part prints benchlib tables, with the load average at
their start and end, and the run ends with a table of the parts' own times (its footer: the whole run's load).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
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
KNOWN = {6: 4, 8: 92}  # scripts/enumerate.sh N (OEIS A000170)

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


def checked(argv: list[str], expect: int | None = None) -> Callable[[], benchlib.Sample]:
    """A case of benchlib.side_by_side: ``argv`` once (PATH with this interpreter's scripts first); the benchmark
    ends unless it exits 0 or 10 and, with ``expect``, printed that count (``bench_count.says``)."""

    def case() -> benchlib.Sample:
        run = benchlib.measure(argv, env=bench_enum.env(), capture=True, check=False)
        if run.code not in (0, 10) or (expect is not None and not bench_count.says(run.stdout, expect)):
            raise SystemExit(f"{argv[:4]} failed: {run.code} {run.stdout[-200:]}")
        return run

    return case


def generator(quick: bool, work: Path) -> list[str]:
    table = benchlib.Table("issue 6: gen-queens against PySAT (CardEnc + CNF.to_file), one run each")
    for encoding, n in bench_gen.QUICK_CASES if quick else bench_gen.FULL_CASES:
        bench_gen.compare(table, encoding, n, 1, False, work)
    out = table.render().splitlines()
    big = {"pairwise": 200, "sequential": 1000, "commander": 1000, "binary": 1000, "product": 1000,
           "bimander": 1000, "ladder": 1000, "nested": 60, "pysat:seqcounter": 300, "pysat:totalizer": 200}  # fmt: skip
    if quick:
        big = {k: max(8, v // 5) for k, v in big.items()}
    table = benchlib.Table("issue 6: peak RSS of every encoding at a large N")
    for encoding, n in big.items():
        run = bench_gen.measure("gen-queens", encoding, n, work)
        table.add(
            f"peak RSS {encoding} N={n}",
            run.peak_mb,
            "MB",
            goal="<= 200 MB",
            note=f"{run.wall:.2f} s, {run.num_clauses:,} clauses",
        )
    return out + table.render().splitlines()


def startup(work: Path, repeats: int = 10) -> list[str]:
    cnf, answer, blocks = work / "q8.cnf", work / "q8.out", work / "b.cnf"
    subprocess.run([str(BIN / "gen-queens"), "8", "-o", str(cnf)], check=True)
    proc = subprocess.run([str(BIN / "cnfgen-queens"), "solve", str(cnf)], capture_output=True, text=True)
    answer.write_text(proc.stdout)
    blocks.write_text(
        subprocess.run(
            [str(BIN / "cnfgen-queens"), "block", str(answer), "-n", "8"], capture_output=True, text=True, check=True
        ).stdout
    )
    cq = str(BIN / "cnfgen-queens")
    floor = "python -c pass (floor)"
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
        floor: [sys.executable, "-c", "pass"],
    }
    table = benchlib.Table(f"issue 6: start-up, median of {repeats}, side by side")
    runs = benchlib.side_by_side(cmds, repeats, env=bench_enum.env())
    for name, run in runs.items():
        command = name in ("gen-queens 8", "decode", "block", "merge")
        table.add(
            f"start-up {name}",
            run.wall,
            "s",
            reference=None if name == floor else runs[floor].wall,
            against="" if name == floor else "python -c pass",
            goal="<= 100 ms" if command else "",
            note=f"CPU {run.cpu * 1000:.0f} ms",
        )
    return table.render().splitlines()


def counting(quick: bool, work: Path) -> list[str]:
    """Issue 6's figure (one blocking loop) and issue 15's (bench_count.py: the code before it, the C backtracker)."""
    n = 11 if quick else 14
    known = bench_count.KNOWN[n]
    table = benchlib.Table(f"issue 6: count {n}, one run each")
    runs = benchlib.side_by_side(
        {
            "loop": checked([sys.executable, "-c", BASELINE_LOOP, str(n)], known),
            "cubes": checked([str(BIN / "cnfgen-queens"), "count", str(n), "--jobs", "2", "--quiet"], known),
        },
        1,
    )
    base, cubes = runs["loop"].wall, runs["cubes"].wall
    table.add(f"count {n}: one PySAT CaDiCaL 1.9.5 blocking loop", base, "s", note=f"CPU {runs['loop'].cpu:.2f} s")
    table.add(
        f"count {n} --jobs 2",
        cubes,
        "s",
        reference=base,
        against="the blocking loop",
        goal="<= x0.25 (>= 4x faster)",
        note=f"speed-up x{base / cubes:.1f}; CPU {runs['cubes'].cpu:.2f} s",
    )
    out = table.render().splitlines()
    out += bench_count.speedup(n, 1, bench_count.baseline_tree(work))
    out += bench_count.backtracker(n, work, cubes)
    return out


def external(quick: bool) -> list[str]:
    n = 6 if quick else 8
    table = benchlib.Table("issue 6: the external loop, one run")
    runs = benchlib.side_by_side(
        {"enumerate": checked(["bash", str(bench_enum.ROOT / "scripts" / "enumerate.sh"), str(n)], KNOWN[n])}, 1
    )
    table.add(
        f"scripts/enumerate.sh {n} (kissat)",
        runs["enumerate"].wall,
        "s",
        goal="<= 10 s" if n == 8 else "",
        note=f"CPU {runs['enumerate'].cpu:.2f} s, the loop and every process it waited for",
    )
    return table.render().splitlines()


def stats(quick: bool, work: Path) -> list[str]:
    n = 30 if quick else 100
    cnf = work / f"stats-pairwise-{n}.cnf"
    subprocess.run([str(BIN / "gen-queens"), str(n), "-o", str(cnf)], check=True)
    cq = str(BIN / "cnfgen-queens")
    size = cnf.stat().st_size / 1e6
    table = benchlib.Table(f"issue 6: stats pairwise N={n} ({size:.0f} MB), one run each")
    cases = {"stats": [cq, "stats", str(cnf)], "stats --no-graph": [cq, "stats", str(cnf), "--no-graph"]}
    runs = benchlib.side_by_side(cases, 1)
    full, bare = runs["stats"], runs["stats --no-graph"]
    table.add(
        f"stats pairwise N={n}",
        full.wall,
        "s",
        goal="< 60 s" if n == 100 else "",
        note=f"CPU {full.cpu:.1f} s, {max(map(bench_gen.peak, full.samples)):.0f} MB peak",
    )
    table.add(
        f"stats --no-graph pairwise N={n}",
        bare.wall,
        "s",
        reference=full.wall,
        against="stats",
        note=f"CPU {bare.cpu:.1f} s, {max(map(bench_gen.peak, bare.samples)):.0f} MB peak",
    )
    return table.render().splitlines()


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
    summary = benchlib.Table("scripts/bench.py")
    with tempfile.TemporaryDirectory(prefix="bench.") as tmp:
        work = Path(tmp)
        for part in parts:
            lines: Callable[[], Iterable[str]] = {
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
            }[part]

            def show(lines: Callable[[], Iterable[str]] = lines) -> None:
                for line in lines():  # (some parts hand their tables over as they are done)
                    print(line, flush=True)

            summary.add(f"--only {part}", benchlib.call(show).wall, "s")
    summary.print()  # the whole run's load average at its start and end
    return 0


if __name__ == "__main__":
    sys.exit(main())
