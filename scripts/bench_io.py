#!/usr/bin/env python3
"""Issue 10's figures (the I/O section of scripts/bench.py), measured in one run and printed as a benchlib table.

1. The streaming model check on the N = 300 pairwise CNF (708 MB): its time beside ``wc -l`` on the same
   file, MB/s, and peak RSS (targets: >= 100 MB/s, <= ~200 MB).
2. ``cnfgen-queens solve q300.cnf --time-limit 2`` with kissat and with the embedded default: the
   whole command's wall time and peak RSS (was 65-100 s and 3.5-3.8 GB; bare kissat 2.05 s, 159 MB).
3. ``decode`` of a 1 GB answer of v lines (was over 300 s and 6.1 GB).
4. ``gen-queens 10000 -e sequential`` and ``-e commander`` to /dev/null: peak RSS (target <= 200 MB;
   sequential was 7.6 GB).

Each command runs once under scripts/benchlib.py's ``measure``: wall time, and peak RSS of the largest
process of its tree (``ru_maxrss`` of ``wait4``: the tool or the solver it started).
``--quick`` uses N = 120, a 50 MB answer and N = 1500 (a smoke run, not the targets).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib

BIN = benchlib.BIN

CHECK = """
import json, sys, time
from pathlib import Path
from cnfgen_queens.cnf.scan import CnfFile
from cnfgen_queens.solvers import check_model
path, n = Path(sys.argv[1]), int(sys.argv[2])
half = n // 2  # the classic construction for n even, n % 6 != 2: (i, 2i+1) and (half+i, 2i), 0-based
cols = [2 * i + 1 for i in range(half)] + [2 * i for i in range(half)]
model = [r * n + c + 1 for r, c in enumerate(cols)]
start = time.perf_counter()
full, error = check_model(CnfFile(path, path.name), model)
print(json.dumps({"seconds": time.perf_counter() - start, "error": error}))
"""


def measured(argv: list[str]) -> benchlib.Sample:
    """One run of ``argv``, its output captured, whatever its exit status (the figures quote it)."""
    return benchlib.measure(argv, capture=True, check=False)


def check_figures(table: benchlib.Table, cnf: Path, n: int) -> None:
    size_mb = cnf.stat().st_size / 1e6
    subprocess.run(["cat", str(cnf)], stdout=subprocess.DEVNULL, check=True)  # both start from the page cache
    wc = benchlib.measure(["wc", "-l", str(cnf)]).wall
    run = measured([sys.executable, "-c", CHECK, str(cnf), str(n)])
    record = json.loads(run.stdout)
    if run.code != 0 or record["error"] is not None:
        raise SystemExit(f"check failed: {run.code} {record}")
    seconds = record["seconds"]
    table.add(
        f"model check of {cnf.name} ({size_mb:.0f} MB)",
        seconds,
        "s",
        reference=wc,
        against="wc -l",
        note=f"{size_mb / seconds:.0f} MB/s, wc -l {size_mb / wc:.0f} MB/s",
    )
    table.add("  MB/s", size_mb / seconds, "MB/s", goal=">= 100 MB/s")
    table.add("  peak RSS", run.tree_peak_mb, "MB", goal="<= ~200 MB")


def solve_figures(table: benchlib.Table, cnf: Path) -> None:
    cq = str(BIN / "cnfgen-queens")
    path = subprocess.run([cq, "solvers", "--path", "kissat"], capture_output=True, text=True).stdout.strip()
    bare = measured(["timeout", "2", path, str(cnf)]) if path else None
    run = measured([cq, "solve", str(cnf), "--solver", "kissat", "--time-limit", "2", "--json"])
    record = json.loads(run.stdout)
    name = f"solve {cnf.name} --solver kissat --time-limit 2"
    table.add(
        name,
        run.wall,
        "s",
        reference=bare.wall if bare else None,
        against="bare kissat under timeout 2" if bare else "",
        note=f"{record['status']}, solver wall "
        f"{record['wall']:.2f} s, reported {record['command_wall']:.2f} s, exit {run.code}",
    )
    table.add(
        "  peak RSS",
        run.tree_peak_mb,
        "MB",
        reference=bare.tree_peak_mb if bare else None,
        against="bare kissat" if bare else "",
    )
    run = measured([cq, "solve", str(cnf), "--time-limit", "2", "--json"])  # the default solver
    record = json.loads(run.stdout)
    table.add(
        f"solve {cnf.name} --time-limit 2 (embedded pysat:cadical195)",
        run.wall,
        "s",
        note=f"{record['status']}, solver wall {record['wall']:.2f} s, exit {run.code}",
    )
    table.add("  peak RSS", run.tree_peak_mb, "MB")
    # a solver that fails at once: the command then validates the whole file, so the peak is its own
    run = measured([cq, "solve", str(cnf), "--solver", "kissat", "--solver-args=--no-such", "--json"])
    checked = json.loads(run.stdout)["check_time"]  # null when the command did not validate the file
    said = "no check" if checked is None else f"check {checked:.2f} s"
    table.add(
        f"solve {cnf.name} with a solver failing at once, then validating the file",
        run.wall,
        "s",
        note=f"{said}, exit {run.code}",
    )
    table.add("  peak RSS", run.tree_peak_mb, "MB")


def decode_figures(table: benchlib.Table, size: int, work: Path) -> None:
    """decode of an answer of ``size`` bytes of v lines (N = 8 queens among auxiliary literals)."""
    answer = work / "answer.txt"
    line = b"v " + b" ".join(b"-%d" % v for v in range(100_000, 100_012)) + b"\n"
    with open(answer, "wb") as f:
        f.write(b"s SATISFIABLE\nv 4 15 21 26 38 41 51 64\n")
        block = line * (1 << 14)
        for _ in range(max(1, size // len(block))):
            f.write(block)
        f.write(b"v 0\n")
    mb = answer.stat().st_size / 1e6
    run = measured([str(BIN / "cnfgen-queens"), "decode", str(answer), "-n", "8"])
    table.add(
        f"decode of a {mb:.0f} MB answer",
        run.wall,
        "s",
        against="was > 300 s for 1 GB",
        note=f"{mb / run.wall:.0f} MB/s, exit {run.code}",
    )
    table.add("  peak RSS", run.tree_peak_mb, "MB", against="was 6.1 GB for 1 GB")
    answer.unlink()


def generator_figures(table: benchlib.Table, n: int) -> None:
    for encoding in ("sequential", "commander"):
        run = measured([str(BIN / "gen-queens"), str(n), "-e", encoding, "-o", "/dev/null"])
        table.add(
            f"gen-queens {n} -e {encoding} > /dev/null: peak RSS",
            run.tree_peak_mb,
            "MB",
            goal="<= 200 MB",
            note=f"{run.wall:.1f} s, exit {run.code}",
        )


def tables(quick: bool, work: Path) -> Iterator[benchlib.Table]:
    """The figures, one table a part, each handed over when done."""
    n, big = (120, 1500) if quick else (300, 10000)
    cnf = work / f"q{n}.cnf"
    subprocess.run([str(BIN / "gen-queens"), str(n), "-o", str(cnf)], check=True)
    decode_size = 50 * 10**6 if quick else 10**9
    yield from benchlib.parts(
        "issue 10 I/O",
        (
            ("model check", lambda t: check_figures(t, cnf, n)),
            ("solve", lambda t: solve_figures(t, cnf)),
            ("decode", lambda t: decode_figures(t, decode_size, work)),
            ("generator", lambda t: generator_figures(t, big)),
        ),
    )


def io_figures(quick: bool, work: Path) -> Iterator[str]:
    """The tables' lines (scripts/bench.py ``--only io``)."""
    return benchlib.lines(tables(quick, work))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="N = 120, a 50 MB answer, N = 1500: a smoke run")
    ap.add_argument("--markdown", action="store_true", help="print the tables as Markdown (docs/performance.md)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-io.") as tmp:
        for table in tables(args.quick, Path(tmp)):
            table.print(markdown=args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
