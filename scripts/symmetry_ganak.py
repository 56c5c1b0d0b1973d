"""Ganak (pyganak) counting N-queens with and without ``--break-symmetry``, side by side in one run.

Usage: ``python scripts/symmetry_ganak.py [--repeats R] [--torus] [N ...]`` (default 8 9 10, R = 3;
needs ``pip install pyganak``; ``--torus``: the toroidal board, OEIS A007705, its orbits unpublished).
Each count runs in a child process of its own (Ganak cannot be interrupted in-process) and is timed by
its CPU time (``resource.getrusage`` of the child), the two formulas in turn R times: one Markdown row
per N, the plain formula's count (OEIS A000170) and the broken one's (A002562), both projected on the
cells (``c p show``), each checked against OEIS, with the median CPU time and its range over the R
repeats.
"""

from __future__ import annotations

import multiprocessing
import resource
import sys
import time


def _count(n: int, broken: bool, torus: bool, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    from pyganak import Counter

    from cnfgen_queens.model.formula import QueensFormula
    from cnfgen_queens.model.variants import Variant

    formula = QueensFormula(n, "pairwise", variant=Variant(torus=torus), break_symmetry=broken)
    counter = Counter()
    counter.new_vars(formula.counts()[0])
    counter.add_clauses([list(c) for c in formula.clauses()])
    counter.set_sampling_set(range(1, n * n + 1))
    out.put(int(counter.count()))


def timed(n: int, broken: bool, torus: bool = False) -> tuple[int, float, float]:
    """(count, child CPU seconds, wall seconds) of one count."""
    queue: multiprocessing.Queue = multiprocessing.Queue()  # type: ignore[type-arg]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    child = multiprocessing.Process(target=_count, args=(n, broken, torus, queue))
    child.start()
    value = queue.get()
    child.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return value, cpu, time.monotonic() - start


def main(argv: list[str]) -> int:
    from statistics import median

    from cnfgen_queens.model.known_counts import published_count

    repeats, torus = 3, "--torus" in argv
    argv = [a for a in argv if a != "--torus"]
    if argv[:1] == ["--repeats"]:
        repeats, argv = int(argv[1]), argv[2:]
    sizes = [int(a) for a in argv] or [8, 9, 10]
    print("| N | count | CPU (s), median [range] | count with --break-symmetry | CPU (s), median [range] | CPU ratio |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        cpu: dict[bool, list[float]] = {False: [], True: []}
        counts: dict[bool, int] = {}
        for _ in range(repeats):
            for broken in (False, True):
                counts[broken], seconds, _ = timed(n, broken, torus)
                cpu[broken].append(seconds)
        for broken, value in counts.items():
            published = published_count(n, torus=torus, break_symmetry=broken)
            if published is not None and value != published[0]:
                print(f"MISMATCH: N={n} break_symmetry={broken}: {value}, OEIS {published[1]} says {published[0]}")
                return 1
        cells = {b: f"{median(v):.2f} [{min(v):.2f}, {max(v):.2f}]" for b, v in cpu.items()}
        ratio = median(cpu[False]) / median(cpu[True]) if median(cpu[True]) else float("nan")
        print(f"| {n} | {counts[False]} | {cells[False]} | {counts[True]} | {cells[True]} | {ratio:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
