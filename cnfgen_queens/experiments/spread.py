"""The spread of a cell's repeats: the same configuration on the same instance, run ``repeats`` times.

A cell is a line of the report table (task, solver with its arguments, encoding, group size, column
clauses, symmetry breaking) on one instance (N, variant, shuffle seed); its repeats differ only in the
noise of the machine.  Over the times of its repeats: the median with its interquartile range, the 95%
confidence interval of the median, and the coefficient of variation (scipy.stats.variation, sample
standard deviation over mean).  A cell whose variation is above :data:`NOISY_CV` is *noisy*: its
repeats disagree by more than the differences a comparison would look for; so is one whose repeats
disagree on whether it is solved at all.

An unsolved repeat is right-censored: it ran past its limit, so it is slower than any solved repeat
and counts as +infinity (``math.inf``) in the median, the quartiles and the interval (dropping it
biased them low).  A figure it reaches (the median of a cell mostly unsolved, the interval's upper
end) has no finite bound and shows ``unsolved``; the coefficient of variation of such a sample is
unknown (None).

The interval is the distribution-free one of order statistics (scipy.stats.quantile_test's
``confidence_interval``, exact binomial coverage of the median, no resampling): it holds the median
with probability at least 95% whatever the distribution of the times.  It exists from
:data:`MIN_REPEATS` repeats on: below that no two order statistics cover the median with 95% (the
widest, the smallest and largest time, with 1 - 2 x 0.5^n: 75% of three repeats, 94% of five), so
none is given (a percentile bootstrap's "95%" interval of three repeats is their range: 75%).

scipy and numpy are imported when a spread is computed, never at the CLI's start-up.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .file_instances import generated
from .report import seconds
from .store import Row
from .summary import _order, censored_times, value_of
from .verdict import Verdict, verdict

NOISY_CV = 0.10  # coefficient of variation above which a cell is marked noisy (report --noisy changes it)
CONFIDENCE = 0.95
MIN_REPEATS = 6  # the fewest times whose order statistics hold the median with 95%: 1 - 2 x 0.5**6 = 0.969
CELL_KEYS = ("task", "solver", "encoding", "group_size", "column_alo", "break_symmetry", "n", "variant",
             "shuffle_seed", "family")  # fmt: skip
ORDER = ("task", "solver", "encoding", "n", "group_size", "column_alo", "shuffle_seed", "break_symmetry", "variant",
         "family")  # fmt: skip
_ORDER = operator.itemgetter(*(CELL_KEYS.index(k) for k in ORDER))  # a cell's key in the order cells are listed
NO_INTERVAL = f"n/a (needs {MIN_REPEATS})"  # the interval's cell where the repeats allow none


@dataclass(frozen=True)
class Spread:
    """The spread of a sample of times (seconds)."""

    runs: int
    median: float
    q1: float
    q3: float
    ci_low: float | None  # 95% confidence interval of the median (None: fewer than MIN_REPEATS times)
    ci_high: float | None  # math.inf (as median, q1, q3, ci_low): an unsolved repeat's, no finite bound
    cv: float | None  # coefficient of variation (sample standard deviation / mean); 0 for identical times;
    # None: a repeat unsolved

    @property
    def iqr(self) -> float:
        return self.q3 - self.q1

    def reach(self) -> float | None:
        """How far the confidence interval reaches from the median on its farther side, relative to the
        median (0.05: both ends within 5% of it); None without an interval, infinity when an end or the
        median is unsolved."""
        if self.ci_low is None or self.ci_high is None:
            return None
        if math.inf in (self.median, self.ci_high):
            return math.inf
        if self.median <= 0:
            return 0.0
        return max(self.median - self.ci_low, self.ci_high - self.median) / self.median


def spread(times: Sequence[float]) -> Spread:
    """The spread of two or more times, ``math.inf`` for an unsolved one (ValueError with fewer)."""
    return spreads([times])[0]


def spreads(samples: Sequence[Sequence[float]]) -> list[Spread]:
    """:func:`spread` of each sample; the coefficients of variation of the samples of one length in one call
    (scipy's per call: 0.3 ms, 0.6 s for the 2,000 cells of a million runs; the same numbers, row by row), each
    of the sorted times: a sum's last bit depends on the order of its terms, and a cell's runs come in the order
    of the file, or by kind (:meth:`.runs_read.Runs.tally`): the same runs, the same bytes."""
    if short := [len(times) for times in samples if len(times) < 2]:
        raise ValueError(f"a spread needs two or more times, got {short[0]}")
    import numpy as np
    from scipy import stats

    arrays = [np.asarray(times, dtype=float) for times in samples]
    varied: dict[int, list[int]] = {}  # the samples of each length whose variation is asked: every time solved
    for i, x in enumerate(arrays):
        if np.isfinite(x).all() and np.ptp(x) != 0:
            varied.setdefault(len(x), []).append(i)
    cvs: dict[int, float] = {}
    for which in varied.values():
        found = stats.variation(np.sort(np.stack([arrays[i] for i in which]), axis=1), axis=1, ddof=1)
        cvs.update(zip(which, map(float, found), strict=True))
    return [_spread(x, cvs.get(i, 0.0)) for i, x in enumerate(arrays)]


def _spread(x: Any, cv: float) -> Spread:
    """The spread of the times ``x`` (a numpy array), ``cv`` their coefficient of variation if all are solved."""
    import numpy as np
    from scipy import stats

    solved = x[np.isfinite(x)]
    top = float(solved.max(initial=0.0))
    # numpy interpolates inf - inf to nan: take the quartiles with any number above the solved times in place
    # of the unsolved, and a quartile it weighs in is unsolved (it lies between the slowest solved and beyond)
    q1, median, q3 = (math.inf if q > top else float(q) for q in np.percentile(np.minimum(x, top + 1), [25, 50, 75]))
    low = high = None
    if len(x) >= MIN_REPEATS:  # the order statistics: the unsolved are the largest, as they are
        ranks = _interval_ranks(len(x))
        if ranks is None:
            ci = stats.quantile_test(x, q=median, p=0.5).confidence_interval(CONFIDENCE)
            low, high = float(ci.low), float(ci.high)
        else:
            ordered = np.sort(x)
            low, high = (math.nan if r is None else float(ordered[r]) for r in ranks)
    return Spread(len(x), median, q1, q3, low, high, None if len(solved) < len(x) else cv)


@functools.lru_cache(maxsize=256)
def _interval_ranks(n: int) -> tuple[int | None, int | None] | None:
    """The ranks in the sorted sample of the ends of the median's interval of ``n`` times (None: an end beyond the
    sample, NaN), or None when scipy's interval is not two order statistics.  ``quantile_test``'s interval is
    the order statistics the binomial distribution of ``n`` picks, whatever the times: found once per ``n``, on the
    ranks themselves (0..n-1), it is the same numbers for every cell of ``n`` repeats (scipy builds a binomial
    distribution on each call: 2 ms a cell, 4 s for the 2,000 cells of a million runs)."""
    import numpy as np
    from scipy import stats

    ci = stats.quantile_test(np.arange(n, dtype=float), q=0.0, p=0.5).confidence_interval(CONFIDENCE)
    ends = (float(ci.low), float(ci.high))
    if not all(math.isnan(e) or (e.is_integer() and 0 <= e < n) for e in ends):
        return None
    low, high = (None if math.isnan(e) else int(e) for e in ends)
    return low, high


@dataclass(frozen=True)
class Cell:
    """One configuration on one instance over its repeats (``spread``: of two or more, one solved or more)."""

    keys: tuple[tuple[str, Any], ...]  # CELL_KEYS and their values
    runs: int
    solved: int
    spread: Spread | None

    def key(self, name: str) -> Any:
        return dict(self.keys)[name]

    def noisy(self, threshold: float = NOISY_CV) -> bool:
        """Its variation is above ``threshold``, or its repeats disagree on whether it is solved."""
        return self.spread is not None and (self.spread.cv is None or self.spread.cv > threshold)


class Spreads:
    """The cells of runs given one at a time (:meth:`add`), none of them kept: each cell's run count and
    censored times (:func:`.summary.censored`) in the order they came; :meth:`cells` is :func:`cells`' answer."""

    def __init__(self, time: str = "wall") -> None:
        self.time = time
        self.groups: dict[tuple[Any, ...], tuple[list[int], list[float]]] = {}

    columns: tuple[str, ...] = ()  # no column named by the user

    def add(self, row: Row) -> None:
        self.route(row, verdict(row))([row.cpu if self.time == "cpu" else row.wall])

    def route(self, row: Row, judged: Verdict) -> Callable[[list[float | None]], None]:
        """Where ``row`` goes, and every run judged alike with the same columns as it: its cell (made now when
        new); the function that takes those runs' times (their number counted, their censored times kept)."""
        key = tuple(value_of(row, k) for k in CELL_KEYS)
        if (group := self.groups.get(key)) is None:
            group = self.groups[key] = ([0], [])

        def take(times: list[float | None]) -> None:
            group[0][0] += len(times)
            group[1].extend(censored_times(times, judged))

        return take

    def cells(self) -> list[Cell]:
        """The cells with two or more runs (repeats), in the order of their configurations and instances
        (:data:`ORDER`), whatever the order the runs came in."""
        found = []
        for key, ([runs], times) in sorted(self.groups.items(), key=lambda group: _order(_ORDER(group[0]))):
            if runs >= 2:
                found.append((key, runs, sum(t != math.inf for t in times), times))
        measured = [times for _, _, solved, times in found if len(times) >= 2 and solved]
        each = iter(spreads(measured) if measured else [])
        return [
            Cell(
                tuple(zip(CELL_KEYS, key, strict=True)),
                runs,
                solved,
                next(each) if len(times) >= 2 and solved else None,
            )
            for key, runs, solved, times in found
        ]


def cells(rows: Iterable[Row], time: str = "wall") -> list[Cell]:
    """The cells with two or more runs (repeats), in the order of their configurations and instances
    (``rows`` read once, none kept: :class:`Spreads`)."""
    found = Spreads(time)
    for r in rows:
        found.add(r)
    return found.cells()


def markdown(found: list[Cell], threshold: float = NOISY_CV, time: str = "wall") -> str:
    """The spread section: a heading line, then a Markdown table of the cells (a noisy one marked)."""
    unit = "CPU s" if time == "cpu" else "s"
    noisy = sum(c.noisy(threshold) for c in found)
    lines = [
        f"spread over repeats: {len(found)} cells, {noisy} noisy (coefficient of variation above "
        f"{threshold:.0%}, or solved by some repeats only); median with interquartile range and 95% confidence "
        f"interval of the median (order statistics, {MIN_REPEATS} or more repeats; an unsolved repeat counts as "
        "slower than any solved one: a figure it reaches shows unsolved, no finite bound)",
        "",
        f"| task | solver | encoding | N | variant | seed | repeats | solved | median ({unit}) | IQR ({unit}) | "
        f"95% CI ({unit}) | CV | noisy |",
        "|---|---|---|--:|---|--:|--:|--:|--:|--:|--:|--:|---|",
    ]
    for c in found:
        s = c.spread
        stats = ["", "", "", ""]
        if s is not None:
            ci = NO_INTERVAL if s.ci_low is None or s.ci_high is None else f"{_time(s.ci_low)}-{_time(s.ci_high)}"
            cv = "n/a (unsolved)" if s.cv is None else f"{s.cv:.1%}"
            stats = [_time(s.median), f"{_time(s.q1)}-{_time(s.q3)}", ci, cv]
        k = dict(c.keys)
        board = " ".join(v for v in (k["variant"], "break_symmetry" * bool(k["break_symmetry"])) if v)
        what = k["encoding"] if generated(k["family"]) else f"{k['family']}/{k['encoding']}"  # a file: where it is
        cells_ = [
            k["task"],
            k["solver"],
            what,
            str(k["n"]),
            board,
            "" if k["shuffle_seed"] is None else str(k["shuffle_seed"]),
            str(c.runs),
            str(c.solved),
            *stats,
            "noisy" if c.noisy(threshold) else "",
        ]
        lines.append("| " + " | ".join(cells_) + " |")
    return "\n".join(lines) + "\n"


def _time(seconds_: float) -> str:
    return "unsolved" if seconds_ == math.inf else seconds(seconds_)
