#!/usr/bin/env python3
"""executor slurm against the local pool and Dask's LocalCluster, side by side in one run (issue 25).

The same grid (N 4..8, three encodings, two embedded solvers, ``--repeats`` repeats) runs with
``--executor local --jobs J``, ``--executor dask --jobs J`` (a LocalCluster of J workers) and with
``executor: slurm`` on J single-core jobs of the cluster that
``SLURM_CONF`` names (default: ``scripts/slurm-local.sh``'s).  Each batch is one command timed by
scripts/benchlib.py (``measure``); a benchlib table prints the wall time of each batch beside the local
pool's, runs per second, and the seconds until the first result (for SLURM: submission, job start, worker
start-up).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib

ROOT = Path(__file__).resolve().parent.parent
CONFIG = """experiment: bench
instances: {n: {from: 4, to: 8}, encodings: [pairwise, sequential, commander]}
solvers: [pysat:cadical195, pysat:minisat22]
limits: {time: 20, memory: 1024}
repeats: REPEATS
results: RESULTS
executor: EXECUTOR
slurm: {jobs: JOBS}
"""


def first_row(db: Path, t0: float, box: list[float], stop: threading.Event) -> None:
    """Seconds from ``t0`` until ``db`` holds a run (polled every 50 ms)."""
    while not stop.is_set():
        try:
            with sqlite3.connect(db) as con:
                if con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]:
                    box.append(time.perf_counter() - t0)
                    return
        except sqlite3.Error:
            pass
        time.sleep(0.05)


def batch(work: Path, executor: str, jobs: int, repeats: int) -> tuple[float, float | None, int]:
    """(wall seconds, seconds until the first result or None, runs stored) of one batch."""
    db = work / executor / "r.sqlite"
    cfg = work / f"{executor}.yaml"
    text = CONFIG.replace("REPEATS", str(repeats)).replace("RESULTS", str(db)).replace("EXECUTOR", executor)
    cfg.write_text(text.replace("JOBS", str(jobs)))
    db.parent.mkdir(parents=True)
    box: list[float] = []
    stop = threading.Event()
    t0 = time.perf_counter()
    watcher = threading.Thread(target=first_row, args=(db, t0, box, stop), daemon=True)
    watcher.start()
    cmd = [sys.executable, "-m", "cnfgen_queens", "batch", str(cfg), "--jobs", str(jobs), "--no-progress"]
    try:
        run = benchlib.measure(cmd, cwd=work)  # a failed batch ends the benchmark with its stderr
    finally:
        stop.set()
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    return run.wall, (box[0] if box else None), rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    p.add_argument("--jobs", type=int, default=2, help="local workers and SLURM jobs (default 2)")
    p.add_argument("--repeats", type=int, default=40, help="repeats of the 30-instance grid (default 40)")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown (docs/batch.md)")
    args = p.parse_args(argv)
    if "SLURM_CONF" not in os.environ:  # this checkout's cluster (scripts/slurm-local.sh env names it)
        script = Path(__file__).with_name("slurm-local.sh")
        line = subprocess.run(["bash", str(script), "env"], capture_output=True, text=True, check=True).stdout
        os.environ["SLURM_CONF"] = line.strip().removeprefix("export SLURM_CONF=")
    table = benchlib.Table(f"executors: {30 * args.repeats} runs, --jobs {args.jobs}")
    local = None
    with tempfile.TemporaryDirectory(prefix="bench-slurm-") as tmp:
        for executor in ("local", "dask", "slurm"):
            wall, first, rows = batch(Path(tmp), executor, args.jobs, args.repeats)
            local = wall if local is None else local
            on = f"{args.jobs} {'jobs' if executor == 'slurm' else 'workers'}"
            table.add(
                f"--executor {executor}, {rows} runs on {on}",
                wall,
                "s",
                reference=None if executor == "local" else local,
                against="" if executor == "local" else "local",
                note=f"{rows / wall:.0f} runs/s",
            )
            if first is not None:
                table.add("  first result after", first, "s")
    table.print(markdown=args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
