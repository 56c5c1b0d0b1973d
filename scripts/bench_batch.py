#!/usr/bin/env python3
"""Batch figures of issue 11, side by side in one run.

1. ``batch --dry-run`` wall time of the configs that hung or blew up before (each now refused at once)
   and of the largest configs the limits allow (100,000 runs; N = 256 with every encoding).
2. The instance hash of a cached CNF: our GBD hash, GBD's own ``gbdc`` (C++), plain SHA-256 of the bytes,
   and writing the file again with ``gen-queens -o``, on the same file.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
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
        "100,000 runs: 5 N x 16 encodings x 1250 repeats (allowed)": base(
            "[8, 9, 10, 11, 12]", "all", "repeats: 1250\n"
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
        proc = subprocess.run([str(BIN / "cnfgen-queens"), "batch", str(path), "--dry-run"], capture_output=True)
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="a smaller file to hash")
    args = ap.parse_args(argv)
    for line in figures(args.quick):
        print(line, flush=True)
    return 0


def figures(quick: bool) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="bench-batch.") as tmp:
        return dry_runs(Path(tmp)) + hashing(quick, Path(tmp))


if __name__ == "__main__":
    sys.exit(main())
