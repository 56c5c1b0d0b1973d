"""The spread of a cell's repeats: the same configuration on the same instance, run ``repeats`` times.

A cell is a line of the report table (task, solver with its arguments, encoding, group size, column
clauses) on one instance (N, variant, shuffle seed); its repeats differ only in the noise of the
machine.  Over the times of its solved repeats: the median with its interquartile range, a 95%
bootstrap confidence interval of the median (scipy.stats.bootstrap, percentile method, a fixed seed
so that the report is the same bytes each time), and the coefficient of variation (scipy.stats.variation,
sample standard deviation over mean).  A cell whose variation is above :data:`NOISY_CV` is *noisy*: its
repeats disagree by more than the differences a comparison would look for.

scipy and numpy are imported when a spread is computed, never at the CLI's start-up.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .report import seconds
from .store import Row
from .summary import value_of
from .verdict import Verdict, verdict

NOISY_CV = 0.10  # coefficient of variation above which a cell is marked noisy (report --noisy changes it)
CONFIDENCE = 0.95
RESAMPLES = 9999  # bootstrap resamples (scipy's default)
SEED = 32  # the bootstrap's seed: the same store gives the same intervals
CELL_KEYS = ("task", "solver", "encoding", "group_size", "column_alo", "n", "variant", "shuffle_seed")


@dataclass(frozen=True)
class Spread:
    """The spread of a sample of times (seconds)."""

    runs: int
    median: float
    q1: float
    q3: float
    ci_low: float  # 95% bootstrap confidence interval of the median
    ci_high: float
    cv: float  # coefficient of variation (sample standard deviation / mean); 0 for identical times

    @property
    def iqr(self) -> float:
        return self.q3 - self.q1

    def half_width(self) -> float:
        """The confidence interval's half-width relative to the median (0.05: within 5% of it)."""
        return (self.ci_high - self.ci_low) / 2 / self.median if self.median > 0 else 0.0


def spread(times: Sequence[float], *, seed: int = SEED) -> Spread:
    """The spread of two or more times (ValueError with fewer)."""
    if len(times) < 2:
        raise ValueError(f"a spread needs two or more times, got {len(times)}")
    import numpy as np
    from scipy import stats

    x = np.asarray(times, dtype=float)
    q1, median, q3 = np.percentile(x, [25, 50, 75])
    if np.ptp(x) == 0:  # identical times: no spread to resample (scipy warns and returns nan)
        low = high = float(median)
        cv = 0.0
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            ci = stats.bootstrap(
                (x,), np.median, confidence_level=CONFIDENCE, n_resamples=RESAMPLES, method="percentile",
                rng=np.random.default_rng(seed),
            ).confidence_interval  # fmt: skip
        low, high = float(ci.low), float(ci.high)
        cv = float(stats.variation(x, ddof=1))
    return Spread(len(x), float(median), float(q1), float(q3), low, high, cv)


@dataclass(frozen=True)
class Cell:
    """One configuration on one instance over its repeats (``spread``: of its solved repeats, two or more)."""

    keys: tuple[tuple[str, Any], ...]  # CELL_KEYS and their values
    runs: int
    solved: int
    spread: Spread | None

    def key(self, name: str) -> Any:
        return dict(self.keys)[name]

    def noisy(self, threshold: float = NOISY_CV) -> bool:
        return self.spread is not None and self.spread.cv > threshold


def _seconds(row: Row, time: str) -> float | None:
    return row.cpu if time == "cpu" else row.wall


def cells(rows: Iterable[Row], time: str = "wall") -> list[Cell]:
    """The cells with two or more runs (repeats), in the store's order of configurations and instances."""
    groups: dict[tuple[Any, ...], list[Row]] = {}
    for r in rows:
        groups.setdefault(tuple(value_of(r, k) for k in CELL_KEYS), []).append(r)
    out = []
    for key, group in groups.items():
        if len(group) < 2:
            continue
        times = [t for r in group if verdict(r) is Verdict.SOLVED and (t := _seconds(r, time)) is not None]
        out.append(Cell(tuple(zip(CELL_KEYS, key, strict=True)), len(group), len(times),
                        spread(times) if len(times) >= 2 else None))  # fmt: skip
    return out


def markdown(found: list[Cell], threshold: float = NOISY_CV, time: str = "wall") -> str:
    """The spread section: a heading line, then a Markdown table of the cells (a noisy one marked)."""
    unit = "CPU s" if time == "cpu" else "s"
    noisy = sum(c.noisy(threshold) for c in found)
    lines = [
        f"spread over repeats: {len(found)} cells, {noisy} noisy (coefficient of variation above "
        f"{threshold:.0%}); median with interquartile range and 95% bootstrap confidence interval",
        "",
        f"| task | solver | encoding | N | variant | seed | repeats | solved | median ({unit}) | IQR ({unit}) | "
        f"95% CI ({unit}) | CV | noisy |",
        "|---|---|---|--:|---|--:|--:|--:|--:|--:|--:|--:|---|",
    ]
    for c in found:
        s = c.spread
        stats = ["", "", "", ""]
        if s is not None:
            stats = [seconds(s.median), f"{seconds(s.q1)}-{seconds(s.q3)}", f"{seconds(s.ci_low)}-{seconds(s.ci_high)}",
                     f"{s.cv:.1%}"]  # fmt: skip
        k = dict(c.keys)
        cells_ = [k["task"], k["solver"], k["encoding"], str(k["n"]), k["variant"] or "",
                  "" if k["shuffle_seed"] is None else str(k["shuffle_seed"]), str(c.runs), str(c.solved), *stats,
                  "noisy" if c.noisy(threshold) else ""]  # fmt: skip
        lines.append("| " + " | ".join(cells_) + " |")
    return "\n".join(lines) + "\n"
