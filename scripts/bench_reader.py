#!/usr/bin/env python3
"""Issue 33 item 1: the runner's own pass beside the solver's, measured side by side in one run.

On the N = 300 pairwise CNF (708 MB; ``--quick``: N = 120), each row runs a solver bare and under
``cnfgen-queens solve`` (``--repeat`` times, alternating; medians), and prints the tool's wall time
beyond the solver's as a ratio:

- ``reader``: a script that reads the file (``cat``) and answers ``s UNKNOWN``, the fastest solver
  there can be: here the tool's time is its own check wherever it is slower than ``cat``;
- ``kissat``/``cadical``/``minisat`` (when installed) under a time limit of ``--limit`` seconds: a
  solver that parses the file itself, while the tool checks it beside it (the tool stops it at the
  limit, wall clock, where a bare minisat counts CPU seconds after its parse).

``check alone`` is the streaming input check in one process: the time the tool added before the
solver started when the check ran first (the solver's time plus this is what such a run took).
The machine is shared: quote ratios, not seconds.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
READER = '#!/bin/sh\nfor a in "$@"; do f="$a"; done\ncat "$f" > /dev/null\necho "s UNKNOWN"\n'
CHECK = (
    "import sys, time\nfrom pathlib import Path\nfrom cnfgen_queens.cnf.scan import CnfFile, check_stream\n"
    "start = time.perf_counter()\ncheck_stream(CnfFile(Path(sys.argv[1]), 'q'), None)\n"
    "print(time.perf_counter() - start)\n"
)


def wall(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="N = 120 (a smoke run, not the target)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--limit", type=float, default=10.0, help="time limit of the parsing solvers (s)")
    args = ap.parse_args(argv)
    n = 120 if args.quick else 300
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
        if shutil.which("kissat"):
            rows.append(("kissat", ["kissat", "-q", f"--time={limit}", str(cnf)],
                         [*tool, "--solver", "kissat", "--time-limit", limit]))  # fmt: skip
        if shutil.which("cadical"):
            rows.append(("cadical", ["cadical", "-q", "-t", limit, str(cnf)],
                         [*tool, "--solver", "cadical", "--time-limit", limit]))  # fmt: skip
        if shutil.which("minisat"):
            rows.append(("minisat", ["minisat", "-verb=0", f"-cpu-lim={limit}", str(cnf)],
                         [*tool, "--solver", "minisat", "--time-limit", limit]))  # fmt: skip
        size = cnf.stat().st_size / 1e6
        checks = [float(subprocess.run([sys.executable, "-c", CHECK, str(cnf)], capture_output=True, text=True,
                                       check=True).stdout) for _ in range(args.repeat)]  # fmt: skip
        check = statistics.median(checks)
        print(f"load average {os.getloadavg()[0]:.1f} at the start")
        print(f"q{n}.cnf  {size:.0f} MB  check alone {check:.2f} s ({size / check:.0f} MB/s)  median of {args.repeat}")
        print(f"{'solver':<9} {'bare s':>8} {'tool s':>8} {'tool/bare':>10} {'(check+bare)/bare':>18}")
        for name, bare_argv, tool_argv in rows:
            bare, ours = [], []
            for _ in range(args.repeat):
                bare.append(wall(bare_argv))
                ours.append(wall(tool_argv))
            b, t = statistics.median(bare), statistics.median(ours)
            print(f"{name:<9} {b:8.2f} {t:8.2f} {t / b:10.2f} {(check + b) / b:18.2f}")
        print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
