#!/usr/bin/env python3
"""Certified counts (issue 26, item 5), measured: ``count N --certify DIR --jobs 2`` and ``check-count DIR``
for N = 8..12, beside the plain ``count N --jobs 2`` in the same run; every total must equal OEIS A000170.

Prints per N: the plain count's wall time, the certified count's, the certificate's size, and the check's
wall time with dratify (and with drat-trim when it is on PATH).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

A000170 = {8: 92, 9: 352, 10: 724, 11: 2680, 12: 14200, 13: 73712}


def run(argv: list[str], expect: str) -> float:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cnfgen_queens", *argv], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0 or expect not in proc.stdout:
        raise SystemExit(f"{' '.join(argv)}: exit {proc.returncode}, {proc.stdout[-200:]} {proc.stderr[-300:]}")
    return wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--max-n", type=int, default=12, choices=sorted(A000170), help="largest N (default 12)")
    args = ap.parse_args(argv)
    checkers = ["dratify", *(["drat-trim"] if shutil.which("drat-trim") else [])]
    with tempfile.TemporaryDirectory(prefix="bench-certify.") as tmp:
        for n in range(8, args.max_n + 1):
            total = A000170[n]
            plain = run(["count", str(n), "--jobs", "2", "--quiet"], f"count: {total}")
            d = Path(tmp) / f"c{n}"
            cert = run(["count", str(n), "--jobs", "2", "--quiet", "--certify", str(d)], f"count: {total}")
            size = sum(p.stat().st_size for p in d.rglob("*") if p.is_file()) / 2**20
            line = f"certified count: {total}\n"
            checks = [f"{c} {run(['check-count', str(d), '--checker', c], line):.2f} s" for c in checkers]
            print(f"N={n}: {total:,} boards; count --jobs 2 {plain:.2f} s; --certify {cert:.2f} s, {size:.1f} MB; "
                  f"check-count: {', '.join(checks)}", flush=True)  # fmt: skip
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
