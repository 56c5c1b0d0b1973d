#!/usr/bin/env python3
"""``--time-limit T`` ends by T + 0.5 s (issue 30, item 9): the wall-clock figures, which the tests leave here.

tests/solvers/test_time_limit_bound.py holds the schedule to it from the run records (SIGTERM at the deadline,
SIGKILL a grace later), which a loaded machine only delays; how long the whole command takes depends on
the load, so it is measured here, with the load beside it (scripts/benchlib.py, median of K side by side):

1. ``cnfgen-queens solve --time-limit 1``, start-up included, on a solver that ignores SIGTERM
   (tests/fakes/stubborn.sh), one that "parses" for a minute with a time flag of its own, the embedded
   solver on PHP(12, 11), and ``solve -`` on a stdin that never comes; ``python -c pass`` and
   ``cnfgen-queens --version`` beside them (what start-up costs before and after our first statement);
2. in one process (the batch's path): the embedded solver in its process of its own, how late SIGTERM came
   after the deadline and how late the solve returned.

``--quick``: 3 repeats instead of 7.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_isolation
import benchlib

ROOT = Path(__file__).resolve().parent.parent
T, BOUND = 1.0, 0.5
GOAL = f"<= {T + BOUND:g} s (T + {BOUND:g} s)"
PARSER = """#!/bin/sh
trap 'echo "c caught SIGTERM"' TERM
i=0
while [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
echo "s UNKNOWN"
"""


def silent_stdin(argv: list[str]) -> Callable[[], benchlib.Sample]:
    """A case: ``argv`` with a stdin that is open and says nothing."""

    def case() -> benchlib.Sample:
        read, write = os.pipe()
        try:
            return benchlib.measure(argv, stdin=read, check=False)
        finally:
            os.close(read)
            os.close(write)

    return case


def commands(table: benchlib.Table, repeats: int, work: Path) -> None:
    cli = str(benchlib.BIN / "cnfgen-queens")
    q8 = work / "q8.cnf"
    subprocess.run([str(benchlib.BIN / "gen-queens"), "8", "-o", str(q8)], check=True)
    php = bench_isolation.php(work / "php.cnf", 12)
    script = work / "parser.sh"
    script.write_text(PARSER)
    script.chmod(0o755)
    profiles = work / "solvers.yaml"
    profiles.write_text(
        f"solvers:\n  parser:\n    command: '{script} {{flags}} {{cnf}}'\n"
        "    time_flags: '--time={time}'\n    version_args: null\n"
    )
    limit = ["--time-limit", f"{T:g}"]
    stubborn = ["--solver", str(ROOT / "tests/fakes/stubborn.sh"), "--solver-args", str(work / "pids")]
    parser = ["--solver", "parser", "--solvers-file", str(profiles)]
    cases: dict[str, benchlib.Case] = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "cnfgen-queens --version": [cli, "--version"],
    }
    for isolation in ("auto", "none"):
        cases[f"ignores SIGTERM (stubborn.sh), --isolation {isolation}"] = [
            cli,
            "solve",
            str(q8),
            *stubborn,
            *limit,
            "--isolation",
            isolation,
        ]
        cases[f"parses, own time flag, --isolation {isolation}"] = [
            cli,
            "solve",
            str(q8),
            *parser,
            *limit,
            "--isolation",
            isolation,
        ]
    cases["embedded, PHP(12, 11)"] = [cli, "solve", str(php), *limit]
    cases["solve -, stdin silent"] = silent_stdin([cli, "solve", "-", *limit])
    runs = benchlib.side_by_side(cases, repeats)
    for name, run in runs.items():
        limited = name not in ("python -c pass", "cnfgen-queens --version")
        worst = max(s.wall for s in run.samples)
        table.add(
            f"{name}{', --time-limit 1' if limited else ''}",
            run.wall,
            "s",
            goal=GOAL if limited else "",
            note=f"worst {worst:.2f} s of {repeats}",
        )


def in_process(table: benchlib.Table, repeats: int, work: Path) -> None:
    from cnfgen_queens.limits import Deadline, Limits
    from cnfgen_queens.solvers import embedded, runner

    php = bench_isolation.php(work / "php-in.cnf", 12)
    records: list[object] = []
    real = embedded.run_python

    def record(*args: object, **kwargs: object) -> object:
        records.append(real(*args, **kwargs))  # type: ignore[arg-type]
        return records[-1]

    embedded.run_python = record  # type: ignore[assignment]
    term, ended = [], []
    try:
        for _ in range(repeats):
            deadline = Deadline.after(T)
            runner.solve(php, "pysat:cadical195", limits=Limits(time=T), context=runner.RunContext(deadline=deadline))
            at = deadline.at or 0.0
            ended.append(time.monotonic() - at)
            signals = records[-1].signals  # type: ignore[attr-defined]
            term.append(signals[0][1] - at if signals else float("nan"))
    finally:
        embedded.run_python = real
    table.add("embedded: SIGTERM after the deadline", statistics.median(term), "s", note=f"worst {max(term):.3f} s")
    table.add(
        "embedded: solve returned after the deadline",
        statistics.median(ended),
        "s",
        goal=f"<= {BOUND:g} s",
        note=f"worst {max(ended):.3f} s",
    )


def figures(quick: bool) -> list[str]:
    repeats = 3 if quick else 7
    out = []
    with tempfile.TemporaryDirectory(prefix="bench-time-limit.") as tmp:
        for part in (commands, in_process):
            table = benchlib.Table(f"--time-limit {T:g}: {part.__name__.replace('_', ' ')}")
            part(table, repeats, Path(tmp))
            out += table.render().splitlines()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="3 repeats instead of 7")
    for line in figures(ap.parse_args(argv).quick):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
