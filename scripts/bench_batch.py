#!/usr/bin/env python3
"""Batch figures of issues 11 and 25, side by side in one run.

1. ``batch --dry-run`` wall time of the configs that hung or blew up before (each now refused at once)
   and of the largest configs the limits allow (1,000,000 runs; N = 256 with every encoding).
2. The instance hash of a cached CNF: our GBD hash, GBD's own ``gbdc`` (C++), plain SHA-256 of the bytes,
   and writing the file again with ``gen-queens -o``, on the same file.
3. ``--scale``: the coordinator at scale.  A 10,000-run batch (N = 4..8, 4 encodings, 500 repeats, the
   embedded solver, ``--jobs 2``): runs/s of each thousand (from the stored ``finished`` times) and the
   coordinator's peak memory; the first runs of the same grid as a plain shell loop over
   ``cnfgen-queens solve``; a 1,000,000-run ``--dry-run``; ``report`` and ``report --html`` on a
   100,000-row store (the 10,000 rows ten times over, other keys).  The machine's load is printed too.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib

BIN = benchlib.BIN
BASE = "instances:\n  n: N\n  encodings: ENC\nsolvers: [pysat:cadical195]\nlimits: {time: 10}\nresults: RESULTS\n"


def _bomb(width: int = 9, depth: int = 9) -> str:
    lines = [f"l0: &l0 [{', '.join(['lol'] * width)}]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]" for i in range(1, depth)]
    return "\n".join(lines) + "\n"


def configs(work: Path) -> dict[str, str]:
    def base(n: str, enc: str = "[pairwise]", extra: str = "") -> str:
        return BASE.replace("N", n, 1).replace("ENC", enc).replace("RESULTS", str(work / "r.sqlite")) + extra

    seeds = ", ".join(map(str, range(1800)))  # what fits in 10 KB
    return {
        "9x9 YAML alias bomb (refused)": _bomb(),
        "n: [99999999999999999999] (refused)": base("[99999999999999999999]"),
        "n: {from: 1, to: 1000000000} (refused)": base("{from: 1, to: 1000000000}"),
        "repeats: 1000000000 (refused)": base("[8]", extra="repeats: 1000000000\n"),
        "20,000 shuffle_seeds (allowed)": base("[8]").replace(
            "  encodings", f"  shuffle_seeds: [{', '.join(map(str, range(20_000)))}]\n  encodings"
        ),
        "1,800 shuffle_seeds, 10 KB (allowed)": base("[8]").replace(
            "  encodings", f"  shuffle_seeds: [{seeds}]\n  encodings"
        ),
        "1,000,000 runs: 5 N x 16 encodings x 12500 repeats (allowed)": base(
            "[8, 9, 10, 11, 12]", "all", "repeats: 12500\n"
        ),
        "N = 200, every encoding (allowed; PySAT counts measured)": base("[200]", "all"),
        "n: {from: 1, to: 631}, sum of N 199,396 (allowed)": base("{from: 1, to: 631}"),
    }


def dry_runs(work: Path) -> list[str]:
    out = []
    for name, text in configs(work).items():
        path = work / "c.yaml"
        path.write_text(text)
        t0, cpu0 = time.perf_counter(), os.times()
        proc = subprocess.run(
            [str(BIN / "cnfgen-queens"), "batch", str(path), "--dry-run"], capture_output=True, check=False
        )
        wall, cpu1 = time.perf_counter() - t0, os.times()
        cpu = cpu1.children_user + cpu1.children_system - cpu0.children_user - cpu0.children_system
        said = (proc.stderr.decode().strip() or proc.stdout.decode().splitlines()[0])[:100]
        size, code = len(text), proc.returncode
        out.append(f"dry-run {name}: {wall:.2f} s wall, {cpu:.2f} s CPU, {size:,} bytes, exit {code}: {said}")
    return out


def hashing(quick: bool, work: Path) -> list[str]:
    from cnfgen_queens.cnf.gbd_hash import gbd_hash

    n = 40 if quick else 150
    cnf = work / f"q{n}.cnf"
    t0 = time.perf_counter()
    subprocess.run([str(BIN / "gen-queens"), str(n), "-o", str(cnf)], check=True)
    figures = {"gen-queens -o (write again)": time.perf_counter() - t0}
    t0 = time.perf_counter()
    ours = gbd_hash(cnf)
    figures["our GBD hash"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    with open(cnf, "rb") as f:
        hashlib.file_digest(f, "sha256")
    figures["sha256 of the bytes"] = time.perf_counter() - t0
    try:
        import gbdc

        t0 = time.perf_counter()
        theirs = gbdc.gbdhash(str(cnf))
        figures["gbdc.gbdhash (GBD's C++)"] = time.perf_counter() - t0
        assert theirs == ours, (theirs, ours)
    except ImportError:
        pass
    size = cnf.stat().st_size / 1e6
    ref = figures["our GBD hash"]
    return [f"pairwise N={n} ({size:.0f} MB): {k} {v:.2f} s (x{v / ref:.2f} of ours)" for k, v in figures.items()]


SCALE = """experiment: scale
instances:
  n: {from: 4, to: 8}
  encodings: [pairwise, sequential, commander, ladder]
solvers: [pysat:cadical195]
limits: {time: 10}
repeats: REPEATS
results: RESULTS
"""


def per_thousand(db: Path) -> list[tuple[float, str, float]]:
    """(runs/s, its N, the worker's mean seconds per run) of each thousand runs in the order they finished
    (from the stored ``finished`` and ``total_wall``): the batch runs the smallest N first."""
    from datetime import datetime

    with sqlite3.connect(db) as con:
        rows = sorted(
            (datetime.fromisoformat(f).timestamp(), n, wall or 0.0)
            for f, n, wall in con.execute("SELECT finished, n, total_wall FROM runs")
        )
    out = []
    for i in range(0, len(rows), 1000):
        if len(c := rows[i : i + 1000]) > 1:
            ns = sorted({r[1] for r in c})
            out.append(((len(c) - 1) / (c[-1][0] - c[0][0]), "/".join(map(str, ns)), sum(r[2] for r in c) / len(c)))
    return out


def shell_loop(db: Path, work: Path, count: int) -> tuple[float, int]:
    """(wall s, runs) of the first ``count`` runs of the batch made again by a plain shell loop over ``solve``."""
    with sqlite3.connect(db) as con:
        files = [r[0] for r in con.execute(
            "SELECT i.file FROM runs r JOIN instances i ON r.gbd_hash = i.gbd_hash ORDER BY r.finished LIMIT ?",
            (count,))]  # fmt: skip
    listing = work / "loop.txt"
    listing.write_text("".join(f"{db.parent / 'cnf-cache' / f}\n" for f in files))
    script = (
        f'while read -r f; do "{BIN / "cnfgen-queens"}" solve --solver pysat:cadical195 -t 10 --no-model "$f"'
        f" > /dev/null; done < {listing}"
    )
    t0 = time.perf_counter()
    subprocess.run(["bash", "-c", script], check=False)
    return time.perf_counter() - t0, len(files)


def hundred_thousand(db: Path, work: Path) -> Path:
    """A 100,000-row store: the batch's 10,000 rows ten times over, with other run keys and repeats."""
    big = work / "r100k.sqlite"
    with sqlite3.connect(db) as src:
        src.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copy(db, big)
    with sqlite3.connect(big) as con:
        columns = [r[1] for r in con.execute("PRAGMA table_info(runs)")]
        for i in range(1, 10):
            picked = ", ".join(
                f"run_key || '-{i}'" if c == "run_key" else f"repeat + {i * 100_000}" if c == "repeat" else c
                for c in columns
            )
            con.execute(f"INSERT INTO runs SELECT {picked} FROM runs WHERE run_key NOT LIKE '%-%'")
    return big


def store_growth(db: Path, work: Path, rows: int) -> str:
    """The coordinator's write of one row (``Store.add``, what each finished run costs it) as the store grows
    to ``rows`` rows: microseconds per row of the first and of the last thousand, and the worst thousand."""
    from dataclasses import replace

    from cnfgen_queens.experiments.store import Store

    with Store(db, readonly=True) as src:
        model = src.rows()[0]
    per: list[float] = []
    with Store(work / "growth.sqlite") as store:
        for start in range(0, rows, 1000):
            t0 = time.perf_counter()
            for i in range(start, start + 1000):
                store.add(replace(model, run_key=f"{i:016x}", repeat=i))
            per.append((time.perf_counter() - t0) / 1000 * 1e6)
    return (
        f"Store.add as the store grows to {rows:,} rows: {per[0]:.0f} us/row for the first thousand, "
        f"{per[-1]:.0f} for the last, {max(per):.0f} at worst (a finished run's cost to the coordinator)"
    )


def scale(work: Path, repeats: int, loop_runs: int) -> list[str]:
    db = work / "r.sqlite"
    config = work / "scale.yaml"
    config.write_text(SCALE.replace("REPEATS", str(repeats)).replace("RESULTS", str(db)))
    cli = str(BIN / "cnfgen-queens")
    out = [f"load before: {Path('/proc/loadavg').read_text().split()[:3]} on {os.cpu_count()} cores"]
    run = benchlib.measure([cli, "batch", str(config), "--jobs", "2", "--no-progress"], check=False)
    wall, peak, code = run.wall, run.peak_mb, run.code
    with sqlite3.connect(db) as con:
        runs = con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    thousands = per_thousand(db)
    rates = [r for r, _, _ in thousands]
    shown = ", ".join(f"{r:.0f} (N={n}, {w * 1000:.0f} ms)" for r, n, w in thousands)
    out.append(f"batch {runs:,} runs (--jobs 2): {wall:.1f} s wall, {runs / wall:.0f} runs/s, coordinator peak "
               f"{peak:.0f} MB, exit {code}; per thousand, runs/s (N, worker's time per run): {shown}; "
               f"last/first {rates[-1] / rates[0]:.2f}")  # fmt: skip
    out.append(store_growth(db, work, 10 * runs))
    loop_wall, looped = shell_loop(db, work, loop_runs)
    out.append(f"shell loop over `cnfgen-queens solve`, the first {looped} of those runs: {loop_wall:.1f} s, "
               f"{looped / loop_wall:.1f} runs/s (batch x{runs / wall / (looped / loop_wall):.0f}); "
               f"10,000 runs would take {10_000 * loop_wall / looped / 60:.0f} min")  # fmt: skip
    million = work / "million.yaml"
    million.write_text(
        SCALE.replace("{from: 4, to: 8}", "[8, 9, 10, 11, 12]")
        .replace("[pairwise, sequential, commander, ladder]", "all")
        .replace("REPEATS", "12500").replace("RESULTS", str(work / "m.sqlite"))
    )  # fmt: skip
    run = benchlib.measure([cli, "batch", str(million), "--dry-run"], check=False)
    out.append(f"--dry-run of 1,000,000 runs: {run.wall:.1f} s wall, {run.cpu:.1f} s CPU, peak {run.peak_mb:.0f} MB, "
               f"exit {run.code}")  # fmt: skip
    big = hundred_thousand(db, work)
    with sqlite3.connect(big) as con:
        rows = con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    run = benchlib.measure([cli, "report", str(big)], check=False)
    out.append(f"report on {rows:,} rows: {run.wall:.1f} s wall, {run.cpu:.1f} s CPU, peak {run.peak_mb:.0f} MB, "
               f"exit {run.code}")  # fmt: skip
    run = benchlib.measure([cli, "report", str(big), "--html", str(work / "html")], check=False)
    size = sum(f.stat().st_size for f in (work / "html").iterdir()) / 1e6
    out.append(f"report --html on {rows:,} rows: {run.wall:.1f} s wall, {run.cpu:.1f} s CPU, peak {run.peak_mb:.0f} "
               f"MB, exit {run.code}, {size:.0f} MB written")  # fmt: skip
    out.append(f"load after: {Path('/proc/loadavg').read_text().split()[:3]}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="a smaller file to hash; with --scale, 1,000 runs")
    ap.add_argument("--scale", action="store_true", help="only the figures of the coordinator at scale (3.)")
    ap.add_argument("--loop-runs", type=int, default=300, help="runs of the shell loop (--scale; default 300)")
    args = ap.parse_args(argv)
    if args.scale:
        with tempfile.TemporaryDirectory(prefix="bench-batch.") as tmp:
            for line in scale(Path(tmp), 50 if args.quick else 500, args.loop_runs):
                print(line, flush=True)
        return 0
    for line in figures(args.quick):
        print(line, flush=True)
    return 0


def figures(quick: bool) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="bench-batch.") as tmp:
        return dry_runs(Path(tmp)) + hashing(quick, Path(tmp))


if __name__ == "__main__":
    sys.exit(main())
