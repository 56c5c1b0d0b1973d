#!/usr/bin/env python3
"""Counting figures of issue 26 for the torus and the variants, measured side by side in one run.

1. The torus by its symmetry group (``counting/torus_cubes.py``): ``count 13 --torus`` by cubes
   against ``--engine loop`` (alternating, best of ``--repeat``), then ``count 17 --torus --jobs 2``
   (target: under 60 s) and ``count 19 --torus --jobs 2``, each checked against OEIS A007705 by the
   command itself (exit 1 on a mismatch), with a C bitmask backtracker on the same N (one core, no
   symmetry; a measuring stick compiled here, not product code).
2. ``--estimate 23``: N = 23 is judged from a sample: every ``--every``-th group of cubes is counted in
   this process (CPU seconds), and the total is extrapolated per row-1 column (groups of one column
   are alike).  ``--full 23`` runs ``count 23 --torus --jobs 2`` instead.
3. Placed queens and blocked squares: 40 random instances at N = 12 (2 random queens and 3 holes
   each), counted by cubes and by the loop, alternating; total wall seconds of each engine.

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
import time
from collections import defaultdict
from pathlib import Path

from cnfgen_queens.counting.cube_count import CubeTask
from cnfgen_queens.counting.split_count import count_split_group
from cnfgen_queens.counting.variant_cubes import split_groups
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.variants import Variant

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


def timed(argv: list[str], expect: int | None = None) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env(), cwd=tempfile.gettempdir())
    wall = time.perf_counter() - start
    if proc.returncode != 0 or (expect is not None and proc.stdout.split()[-1:] != [str(expect)]):
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stdout[-200:]} {proc.stderr[-300:]}")
    return wall


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "cnfgen_queens", "count", *args, "--quiet"]


def torus(repeat: int, sizes: list[int], work: Path) -> None:
    cubes, loop = [], []
    for _ in range(repeat):
        cubes.append(timed(cli("13", "--torus"), A007705[13]))
        loop.append(timed(cli("13", "--torus", "--engine", "loop"), A007705[13]))
    print(f"count 13 --torus: cubes {min(cubes):.2f} s, loop {min(loop):.2f} s wall (best of {repeat}, "
          f"alternating): x{min(loop) / min(cubes):.1f}", flush=True)  # fmt: skip
    cc = shutil.which("cc") or shutil.which("gcc")
    exe = work / "torus"
    if cc:
        (work / "torus.c").write_text(C_TORUS)
        subprocess.run([cc, "-O2", "-o", str(exe), str(work / "torus.c")], check=True)
    for n in sizes:
        ours = timed(cli(str(n), "--torus", "--jobs", "2"), A007705[n])
        line = f"count {n} --torus --jobs 2: {ours:.2f} s wall, {A007705[n]:,} solutions (A007705)"
        if cc:
            c_wall = timed([str(exe), str(n)], A007705[n])
            line += f"; C bitmask backtracker {c_wall:.2f} s (one core): x{c_wall / ours:.1f} of ours"
        print(line, flush=True)


def estimate(n: int, every: int) -> None:
    """Extrapolate the CPU of ``count N --torus`` from every ``every``-th group, per row-1 column."""
    formula = QueensFormula(n, variant=Variant(torus=True))
    groups = split_groups(formula)
    task = CubeTask(formula, "pysat:cadical195", "estimate")
    by_k: dict[int, list[int]] = defaultdict(list)
    for i, g in enumerate(groups):
        by_k[g.fixed[1] - n - 1].append(i)
    total = 0.0
    for k, members in sorted(by_k.items()):
        sample = members[::every]
        start = time.process_time()
        counted = [count_split_group(task, groups[i]) for i in sample]
        cpu = time.process_time() - start
        boards = sum(c.fundamental for c in counted)
        total += cpu * len(members) / len(sample)
        print(f"N={n} k={k}: {len(sample)} of {len(members)} groups, {cpu:.1f} s CPU, {boards} boards counted",
              flush=True)  # fmt: skip
    print(f"count {n} --torus: about {total / 60:.0f} min of CPU by extrapolation ({len(groups)} groups)")


def variants(repeat: int) -> None:
    rng = random.Random(26)
    cases = []
    for _ in range(40):
        case = ["12", "--random-place", "2", "--seed", str(rng.randrange(10**6))]
        for hole in sorted({(rng.randrange(1, 13), rng.randrange(1, 13)) for _ in range(3)}):
            case += ["--block-square", f"{hole[0]},{hole[1]}"]
        cases.append(case)
    walls: dict[str, float] = {"cubes": 0.0, "loop": 0.0}
    for case in cases:
        for engine in ("cubes", "loop"):
            walls[engine] += min(timed(cli(*case, "--engine", engine)) for _ in range(repeat))
    print(f"40 instances N = 12 (2 random queens, 3 blocked squares): cubes {walls['cubes']:.1f} s, loop "
          f"{walls['loop']:.1f} s wall in all (one process each)", flush=True)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="leave out N = 19 and the variants")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--estimate", type=int, metavar="N", help="extrapolate count N --torus from a sample")
    ap.add_argument("--every", type=int, default=6, help="with --estimate: count every K-th group")
    ap.add_argument("--full", type=int, metavar="N", help="run count N --torus --jobs 2 (checked against OEIS)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-variants.") as tmp:
        torus(args.repeat, [17] if args.quick else [17, 19], Path(tmp))
    if not args.quick:
        variants(1)
    if args.estimate:
        estimate(args.estimate, args.every)
    if args.full:
        wall = timed(cli(str(args.full), "--torus", "--jobs", "2"), A007705.get(args.full))
        print(f"count {args.full} --torus --jobs 2: {wall:.0f} s wall")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
