"""Cactus, time-vs-N and solver-vs-solver scatter plots with matplotlib (Agg, no pyplot state).

The kind of plot is chosen by the caller (``report --cactus/--time-vs-n/--scatter``),
the file extension picks the format.  A cactus plot draws, for each (solver,
encoding), its solved runs sorted by time: the k-th point is the time within which
k runs were solved (the SAT Competition's usual summary).  The time-vs-N plot has
small multiples, one panel per encoding, one line per solver, the median time per
N; unsolved N are crosses at the time limit.  The scatter plot compares two solvers
instance by instance on log-log axes, with the diagonal and the time-limit lines,
unsolved runs drawn on the limit (as in the SAT Competition reports).

Every encoding has its own colour and its own marker (tab20: the ten dark shades,
then light shades of other hues, dashed), so 16 encodings never share a style.
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from cnfgen_queens.cnf.atomic import atomic_output

from ..errors import UsageError
from .file_instances import generated
from .report import is_solved, medians_by_n
from .store import Row
from .summary import FILES

FORMATS = (".png", ".svg", ".pdf")
KINDS = ("cactus", "time-vs-n", "scatter")
MARKERS = (
    "o",
    "s",
    "^",
    "D",
    "v",
    "P",
    "X",
    "<",
    ">",
    "*",
    "p",
    "h",
    "d",
    "8",
    "H",
    r"$\spadesuit$",
    "1",
    "2",
    "3",
    "4",
)
FLOOR = 1e-3  # times below a millisecond are drawn at 1 ms (log axes)


def check_path(path: Path) -> None:
    """A plot file name must end in a supported format (checked before any work)."""
    if path.suffix.lower() not in FORMATS:
        raise UsageError(f"{path}: unsupported plot format {path.suffix or '(none)'!r}; use {', '.join(FORMATS)}")


def _styles(keys: list[str]) -> dict[str, dict[str, Any]]:
    """A distinct colour and marker per key: tab20's dark shades first, then its light ones (dashed)."""
    from matplotlib import colormaps

    cmap = colormaps["tab20"]
    out = {}
    for i, key in enumerate(sorted(keys)):
        shade = 2 * (i % 10) if i < 10 else 2 * ((i * 3 + 1) % 10) + 1  # light shades of other hues
        out[key] = {
            "color": cmap(shade % 20),
            "marker": MARKERS[i % len(MARKERS)],
            "linestyle": "-" if (i // 10) % 2 == 0 else "--",
        }
    return out


LINE = 30  # characters of a line of a panel title, legend entry or axis name: a solver's path is wrapped at its '/'


def _wrapped(label: str) -> str:
    """``label`` on lines of at most :data:`LINE` characters, broken after a ``/`` where one is near enough (a part
    longer than a line is cut): a solver named by its path, kept whole, made the time-vs-N legend wider than its
    figure (matplotlib: "axes sizes collapsed to zero", an empty plot)."""
    lines = [""]
    for part in re.findall(rf"[^/]{{1,{LINE - 1}}}/|[^/]{{1,{LINE}}}|/", label):
        if lines[-1] and len(lines[-1]) + len(part) > LINE:
            lines.append("")
        lines[-1] += part
    return "\n".join(lines)


def _figure(title: str, panels: list[str], width: float, height: float, columns: int) -> tuple[Any, list[Any]]:
    """A figure of small multiples (shared log time axis), one titled panel per entry of ``panels``."""
    from matplotlib.figure import Figure

    columns = max(1, min(columns, len(panels)))
    rows = math.ceil(len(panels) / columns)
    fig = Figure(figsize=(width * columns + 2.4, height * rows + 0.6), dpi=110, layout="constrained")
    grid = fig.subplots(rows, columns, sharex=True, sharey=True, squeeze=False)
    fig.suptitle(title)
    axes = [ax for line in grid for ax in line]
    for ax, name in zip(axes, panels, strict=False):
        ax.set_title(_wrapped(name), fontsize=9)
        ax.set_yscale("log")
        ax.grid(True, which="major", alpha=0.3)
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    return fig, axes[: len(panels)]


def _limit(rows: list[Row]) -> float | None:
    return max((r.time_limit for r in rows if r.time_limit), default=None)


def _legend(fig: Any, axes: list[Any], title: str) -> None:
    seen: dict[str, Any] = {}
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(label, h)
    labels = sorted(seen)
    fig.legend(
        [seen[k] for k in labels],
        [_wrapped(k) for k in labels],
        loc="outside right upper",
        fontsize=7,
        title=title,
        title_fontsize=8,
    )


def cactus(rows: list[Row], title: str, clock: str = "wall") -> Any:
    """Per solver: each encoding's solved runs sorted by time; the k-th point is k runs solved."""
    styles = _styles(sorted({r.encoding for r in rows}))
    solvers = sorted({r.solver_label for r in rows})
    fig, axes = _figure(title, solvers, 4.0, 4.4, len(solvers) if len(solvers) <= 4 else 3)
    limit = _limit(rows)
    for ax, solver in zip(axes, solvers, strict=True):
        times: dict[str, list[float]] = {}
        for r in rows:
            if r.solver_label == solver:
                got = times.setdefault(r.encoding, [])
                if is_solved(r) and r.wall is not None:
                    got.append(max(r.wall, FLOOR))
        for encoding, ts in sorted(times.items()):
            ts.sort()
            ax.plot(range(1, len(ts) + 1), ts, markersize=4, linewidth=1.1, label=encoding, **styles[encoding])
        if limit:
            ax.axhline(limit, color="grey", linewidth=0.8, linestyle=":")
        ax.set_xlabel("runs solved")
        ax.xaxis.get_major_locator().set_params(integer=True)
    axes[0].set_ylabel(f"{clock} time (s, log scale); dotted: time limit")
    _legend(fig, axes, "encoding")
    return fig


def time_vs_n(rows: list[Row], title: str, clock: str = "wall") -> Any:
    """One panel per encoding: median wall time per N for each solver; unsolved N are crosses at the limit."""
    from matplotlib.ticker import FixedLocator, NullLocator

    medians = medians_by_n(rows)
    styles = _styles(sorted({r.solver_label for r in rows}))
    encodings = sorted({r.encoding for r in rows})
    columns = len(encodings) if len(encodings) <= 4 else 3 if len(encodings) <= 9 else 4
    fig, axes = _figure(title, encodings, 3.0, 2.5, columns)
    ns = sorted({r.n for r in rows})
    limit = _limit(rows)
    for ax, encoding in zip(axes, encodings, strict=True):
        if limit:
            ax.axhline(limit, color="grey", linewidth=0.8, linestyle=":")
        for (solver, e), by_n in sorted(medians.items()):
            if e != encoding:
                continue
            xs = list(by_n)
            ys = [float("nan") if by_n[n] is None else max(by_n[n] or 0.0, FLOOR) for n in xs]
            ax.plot(xs, ys, markersize=4, linewidth=1.1, label=solver, **styles[solver])
            failed = [n for n in xs if by_n[n] is None]
            if failed and limit:
                ax.plot(failed, [limit] * len(failed), linestyle="none", marker="x", color=styles[solver]["color"])
        if ns and ns[-1] > 8 * ns[0]:
            ax.set_xscale("log", base=2)
            ax.xaxis.set_major_locator(FixedLocator(ns))
            ax.xaxis.set_minor_locator(NullLocator())
            ax.set_xticklabels([str(n) for n in ns], fontsize=7)
    fig.supxlabel("N (board size)", fontsize=9)
    fig.supylabel(f"median {clock} time (s, log)\nx: unsolved; dotted: limit", fontsize=9)  # one line: cut off
    _legend(fig, axes, "solver")
    return fig


def _instance(r: Row) -> tuple[Any, ...]:
    return (r.task, r.n, r.encoding, r.group_size, r.column_alo, r.shuffle_seed, r.repeat, r.family)


def scatter_pairs(rows: list[Row], a: str, b: str) -> list[tuple[str, float | None, float | None]]:
    """(encoding, time of A, time of B) per instance both solvers ran; None where a run is unsolved."""
    by: dict[str, dict[tuple[Any, ...], Row]] = {a: {}, b: {}}
    for r in rows:
        if r.solver_label in by:
            by[r.solver_label][_instance(r)] = r
    for name in (a, b):
        if not by[name]:
            known = ", ".join(sorted({r.solver_label for r in rows}))
            raise UsageError(f"--scatter: no runs of solver {name!r}; the database has: {known}")
    out = []
    for key in sorted(set(by[a]) & set(by[b]), key=repr):
        ra, rb = by[a][key], by[b][key]
        time = lambda r: max(r.wall, FLOOR) if is_solved(r) and r.wall is not None else None
        out.append((ra.encoding, time(ra), time(rb)))
    if not out:
        raise UsageError(f"--scatter: {a!r} and {b!r} never ran the same instance")
    return out


def scatter(rows: list[Row], a: str, b: str, title: str, clock: str = "wall") -> Any:
    """Solver A against solver B per instance, log-log: the diagonal, the limit lines, unsolved on the limit."""
    from matplotlib.figure import Figure

    pairs = scatter_pairs(rows, a, b)
    limit = _limit(rows) or max(t for _, ta, tb in pairs for t in (ta, tb) if t is not None)
    styles = _styles(sorted({e for e, _, _ in pairs}))
    fig = Figure(figsize=(7.6, 5.6), dpi=110, layout="constrained")
    ax = fig.subplots()
    lo = min([FLOOR * 5, *(t for _, ta, tb in pairs for t in (ta, tb) if t is not None)]) / 2
    hi = limit * 1.6
    ax.plot([lo, hi], [lo, hi], color="black", linewidth=0.8)
    for line in (ax.axvline, ax.axhline):
        line(limit, color="grey", linewidth=0.8, linestyle="--")
    for encoding in sorted(styles):
        pts = [(ta or limit, tb or limit) for e, ta, tb in pairs if e == encoding]
        style = {k: v for k, v in styles[encoding].items() if k != "linestyle"}
        ax.plot(
            [x for x, _ in pts],
            [y for _, y in pts],
            linestyle="none",
            markersize=6,
            alpha=0.9,
            markeredgecolor="#333",
            markeredgewidth=0.4,
            label=encoding,
            **style,
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal")
    ax.grid(True, which="major", alpha=0.3)
    a_won = sum(1 for _, ta, tb in pairs if ta is not None and (tb is None or ta < tb))
    b_won = sum(1 for _, ta, tb in pairs if tb is not None and (ta is None or tb < ta))
    ax.set_xlabel(f"{_wrapped(a)}: {clock} time (s, log)")
    ax.set_ylabel(f"{_wrapped(b)}: {clock} time (s, log)")
    ax.set_title(
        f"{title}\n{len(pairs)} instances: {_wrapped(a)} faster on {a_won}, {_wrapped(b)} on {b_won}; "
        "dashed: time limit (unsolved drawn there)",
        fontsize=9,
    )
    _legend(fig, [ax], "encoding")
    return fig


def save(fig: Any, path: Path) -> None:
    """Write ``fig`` atomically; metadata without dates or versions, so the bytes are reproducible."""
    import matplotlib

    fmt = path.suffix.lower().lstrip(".")
    metadata = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None}, "pdf": {"CreationDate": None}}
    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "cnfgen-queens", "svg.fonttype": "none"}):
        fig.savefig(buf, format=fmt, metadata=metadata[fmt])
    with atomic_output(path, stream=True) as out:  # a FIFO or device is written into
        out.write(buf.getvalue())


def draw(
    rows: list[Row], kind: str, path: Path, title: str, solvers: tuple[str, str] | None = None, clock: str = "wall"
) -> None:
    """Draw one plot of ``kind`` (see KINDS) into ``path``; scatter needs the two solvers.  ``clock="cpu"``
    plots CPU time: each run's ``cpu`` stands in for its ``wall``."""
    if clock == "cpu":
        rows = [replace(r, wall=r.cpu) for r in rows]
    if kind == "cactus":  # a family of DIMACS files is one line, as in the report's table
        fig = cactus(
            [r if generated(r.family) else replace(r, encoding=f"{r.family} {FILES}") for r in rows], title, clock
        )
    elif kind == "time-vs-n":
        queens = [r for r in rows if generated(r.family)]
        if not queens:
            raise UsageError("--time-vs-n: no run on a generated N-queens instance (DIMACS files have no N)")
        fig = time_vs_n(queens, title, clock)
    elif kind == "scatter" and solvers is not None:
        fig = scatter(rows, *solvers, title, clock)
    else:
        raise ValueError(f"unknown plot kind {kind!r}")
    save(fig, path)
