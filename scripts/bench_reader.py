#!/usr/bin/env python3
"""Issue 33 item 1: the runner's own pass beside the solver's, measured side by side in one run.

On the N = 300 pairwise CNF (708 MB; ``--quick``: N = 120), each row runs a solver bare and under
``cnfgen-queens solve`` (``--repeat`` times, alternating: scripts/benchlib.py's ``side_by_side``), and a
benchlib table prints the median wall time of the tool beside the bare solver's, their ratio:

- ``reader``: a script that reads the file (``cat``) and answers ``s UNKNOWN``, the fastest solver
  there can be: here the tool's time is its own check wherever it is slower than ``cat``;
- ``kissat``/``cadical``/``minisat`` (when installed) under a time limit of ``--limit`` seconds: a
  solver that parses the file itself, while the tool checks it beside it (the tool stops it at the
  limit, wall clock, where a bare minisat counts CPU seconds after its parse).

``check alone`` is the streaming input check in one process: the time the tool added before the
solver started when the check ran first (the solver's time plus this is what such a run took; the note
of each row gives that ratio, ``(check + bare) / bare``).  The machine is shared: quote ratios, not seconds.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib

BIN = benchlib.BIN
READER = '#!/bin/sh\nfor a in "$@"; do f="$a"; done\ncat "$f" > /dev/null\necho "s UNKNOWN"\n'
CHECK = (
    "import sys, time\nfrom pathlib import Path\nfrom cnfgen_queens.cnf.scan import CnfFile, check_stream\n"
    "start = time.perf_counter()\ncheck_stream(CnfFile(Path(sys.argv[1]), 'q'), None)\n"
    "print(time.perf_counter() - start)\n"
)


def kissat_path() -> str | None:
    """kissat on PATH, else the one ``cnfgen-queens solvers --path`` finds (a wheel's)."""
    found = shutil.which("kissat")
    if found:
        return found
    said = subprocess.run(
        [str(BIN / "cnfgen-queens"), "solvers", "--path", "kissat"], capture_output=True, text=True
    ).stdout.strip()
    return said or None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="N = 120 (a smoke run, not the target)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--limit", type=float, default=10.0, help="time limit of the parsing solvers (s)")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown (docs/performance.md)")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    n = 120 if args.quick else 300
    table = benchlib.Table(f"the runner's pass beside the solver's, q{n}.cnf, median of {args.repeat} side by side")
    with tempfile.TemporaryDirectory() as tmp:
        cnf = Path(tmp) / f"q{n}.cnf"
        subprocess.run([str(BIN / "gen-queens"), str(n), "-o", str(cnf)], check=True)
        reader = Path(tmp) / "reader.sh"
        reader.write_text(READER)
        reader.chmod(0o755)
        tool = [str(BIN / "cnfgen-queens"), "solve", str(cnf), "--no-model"]
        rows: list[tuple[str, list[str], list[str]]] = [
            ("reader", [str(reader), str(cnf)], [*tool, "--solver", str(reader)])
        ]
        limit = f"{args.limit:g}"
        kissat = kissat_path()
        if kissat:
            rows.append(
                (
                    "kissat",
                    [kissat, "-q", f"--time={limit}", str(cnf)],
                    [*tool, "--solver", "kissat", "--time-limit", limit],
                )
            )
        if shutil.which("cadical"):
            rows.append(
                (
                    "cadical",
                    ["cadical", "-q", "-t", limit, str(cnf)],
                    [*tool, "--solver", "cadical", "--time-limit", limit],
                )
            )
        if shutil.which("minisat"):
            rows.append(
                (
                    "minisat",
                    ["minisat", "-verb=0", f"-cpu-lim={limit}", str(cnf)],
                    [*tool, "--solver", "minisat", "--time-limit", limit],
                )
            )
        size = cnf.stat().st_size / 1e6
        check = statistics.median(
            float(benchlib.measure([sys.executable, "-c", CHECK, str(cnf)], capture=True).stdout)
            for _ in range(args.repeat)
        )  # the check's own time, which it prints: the interpreter's start-up left out
        table.add(f"check alone, q{n}.cnf ({size:.0f} MB)", check, "s", note=f"{size / check:.0f} MB/s")
        for name, bare_argv, tool_argv in rows:
            # exit codes as the original: a solver stopped at its limit may say anything, the figure is its time
            runs = benchlib.side_by_side({"bare": bare_argv, "tool": tool_argv}, args.repeat, check=False)
            bare, ours = runs["bare"].wall, runs["tool"].wall
            table.add(
                f"{name} under cnfgen-queens solve",
                ours,
                "s",
                reference=bare,
                against=f"{name} alone",
                note=f"(check + bare) / bare x{(check + bare) / bare:.2f}",
            )
    table.print(markdown=args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
