"""Ganak (pyganak) counting N-queens with and without ``--break-symmetry``, side by side in one run.

Usage: ``python scripts/symmetry_ganak.py [N ...]`` (default 8 9 10; needs ``pip install pyganak``).
Each count runs in a child process of its own (Ganak cannot be interrupted in-process) and is timed
by its CPU time (``resource.getrusage`` of the child): one Markdown row per N, the plain formula's
count (OEIS A000170) and the broken one's (A002562), both projected on the cells (``c p show``).
"""

from __future__ import annotations

import multiprocessing
import resource
import sys
import time


def _count(n: int, broken: bool, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    from pyganak import Counter

    from cnfgen_queens.model.formula import QueensFormula

    formula = QueensFormula(n, "pairwise", break_symmetry=broken)
    counter = Counter()
    counter.new_vars(formula.counts()[0])
    counter.add_clauses([list(c) for c in formula.clauses()])
    counter.set_sampling_set(range(1, n * n + 1))
    out.put(int(counter.count()))


def timed(n: int, broken: bool) -> tuple[int, float, float]:
    """(count, child CPU seconds, wall seconds) of one count."""
    queue: multiprocessing.Queue = multiprocessing.Queue()  # type: ignore[type-arg]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    child = multiprocessing.Process(target=_count, args=(n, broken, queue))
    child.start()
    value = queue.get()
    child.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return value, cpu, time.monotonic() - start


def main(argv: list[str]) -> int:
    sizes = [int(a) for a in argv] or [8, 9, 10]
    print("| N | count | CPU (s) | count with --break-symmetry | CPU (s) | CPU ratio |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        plain, plain_cpu, _ = timed(n, False)
        broken, broken_cpu, _ = timed(n, True)
        ratio = plain_cpu / broken_cpu if broken_cpu else float("nan")
        print(f"| {n} | {plain} | {plain_cpu:.2f} | {broken} | {broken_cpu:.2f} | {ratio:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
