"""Wilcoxon verdicts between neighbours, for the study (docs/results/study.md).

Usage: ``python scripts/study_neighbours.py DB [--time cpu] > neighbours.md`` (a task whose runs have no CPU
time, a count by cubes, is compared by wall time, as its heading says)

For each task of the store (solve, count): the encodings ranked by their PAR-2 averaged over the solvers,
and the solvers by theirs averaged over the encodings (the report table's lines, :func:`.summary.summarize`);
then each one against the next in that ranking, as ``report --compare A B --where task=TASK`` compares them
(:func:`.compare.compare`: paired over the instances both ran, every other column equal, the solvers or
encodings and the shuffled copies included; per instance the median of its repeats): the geometric mean of
the time ratio A / B with its 95% interval, the Wilcoxon signed-rank p-value and the verdict, one Markdown
row per pair.
"""

from __future__ import annotations

import itertools
import sys
from statistics import fmean


def _ranked(lines: list, column: str) -> list[str]:  # type: ignore[type-arg]
    """The values of ``column`` (solver or encoding) by their mean PAR-2 over the table's lines."""
    scores: dict[str, list[float]] = {}
    for s in lines:
        scores.setdefault(getattr(s, column), []).append(s.par2 if s.par2 is not None else float("inf"))
    return sorted(scores, key=lambda v: (fmean(scores[v]), v))


def main(argv: list[str]) -> int:
    import argparse

    from cnfgen_queens.experiments import machine
    from cnfgen_queens.experiments.compare import compare
    from cnfgen_queens.experiments.report import load_rows, shown_rows
    from cnfgen_queens.experiments.summary import summarize

    parser = argparse.ArgumentParser(prog="study_neighbours.py", allow_abbrev=False)
    parser.add_argument("db")
    parser.add_argument("--time", choices=("wall", "cpu"), default="cpu")
    args = parser.parse_args(argv)
    rows = shown_rows(load_rows(args.db))
    platforms = machine.platform_names(machine.stored(args.db))  # a new commit is no new machine (as report's)
    out = []
    for task in sorted({r.task for r in rows}, reverse=True):  # solve, then count
        of_task = [r for r in rows if r.task == task]
        time = args.time if any(r.cpu is not None for r in of_task) else "wall"  # a count by cubes has no CPU time
        lines = summarize(of_task, time=time, vbs=False)
        for column in ("encoding", "solver"):
            ranked = _ranked(lines, column)
            if len(ranked) < 2:  # one solver (or encoding): no neighbours
                continue
            out += [
                "",
                f"task {task}: {column}s ranked by mean PAR-2 ({time} time) over the "
                f"{'solvers' if column == 'encoding' else 'encodings'}: {', '.join(ranked)}",
                "",
                "| A | B | pairs | A / B, geometric mean (95% CI) | Wilcoxon p | verdict |",
                "|---|---|--:|--:|--:|---|",
            ]
            for a, b in itertools.pairwise(ranked):
                c = compare(of_task, a, b, time=time, platforms=platforms)
                ratio = "" if c.geomean is None else f"x{c.geomean:.3g}"
                if c.ci_low is not None and c.ci_high is not None:
                    ratio += f" (x{c.ci_low:.3g} to x{c.ci_high:.3g})"
                p = "" if c.p_value is None else f"{c.p_value:.3g}"
                out.append(f"| {a} | {b} | {c.pairs} | {ratio} | {p} | {c.verdict} |")
    sys.stdout.write("\n".join(out[1:]) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
