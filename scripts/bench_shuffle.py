#!/usr/bin/env python3
"""``--shuffle`` of a large formula: the vectorised path against the reference, side by side.

Both write the same formula with the same seed through :func:`cnfgen_queens.cnf.writer.write_cnf`
in a fresh child process (``fast=True`` and ``fast=False``), alternating (scripts/benchlib.py's
``side_by_side``, ``--repeat`` rounds); a benchlib table prints the median wall time and the largest
peak RSS of each (the child's own, VmHWM), the vectorised path beside the reference, and the two files
must have the same bytes.  Default: product N = 1000 with ``--column-alo`` (8.9M clauses, the large-N
study's instance); ``--quick``: N = 300.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib
from bench_gen import peak

CHILD = """
import sys
from cnfgen_queens.cnf.writer import write_cnf
from cnfgen_queens.model.formula import QueensFormula
n, fast, path = int(sys.argv[1]), sys.argv[2] == "fast", sys.argv[3]
with open(path, "wb") as out:
    write_cnf(out, QueensFormula(n, "product", column_alo=True), ["bench"], shuffle=1, fast=fast)
"""
KINDS = {"fast": "vectorised, fast=True", "reference": "the reference, fast=False"}


def digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def case(n: int, kind: str, work: Path, digests: dict[str, set[str]]) -> benchlib.Case:
    """A case of :func:`benchlib.side_by_side`: one child writing the formula; the file's digest goes to
    ``digests[kind]``."""

    def run() -> benchlib.Sample:
        path = work / f"{kind}.cnf"
        sample = benchlib.measure([sys.executable, "-c", CHILD, str(n), kind, str(path)])
        digests.setdefault(kind, set()).add(digest(path))
        path.unlink()
        return sample

    return run


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="N = 300 instead of 1000")
    ap.add_argument("--repeat", type=int, default=1, help="rounds; the median wall is reported")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown (docs/performance.md)")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    n = 300 if args.quick else 1000
    table = benchlib.Table(f"--shuffle 1 of product N={n} --column-alo, median of {args.repeat} side by side")
    digests: dict[str, set[str]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-shuffle.") as tmp:
        runs = benchlib.side_by_side({kind: case(n, kind, Path(tmp), digests) for kind in KINDS}, args.repeat)
    if len(digests["fast"] | digests["reference"]) != 1:
        raise SystemExit("the two paths wrote different bytes")
    fast, ref = runs["fast"], runs["reference"]
    table.add(
        f"product N={n} --column-alo --shuffle 1: {KINDS['fast']}",
        fast.wall,
        "s",
        reference=ref.wall,
        against=KINDS["reference"],
        note=f"same bytes; x{ref.wall / fast.wall:.1f} faster",
    )
    table.add(
        "  peak RSS (largest of the runs)",
        max(peak(s) for s in fast.samples),
        "MB",
        reference=max(peak(s) for s in ref.samples),
        against=KINDS["reference"],
    )
    table.print(markdown=args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
