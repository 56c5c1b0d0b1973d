#!/usr/bin/env python3
"""Enumeration figures (issue 4): ``cnfgen-queens count 12`` on the embedded solver (the loop, the cubes,
and the loop in this process against the same loop in a forked child), and the
shell loop ``scripts/enumerate.sh 8`` (kissat, 92 solver runs + 93 x decode/block/merge), wall time,
and the Python restart loop's solver calls per second.

Each command is a fresh process timed from the outside, the median of ``--repeat`` side by side
(scripts/benchlib.py); the embedded loops run in this process.  Every count is checked against OEIS
A000170.  Prints a benchlib table (``--markdown``: for docs/performance.md).
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib

ROOT = Path(__file__).resolve().parent.parent
BIN = benchlib.BIN  # the console scripts next to this interpreter (no shims)


def env() -> dict[str, str]:
    return dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")


def checked(argv: list[str], count: int) -> Callable[[], benchlib.Sample]:
    """A case of benchlib.side_by_side: ``argv`` once; the benchmark ends unless its last line is the count
    (``count: K``, or ``count: K (how it was checked)``)."""

    def case() -> benchlib.Sample:
        run = benchlib.measure(argv, env=env(), capture=True)
        last = run.stdout.splitlines()[-1:]
        if run.code != 0 or not last or not (last[0] == f"count: {count}" or last[0].startswith(f"count: {count} ")):
            raise SystemExit(f"{' '.join(argv)} failed ({run.code}): {run.stdout[-200:]!r}, not count: {count}")
        return run

    return case


def figures(repeat: int) -> dict[str, benchlib.Repeated]:
    cq = str(BIN / "cnfgen-queens")
    kissat = [cq, "count", "8", "--solver", "kissat", "--quiet"]
    return benchlib.side_by_side(
        {
            "count 12 --engine loop, pysat:cadical195, one blocking loop": checked(
                [cq, "count", "12", "--engine", "loop"], 14200
            ),
            "count 12 (cubes, one process: the default)": checked([cq, "count", "12"], 14200),
            "count 12 --jobs 2 (symmetric cubes)": checked([cq, "count", "12", "--jobs", "2"], 14200),
            "count 10 --symmetric (cubes)": checked([cq, "count", "10", "--symmetric"], 724),
            "scripts/enumerate.sh 8 (kissat)": checked(["bash", str(ROOT / "scripts" / "enumerate.sh"), "8"], 92),
            "count 8 --solver kissat (python restart loop)": checked(kissat, 92),
        },
        repeat,
    )


def forked_cost(n: int, repeat: int) -> dict[str, benchlib.Repeated]:
    """The embedded loop in this process against the same loop in a process of its own (forked_loop.py, what
    enumerate and count --engine loop run), side by side in this process (benchlib.in_process)."""
    from cnfgen_queens.enumeration.embedded_loop import enumerate_embedded
    from cnfgen_queens.enumeration.forked_loop import enumerate_forked
    from cnfgen_queens.model.formula import QueensFormula
    from cnfgen_queens.model.known_counts import known_counts

    f = QueensFormula(n)
    want = known_counts()[n][0]

    def counted(loop: Callable[[], Iterable[Any]]) -> Callable[[], None]:
        def run() -> None:
            got = sum(found.weight for found in loop())
            if got != want:
                raise SystemExit(f"embedded loop N={n}: {got} solutions, not {want}")

        return run

    loops = {
        "in-process": lambda: enumerate_embedded(f),
        "forked": lambda: enumerate_forked(functools.partial(enumerate_embedded, f)),  # pickled for the child
    }
    return benchlib.side_by_side({name: benchlib.in_process(counted(loop)) for name, loop in loops.items()}, repeat)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each figure, side by side (the median)")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown (docs/performance.md)")
    args = ap.parse_args(argv)
    table = benchlib.Table("enumeration (issue 4)")
    median = f"median of {args.repeat}"
    runs = figures(args.repeat)  # before the embedded loops grow this process (a child's ru_maxrss counts it)
    for name, run in runs.items():
        table.add(name, run.wall, "s", note=f"{median}, {run.cpu:.2f} s CPU")
    forked = forked_cost(12, args.repeat)
    table.add("embedded loop N=12, in-process", forked["in-process"].wall, "s", note=median)
    table.add(
        "embedded loop N=12, forked",
        forked["forked"].wall,
        "s",
        reference=forked["in-process"].wall,
        against="in-process",
        note=median,
    )
    external = runs["count 8 --solver kissat (python restart loop)"].wall
    table.add("  solver calls per second (92 SAT + 1 UNSAT)", 93 / external, "calls/s", note="count 8 --solver kissat")
    table.print(markdown=args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
