#!/usr/bin/env python3
"""Counting figures of issues 15 and 26, measured side by side in one run.

Issue 26 (the default run): the cost per board.  ``count N`` in one process, in this tree and in the
engine of commit ``ISSUE26_BASE`` (``git archive``), with PySAT's CaDiCaL ``solve`` wrapped to add up
its CPU time: µs of CPU per board split into the solver call (``solve``: the search) and our own work
(everything else: building each group's solver, reading the model, the check, the record, the blocking
clause, the loop).  Then ``count 14 --jobs 2`` wall time, best of ``--repeat``, alternating this tree and
the base, beside the C bit-board backtracker (below), compiled into a temporary directory.  ``--issue15``
runs the figures below instead.

1. ``count 14 --jobs 2`` now (canonical border cubes) against the same command of the code
   before issue 15 (commit ``BASELINE``: the issue's 13.6 s) and of the lex-leader engine of
   the previous stop (commit ``LEX_LEADER``), each unpacked with ``git archive`` into a
   temporary directory and run with PYTHONPATH pointing at it, alternating the three; the CPU
   seconds of the same work in one process (``--jobs 1``) are printed as well, since on a
   shared machine CPU time is the steadier figure.
2. ``count 15`` and ``count 16 --symmetric --jobs 2``: wall time (the counts are checked
   against OEIS by the command itself, exit 1 on a mismatch).
3. A C bit-board backtracker (the classic bitmask recursion, ~20 lines, compiled here with
   the system C compiler; a measuring stick, not product code): the ratio to it.

``--quick`` uses N = 11 / 12 (a smoke run); the targets are checked on the full run.
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

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
BASELINE = "eaa2a5f"  # main before issue 15: count --jobs = two-row cubes, mirror symmetry, blocking loop
LEX_LEADER = "b718a98"  # the lex-leader predicate with three-row cubes (issue 15's first engine)
ISSUE26_BASE = "e70fa56"  # main before issue 26: count 14 --jobs 2 in 2.5 s

PER_BOARD = """
import sys, time
import pysat.solvers as ps
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.counting.cube_count import count_symmetric
spent = [0.0]
solve = ps.Cadical195.solve
def timed(self, *args, **kwargs):
    start = time.process_time()
    try:
        return solve(self, *args, **kwargs)
    finally:
        spent[0] += time.process_time() - start
ps.Cadical195.solve = timed
n = int(sys.argv[1])
start = time.process_time()
c = count_symmetric(QueensFormula(n))
cpu = time.process_time() - start
print(f"{cpu:.4f} {spent[0]:.4f} {c.fundamental} {c.total}")
"""

C_BACKTRACKER = r"""
#include <stdio.h>
#include <stdlib.h>
static long count(unsigned all, unsigned cols, unsigned left, unsigned right) {
    if (cols == all) return 1;
    long total = 0;
    unsigned free = all & ~(cols | left | right);
    while (free) {
        unsigned bit = free & -free;
        free ^= bit;
        total += count(all, cols | bit, (left | bit) << 1, (right | bit) >> 1);
    }
    return total;
}
int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    printf("%ld\n", count((1u << n) - 1, 0, 0, 0));
    return 0;
}
"""

IN_PROCESS = """
import sys, time
from cnfgen_queens.model.formula import QueensFormula
n, new = int(sys.argv[1]), sys.argv[2] == "new"
start = time.process_time()
if new:
    from cnfgen_queens.counting.cube_count import count_symmetric
    count = count_symmetric(QueensFormula(n)).total
else:
    from cnfgen_queens.enumeration import count_cubes  # the baseline commit's layout
    count = count_cubes(QueensFormula(n), jobs=1, depth=2)
print(f"{time.process_time() - start:.3f} {count}")
"""

KNOWN = {11: 2680, 12: 14200, 13: 73712, 14: 365596, 15: 2279184, 16: 14772512}


def env(pythonpath: Path | None = None) -> dict[str, str]:
    out = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")
    if pythonpath is not None:
        out["PYTHONPATH"] = str(pythonpath)
    return out


def timed(argv: list[str], expect: int, pythonpath: Path | None = None) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env(pythonpath), cwd=tempfile.gettempdir())
    wall = time.perf_counter() - start
    if proc.returncode != 0 or str(expect) not in proc.stdout.split()[-1:]:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stdout[-200:]} {proc.stderr[-300:]}")
    return wall, proc.stdout


def baseline_tree(work: Path, commit: str = BASELINE) -> Path:
    """The package as it was at ``commit`` (git archive: no worktree, no checkout)."""
    tree = work / f"tree-{commit}"
    tree.mkdir()
    git = ["git", "-C", str(ROOT), "archive", commit, "cnfgen_queens"]
    archive = subprocess.run(git, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    return tree


def count_command(n: int, jobs: int = 2) -> list[str]:
    return [sys.executable, "-m", "cnfgen_queens", "count", str(n), "--jobs", str(jobs)]


def speedup(n: int, repeat: int, old: Path, lex: Path | None = None) -> list[str]:
    """Wall (best of ``repeat``, the engines alternating) and CPU in one process: before issue 15,
    the lex-leader engine (when ``lex`` is given) and now."""
    olds: list[float] = []
    lexes: list[float] = []
    news: list[float] = []
    for _ in range(repeat):
        olds.append(timed(count_command(n), KNOWN[n], old)[0])
        if lex is not None:
            lexes.append(timed([*count_command(n), "--quiet"], KNOWN[n], lex)[0])
        news.append(timed([*count_command(n), "--quiet"], KNOWN[n])[0])
    cpu_old = float(timed([sys.executable, "-c", IN_PROCESS, str(n), "old"], KNOWN[n], old)[1].split()[0])
    cpu_new = float(timed([sys.executable, "-c", IN_PROCESS, str(n), "new"], KNOWN[n])[1].split()[0])
    out = [
        f"count {n} --jobs 2, wall (best of {repeat}, alternating): before {min(olds):.2f} s, now {min(news):.2f} s: "
        f"x{min(olds) / min(news):.2f}",
        f"count {n}, CPU of the same work in one process: before {cpu_old:.2f} s, now {cpu_new:.2f} s: "
        f"x{cpu_old / cpu_new:.2f}",
    ]
    if lex is not None:
        cpu_lex = float(timed([sys.executable, "-c", IN_PROCESS, str(n), "new"], KNOWN[n], lex)[1].split()[0])
        out += [
            f"count {n} --jobs 2, lex-leader predicate ({LEX_LEADER}): {min(lexes):.2f} s wall, {cpu_lex:.2f} s CPU "
            f"in one process; border cubes now: x{min(lexes) / min(news):.2f} wall, x{cpu_lex / cpu_new:.2f} CPU",
        ]
    return out


def backtracker(n: int, work: Path, ours: float) -> list[str]:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return ["no C compiler: no backtracker figure"]
    src, exe = work / "nq.c", work / "nq"
    src.write_text(C_BACKTRACKER)
    subprocess.run([cc, "-O2", "-o", str(exe), str(src)], check=True)
    c_wall = min(timed([str(exe), str(n)], KNOWN[n])[0] for _ in range(3))
    return [f"count {n}: C bit-board backtracker {c_wall:.3f} s (one core, no symmetry); count --jobs 2 is "
            f"x{ours / c_wall:.0f} slower"]  # fmt: skip


def per_board(n: int, tree: Path | None) -> tuple[float, float, float]:
    """(CPU µs per board, of which the solver call, of which our own work) of ``count n`` in one process."""
    out = timed([sys.executable, "-c", PER_BOARD, str(n)], KNOWN[n], tree)[1].split()
    cpu, solver, boards = float(out[0]), float(out[1]), int(out[2])
    return cpu / boards * 1e6, solver / boards * 1e6, (cpu - solver) / boards * 1e6


def issue26(n: int, repeat: int, work: Path) -> list[str]:
    """The cost per board, now and at ``ISSUE26_BASE``, and count N --jobs 2 beside the C backtracker."""
    base = baseline_tree(work, ISSUE26_BASE)
    out = []
    for size in sorted({n - 1, n}):
        trees = (("base", base), ("now", None))
        figures = {name: [per_board(size, tree) for _ in range(repeat)] for name, tree in trees}
        best = {name: min(runs) for name, runs in figures.items()}  # the run of least CPU
        for name, (cpu, solver, ours) in best.items():
            label = f"{ISSUE26_BASE}" if name == "base" else "now"
            out.append(f"count {size}, one process, {label}: {cpu:.1f} µs of CPU per board: solver call "
                       f"{solver:.1f} µs, our own work {ours:.1f} µs")  # fmt: skip
    walls: dict[str, list[float]] = {"base": [], "now": []}
    for _ in range(repeat):
        walls["base"].append(timed([*count_command(n), "--quiet"], KNOWN[n], base)[0])
        walls["now"].append(timed([*count_command(n), "--quiet"], KNOWN[n])[0])
    now, before = min(walls["now"]), min(walls["base"])
    out.append(f"count {n} --jobs 2, wall (best of {repeat}, alternating): {ISSUE26_BASE} {before:.2f} s, "
               f"now {now:.2f} s: x{before / now:.2f}")  # fmt: skip
    return out + backtracker(n, work, now)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="N = 11 and 12: a smoke run, not the targets")
    ap.add_argument("--repeat", type=int, default=3, help="alternating old/new runs of each figure")
    ap.add_argument("--issue15", action="store_true", help="issue 15's figures instead of issue 26's")
    ap.add_argument("--skip-large", action="store_true", help="with --issue15: leave out count 15 and 16")
    args = ap.parse_args(argv)
    n = 11 if args.quick else 14
    with tempfile.TemporaryDirectory(prefix="bench-count.") as tmp:
        work = Path(tmp)
        if not args.issue15:
            for line in issue26(n, args.repeat, work):
                print(line, flush=True)
            print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
            return 0
        for line in speedup(n, args.repeat, baseline_tree(work), baseline_tree(work, LEX_LEADER)):
            print(line, flush=True)
        ours = timed([*count_command(n), "--quiet"], KNOWN[n])[0]
        for line in backtracker(n, work, ours):
            print(line, flush=True)
        for big in [] if args.skip_large else ([12] if args.quick else [15, 16]):
            wall, out = timed([*count_command(big), "--symmetric", "--quiet"], KNOWN[big])
            fundamental = out.split()[1]
            print(f"count {big} --symmetric --jobs 2: {wall:.1f} s wall, {KNOWN[big]:,} solutions, "
                  f"{int(fundamental):,} fundamental", flush=True)  # fmt: skip
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
