#!/usr/bin/env python3
"""Enumeration figures (issue 4): ``cnfgen-queens count 12`` on the embedded solver (the loop, the cubes,
and the loop in this process against the same loop in a forked child), and the
shell loop ``scripts/enumerate.sh 8`` (kissat, 92 solver runs + 93 x decode/block/merge), wall time,
and the Python restart loop's solver calls per second.

Each figure is a fresh process timed from the outside (median of ``--repeat``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent  # the console scripts next to this interpreter (no shims)


def env() -> dict[str, str]:
    return dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")


def timed(argv: list[str], expect_last: str | None = None) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env())
    wall = time.perf_counter() - start
    if proc.returncode != 0 or (expect_last and proc.stdout.splitlines()[-1:] != [expect_last]):
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr.strip()[-300:]}")
    return wall


def median_of(repeat: int, argv: list[str], expect_last: str | None = None) -> float:
    return statistics.median(timed(argv, expect_last) for _ in range(repeat))


def figures(repeat: int) -> list[tuple[str, float]]:
    cq = str(BIN / "cnfgen-queens")
    return [
        ("count 12 --engine loop, pysat:cadical195, one blocking loop",
         median_of(repeat, [cq, "count", "12", "--engine", "loop"], "count: 14200")),
        ("count 12 (cubes, one process: the default)", median_of(repeat, [cq, "count", "12"], "count: 14200")),
        ("count 12 --jobs 2 (symmetric cubes)", median_of(repeat, [cq, "count", "12", "--jobs", "2"], "count: 14200")),
        ("count 10 --symmetric (cubes)", median_of(repeat, [cq, "count", "10", "--symmetric"], "count: 724")),
        ("scripts/enumerate.sh 8 (kissat)",
         median_of(repeat, ["bash", str(ROOT / "scripts" / "enumerate.sh"), "8"], "count: 92")),
        ("count 8 --solver kissat (python restart loop)",
         median_of(repeat, [cq, "count", "8", "--solver", "kissat", "--quiet"], "count: 92")),
    ]  # fmt: skip


IN_PROCESS_VS_FORKED = """
import sys, time
from cnfgen_queens.enumeration.embedded_loop import enumerate_embedded
from cnfgen_queens.enumeration.forked_loop import enumerate_forked
from cnfgen_queens.model.formula import QueensFormula

f = QueensFormula(int(sys.argv[1]))
for _ in range(int(sys.argv[2])):  # alternating, so that both see the same machine
    for name, loop in (("in-process", lambda: enumerate_embedded(f)),
                       ("forked", lambda: enumerate_forked(lambda on_call: enumerate_embedded(f, on_call=on_call)))):
        start = time.perf_counter()
        count = sum(found.weight for found in loop())
        print(name, count, time.perf_counter() - start)
"""


def forked_cost(n: int, repeat: int) -> list[tuple[str, float]]:
    """The embedded loop in this process against the same loop in a forked child (forked_loop.py, what
    enumerate and count --engine loop run), medians of alternating runs in one process."""
    out = subprocess.run([sys.executable, "-c", IN_PROCESS_VS_FORKED, str(n), str(repeat)], capture_output=True,
                         text=True, check=True, env=env()).stdout.split()  # fmt: skip
    walls: dict[str, list[float]] = {}
    for name, _count, wall in zip(out[::3], out[1::3], out[2::3], strict=True):
        walls.setdefault(name, []).append(float(wall))
    return [(f"embedded loop N={n}, {name}", statistics.median(w)) for name, w in walls.items()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    rows = figures(args.repeat) + forked_cost(12, args.repeat)
    print(f"median of {args.repeat}; load average at the end {os.getloadavg()[0]:.2f}")
    for name, wall in rows:
        print(f"{name:<50} {wall:8.2f} s")
    walls = dict(rows)
    ratio = walls["embedded loop N=12, forked"] / walls["embedded loop N=12, in-process"]
    print(f"{'  forked / in-process':<50} {ratio:8.2f} x")
    external = walls["count 8 --solver kissat (python restart loop)"]
    print(f"{'  solver calls per second (92 SAT + 1 UNSAT)':<50} {93 / external:8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
