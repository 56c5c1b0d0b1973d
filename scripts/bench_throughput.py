#!/usr/bin/env python3
"""Issue 33's figures of items 4 and 5, on scripts/benchlib.py, against the figures the issue started from.

1. ``batch``: 10,000 tiny runs (N = 4..8, 4 encodings, 500 repeats, ``pysat:cadical195``, ``--jobs 2``):
   runs/s overall and of each thousand (from the stored ``finished`` times), the coordinator's peak memory.
2. ``certify``: ``count 12 --jobs 2 --certify DIR`` then ``check-count DIR --jobs 2``, wall and CPU, the
   count checked against OEIS A000170.

``--quick``: 1,000 runs and N = 10 (a smoke run, not the targets).  The load average at the start and the
end of each table is printed with it: compare ratios taken in one run, not figures of different days.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_batch
import benchlib

# What issue 33 measured before (load 10-13, 2 cores) and its goals
BATCH_BEFORE = 80.0  # runs/s, 10,000 runs with --jobs 2
BATCH_GOAL = ">= 200 runs/s held"
COORDINATOR_BEFORE = 43.0  # MB
CERTIFY_BEFORE = {"count": 11.2, "check": 60.3}  # s: count 12 --jobs 2 --certify, check-count (one process)
A000170 = {10: 724, 12: 14200}


def batch(table: benchlib.Table, quick: bool, work: Path) -> None:
    db = work / "r.sqlite"
    config = work / "scale.yaml"
    config.write_text(bench_batch.SCALE.replace("REPEATS", "50" if quick else "500").replace("RESULTS", str(db)))
    run = benchlib.measure([str(benchlib.BIN / "cnfgen-queens"), "batch", str(config), "--jobs", "2", "--no-progress"])
    with sqlite3.connect(db) as con:
        runs = con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    table.add(f"batch, {runs:,} tiny runs, --jobs 2", runs / run.wall, "runs/s", reference=BATCH_BEFORE,
              against="issue 33, load 10-13", goal=BATCH_GOAL)  # fmt: skip
    for i, (rate, n, per_run) in enumerate(bench_batch.per_thousand(db), 1):
        table.add(f"  thousand {i} (N={n}, {per_run * 1000:.1f} ms a run in the worker)", rate, "runs/s",
                  goal=">= 200")  # fmt: skip
    table.add("  coordinator peak memory", run.peak_mb, "MB", reference=COORDINATOR_BEFORE, goal="< 300 MB")


def certify(table: benchlib.Table, quick: bool, work: Path) -> None:
    n = 10 if quick else 12
    cli = str(benchlib.BIN / "cnfgen-queens")
    d = work / f"c{n}"
    count = benchlib.measure([cli, "count", str(n), "--jobs", "2", "--quiet", "--certify", str(d)], capture=True)
    check = benchlib.measure([cli, "check-count", str(d), "--jobs", "2", "--checker", "dratify"], capture=True)
    if f"count: {A000170[n]}" not in count.stdout or check.stdout != f"certified count: {A000170[n]}\n":
        raise SystemExit(f"count {n}: {count.stdout!r}, check-count: {check.stdout!r}: not A000170({n})")
    size = sum(p.stat().st_size for p in d.rglob("*") if p.is_file()) / 2**20
    before = n == 12
    table.add(f"count {n} --jobs 2 --certify ({size:.1f} MB)", count.wall, "s",
              reference=CERTIFY_BEFORE["count"] if before else None, note=f"{count.cpu:.1f} s CPU")  # fmt: skip
    table.add(f"check-count --jobs 2 (dratify), N={n}", check.wall, "s",
              reference=CERTIFY_BEFORE["check"] if before else None, against="one process" if before else "",
              note=f"{check.cpu:.1f} s CPU")  # fmt: skip
    table.add("  both", count.wall + check.wall, "s", reference=sum(CERTIFY_BEFORE.values()) if before else None,
              goal="< 60 s at load 1")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="1,000 runs and N = 10: a smoke run, not the targets")
    ap.add_argument("--only", choices=("batch", "certify"), action="append")
    ap.add_argument("--markdown", action="store_true", help="print the tables as Markdown (docs/performance.md)")
    args = ap.parse_args(argv)
    for part in args.only or ["batch", "certify"]:
        table = benchlib.Table(f"issue 33: {part}")
        with tempfile.TemporaryDirectory(prefix=f"bench-{part}.") as tmp:
            {"batch": batch, "certify": certify}[part](table, args.quick, Path(tmp))
        table.print(markdown=args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
