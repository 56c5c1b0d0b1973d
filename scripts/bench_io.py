#!/usr/bin/env python3
"""Issue 10's figures (the I/O section of scripts/bench.py), measured side by side in one run.

1. The streaming model check on the N = 300 pairwise CNF (708 MB): MB/s, the ratio to ``wc -l``
   on the same file, and peak RSS (targets: >= 100 MB/s, <= ~200 MB).
2. ``cnfgen-queens solve q300.cnf --time-limit 2`` with kissat and with the embedded default: the
   whole command's wall time and peak RSS (was 65-100 s and 3.5-3.8 GB; bare kissat 2.05 s, 159 MB).
3. ``decode`` of a 1 GB answer of v lines (was over 300 s and 6.1 GB).
4. ``gen-queens 10000 -e sequential`` and ``-e commander`` to /dev/null: peak RSS (target <= 200 MB;
   sequential was 7.6 GB).

``--quick`` uses N = 120, a 50 MB answer and N = 1500 (a smoke run, not the targets).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent

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

PEAK = """
import resource, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
wall = time.perf_counter() - start
sys.stdout.buffer.write(proc.stdout)
print(f"@@ {proc.returncode} {wall} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}")
"""


def measured(argv: list[str]) -> tuple[str, int, float, float]:
    """(stdout, exit status, wall seconds, peak RSS in MB of the command and its children)."""
    out = subprocess.run([sys.executable, "-c", PEAK, *argv], capture_output=True, text=True).stdout
    body, _, tail = out.rpartition("@@ ")
    rc, wall, mb = tail.split()
    return body, int(rc), float(wall), float(mb)


def check_figures(cnf: Path, n: int) -> list[str]:
    size_mb = cnf.stat().st_size / 1e6
    subprocess.run(["cat", str(cnf)], stdout=subprocess.DEVNULL, check=True)  # both start from the page cache
    start = time.perf_counter()
    subprocess.run(["wc", "-l", str(cnf)], stdout=subprocess.DEVNULL, check=True)
    wc = time.perf_counter() - start
    body, rc, _, peak = measured([sys.executable, "-c", CHECK, str(cnf), str(n)])
    record = json.loads(body)
    if rc != 0 or record["error"] is not None:
        raise SystemExit(f"check failed: {rc} {record}")
    rate = size_mb / record["seconds"]
    return [
        f"model check of {cnf.name} ({size_mb:.0f} MB): {record['seconds']:.2f} s = {rate:.0f} MB/s, "
        f"peak RSS {peak:.0f} MB; wc -l {wc:.2f} s = {size_mb / wc:.0f} MB/s; "
        f"check/wc-l time x{record['seconds'] / wc:.1f}"
    ]


def solve_figures(cnf: Path) -> list[str]:
    cq = str(BIN / "cnfgen-queens")
    body, rc, wall, peak = measured([cq, "solve", str(cnf), "--solver", "kissat", "--time-limit", "2", "--json"])
    record = json.loads(body)
    path = subprocess.run([cq, "solvers", "--path", "kissat"], capture_output=True, text=True).stdout.strip()
    out = [
        f"solve {cnf.name} --solver kissat --time-limit 2: {record['status']} solver wall {record['wall']:.2f} s, "
        f"command wall {wall:.2f} s (reported {record['command_wall']:.2f} s), peak RSS {peak:.0f} MB (exit {rc})"
    ]
    body, rc, wall, peak = measured([cq, "solve", str(cnf), "--time-limit", "2", "--json"])  # the default solver
    record = json.loads(body)
    out.append(f"solve {cnf.name} --time-limit 2 (embedded pysat:cadical195): {record['status']} solver wall "
               f"{record['wall']:.2f} s, command wall {wall:.2f} s, peak RSS {peak:.0f} MB (exit {rc})")  # fmt: skip
    if path:
        _, _, bare_wall, bare_peak = measured(["timeout", "2", path, str(cnf)])
        out.append(f"bare kissat under timeout 2: {bare_wall:.2f} s, peak RSS {bare_peak:.0f} MB")
    # a solver that fails at once: the command then validates the whole file, so the peak is its own
    body, rc, wall, peak = measured([cq, "solve", str(cnf), "--solver", "kissat", "--solver-args=--no-such", "--json"])
    out.append(f"solve {cnf.name} with a solver failing at once, then validating the file: {wall:.2f} s, "
               f"check {json.loads(body)['check_time']:.2f} s, peak RSS {peak:.0f} MB (exit {rc})")  # fmt: skip
    return out


def decode_figures(size: int, work: Path) -> list[str]:
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
    _, rc, wall, peak = measured([str(BIN / "cnfgen-queens"), "decode", str(answer), "-n", "8"])
    return [f"decode of a {mb:.0f} MB answer: {wall:.1f} s = {mb / wall:.0f} MB/s, peak RSS {peak:.0f} MB (exit {rc})"]


def generator_figures(n: int) -> list[str]:
    out = []
    for encoding in ("sequential", "commander"):
        _, rc, wall, peak = measured([str(BIN / "gen-queens"), str(n), "-e", encoding, "-o", "/dev/null"])
        out.append(f"gen-queens {n} -e {encoding} > /dev/null: peak RSS {peak:.0f} MB, {wall:.0f} s (exit {rc})")
    return out


def io_figures(quick: bool, work: Path) -> list[str]:
    n, big = (120, 1500) if quick else (300, 10000)
    cnf = work / f"q{n}.cnf"
    subprocess.run([str(BIN / "gen-queens"), str(n), "-o", str(cnf)], check=True)
    decode_size = 50 * 10**6 if quick else 10**9
    return [*check_figures(cnf, n), *solve_figures(cnf), *decode_figures(decode_size, work), *generator_figures(big)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-io.") as tmp:
        for line in io_figures(args.quick, Path(tmp)):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
