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
   100,000-row store (the 10,000 rows ten times over, other keys).

Timed by scripts/benchlib.py: each command's wall, CPU and peak RSS are its own (``wait4``; VmHWM), the
functions of this process by ``benchlib.call``; the dry runs and the hashes are medians of ``--repeat`` runs
taken side by side (the cases alternating within each round).  Each part prints a benchlib table, with the
load average at its start and end (``--markdown``: for docs).
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
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


def to_files(argv: list[str], out: Path, err: Path) -> list[str]:
    """``argv`` with its stdout to ``out`` and its stderr to ``err``, through a shell that execs it: the same
    process, so ``wait4`` and the peak are the command's own, and no output held in this process."""
    return ["sh", "-c", 'o=$1; e=$2; shift 2; exec "$@" > "$o" 2> "$e"', "sh", str(out), str(err), *argv]


def dry_runs(table: benchlib.Table, work: Path, repeats: int) -> None:
    texts = configs(work)
    cases: dict[str, benchlib.Case] = {}
    said: dict[str, tuple[Path, Path]] = {}
    for i, (name, text) in enumerate(texts.items()):
        path, out, err = work / f"c{i}.yaml", work / f"c{i}.out", work / f"c{i}.err"
        path.write_text(text)
        cases[name] = to_files([str(BIN / "cnfgen-queens"), "batch", str(path), "--dry-run"], out, err)
        said[name] = (out, err)
    runs = benchlib.side_by_side(cases, repeats, check=False)  # the refused ones exit 2
    for name, run in runs.items():
        out, err = said[name]
        with open(out, errors="replace") as f:
            first = f.readline()
        message = (err.read_text(errors="replace").strip() or first.strip()).replace(f"{work}/", "")[:100]
        codes = sorted({s.code for s in run.samples})
        table.add(
            f"dry-run {name}",
            run.wall,
            "s",
            goal="< 10 s" if name.startswith("1,000,000") else "",
            note=f"{run.cpu:.2f} s CPU, {run.peak_mb or run.tree_peak_mb:.0f} MB, {len(texts[name]):,} bytes, "
            f"exit {'/'.join(map(str, codes))}: {message}",
        )
        out.unlink()


def hashing(table: benchlib.Table, quick: bool, work: Path, repeats: int) -> None:
    from cnfgen_queens.cnf.gbd_hash import gbd_hash

    n = 40 if quick else 150
    cnf = work / f"q{n}.cnf"
    write = [str(BIN / "gen-queens"), str(n), "-o", str(cnf)]
    subprocess.run(write, check=True)  # the file to hash (and in the page cache for every case)
    hashes: dict[str, str] = {}

    def sha256() -> None:
        with open(cnf, "rb") as f:
            hashlib.file_digest(f, "sha256")

    cases: dict[str, benchlib.Case] = {
        "our GBD hash": benchlib.in_process(lambda: hashes.__setitem__("ours", gbd_hash(cnf))),
        "sha256 of the bytes": benchlib.in_process(sha256),
        "gen-queens -o (write again)": write,
    }
    try:
        import gbdc

        cases["gbdc.gbdhash (GBD's C++)"] = benchlib.in_process(
            lambda: hashes.__setitem__("gbdc", gbdc.gbdhash(str(cnf)))
        )
    except ImportError:
        table.title += " (no gbdc)"
    runs = benchlib.side_by_side(cases, repeats)
    if "gbdc" in hashes and hashes["gbdc"] != hashes["ours"]:
        raise SystemExit(f"GBD hash differs from gbdc's: {hashes['ours']} against {hashes['gbdc']}")
    size = cnf.stat().st_size / 1e6
    ours = runs["our GBD hash"].wall
    for name, run in runs.items():
        table.add(
            f"pairwise N={n} ({size:.0f} MB): {name}",
            run.wall,
            "s",
            reference=None if name == "our GBD hash" else ours,
            against="" if name == "our GBD hash" else "ours",
            note=f"{size / run.wall:.0f} MB/s, {run.cpu:.2f} s CPU, median of {repeats}",
        )


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


def shell_loop(db: Path, work: Path, count: int) -> tuple[benchlib.Sample, int]:
    """The first ``count`` runs of the batch made again by a plain shell loop over ``solve``: its sample and
    how many runs it made."""
    with sqlite3.connect(db) as con:
        files = [
            r[0]
            for r in con.execute(
                "SELECT i.file FROM runs r JOIN instances i ON r.gbd_hash = i.gbd_hash ORDER BY r.finished LIMIT ?",
                (count,),
            )
        ]
    listing = work / "loop.txt"
    listing.write_text("".join(f"{db.parent / 'cnf-cache' / f}\n" for f in files))
    script = (
        f'while read -r f; do "{BIN / "cnfgen-queens"}" solve --solver pysat:cadical195 -t 10 --no-model "$f"'
        f" > /dev/null; done < {listing}"
    )
    return benchlib.measure(["bash", "-c", script], check=False), len(files)


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


def store_growth(table: benchlib.Table, db: Path, work: Path, rows: int) -> None:
    """The coordinator's write of one row (``Store.add``, what each finished run costs it) as the store grows
    to ``rows`` rows: microseconds per row of the first and of the last thousand, and the worst thousand."""
    from dataclasses import replace

    from cnfgen_queens.experiments.store import Store

    with Store(db, readonly=True) as src:
        model = src.rows()[0]
    per: list[float] = []
    with Store(work / "growth.sqlite") as store:

        def thousand(start: int) -> Callable[[], None]:
            def add() -> None:
                for i in range(start, start + 1000):
                    store.add(replace(model, run_key=f"{i:016x}", repeat=i))

            return add

        for start in range(0, rows, 1000):
            per.append(benchlib.call(thousand(start)).wall / 1000 * 1e6)
    what = f"Store.add as the store grows to {max(rows, 1000):,} rows"
    table.add(f"{what}: the first thousand", per[0], "us/row", note="a finished run's cost to the coordinator")
    table.add("  the last thousand", per[-1], "us/row", reference=per[0], against="the first", goal="no slow-down")
    table.add("  the worst thousand", max(per), "us/row", reference=per[0], against="the first")


def scale(table: benchlib.Table, work: Path, repeats: int, loop_runs: int) -> None:
    db = work / "r.sqlite"
    config = work / "scale.yaml"
    config.write_text(SCALE.replace("REPEATS", str(repeats)).replace("RESULTS", str(db)))
    cli = str(BIN / "cnfgen-queens")
    run = benchlib.measure([cli, "batch", str(config), "--jobs", "2", "--no-progress"], check=False)
    with sqlite3.connect(db) as con:
        runs = con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    loop, looped = shell_loop(db, work, loop_runs)
    batch_rate, loop_rate = runs / run.wall, looped / loop.wall
    table.add(
        f"batch, {runs:,} runs, --jobs 2",
        batch_rate,
        "runs/s",
        reference=loop_rate,
        against="the shell loop",
        note=f"{run.wall:.1f} s wall, exit {run.code}",
    )
    table.add("  coordinator peak memory", run.peak_mb, "MB")
    thousands = per_thousand(db)
    for i, (rate, n, per_run) in enumerate(thousands, 1):
        table.add(
            f"  thousand {i} (N={n}, {per_run * 1000:.0f} ms a run in the worker)",
            rate,
            "runs/s",
            reference=None if i == 1 else thousands[0][0],
            against="" if i == 1 else "the first",
        )
    minutes = 10_000 / loop_rate / 60
    table.add(
        f"shell loop over `cnfgen-queens solve`, the first {looped} of those runs",
        loop_rate,
        "runs/s",
        note=f"{loop.wall:.1f} s; 10,000 runs would take {minutes:.0f} min",
    )
    store_growth(table, db, work, 10 * runs)
    million = work / "million.yaml"
    million.write_text(
        SCALE.replace("{from: 4, to: 8}", "[8, 9, 10, 11, 12]")
        .replace("[pairwise, sequential, commander, ladder]", "all")
        .replace("REPEATS", "12500")
        .replace("RESULTS", str(work / "m.sqlite"))
    )
    run = benchlib.measure([cli, "batch", str(million), "--dry-run"], check=False)
    table.add(
        "--dry-run of 1,000,000 runs",
        run.wall,
        "s",
        goal="< 10 s, < 500 MB",
        note=f"{run.cpu:.1f} s CPU, peak {run.peak_mb:.0f} MB, exit {run.code}",
    )
    big = hundred_thousand(db, work)
    with sqlite3.connect(big) as con:
        rows = con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    run = benchlib.measure([cli, "report", str(big)], check=False)
    table.add(
        f"report on {rows:,} rows",
        run.wall,
        "s",
        note=f"{run.cpu:.1f} s CPU, peak {run.peak_mb:.0f} MB, exit {run.code}",
    )
    run = benchlib.measure([cli, "report", str(big), "--html", str(work / "html")], check=False)
    size = sum(f.stat().st_size for f in (work / "html").iterdir()) / 1e6
    table.add(
        f"report --html on {rows:,} rows",
        run.wall,
        "s",
        note=f"{run.cpu:.1f} s CPU, peak {run.peak_mb:.0f} MB, exit {run.code}, {size:.0f} MB written",
    )


def tables(quick: bool, work: Path, repeats: int) -> Iterator[benchlib.Table]:
    """The dry runs' and the hashes' tables (figures 1 and 2), each handed over when done."""
    for title, part in (
        (f"batch --dry-run, median of {repeats}", lambda t: dry_runs(t, work, repeats)),
        (f"the instance hash, median of {repeats}", lambda t: hashing(t, quick, work, repeats)),
    ):
        table = benchlib.Table(f"issue 11: {title}")
        part(table)
        yield table


def figures(quick: bool, repeats: int | None = None) -> list[str]:
    """The tables' lines (scripts/bench.py ``--only batch``)."""
    with tempfile.TemporaryDirectory(prefix="bench-batch.") as tmp:
        return [
            line
            for table in tables(quick, Path(tmp), repeats or (1 if quick else 3))
            for line in table.render().splitlines()
        ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="a smaller file to hash, one repeat; with --scale, 1,000 runs")
    ap.add_argument("--scale", action="store_true", help="only the figures of the coordinator at scale (3.)")
    ap.add_argument("--loop-runs", type=int, default=300, help="runs of the shell loop (--scale; default 300)")
    ap.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="runs of each dry run and hash, side by side (the median; default 3, --quick 1)",
    )
    ap.add_argument("--markdown", action="store_true", help="print the tables as Markdown (docs/performance.md)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-batch.") as tmp:
        if args.scale:
            table = benchlib.Table("issue 25: the coordinator at scale")
            scale(table, Path(tmp), 50 if args.quick else 500, args.loop_runs)
            table.print(markdown=args.markdown)
            return 0
        for table in tables(args.quick, Path(tmp), args.repeat or (1 if args.quick else 3)):
            table.print(markdown=args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
