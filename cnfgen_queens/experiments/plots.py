"""Cactus and time-vs-N plots with matplotlib (Agg, no pyplot state); the file extension picks the format.

A cactus plot draws, for each (solver, encoding), its solved runs sorted by time:
the k-th point is the time within which k runs were solved (the SAT Competition's
usual summary).  The time-vs-N plot has one panel per solver, one line per
encoding, the median time per N; unsolved N are crosses at the time limit.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from .report import is_solved, medians_by_n
from .store import Row

FORMATS = (".png", ".svg", ".pdf")
KINDS = ("cactus", "time")
LINESTYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")


def plot_kind(path: Path) -> str:
    """Which plot a file name asks for: 'cactus' or 'time' (time vs N) must appear in it, not both."""
    name = path.name.lower()
    if path.suffix.lower() not in FORMATS:
        raise ValueError(f"{path}: unsupported plot format {path.suffix or '(none)'!r}; use {', '.join(FORMATS)}")
    found = [k for k in KINDS if k in name]
    if len(found) != 1:
        raise ValueError(f"{path}: name the file after the plot: it must contain 'cactus' or 'time' (time vs N)")
    return found[0]


def _styles(rows: list[Row]) -> dict[str, dict[str, Any]]:
    """A line style per encoding: tab10 colours, then the same colours with other markers and dashes."""
    from matplotlib import colormaps

    cmap = colormaps["tab10"]
    encodings = sorted({r.encoding for r in rows})
    return {
        e: {
            "color": cmap(i % 10),
            "marker": MARKERS[i % len(MARKERS)],
            "linestyle": LINESTYLES[(i // 10) % len(LINESTYLES)],
        }
        for i, e in enumerate(encodings)
    }


def _panels(rows: list[Row], title: str, width: float) -> tuple[Any, list[tuple[Any, str]]]:
    """A figure with one panel per solver (shared log time axis)."""
    from matplotlib.figure import Figure

    solvers = sorted({r.solver_label for r in rows})
    fig = Figure(figsize=(width * len(solvers) + 2.2, 4.8), dpi=110, layout="constrained")
    axes = fig.subplots(1, len(solvers), sharey=True, squeeze=False)[0]
    fig.suptitle(title)
    for ax, solver in zip(axes, solvers, strict=True):
        ax.set_title(solver)
        ax.set_yscale("log")
        ax.grid(True, which="major", alpha=0.3)
    return fig, list(zip(axes, solvers, strict=True))


def _limit_line(ax: Any, rows: list[Row]) -> float | None:
    limit = max((r.time_limit for r in rows if r.time_limit), default=None)
    if limit:
        ax.axhline(limit, color="grey", linewidth=0.8, linestyle=":")
    return limit


def _legend(fig: Any, axes: list[tuple[Any, str]]) -> None:
    seen: dict[str, Any] = {}
    for ax, _ in axes:
        for h, label in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(label, h)
    labels = sorted(seen)
    fig.legend(
        [seen[k] for k in labels], labels, loc="outside right upper", fontsize=7, title="encoding", title_fontsize=8
    )


def cactus(rows: list[Row], title: str) -> Any:
    """Per solver: each encoding's solved runs sorted by time; the k-th point is k runs solved."""
    styles = _styles(rows)
    fig, axes = _panels(rows, title, 3.8)
    for ax, solver in axes:
        times: dict[str, list[float]] = {}
        for r in rows:
            if r.solver_label == solver:
                got = times.setdefault(r.encoding, [])
                if is_solved(r) and r.wall is not None:
                    got.append(max(r.wall, 1e-3))
        for encoding, ts in sorted(times.items()):
            ts.sort()
            ax.plot(range(1, len(ts) + 1), ts, markersize=3.5, linewidth=1.1, label=encoding, **styles[encoding])
        _limit_line(ax, rows)
        ax.set_xlabel("runs solved")
        ax.xaxis.get_major_locator().set_params(integer=True)
    axes[0][0].set_ylabel("wall time (s, log scale); dotted: time limit")
    _legend(fig, axes)
    return fig


def time_vs_n(rows: list[Row], title: str) -> Any:
    """Per solver: median wall time per N for each encoding; unsolved N are crosses at the time limit."""
    from matplotlib.ticker import FixedLocator, NullLocator

    medians = medians_by_n(rows)
    styles = _styles(rows)
    fig, axes = _panels(rows, title, 4.2)
    ns = sorted({r.n for r in rows})
    for ax, solver in axes:
        limit = _limit_line(ax, rows)
        for (s, encoding), by_n in sorted(medians.items()):
            if s != solver:
                continue
            xs = list(by_n)
            ys = [float("nan") if by_n[n] is None else max(by_n[n], 1e-3) for n in xs]
            ax.plot(xs, ys, markersize=3.5, linewidth=1.1, label=encoding, **styles[encoding])
            failed = [n for n in xs if by_n[n] is None]
            if failed and limit:
                ax.plot(failed, [limit] * len(failed), linestyle="none", marker="x", color=styles[encoding]["color"])
        if ns and ns[-1] > 8 * ns[0]:
            ax.set_xscale("log", base=2)
            ax.xaxis.set_major_locator(FixedLocator(ns))
            ax.xaxis.set_minor_locator(NullLocator())
            ax.set_xticklabels([str(n) for n in ns])
        ax.set_xlabel("N (board size)")
    axes[0][0].set_ylabel("median wall time (s, log); x: unsolved")
    _legend(fig, axes)
    return fig


def save(fig: Any, path: Path) -> None:
    """Write ``fig`` atomically; metadata without dates or versions, so the bytes are reproducible."""
    import matplotlib

    from ..dimacs import atomic_output

    fmt = path.suffix.lower().lstrip(".")
    metadata = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None}, "pdf": {"CreationDate": None}}
    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "cnfgen-queens", "svg.fonttype": "none"}):
        fig.savefig(buf, format=fmt, metadata=metadata[fmt])
    with atomic_output(path) as out:
        out.write(buf.getvalue())


def draw(rows: list[Row], path: Path, title: str) -> None:
    kind = plot_kind(path)
    save(cactus(rows, title) if kind == "cactus" else time_vs_n(rows, title), path)
