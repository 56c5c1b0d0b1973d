"""Summarise the n-Queens Completion threshold study: fraction satisfiable and solver time against K/N.

Usage::

    cnfgen-queens batch configs/completion.yaml --jobs 2      # the runs, into results/completion.sqlite
    cnfgen-queens batch configs/completion-100.yaml --jobs 2  # N = 100, scaled down: results/completion-100.sqlite
    python scripts/completion_study.py configs/completion.yaml configs/completion-100.yaml

An instance is (N, K, seed): K queens placed at random by ``gen-queens --random-place K --seed S``
(Gent, Jefferson and Nightingale, "Complexity of n-Queens Completion", JAIR 2017).  Its answer is the
one every solver that finished gave; solvers that disagree are reported and make the script fail.
Wall times of small instances are mostly process start and parsing, so the search effort is also
measured in-process and machine-independently: the conflicts of PySAT's CaDiCaL 1.9.5 on every
instance (deterministic; kept in ``completion-conflicts.csv`` and reused on later runs).
Writes ``completion.csv`` (one line per N and K), ``completion-runs.csv`` (every run),
``completion-conflicts.csv``, ``completion.md`` (tables and the threshold) and ``completion.png``,
atomically; the same database gives the same bytes.
"""

from __future__ import annotations

import argparse
import csv
import io
import statistics
import sys
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from cnfgen_queens.cnf.atomic import atomic_output
from cnfgen_queens.experiments.config import ConfigError, load
from cnfgen_queens.experiments.grid import expand
from cnfgen_queens.experiments.store import Store, StoreError

ANSWERS = ("SAT", "UNSAT")


@dataclass(frozen=True)
class Point:
    """One (N, K): instances, how many are satisfiable, median and maximum wall time per solver."""

    n: int
    k: int
    instances: int
    answered: int
    sat: int
    median: dict[str, float]
    worst: dict[str, float]
    unsolved: dict[str, int]
    conflicts: float | None = None  # median CaDiCaL 1.9.5 conflicts over the instances
    conflicts_max: int | None = None

    @property
    def fraction(self) -> float | None:
        return self.sat / self.answered if self.answered else None


Key = tuple[int, int, int]  # (N, K, seed)


def collect(
    config_path: Path, conflicts: dict[Key, tuple[str, int]]
) -> tuple[list[Point], list[list[object]], list[str], float]:
    """(points, run table, solver labels, time limit) from the config's grid and its results file."""
    config = load(config_path, check_solvers=False)
    if len(config.encodings) != 1 or config.shuffle_seeds or config.repeats != 1:
        raise ConfigError(f"{config_path}: the study needs one encoding, no shuffle_seeds and one repeat")
    runs = {r.key: r for r in expand(config)[0]}
    with Store(config.results, readonly=True) as store:
        rows = [r for r in store.rows() if r.run_key in runs]
    solvers = [s.label for s in config.solvers]
    by_instance: dict[tuple[int, int, int], dict[str, tuple[str, float]]] = {}
    table: list[list[object]] = []
    for row in rows:
        inst = runs[row.run_key].instance
        key = (inst.n, inst.random_place or 0, inst.random_seed or 0)
        wall = row.wall if row.wall is not None else config.time_limit
        if row.status not in ANSWERS:
            wall = max(wall, config.time_limit)  # unsolved: counted at the limit
        by_instance.setdefault(key, {})[row.solver_label] = (row.status, wall)
        table.append([inst.n, key[1], key[2], row.solver_label, row.status, f"{wall:.4f}", row.verified])
    table.sort(key=lambda r: (r[0], r[1], r[2], solvers.index(str(r[3]))))
    disagree = [(k, v) for k, v in by_instance.items() if len({s for s, _ in v.values() if s in ANSWERS}) > 1]
    for key, v in by_instance.items():  # the in-process CaDiCaL run must agree too
        if key in conflicts and {st for st, _ in v.values() if st in ANSWERS} - {conflicts[key][0]}:
            disagree.append((key, {**v, "pysat cadical195 (conflict count)": conflicts[key]}))
    if disagree:
        raise SystemExit(f"solvers disagree on {len(disagree)} instances, e.g. {disagree[0]}")
    points = []
    for n, k in sorted({(n, k) for n, k, _ in by_instance}):
        keys = [key for key in by_instance if key[:2] == (n, k)]
        group = [by_instance[key] for key in keys]
        effort = [conflicts[key][1] for key in keys if key in conflicts]
        answers = [next((s for s, _ in v.values() if s in ANSWERS), None) for v in group]
        times = {s: [v[s][1] for v in group if s in v] for s in solvers}
        points.append(
            Point(
                n,
                k,
                len(group),
                sum(a is not None for a in answers),
                answers.count("SAT"),
                {s: statistics.median(t) for s, t in times.items() if t},
                {s: max(t) for s, t in times.items() if t},
                {s: sum(v[s][0] not in ANSWERS for v in group if s in v) for s in solvers},
                statistics.median(effort) if effort else None,
                max(effort) if effort else None,
            )
        )
    return points, table, solvers, config.time_limit


CONFLICT_FIELDS = ["n", "k", "seed", "answer", "conflicts", "decisions", "propagations"]


def measure_conflicts(config_path: Path, cache: Path) -> dict[Key, tuple[str, int]]:
    """CaDiCaL 1.9.5 (PySAT) conflicts per instance of the config, cached in ``cache`` (a CSV)."""
    from pysat.solvers import Solver

    from cnfgen_queens.model.decode import DecodeError, variant_placement

    rows: dict[Key, list[object]] = {}
    if cache.is_file():
        for r in csv.DictReader(cache.read_text().splitlines()):
            rows[(int(r["n"]), int(r["k"]), int(r["seed"]))] = [r[f] for f in CONFLICT_FIELDS]
    config = load(config_path, check_solvers=False)
    todo = {}
    for run in expand(config)[0]:
        inst = run.instance
        key = (inst.n, inst.random_place or 0, inst.random_seed or 0)
        if key not in rows:
            todo[key] = inst
    for i, (key, inst) in enumerate(sorted(todo.items())):
        formula = inst.formula()
        with Solver(name="cadical195", bootstrap_with=formula.clauses()) as s:
            sat = s.solve()
            stats = s.accum_stats()
            if sat:  # never trust a solver: the model must be a completion
                model = s.get_model() or []
                try:
                    variant_placement(inst.n, (v for v in model[: inst.n**2] if v > 0), formula.variant)
                except DecodeError as e:
                    raise SystemExit(f"CaDiCaL's model for {key} is not a completion: {e}") from None
        rows[key] = [*key, "SAT" if sat else "UNSAT", stats["conflicts"], stats["decisions"], stats["propagations"]]
        if i % 50 == 49 or i == len(todo) - 1:
            print(f"conflicts: {i + 1}/{len(todo)} instances", file=sys.stderr, flush=True)
            _write_conflicts(cache, rows)
    return {k: (str(v[3]), int(v[4])) for k, v in rows.items()}


def _write_conflicts(cache: Path, rows: dict[Key, list[object]]) -> None:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CONFLICT_FIELDS)
    w.writerows(rows[k] for k in sorted(rows))
    cache.parent.mkdir(parents=True, exist_ok=True)
    with atomic_output(cache) as f:
        f.write(out.getvalue().encode())


def threshold(points: list[Point], n: int) -> float | None:
    """K/N where the fraction satisfiable first falls through 1/2 (linear interpolation)."""
    pts = [(p.k / p.n, p.fraction) for p in points if p.n == n and p.fraction is not None]
    for (x0, y0), (x1, y1) in pairwise(pts):
        if y0 >= 0.5 > y1:
            return x0 + (y0 - 0.5) * (x1 - x0) / (y0 - y1)
    return None


def summary_csv(points: list[Point], solvers: list[str]) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(
        ["n", "k", "k_over_n", "instances", "answered", "sat", "fraction_sat"]
        + [f"median_s_{s}" for s in solvers]
        + [f"max_s_{s}" for s in solvers]
        + [f"unsolved_{s}" for s in solvers]
        + ["median_conflicts_cadical195", "max_conflicts_cadical195"]
    )
    for p in points:
        frac = "" if p.fraction is None else f"{p.fraction:.3f}"
        w.writerow(
            [p.n, p.k, f"{p.k / p.n:.3f}", p.instances, p.answered, p.sat, frac]
            + [f"{p.median.get(s, 0):.4f}" for s in solvers]
            + [f"{p.worst.get(s, 0):.4f}" for s in solvers]
            + [p.unsolved.get(s, 0) for s in solvers]
            + ["" if p.conflicts is None else f"{p.conflicts:g}", p.conflicts_max]
        )
    return out.getvalue()


def runs_csv(table: list[list[object]]) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["n", "k", "seed", "solver", "status", "wall_s", "verified"])
    w.writerows(table)
    return out.getvalue()


def markdown(points: list[Point], solvers: list[str]) -> str:
    lines = [
        "| N | K | K/N | satisfiable | conflicts median (max) | "
        + " | ".join(f"{s} median (max) s" for s in solvers)
        + " |",
        "|--:|--:|--:|--:|--:|" + "--:|" * len(solvers),
    ]
    for p in points:
        frac = "-" if p.fraction is None else f"{p.sat}/{p.answered}"
        cells = [f"{p.median[s]:.3f} ({p.worst[s]:.3f})" if s in p.median else "-" for s in solvers]
        effort = "-" if p.conflicts is None else f"{p.conflicts:g} ({p.conflicts_max})"
        lines.append(f"| {p.n} | {p.k} | {p.k / p.n:.2f} | {frac} | {effort} | " + " | ".join(cells) + " |")
    lines.append("")
    for n in sorted({p.n for p in points}):
        t = threshold(points, n)
        lines.append(f"- N = {n}: half satisfiable at K/N = {'-' if t is None else f'{t:.2f}'}")
    return "\n".join(lines) + "\n"


def plot(points: list[Point], solvers: list[str], limit: float) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    ns = sorted({p.n for p in points})
    fig = Figure(figsize=(3.2 * len(solvers), 7.2), dpi=100, layout="constrained")
    grid = fig.add_gridspec(2, len(solvers))
    half = max(1, len(solvers) // 2)
    top = fig.add_subplot(grid[0, :half])
    effort = fig.add_subplot(grid[0, half:])
    bottom = [fig.add_subplot(grid[1, i]) for i in range(len(solvers))]
    for ax in bottom[1:]:
        ax.sharey(bottom[0])
    markers = "osD^v"
    for i, n in enumerate(ns):
        pts = [p for p in points if p.n == n and p.fraction is not None]
        top.plot([p.k / n for p in pts], [p.fraction for p in pts], marker=markers[i % 5], label=f"N = {n}")
        measured = [p for p in pts if p.conflicts is not None]
        effort.plot(
            [p.k / n for p in measured],
            [max(p.conflicts or 0, 0.5) for p in measured],
            marker=markers[i % 5],
            label=f"N = {n}",
        )
        for ax, s in zip(bottom, solvers, strict=True):
            ax.plot([p.k / n for p in pts], [p.median[s] for p in pts], marker=markers[i % 5], label=f"N = {n}")
    top.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    top.set_ylabel("fraction satisfiable")
    top.set_xlabel("K/N (queens placed at random / board size)")
    top.set_title("satisfiable fraction")
    top.grid(True, alpha=0.3)
    top.legend()
    effort.set_yscale("log")
    effort.set_xlabel("K/N")
    effort.set_ylabel("median conflicts (0 drawn at 0.5)")
    effort.set_title("search effort: CaDiCaL 1.9.5 conflicts")
    effort.grid(True, which="major", alpha=0.3)
    by_seeds: dict[int, list[int]] = {}
    for n in ns:
        by_seeds.setdefault(max(p.instances for p in points if p.n == n), []).append(n)
    seeds = "; ".join(f"{k} at N = {', '.join(map(str, v))}" for k, v in sorted(by_seeds.items(), reverse=True))
    fig.suptitle(f"n-Queens Completion with K queens placed at random (seeds per point: {seeds})")
    for ax, s in zip(bottom, solvers, strict=True):
        ax.set_title(s, fontsize=9)
        ax.set_yscale("log")
        ax.set_xlabel("K/N")
        ax.grid(True, which="major", alpha=0.3)
    bottom[0].set_ylabel(f"median wall time (s, log; limit {limit:g} s)")
    out = io.BytesIO()
    fig.savefig(out, format="png", metadata={"Software": None})
    return out.getvalue()


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    p.add_argument("configs", nargs="*", default=["configs/completion.yaml"], help="batch configs (one encoding each)")
    p.add_argument("--out", default="data/results/completion", help="output directory")
    p.add_argument("--no-conflicts", action="store_true", help="skip the in-process conflict measurement")
    args = p.parse_args(argv)
    out = Path(args.out)
    points: list[Point] = []
    table: list[list[object]] = []
    setups = set()
    try:
        for path in map(Path, args.configs):
            conflicts = {} if args.no_conflicts else measure_conflicts(path, out / "completion-conflicts.csv")
            more, rows, solvers, limit = collect(path, conflicts)
            points += more
            table += rows
            setups.add((tuple(solvers), limit))
    except (ConfigError, StoreError) as e:
        print(f"completion_study: error: {e}", file=sys.stderr)
        return 2
    if len(setups) > 1:
        print("completion_study: error: the configs differ in solvers or time limit", file=sys.stderr)
        return 2
    if len({(p.n, p.k) for p in points}) != len(points):
        print("completion_study: error: two configs measure the same (N, K)", file=sys.stderr)
        return 2
    points.sort(key=lambda p: (p.n, p.k))
    table.sort(key=lambda r: (r[0], r[1], r[2], solvers.index(str(r[3]))))
    if not points:
        print("completion_study: error: no runs of this config in its results file", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "completion.csv": summary_csv(points, solvers).encode(),
        "completion-runs.csv": runs_csv(table).encode(),
        "completion.md": markdown(points, solvers).encode(),
        "completion.png": plot(points, solvers, limit),
    }
    for name, data in files.items():
        with atomic_output(out / name) as f:
            f.write(data)
    sys.stdout.write(markdown(points, solvers))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
