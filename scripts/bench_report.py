#!/usr/bin/env python3
"""``report`` on a million-run store (issue 42, item 6): wall time, CPU time and peak memory.

The store is made here, without running anything: 4 solvers x 5 encodings x N = 8..27 x 5 shuffle seeds x
500 repeats (1,000,000 rows with ``--rows 1000000``, the default; fewer rows drop repeats), as a batch
writes them (``Store``: its schema, its machines table, one machine), each row true to the facts a report
checks (SAT answers verified and within the time limit, TIMEOUT answers unsolved).  About 1 in 10 runs
times out; times are drawn from a seeded generator, so the store is the same bytes each time.

Then ``report``, ``report --compare minisat kissat`` and ``report --spread`` on it, each its own process
(scripts/benchlib.py ``measure``: wall, the CPU of it, its peak RSS), the median of ``--repeat`` runs taken
side by side.  Goal: ``--compare`` and ``--spread`` within 30 s and 500 MB on a quiet 2-core machine, where
wall time is about CPU time; on a loaded one a process gets a fraction of a core, so ``--check`` holds the
CPU time and the peak memory to the goal (exit 1 otherwise) and the wall time is printed with the load.
``--before DIR``: the same reports by another version of the package (``DIR/cnfgen_queens``, on
PYTHONPATH), alternating with this one, as the reference of each figure (its ratio: this / that);
``--markdown``: the table for docs/performance.md; ``--keep DIR`` keeps the store (made again only when
missing).
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib

SOLVERS = ("minisat", "kissat", "cadical", "glucose")
ENCODINGS = ("pairwise", "sequential", "commander", "ladder", "product")
NS = range(8, 28)
SEEDS = range(5)
LIMIT = 60.0  # seconds, every run's time limit
FINGERPRINT = "0123456789abcdef"
GOAL = "< 30 s, < 500 MB"
GOAL_SECONDS, GOAL_MB = 30.0, 500.0  # --compare and --spread, CPU time (a quiet machine's wall time) and peak


def _rows(count: int) -> Iterator[tuple[Any, ...]]:
    """``count`` rows of the runs table, in the column order of ``Row`` (seeded: the same rows each time)."""
    from cnfgen_queens.experiments.row import COLUMNS

    rng = random.Random(42)
    cells = len(SOLVERS) * len(ENCODINGS) * len(NS) * len(SEEDS)
    repeats = max(1, -(-count // cells))
    made = 0
    for repeat in range(repeats):
        for si, solver in enumerate(SOLVERS):
            for ei, encoding in enumerate(ENCODINGS):
                for n in NS:
                    for seed in SEEDS:
                        if made == count:
                            return
                        base = 0.01 * n * n * (1 + 0.2 * si) * (1 + 0.1 * ei)
                        wall = base * rng.lognormvariate(0, 0.1)
                        solved = wall < LIMIT and rng.random() > 0.1
                        wall = wall if solved else LIMIT + rng.random()
                        values = {
                            "run_key": f"{made:016x}",
                            "config_hash": "c0ffee0123456789",
                            "experiment": "bench",
                            "task": "solve",
                            "n": n,
                            "encoding": encoding,
                            "group_size": None,
                            "column_alo": 0,
                            "shuffle_seed": seed,
                            "repeat": repeat,
                            "variables": n * n,
                            "clauses": 10 * n * n * n,
                            "solver": solver,
                            "solver_args": "[]",
                            "solver_version": "1.0",
                            "time_limit": LIMIT,
                            "memory_limit": None,
                            "status": "SAT" if solved else "TIMEOUT",
                            "wall": wall,
                            "cpu": wall * 0.98,
                            "peak_memory_mb": 20.0 + n,
                            "count": None,
                            "fundamental": None,
                            "verified": 1 if solved else None,
                            "host": "node1",
                            "started": f"2026-11-29T00:00:{made % 60:02d}.000000+00:00",
                            "finished": f"2026-11-29T00:01:{made % 60:02d}.000000+00:00",
                            "error": None,
                            "measured_by": "rusage",
                            "gbd_hash": None,
                            "variant": None,
                            "check_time": 0.001,
                            "total_wall": wall + 0.002,
                            "verdict": "solved" if solved else "unsolved",
                            "output_limit": 64,
                            "engine": None,
                            "machine": FINGERPRINT,
                            "load_avg": round(rng.uniform(0.5, 2.0), 2),
                            "checked": "model-verified" if solved else None,
                            "break_symmetry": 0,
                            "cores": None,
                        }
                        made += 1
                        yield tuple(values.get(c) for c in COLUMNS)  # a column added since: NULL


def make_store(path: Path, count: int) -> None:
    """The store of ``count`` runs at ``path`` (see the module's docstring)."""
    from cnfgen_queens.experiments.machine import Machine
    from cnfgen_queens.experiments.row import COLUMNS
    from cnfgen_queens.experiments.store import Store

    with Store(path) as store:  # its schema, as a batch makes it
        known = {"kernel": "6.1", "python": "3.11", "tool_version": "bench", "cgroups": False}
        info = {f: None for f in Machine.__dataclass_fields__} | known
        store.record_machine(FINGERPRINT, info)
        store.record_config("c0ffee0123456789", "bench", "bench_report.py", {"experiment": "bench"})
    with sqlite3.connect(path) as db:
        marks = ", ".join("?" * len(COLUMNS))
        db.executemany(f"INSERT INTO runs ({', '.join(COLUMNS)}) VALUES ({marks})", _rows(count))
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def measure(table: benchlib.Table, db: Path, repeat: int, before: Path | None = None) -> list[str]:
    """The figures of each report on ``db`` (with ``before``, beside that version's); what misses the goal."""
    cli = str(benchlib.BIN / "cnfgen-queens")
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    size = db.stat().st_size / 2**20
    reports = {
        "report": [cli, "report", str(db)],
        "report --compare minisat kissat": [cli, "report", str(db), "--compare", "minisat", "kissat"],
        "report --spread": [cli, "report", str(db), "--spread"],
    }
    cases: dict[str, benchlib.Case] = dict(reports)
    if before is not None:
        env = {**os.environ, "PYTHONPATH": str(before)}
        cases |= {f"{name} (before)": _run(argv, env) for name, argv in reports.items()}
    runs = benchlib.side_by_side(cases, repeat)
    missed = []
    for name in reports:
        run, then = runs[name], runs.get(f"{name} (before)")
        goal = GOAL if name != "report" else ""
        peak = f"peak {run.peak_mb:.0f} MB" + (f" (before {then.peak_mb:.0f} MB)" if then else "")
        reference = {"reference": then.wall, "against": "before"} if then else {}
        table.add(f"{name}, {rows:,} runs ({size:.0f} MB)", run.wall, "s", goal=goal, note=peak, **reference)
        reference = {"reference": then.cpu, "against": "before"} if then else {}
        table.add("  CPU of it", run.cpu, "s", goal=goal and f"< {GOAL_SECONDS:g} s", **reference)
        if goal and (run.cpu >= GOAL_SECONDS or run.peak_mb >= GOAL_MB):
            missed.append(f"{name}: {run.cpu:.1f} s CPU, {run.peak_mb:.0f} MB (goal {GOAL})")
    return missed


def _run(argv: list[str], env: dict[str, str]) -> benchlib.Case:
    return lambda: benchlib.measure(argv, env=env)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--rows", type=int, default=1_000_000, help="runs in the store (default 1,000,000)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each report, side by side (the median; default 1)")
    ap.add_argument("--keep", type=Path, help="make the store in this directory and keep it (reused when there)")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown (docs/performance.md)")
    ap.add_argument(
        "--before",
        type=Path,
        metavar="DIR",
        help="also run DIR/cnfgen_queens (another version, on PYTHONPATH), alternating: the reference",
    )
    ap.add_argument(
        "--check",
        action="store_true",
        help=f"exit 1 when --compare or --spread takes {GOAL_SECONDS:g} s of CPU or {GOAL_MB:g} MB or more",
    )
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-report.") as tmp:
        where = args.keep or Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        db = where / f"r{args.rows}.sqlite"
        if not db.exists():
            made = benchlib.call(lambda: make_store(db, args.rows))
            print(f"made {db} in {made.wall:.1f} s", file=sys.stderr)
        table = benchlib.Table("issue 42: report on a million-run store")
        missed = measure(table, db, args.repeat, args.before)
        table.print(markdown=args.markdown)
    for line in missed:
        print(f"goal missed: {line}", file=sys.stderr)
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
