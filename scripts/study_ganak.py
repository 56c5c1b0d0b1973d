"""The model-counting part of the study (docs/results/study.md): Ganak counting N-queens with every built-in
encoding, with and without ``--break-symmetry``.

Usage: ``python scripts/study_ganak.py --out DIR [--repeats R] [--cpu-limit S] [--encodings a,b] [N ...]``
(default N = 6..10, R = 3, S = 60 s; needs ``pip install pyganak``). The project has no Ganak engine: each
count runs in a child process of its own, as ``scripts/symmetry_ganak.py`` runs it (projected on the cells,
timed by the child's CPU time), stopped at S seconds of CPU time (RLIMIT_CPU). For each encoding and N, the two formulas
in turn R times; every count is checked against OEIS (A000170, and A002562 with the flag). Writes, for the
study's bundle (``bundle --attach``):

- ``DIR/ganak.csv``: one line per count (encoding, N, flag, repeat, count, CPU and wall seconds, the load
  average at its start, status ``solved`` or ``timeout``);
- ``DIR/ganak.md``: per encoding and N the count and the median CPU time [range] of its repeats with and
  without the flag, then the comparison with / without paired over (encoding, N), as ``report --compare``
  computes it (geometric mean of the ratios of the medians, its 95% interval, Wilcoxon).
"""

from __future__ import annotations

import csv
import math
import multiprocessing
import os
import queue as queues
import resource
import sys
import time
from pathlib import Path
from statistics import median


def _count(n: int, encoding: str, broken: bool, cpu_limit: float, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    from pyganak import Counter

    from cnfgen_queens.model.formula import QueensFormula

    seconds = math.ceil(cpu_limit)
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))  # SIGXCPU, then SIGKILL: a CPU-time limit
    formula = QueensFormula(n, encoding, break_symmetry=broken)
    counter = Counter()
    counter.new_vars(formula.counts()[0])
    counter.add_clauses([list(c) for c in formula.clauses()])
    counter.set_sampling_set(range(1, n * n + 1))
    out.put(int(counter.count()))


def timed(n: int, encoding: str, broken: bool, cpu_limit: float) -> tuple[int | None, float, float]:
    """(count, or None past ``cpu_limit`` seconds of CPU time, the child's CPU seconds, wall seconds) of one
    count; a limit of CPU time, not of wall time, so that a loaded machine does not cut a count short (a count
    is also stopped after 20 times the limit of wall time)."""
    out: multiprocessing.Queue = multiprocessing.Queue()  # type: ignore[type-arg]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    child = multiprocessing.Process(target=_count, args=(n, encoding, broken, cpu_limit, out))
    child.start()
    value: int | None = None
    while value is None:
        try:
            value = out.get(timeout=0.5)
        except queues.Empty:
            if not child.is_alive() or time.monotonic() - start > 20 * cpu_limit:
                break
    child.kill()
    child.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return value, cpu, time.monotonic() - start


FIELDS = ("encoding", "n", "break_symmetry", "repeat", "count", "cpu", "wall", "load_avg", "status")


def markdown(rows: list[dict[str, str]]) -> str:
    """``ganak.md`` from the lines of ``ganak.csv`` (as read back: the figures are the CSV's): per encoding and
    N the count and the median CPU time [range] with and without the flag, then the comparisons."""
    from cnfgen_queens.experiments.compare import FLOOR

    cells: dict[tuple[str, int], dict[bool, list[dict[str, str]]]] = {}
    for r in rows:
        cells.setdefault((r["encoding"], int(r["n"])), {False: [], True: []})[r["break_symmetry"] == "true"].append(r)
    table = [
        "| encoding | N | count | CPU (s), median [range] | count with --break-symmetry | CPU (s), median [range] |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    logs: dict[int, list[float]] = {}
    for (encoding, n), by in cells.items():  # in the order counted: N, then the encodings
        shown = {}
        for flag, runs in by.items():
            cpu = [float(r["cpu"]) for r in runs]
            done = all(r["status"] == "solved" for r in runs)
            count = next((r["count"] for r in runs if r["count"]), "-")
            shown[flag] = (count, f"{median(cpu):.2f} [{min(cpu):.2f}, {max(cpu):.2f}]" if done else "timeout")
        table.append(
            f"| {encoding} | {n} | {shown[False][0]} | {shown[False][1]} | {shown[True][0]} | {shown[True][1]} |"
        )
        if all(r["status"] == "solved" for runs in by.values() for r in runs) and all(by.values()):
            a, b = (max(median(float(r["cpu"]) for r in by[k]), FLOOR) for k in (True, False))
            logs.setdefault(n, []).append(math.log(a / b))
    return "\n".join(table + summaries(logs)) + "\n"


def summaries(logs: dict[int, list[float]]) -> list[str]:
    """The comparison over every (encoding, N), then over the encodings at each N."""
    every = [x for n in sorted(logs) for x in logs[n]]
    lines = _summary(every, "encoding, N")
    for n in sorted(logs):
        lines += _summary(logs[n], f"encoding at N = {n}")
    return lines


def _summary(logs: list[float], over: str) -> list[str]:
    """The comparison with / without the flag over ``logs`` (log CPU ratios), as ``report --compare`` says it."""
    from cnfgen_queens.experiments.compare import CONFIDENCE, _statistics

    gm, low, high, w, p = _statistics(logs)
    word = "no difference at 95%"
    if p is not None and low is not None and high is not None and p < 1 - CONFIDENCE and (high < 1 or low > 1):
        word = "with the flag faster" if high < 1 else "without the flag faster"
    summary = [
        "",
        f"compare break_symmetry: A = true, B = false (CPU time; pairs ({over}), each the median of its repeats)",
        f"pairs both counted: {len(logs)}",
    ]
    if gm is not None:
        ci = "" if low is None else f" (95% CI x{low:.3g} to x{high:.3g})"
        summary.append(f"time A / B, geometric mean over {len(logs)}: x{gm:.3g}{ci}")
    if p is not None:
        summary.append(f"Wilcoxon signed-rank test: W = {w:g}, p = {p:.3g}")
    summary.append(f"verdict: {word}")
    return summary


def _write(out: Path, rows: list[dict[str, str]]) -> None:
    with open(out / "ganak.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    (out / "ganak.md").write_text(markdown(rows), encoding="utf-8")


def main(argv: list[str]) -> int:
    import argparse

    from cnfgen_queens import encodings as registry
    from cnfgen_queens.model.known_counts import published_count

    parser = argparse.ArgumentParser(prog="study_ganak.py", allow_abbrev=False)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cpu-limit", type=float, default=60.0, help="seconds of CPU time per count")
    parser.add_argument("--encodings", default="all")
    parser.add_argument("--from-csv", action="store_true", help="write OUT/ganak.md again from OUT/ganak.csv")
    parser.add_argument("n", type=int, nargs="*", default=[6, 7, 8, 9, 10])
    args = parser.parse_args(argv)
    if args.from_csv:
        with open(args.out / "ganak.csv", newline="", encoding="utf-8") as f:
            _write(args.out, list(csv.DictReader(f)))
        return 0
    encodings = list(registry.names()) if args.encodings == "all" else args.encodings.split(",")
    args.out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, str]] = []
    for n in args.n:  # N outermost, the files rewritten after each cell: a run cut short keeps what it counted
        for encoding in encodings:
            for r in range(args.repeats):
                for broken in (False, True):
                    load = os.getloadavg()[0]
                    value, seconds, wall = timed(n, encoding, broken, args.cpu_limit)
                    published = published_count(n, break_symmetry=broken)
                    if value is not None and published is not None and value != published[0]:
                        print(f"MISMATCH: {encoding} N={n} flag {broken}: {value}, {published[1]} says {published[0]}")
                        return 1
                    status = "timeout" if value is None else "solved"
                    rows.append(
                        dict(
                            zip(
                                FIELDS,
                                (
                                    encoding,
                                    str(n),
                                    str(broken).lower(),
                                    str(r),
                                    "" if value is None else str(value),
                                    f"{seconds:.3f}",
                                    f"{wall:.3f}",
                                    f"{load:.2f}",
                                    status,
                                ),
                                strict=True,
                            )
                        )
                    )
            _write(args.out, rows)
            print([line for line in markdown(rows).splitlines() if line.startswith("| ")][-1], flush=True)
    sys.stdout.write(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
