"""Summarise the symmetry-breaking study: CPU time of each solver with and without ``--break-symmetry``.

Usage::

    cnfgen-queens batch configs/symmetry.yaml          # completion with a corner queen, SAT
    cnfgen-queens batch configs/symmetry-torus.yaml    # UNSAT tori
    python scripts/symmetry_study.py configs/symmetry.yaml configs/symmetry-torus.yaml

Writes ``data/results/symmetry/symmetry.csv`` (every run: experiment, N, solver, broken, status, CPU
seconds) and ``symmetry.png`` (CPU time against N, a panel per config, solid without the flag and
dashed with it; an unsolved run is drawn at the time limit).
"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

from cnfgen_queens.cnf.atomic import atomic_output
from cnfgen_queens.experiments.config import load
from cnfgen_queens.experiments.store import Store

OUT = Path("data/results/symmetry")
TITLES = {"symmetry": "completion, a queen at 1,1 (SAT)", "symmetry-torus": "torus, gcd(N, 6) > 1 (UNSAT)"}


def main(argv: list[str]) -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = []
    for path in argv:
        config = load(path, check_solvers=False)
        with Store(config.results, readonly=True) as store:
            for r in store.rows():
                broken = '"break_symmetry": true' in (r.variant or "")
                cpu = r.cpu if r.status.value in ("SAT", "UNSAT") and r.cpu is not None else config.time_limit
                rows.append((config.experiment, r.n, r.solver, broken, r.status.value, round(cpu, 3)))
    rows.sort()
    OUT.mkdir(parents=True, exist_ok=True)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(("experiment", "n", "solver", "break_symmetry", "status", "cpu_s"))
    writer.writerows(rows)
    with atomic_output(OUT / "symmetry.csv") as f:
        f.write(text.getvalue().encode())
    experiments = sorted({r[0] for r in rows})
    fig, axes = plt.subplots(1, len(experiments), figsize=(5.5 * len(experiments), 4), squeeze=False)
    for ax, name in zip(axes[0], experiments, strict=True):
        for i, solver in enumerate(sorted({r[2] for r in rows if r[0] == name})):
            for broken in (False, True):
                pts = [(r[1], r[5]) for r in rows if r[0] == name and r[2] == solver and r[3] == broken]
                label = f"{solver}{' --break-symmetry' if broken else ''}"
                ax.plot(*zip(*pts, strict=True), marker="o", linestyle="--" if broken else "-", color=f"C{i}",
                        label=label)  # fmt: skip
        ax.set_yscale("log")
        ax.set_xlabel("N")
        ax.set_ylabel("solver CPU time (s)")
        ax.set_title(TITLES.get(name, name))
        ax.legend(fontsize=7)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, metadata={"Software": None})
    with atomic_output(OUT / "symmetry.png") as f:
        f.write(buf.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
