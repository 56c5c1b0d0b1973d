#!/usr/bin/env python3
"""``--shuffle`` of a large formula: the vectorised path against the reference, side by side.

Both write the same formula with the same seed through :func:`cnfgen_queens.cnf.writer.write_cnf`
in a fresh child process (``fast=True`` and ``fast=False``), alternating; the figures are wall
time and peak RSS (GNU ``/usr/bin/time``, as scripts/bench_gen.py), and the two files must have
the same bytes.  Default: product N = 1000 with ``--column-alo`` (8.9M clauses, the large-N
study's instance); ``--quick``: N = 300.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_gen import run_child

CHILD = """
import sys
from cnfgen_queens.cnf.writer import write_cnf
from cnfgen_queens.model.formula import QueensFormula
n, fast, path = int(sys.argv[1]), sys.argv[2] == "fast", sys.argv[3]
with open(path, "wb") as out:
    write_cnf(out, QueensFormula(n, "product", column_alo=True), ["bench"], shuffle=1, fast=fast)
"""


def digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="N = 300 instead of 1000")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    n = 300 if args.quick else 1000
    with tempfile.TemporaryDirectory(prefix="bench-shuffle.") as tmp:
        work = Path(tmp)
        best: dict[str, tuple[float, float]] = {}
        digests = {}
        for _ in range(args.repeat):
            for kind in ("fast", "reference"):
                path = work / f"{kind}.cnf"
                wall, peak = run_child([sys.executable, "-c", CHILD, str(n), kind, str(path)], work)
                if kind not in best or wall < best[kind][0]:
                    best[kind] = (wall, peak)
                digests[kind] = digest(path)
                path.unlink()
        if digests["fast"] != digests["reference"]:
            raise SystemExit("the two paths wrote different bytes")
        (fw, fp), (rw, rp) = best["fast"], best["reference"]
        print(f"product N={n} --column-alo --shuffle 1: vectorised {fw:.1f} s, {fp:.0f} MB; "
              f"reference {rw:.1f} s, {rp:.0f} MB: x{rw / fw:.1f} faster, same bytes")  # fmt: skip
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
