#!/usr/bin/env python3
"""Issue 33's figures of items 4 and 5, on scripts/benchlib.py, against the figures the issue started from.

1. ``batch``: 10,000 tiny runs (N = 4..8, 4 encodings, 500 repeats, ``pysat:cadical195``, ``--jobs 2``):
   runs/s overall and of each thousand (from the stored ``finished`` times), the coordinator's peak memory.
2. ``certify``: ``count 12 --jobs 2 --certify DIR`` then ``check-count DIR --jobs 2``, wall and CPU, the
   count checked against OEIS A000170.
   ``worker``: one batch worker's runs in this process, wall and CPU (every process) per thousand runs (issue 44:
   run it with each checkout's interpreter, side by side, to compare ways of running the embedded solver).
3. ``sweep`` (issue 26, item 5; docs/counting.md): for N = 8 to ``--max-n``, ``count N --jobs 2``, ``count N
   --jobs 2 --certify DIR`` beside it, the certificate's size, and ``check-count DIR`` with dratify (and
   drat-trim when it is on PATH); every total must equal A000170.

``--quick``: 1,000 runs and N = 10 (a smoke run, not the targets).  The load average at the start and the
end of each table is printed with it: compare ratios taken in one run, not figures of different days.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_batch
import benchlib

# What issue 33 measured before (load 10-13, 2 cores) and its goals
BATCH_BEFORE = 80.0  # runs/s, 10,000 runs with --jobs 2
BATCH_GOAL = ">= 200 runs/s held"
COORDINATOR_BEFORE = 43.0  # MB
CERTIFY_BEFORE = {"count": 11.2, "check": 60.3}  # s: count 12 --jobs 2 --certify, check-count (one process)
A000170 = {8: 92, 9: 352, 10: 724, 11: 2680, 12: 14200, 13: 73712}


def batch(table: benchlib.Table, quick: bool, work: Path) -> None:
    db = work / "r.sqlite"
    config = work / "scale.yaml"
    config.write_text(bench_batch.SCALE.replace("REPEATS", "50" if quick else "500").replace("RESULTS", str(db)))
    run = benchlib.measure([str(benchlib.BIN / "cnfgen-queens"), "batch", str(config), "--jobs", "2", "--no-progress"])
    with sqlite3.connect(db) as con:
        runs = con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    table.add(
        f"batch, {runs:,} tiny runs, --jobs 2",
        runs / run.wall,
        "runs/s",
        reference=BATCH_BEFORE,
        against="issue 33, load 10-13",
        goal=BATCH_GOAL,
    )
    for i, (rate, n, per_run) in enumerate(bench_batch.per_thousand(db), 1):
        table.add(f"  thousand {i} (N={n}, {per_run * 1000:.1f} ms a run in the worker)", rate, "runs/s", goal=">= 200")
    table.add("  coordinator peak memory", run.peak_mb, "MB", reference=COORDINATOR_BEFORE, goal="< 300 MB")


def worker(table: benchlib.Table, quick: bool, work: Path) -> None:
    """One batch worker's runs in this process (``tasks.execute``, N = 6 pairwise, the embedded solver): wall and
    CPU a run, the CPU of every process (this one, the solver's, the forkserver) counted; per thousand runs.  Run
    it with each checkout's interpreter, side by side: the ratio holds on a loaded machine where the batch's
    runs/s do not."""

    from cnfgen_queens.cli import gen_main
    from cnfgen_queens.experiments import config as config_mod
    from cnfgen_queens.experiments import tasks
    from cnfgen_queens.experiments.grid import build

    runs_n = 200 if quick else 1000
    config = work / "worker.yaml"
    config.write_text(WORKER.replace("REPEATS", str(runs_n + 1)).replace("RESULTS", str(work / "w.sqlite")))
    runs = build(config_mod.load(config))
    cnf = work / "q6.cnf"
    gen_main(["6", "-o", str(cnf)])
    tasks.execute(runs[0], str(cnf))  # the forkserver (or the kept child) started, the file parsed
    before, start = _tree_cpu(), time.perf_counter()
    for run in runs[1:]:
        tasks.execute(run, str(cnf))
    wall, cpu = time.perf_counter() - start, _tree_cpu() - before
    per = 1000 / runs_n
    table.add(f"one worker, {runs_n:,} runs of N=6: wall per thousand runs", wall * per, "s")
    table.add("  CPU per thousand runs, every process", cpu * per, "s", note=f"{runs_n / wall:.0f} runs/s")


WORKER = """experiment: worker
instances:
  n: [6]
  encodings: [pairwise]
solvers: [pysat:cadical195]
limits: {time: 10}
repeats: REPEATS
results: RESULTS
"""


def _tree_cpu() -> float:
    """CPU seconds of this process, its reaped children, and its living children with theirs (/proc)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    total = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
    tick = os.sysconf("SC_CLK_TCK")
    for task in Path("/proc/self/task").iterdir():
        for pid in (task / "children").read_text().split():
            try:
                fields = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            total += sum(int(f) for f in fields[11:15]) / tick  # utime, stime, cutime, cstime
    return total


def counted(n: int, *args: str) -> benchlib.Sample:
    """``cnfgen-queens ARGS`` (a count or check-count of N), measured; the benchmark ends unless it printed
    A000170(N)."""
    run = benchlib.measure([str(benchlib.BIN / "cnfgen-queens"), *args], capture=True)
    said = run.stdout.splitlines()
    if not any(
        line in (f"certified count: {A000170[n]}", f"count: {A000170[n]}") or line.startswith(f"count: {A000170[n]} ")
        for line in said
    ):
        raise SystemExit(f"{' '.join(args)}: {run.stdout[-200:]!r}: not A000170({n}) = {A000170[n]}")
    return run


def size_mb(directory: Path) -> float:
    return sum(p.stat().st_size for p in directory.rglob("*") if p.is_file()) / 2**20


def certify(table: benchlib.Table, quick: bool, work: Path) -> None:
    n = 10 if quick else 12
    d = work / f"c{n}"
    count = counted(n, "count", str(n), "--jobs", "2", "--quiet", "--certify", str(d))
    check = counted(n, "check-count", str(d), "--jobs", "2", "--checker", "dratify")
    size = size_mb(d)
    before = n == 12
    table.add(
        f"count {n} --jobs 2 --certify ({size:.1f} MB)",
        count.wall,
        "s",
        reference=CERTIFY_BEFORE["count"] if before else None,
        note=f"{count.cpu:.1f} s CPU",
    )
    table.add(
        f"check-count --jobs 2 (dratify), N={n}",
        check.wall,
        "s",
        reference=CERTIFY_BEFORE["check"] if before else None,
        against="one process" if before else "",
        note=f"{check.cpu:.1f} s CPU",
    )
    table.add(
        "  both",
        count.wall + check.wall,
        "s",
        reference=sum(CERTIFY_BEFORE.values()) if before else None,
        goal="< 60 s at load 1",
    )


def sweep(table: benchlib.Table, max_n: int, work: Path) -> None:
    checkers = ["dratify", *(["drat-trim"] if shutil.which("drat-trim") else [])]
    for n in range(8, max_n + 1):
        plain = counted(n, "count", str(n), "--jobs", "2", "--quiet")
        d = work / f"c{n}"
        cert = counted(n, "count", str(n), "--jobs", "2", "--quiet", "--certify", str(d))
        table.add(f"N={n}: count --jobs 2", plain.wall, "s")
        table.add(
            f"N={n}: --certify ({size_mb(d):.2f} MB)", cert.wall, "s", reference=plain.wall, against="count --jobs 2"
        )
        for checker in checkers:
            check = counted(n, "check-count", str(d), "--checker", checker)
            table.add(f"N={n}: check-count ({checker})", check.wall, "s", note=f"{check.cpu:.1f} s CPU")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="1,000 runs and N = 10: a smoke run, not the targets")
    ap.add_argument(
        "--only",
        choices=("batch", "worker", "certify", "sweep"),
        action="append",
        help="the tables to print (default: batch and certify)",
    )
    ap.add_argument(
        "--max-n",
        type=int,
        default=12,
        choices=range(8, 14),
        metavar="{8..13}",
        help="the largest N of the sweep (default 12)",
    )
    ap.add_argument("--markdown", action="store_true", help="print the tables as Markdown (docs/performance.md)")
    args = ap.parse_args(argv)
    for part in args.only or ["batch", "certify"]:
        table = benchlib.Table(f"issue 33: {part}")
        with tempfile.TemporaryDirectory(prefix=f"bench-{part}.") as tmp:
            if part == "sweep":
                sweep(table, 10 if args.quick else args.max_n, Path(tmp))
            else:
                {"batch": batch, "worker": worker, "certify": certify}[part](table, args.quick, Path(tmp))
        table.print(markdown=args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
