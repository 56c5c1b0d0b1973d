#!/usr/bin/env python3
"""Counting figures of issues 15 and 26, measured side by side in one run; prints a table of scripts/benchlib.py.

Issue 26 (the default run): the cost per board.  ``count N`` in one process, in this tree and in the
engine of commit ``ISSUE26_BASE`` (``git archive``), with PySAT's CaDiCaL ``solve`` wrapped to add up
its CPU time: µs of CPU per board split into the solver call (``solve``: the search) and our own work
(everything else: building each group's solver, reading the model, the check, the record, the blocking
clause, the loop).  Then ``count 14 --jobs 2`` wall time, the median of ``--repeat`` runs side by side
with the base (benchlib.side_by_side), beside the C bit-board backtracker (below), compiled into a
temporary directory.  ``--issue15`` runs the figures below instead.

1. ``count 14 --jobs 2`` now (canonical border cubes) against the same command of the code
   before issue 15 (commit ``BASELINE``: the issue's 13.6 s) and of the lex-leader engine of
   the previous stop (commit ``LEX_LEADER``), each unpacked with ``git archive`` into a
   temporary directory and run with PYTHONPATH pointing at it, side by side; the CPU
   seconds of the same work in one process (``--jobs 1``) are printed as well, since on a
   shared machine CPU time is the steadier figure.
2. ``count 15`` and ``count 16 --symmetric --jobs 2``: wall time (the counts are checked
   against OEIS by the command itself, exit 1 on a mismatch).
3. A C bit-board backtracker (the classic bitmask recursion, ~20 lines, compiled here with
   the system C compiler; a measuring stick, not product code): the ratio to it.

Every count is checked against OEIS A000170.  ``--quick`` uses N = 11 / 12 (a smoke run); the targets
are checked on the full run.  ``--markdown`` prints the table for docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib

ROOT = Path(__file__).resolve().parent.parent
BIN = benchlib.BIN
BASELINE = "eaa2a5f"  # main before issue 15: count --jobs = two-row cubes, mirror symmetry, blocking loop
LEX_LEADER = "b718a98"  # the lex-leader predicate with three-row cubes (issue 15's first engine)
ISSUE26_BASE = "e70fa56"  # main before issue 26: count 14 --jobs 2 in 2.5 s

# The modules where the tree on PYTHONPATH keeps them (counting/ since issue 35, solutions/ before, the package's
# top before that; model/formula.py since issue 26): the editable install would lend an older tree this tree's
MODULES = """
import importlib, pathlib, cnfgen_queens
def module(*names):
    root = pathlib.Path(cnfgen_queens.__file__).parent
    name = next(m for m in names if (root / (m.replace(".", "/") + ".py")).is_file())
    return importlib.import_module(f"cnfgen_queens.{name}")
QueensFormula = module("model.formula", "formula").QueensFormula
cube_count = lambda: module("counting.cube_count", "solutions.cube_count", "cube_count")
def count_plain(n):
    if (pathlib.Path(cnfgen_queens.__file__).parent / "enumeration" / "request.py").is_file():  # the request whole
        from cnfgen_queens.enumeration.embedded_loop import embedded_spec
        from cnfgen_queens.enumeration.request import Request
        from cnfgen_queens.solvers.default import DEFAULT_SOLVER
        return cube_count().count_symmetric(Request(QueensFormula(n)), embedded_spec(DEFAULT_SOLVER))
    return cube_count().count_symmetric(QueensFormula(n))
"""

PER_BOARD = (
    MODULES
    + """
import sys, time
import pysat.solvers as ps
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
c = count_plain(n)
cpu = time.process_time() - start
print(f"{cpu:.4f} {spent[0]:.4f} {c.fundamental} {c.total}")
"""
)

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

IN_PROCESS = (
    MODULES
    + """
import sys, time
n, new = int(sys.argv[1]), sys.argv[2] == "new"
start = time.process_time()
if new:
    c = count_plain(n)
    count = c.total if hasattr(c, "total") else c.count  # the lex-leader commit's name
else:
    from cnfgen_queens.enumeration import count_cubes  # the baseline commit's layout
    count = count_cubes(QueensFormula(n), jobs=1, depth=2)
print(f"{time.process_time() - start:.3f} {count}")
"""
)

KNOWN = {10: 724, 11: 2680, 12: 14200, 13: 73712, 14: 365596, 15: 2279184, 16: 14772512}


def env(pythonpath: Path | None = None) -> dict[str, str]:
    out = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")
    if pythonpath is not None:
        out["PYTHONPATH"] = str(pythonpath)
    return out


def says(stdout: str, expect: int) -> bool:
    """The run printed ``expect``: as its last word (the older trees, the helpers here) or in the line
    ``count: K`` (this tree says how the count was checked beside it: ``count: K (published-count)``)."""
    return stdout.split()[-1:] == [str(expect)] or any(
        line == f"count: {expect}" or line.startswith(f"count: {expect} ") for line in stdout.splitlines()
    )


def timed(argv: list[str], expect: int, pythonpath: Path | None = None) -> benchlib.Sample:
    """One run of ``argv`` (benchlib.measure, its stdout kept); the benchmark ends unless it printed ``expect``."""
    run = benchlib.measure(argv, env=env(pythonpath), cwd=Path(tempfile.gettempdir()), capture=True)
    if run.code != 0 or not says(run.stdout, expect):
        raise SystemExit(f"{' '.join(argv)} failed ({run.code}): {run.stdout[-200:]}")
    return run


def case(argv: list[str], expect: int, pythonpath: Path | None = None) -> Callable[[], benchlib.Sample]:
    """A case of benchlib.side_by_side: ``timed(argv, expect, pythonpath)``."""
    return lambda: timed(argv, expect, pythonpath)


def own_cpu(run: benchlib.Repeated) -> float:
    """The median of the CPU seconds a helper (IN_PROCESS, PER_BOARD) printed first: the work, not its start-up."""
    return statistics.median(float(s.stdout.split()[0]) for s in run.samples)


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


def add_speedup(table: benchlib.Table, n: int, repeat: int, old: Path, lex: Path | None = None) -> float:
    """Wall of ``count n --jobs 2`` and CPU of the same work in one process (medians of ``repeat``, side by
    side): before issue 15, the lex-leader engine (when ``lex`` is given) and now.  Returns now's wall."""
    helper = [sys.executable, "-c", IN_PROCESS, str(n)]
    walls: dict[str, benchlib.Case] = {"before": case(count_command(n), KNOWN[n], old)}
    cpus: dict[str, benchlib.Case] = {"before": case([*helper, "old"], KNOWN[n], old)}
    if lex is not None:
        walls["lex"] = case([*count_command(n), "--quiet"], KNOWN[n], lex)
        cpus["lex"] = case([*helper, "new"], KNOWN[n], lex)
    walls["now"] = case([*count_command(n), "--quiet"], KNOWN[n])
    cpus["now"] = case([*helper, "new"], KNOWN[n])
    wall, cpu = benchlib.side_by_side(walls, repeat), benchlib.side_by_side(cpus, repeat)
    figures = {"wall": {k: run.wall for k, run in wall.items()}, "cpu": {k: own_cpu(run) for k, run in cpu.items()}}
    names = {"before": f"before issue 15 ({BASELINE})", "lex": f"lex-leader predicate ({LEX_LEADER})", "now": "now"}
    for kind, values in figures.items():
        for key, value in values.items():
            what = f"count {n} --jobs 2, wall" if kind == "wall" else f"count {n}, CPU in one process"
            note = f"median of {repeat}, side by side" if key == "before" else ""
            if key == "now" and "lex" in values:
                note = f"x{value / values['lex']:.2f} of the lex-leader"
            table.add(
                f"{what}: {names[key]}",
                value,
                "s",
                reference=None if key == "before" else values["before"],
                against="" if key == "before" else BASELINE,
                note=note,
            )
    return wall["now"].wall


def speedup(n: int, repeat: int, old: Path, lex: Path | None = None) -> list[str]:
    """``add_speedup``'s figures as the lines of a table of their own (scripts/bench.py)."""
    table = benchlib.Table(f"count {n}: before issue 15 and now")
    add_speedup(table, n, repeat, old, lex)
    return table.render().splitlines()


def add_backtracker(table: benchlib.Table, n: int, work: Path, ours: float) -> None:
    """The C bit-board backtracker on N (median of 3) and ``ours`` (a wall of count N --jobs 2) against it."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        table.add(f"count {n}: C bit-board backtracker", float("nan"), "s", note="no C compiler: no figure")
        return
    src, exe = work / "nq.c", work / "nq"
    src.write_text(C_BACKTRACKER)
    subprocess.run([cc, "-O2", "-o", str(exe), str(src)], check=True)
    c_wall = benchlib.side_by_side({"C": case([str(exe), str(n)], KNOWN[n])}, 3)["C"].wall
    table.add(f"count {n}: C bit-board backtracker (one core, no symmetry)", c_wall, "s", note="median of 3")
    table.add(f"count {n} --jobs 2 against it", ours, "s", reference=c_wall, against="the C backtracker")


def backtracker(n: int, work: Path, ours: float) -> list[str]:
    """``add_backtracker``'s figures as the lines of a table of their own (scripts/bench.py)."""
    table = benchlib.Table(f"count {n}: the C backtracker")
    add_backtracker(table, n, work, ours)
    return table.render().splitlines()


def issue26(table: benchlib.Table, n: int, repeat: int, work: Path) -> None:
    """The cost per board, now and at ``ISSUE26_BASE``, and count N --jobs 2 beside the C backtracker."""
    base = baseline_tree(work, ISSUE26_BASE)
    side = f"median of {repeat}, side by side"
    for size in sorted({n - 1, n}):
        helper = [sys.executable, "-c", PER_BOARD, str(size)]
        runs = benchlib.side_by_side(
            {"base": case(helper, KNOWN[size], base), "now": case(helper, KNOWN[size])}, repeat
        )
        per: dict[str, list[float]] = {}  # µs per board: CPU, in the solver call, our own work
        for name, run in runs.items():
            said = [[float(word) for word in s.stdout.split()[:3]] for s in run.samples]  # CPU s, solver s, boards
            per[name] = [
                statistics.median(cpu / boards * 1e6 for cpu, _, boards in said),
                statistics.median(solver / boards * 1e6 for _, solver, boards in said),
                statistics.median((cpu - solver) / boards * 1e6 for cpu, solver, boards in said),
            ]
        for i, what in enumerate(("CPU per board", "  of which the solver call", "  of which our own work")):
            label = f"count {size} in one process: {what}" if i == 0 else what
            table.add(
                label, per["now"][i], "µs", reference=per["base"][i], against=ISSUE26_BASE, note=side if i == 0 else ""
            )
    runs = benchlib.side_by_side(
        {
            "base": case([*count_command(n), "--quiet"], KNOWN[n], base),
            "now": case([*count_command(n), "--quiet"], KNOWN[n]),
        },
        repeat,
    )
    now = runs["now"].wall
    table.add(
        f"count {n} --jobs 2",
        now,
        "s",
        reference=runs["base"].wall,
        against=ISSUE26_BASE,
        note=f"{side}; {runs['now'].cpu:.2f} s CPU",
    )
    add_backtracker(table, n, work, now)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="N = 11 and 12: a smoke run, not the targets")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each figure, side by side (the median)")
    ap.add_argument("--issue15", action="store_true", help="issue 15's figures instead of issue 26's")
    ap.add_argument("--skip-large", action="store_true", help="with --issue15: leave out count 15 and 16")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown (docs/performance.md)")
    args = ap.parse_args(argv)
    n = 11 if args.quick else 14
    table = benchlib.Table(f"bench_count, issue {15 if args.issue15 else 26}, N = {n}")
    with tempfile.TemporaryDirectory(prefix="bench-count.") as tmp:
        work = Path(tmp)
        if not args.issue15:
            issue26(table, n, args.repeat, work)
        else:
            ours = add_speedup(table, n, args.repeat, baseline_tree(work), baseline_tree(work, LEX_LEADER))
            add_backtracker(table, n, work, ours)
            for big in [] if args.skip_large else ([12] if args.quick else [15, 16]):
                run = timed([*count_command(big), "--symmetric", "--quiet"], KNOWN[big])
                fundamental = run.stdout.split()[1]
                table.add(
                    f"count {big} --symmetric --jobs 2",
                    run.wall,
                    "s",
                    note=f"{KNOWN[big]:,} solutions, {int(fundamental):,} fundamental",
                )
    table.print(markdown=args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
