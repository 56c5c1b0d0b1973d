"""Summarise the symmetry-breaking study: CPU time of each solver with and without ``--break-symmetry``.

Usage::

    cnfgen-queens batch configs/symmetry.yaml                  # completion, a queen at 1,1 (SAT)
    for c in configs/symmetry-unsat/n*.yaml; do cnfgen-queens batch $c; done   # completion, UNSAT
    cnfgen-queens batch configs/symmetry-torus.yaml            # UNSAT tori
    python scripts/symmetry_study.py configs/symmetry.yaml configs/symmetry-unsat/n*.yaml configs/symmetry-torus.yaml

Writes ``data/results/symmetry/symmetry.csv`` (every run: experiment, N, solver, broken, repeat, status,
CPU seconds), ``symmetry.md`` (per experiment, N and solver: the median CPU time over the repeats
without and with the flag, their ranges and the ratio) and ``symmetry.png`` (the medians against N, a
panel per experiment, solid without the flag and dashed with it, bars from the least to the most of
the repeats; an unsolved run counts at the time limit).  Configs sharing a results file are read once.
"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path
from statistics import median

from cnfgen_queens.cnf.atomic import atomic_output
from cnfgen_queens.experiments.config import load
from cnfgen_queens.experiments.store import Store

OUT = Path("data/results/symmetry")
TITLES = {
    "symmetry": "completion, a queen at 1,1 (SAT)",
    "symmetry-unsat": "completion, 1,1 and a pigeonhole (UNSAT)",
    "symmetry-torus": "torus, gcd(N, 6) > 1 (UNSAT)",
}
Run = tuple[str, int, str, bool, int, str, float]


def runs(paths: list[str]) -> list[Run]:
    out: list[Run] = []
    seen: set[Path] = set()
    for path in paths:
        config = load(path, check_solvers=False)
        if config.results in seen:
            continue
        seen.add(config.results)
        with Store(config.results, readonly=True) as store:
            for r in store.rows():
                solved = r.status.value in ("SAT", "UNSAT") and r.cpu is not None
                cpu = r.cpu if solved and r.cpu is not None else config.time_limit or 0.0
                out.append(
                    (r.experiment, r.n, r.solver, bool(r.break_symmetry), r.repeat, r.status.value, round(cpu, 3))
                )
    return sorted(out)


def table(rows: list[Run]) -> str:
    lines = [
        "| experiment | N | solver | status | CPU (s) without | CPU (s) with --break-symmetry | ratio with/without |",
        "|---|---:|---|---|---:|---:|---:|",
    ]
    keys = sorted({(r[0], r[1], r[2]) for r in rows})
    for e, n, s in keys:
        cells, statuses = [], set()
        times: dict[bool, list[float]] = {}
        for broken in (False, True):
            sel = [r for r in rows if (r[0], r[1], r[2], r[3]) == (e, n, s, broken)]
            times[broken] = [r[6] for r in sel]
            statuses |= {r[5] for r in sel}
            t = times[broken]
            cells.append(f"{median(t):.2f} [{min(t):.2f}, {max(t):.2f}]")
        ratio = median(times[True]) / median(times[False]) if median(times[False]) else float("nan")
        lines.append(f"| {e} | {n} | {s} | {'/'.join(sorted(statuses))} | {cells[0]} | {cells[1]} | {ratio:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = runs(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(("experiment", "n", "solver", "break_symmetry", "repeat", "status", "cpu_s"))
    writer.writerows(rows)
    with atomic_output(OUT / "symmetry.csv") as f:
        f.write(text.getvalue().encode())
    with atomic_output(OUT / "symmetry.md") as f:
        f.write(table(rows).encode())
    experiments = [e for e in TITLES if any(r[0] == e for r in rows)]
    fig, axes = plt.subplots(1, len(experiments), figsize=(5.5 * len(experiments), 4), squeeze=False)
    for ax, name in zip(axes[0], experiments, strict=True):
        for i, solver in enumerate(sorted({r[2] for r in rows if r[0] == name})):
            for broken in (False, True):
                ns = sorted({r[1] for r in rows if r[0] == name and r[2] == solver and r[3] == broken})
                per = [[r[6] for r in rows if (r[0], r[1], r[2], r[3]) == (name, n, solver, broken)] for n in ns]
                mid = [median(t) for t in per]
                err = [
                    [m - min(t) for m, t in zip(mid, per, strict=True)],
                    [max(t) - m for m, t in zip(mid, per, strict=True)],
                ]
                label = f"{solver}{' --break-symmetry' if broken else ''}"
                ax.errorbar(
                    ns,
                    mid,
                    yerr=err,
                    marker="o",
                    linestyle="--" if broken else "-",
                    color=f"C{i}",
                    capsize=2,
                    label=label,
                )
        ax.set_yscale("log")
        ax.set_xlabel("N")
        ax.set_ylabel("solver CPU time (s), median of the repeats")
        ax.set_title(TITLES[name])
        ax.legend(fontsize=7)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, metadata={"Software": None})
    with atomic_output(OUT / "symmetry.png") as f:
        f.write(buf.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
