#!/usr/bin/env python3
"""Counting figures of issue 26 for the torus and the variants, measured side by side in one run.

1. The torus by its symmetry group (``counting/torus_cubes.py``): ``count 13 --torus`` by cubes
   against ``--engine loop`` (side by side, the median of ``--repeat``), then ``count 17 --torus --jobs 2``
   (target: under 60 s) and ``count 19 --torus --jobs 2``, each checked against OEIS A007705 by the
   command itself (exit 1 on a mismatch), with a C bitmask backtracker on the same N (one core, no
   symmetry; a measuring stick compiled here, not product code).
2. ``--estimate 23``: N = 23 is judged from a sample: every ``--every``-th group of cubes is counted in
   this process (CPU seconds), and the total is extrapolated per row-1 column (groups of one column
   are alike).  ``--full 23`` runs ``count 23 --torus --jobs 2`` instead.
3. Placed queens and blocked squares: 40 random instances at N = 12 (2 random queens and 3 holes
   each), counted by cubes and by the loop, side by side; the sum of each engine's medians.

Prints a table of scripts/benchlib.py (``--markdown``: for docs/performance.md).
``--quick`` leaves out N = 19 and the variants.  Run it with the checkout's package importable
(``PYTHONPATH=. python scripts/bench_count_variants.py``); the commands it times run with that tree.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib

from cnfgen_queens.counting.cube_count import CubeTask
from cnfgen_queens.counting.split_count import count_split_group
from cnfgen_queens.counting.variant_cubes import split_groups
from cnfgen_queens.enumeration.embedded_loop import embedded_spec
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.variants import Variant
from cnfgen_queens.solvers.default import DEFAULT_SOLVER

ROOT = Path(__file__).resolve().parent.parent
A007705 = {13: 4524, 17: 140692, 19: 820496, 23: 128850048}

C_TORUS = r"""
#include <stdio.h>
#include <stdlib.h>
static int n; static unsigned all;
static unsigned rot(unsigned m, int by) { by %= n; return by ? ((m << by) | (m >> (n - by))) & all : m; }
static long count(int r, unsigned cols, unsigned diag, unsigned anti) {
    if (r == n) return 1;
    long total = 0;
    unsigned free = all & ~(cols | rot(diag, r) | rot(anti, n - r));
    while (free) {
        unsigned bit = free & -free;
        free ^= bit;
        total += count(r + 1, cols | bit, diag | rot(bit, n - r), anti | rot(bit, r));
    }
    return total;
}
int main(int argc, char **argv) {
    n = atoi(argv[1]); all = (1u << n) - 1; printf("%ld\n", count(0, 0, 0, 0)); return 0;
}
"""


def env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT), PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")


def says(stdout: str, expect: int) -> bool:
    """The run printed ``expect``: as its last word (the C backtracker) or in the line ``count: K`` (the command
    says how it was checked beside it: ``count: K (published-count)``)."""
    return stdout.split()[-1:] == [str(expect)] or any(
        line == f"count: {expect}" or line.startswith(f"count: {expect} ") for line in stdout.splitlines()
    )


def timed(argv: list[str], expect: int | None = None) -> benchlib.Sample:
    """One run of ``argv`` (benchlib.measure); the benchmark ends unless it exits 0 and printed ``expect``."""
    run = benchlib.measure(argv, env=env(), cwd=Path(tempfile.gettempdir()), capture=True)
    if run.code != 0 or (expect is not None and not says(run.stdout, expect)):
        raise SystemExit(f"{' '.join(argv)} failed ({run.code}): {run.stdout[-200:]}")
    return run


def case(argv: list[str], expect: int | None = None) -> Callable[[], benchlib.Sample]:
    """A case of benchlib.side_by_side: ``timed(argv, expect)``."""
    return lambda: timed(argv, expect)


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "cnfgen_queens", "count", *args, "--quiet"]


def torus(table: benchlib.Table, repeat: int, sizes: list[int], work: Path) -> None:
    cases = {
        "cubes": case(cli("13", "--torus"), A007705[13]),
        "loop": case(cli("13", "--torus", "--engine", "loop"), A007705[13]),
    }
    runs = benchlib.side_by_side(cases, repeat)
    table.add(
        "count 13 --torus (cubes)",
        runs["cubes"].wall,
        "s",
        reference=runs["loop"].wall,
        against="--engine loop",
        note=f"median of {repeat}, side by side",
    )
    cc = shutil.which("cc") or shutil.which("gcc")
    exe = work / "torus"
    if cc:
        (work / "torus.c").write_text(C_TORUS)
        subprocess.run([cc, "-O2", "-o", str(exe), str(work / "torus.c")], check=True)
    for n in sizes:
        ours = timed(cli(str(n), "--torus", "--jobs", "2"), A007705[n])
        c_wall = timed([str(exe), str(n)], A007705[n]).wall if cc else None
        against = "C bitmask backtracker, one core" if cc else "no C compiler"
        note = f"{A007705[n]:,} solutions (A007705), {ours.cpu:.2f} s CPU"
        table.add(
            f"count {n} --torus --jobs 2",
            ours.wall,
            "s",
            reference=c_wall,
            against=against,
            goal="< 60 s" if n == 17 else "",
            note=note,
        )


def estimate(table: benchlib.Table, n: int, every: int) -> None:
    """Extrapolate the CPU of ``count N --torus`` from every ``every``-th group, per row-1 column."""
    formula = QueensFormula(n, variant=Variant(torus=True))
    groups = split_groups(formula)
    task = CubeTask(formula, embedded_spec(DEFAULT_SOLVER), "estimate")
    by_k: dict[int, list[int]] = defaultdict(list)
    for i, g in enumerate(groups):
        by_k[g.fixed[1] - n - 1].append(i)
    total = 0.0
    for k, members in sorted(by_k.items()):
        sample = members[::every]
        counted: list[Any] = []  # GroupCount
        cpu = benchlib.call(partial(counted.extend, (count_split_group(task, groups[i]) for i in sample))).cpu
        boards = sum(c.fundamental for c in counted)
        total += cpu * len(members) / len(sample)
        table.add(
            f"N={n} k={k}: CPU of {len(sample)} of {len(members)} groups", cpu, "s", note=f"{boards} boards counted"
        )
    table.add(f"count {n} --torus: CPU by extrapolation", total / 60, "min", note=f"{len(groups)} groups")


def variants(table: benchlib.Table, repeat: int, instances: int = 40) -> None:
    rng = random.Random(26)
    cases = []
    for _ in range(instances):
        case_ = ["12", "--random-place", "2", "--seed", str(rng.randrange(10**6))]
        for hole in sorted({(rng.randrange(1, 13), rng.randrange(1, 13)) for _ in range(3)}):
            case_ += ["--block-square", f"{hole[0]},{hole[1]}"]
        cases.append(case_)
    walls: dict[str, float] = {"cubes": 0.0, "loop": 0.0}
    for argv in cases:
        runs = benchlib.side_by_side({engine: case(cli(*argv, "--engine", engine)) for engine in walls}, repeat)
        for engine, run in runs.items():
            walls[engine] += run.wall
    table.add(
        f"{instances} instances N = 12 (2 random queens, 3 blocked squares): cubes",
        walls["cubes"],
        "s",
        reference=walls["loop"],
        against="--engine loop",
        note="wall in all, one process each",
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="leave out N = 19 and the variants")
    ap.add_argument("--repeat", type=int, default=2, help="runs of count 13 --torus each (the median)")
    ap.add_argument("--estimate", type=int, metavar="N", help="extrapolate count N --torus from a sample")
    ap.add_argument("--every", type=int, default=6, help="with --estimate: count every K-th group")
    ap.add_argument("--full", type=int, metavar="N", help="run count N --torus --jobs 2 (checked against OEIS)")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown (docs/performance.md)")
    args = ap.parse_args(argv)
    table = benchlib.Table("count: the torus and the variants")
    with tempfile.TemporaryDirectory(prefix="bench-variants.") as tmp:
        torus(table, args.repeat, [17] if args.quick else [17, 19], Path(tmp))
    if not args.quick:
        variants(table, 1)
    if args.estimate:
        estimate(table, args.estimate, args.every)
    if args.full:
        run = timed(cli(str(args.full), "--torus", "--jobs", "2"), A007705.get(args.full))
        table.add(f"count {args.full} --torus --jobs 2", run.wall, "s", note=f"{run.cpu:.1f} s CPU")
    table.print(markdown=args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
