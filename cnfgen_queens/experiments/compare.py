"""``report --compare A B``: is A faster than B, beyond the noise?

A and B are two values of one run column: two solvers (``minisat kissat``, with arguments as the table
labels them), two encodings, or ``FIELD=VALUE`` for any column (``column_alo=true column_alo=false``).
The runs are paired over the instances both sides ran with everything else equal (N, variant, shuffle
seed, and the other configuration columns); a side's time on an instance is the median of its
repeats there, counted only when every repeat was solved.  Over the instances both solved:

- the geometric mean of the time ratio A / B (a speed-up of B over A when above 1), with the 95%
  Student's t confidence interval of the mean log ratio (scipy.stats.ttest_1samp), from
  :data:`MIN_PAIRS` pairs on (fewer: no interval is given).  It holds 95% when the log ratios are
  normal, at any number of pairs; a bootstrap does not at these sizes (in a seeded simulation of 400
  samples of normal log ratios, BCa held 87% at 6 pairs and 92% at 20, the t interval 97% and 94%); on
  skewed log ratios neither holds 95% at few pairs, the t interval less short of it (shifted
  exponential: 90% at 6 pairs, BCa 82%; lognormal: 87%, BCa 78%);
- the Wilcoxon signed-rank test of the log ratios (scipy.stats.wilcoxon, two-sided): a difference
  in the pairs' ranks, not only in their mean;
- the verdict: "A faster" or "B faster" when the test rejects at 5% and the interval excludes 1,
  else "no difference at 95%" (always so with fewer than :data:`MIN_PAIRS` pairs: the exact test
  cannot reach 5% below that).

Times below :data:`FLOOR` count as that (a ratio of two timer ticks is noise).  Runs of more than one
machine (:mod:`.machine`) are refused unless ``across_machines``, which the result then states.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError
from .report import _matches
from .spread import CONFIDENCE
from .store import Row
from .summary import _order, value_of
from .verdict import Verdict, verdict

FLOOR = 1e-3  # seconds: a ratio of two timer ticks is noise
MIN_PAIRS = 6  # the exact two-sided Wilcoxon test's smallest p-value is 2 / 2**n: 0.03125 at n = 6
PAIR_KEYS = ("task", "n", "variant", "shuffle_seed", "solver", "encoding", "group_size", "column_alo",
             "break_symmetry", "family")  # fmt: skip
GUESS = ("solver", "encoding")  # a plain value is looked for in these columns, in order


@dataclass(frozen=True)
class Comparison:
    """What ``--compare A B`` found (ratios are A time / B time)."""

    column: str
    a: str
    b: str
    both: int  # instances both sides ran
    pairs: int  # instances both solved (the statistics are over these)
    only_a: int  # solved by A only
    only_b: int
    geomean: float | None  # geometric mean of A / B
    ci_low: float | None
    ci_high: float | None
    wilcoxon: float | None  # the test's statistic
    p_value: float | None
    verdict: str
    machines: tuple[str, ...] = field(default=())  # fingerprints of the runs compared
    across_machines: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def side(rows: list[Row], spec: str) -> tuple[str, str]:
    """(column, value) of ``spec``: ``FIELD=VALUE``, or a value of the solver or encoding column."""
    key, eq, value = spec.partition("=")
    if eq and key in Row.__dataclass_fields__:
        return key, value
    for column in GUESS:
        if any(_matches(r, column, spec.strip().lower()) for r in rows):
            return column, spec
    raise UsageError(f"--compare {spec!r}: no solver or encoding of that name in the runs; name a column "
                     "as FIELD=VALUE (e.g. column_alo=true)")  # fmt: skip


def _time(group: list[Row], time: str) -> float | None:
    """The median of the repeats' times, when every repeat was solved; else None (unsolved)."""
    times = [r.cpu if time == "cpu" else r.wall for r in group]
    if any(verdict(r) is not Verdict.SOLVED for r in group) or any(t is None for t in times):
        return None
    return max(statistics.median(t for t in times if t is not None), FLOOR)


def compare(rows: Iterable[Row], a: str, b: str, *, time: str = "wall", across_machines: bool = False) -> Comparison:
    """Compare A with B over ``rows`` (see the module's docstring); UsageError for specs that do not fit."""
    rows = list(rows)
    (col_a, want_a), (col_b, want_b) = side(rows, a), side(rows, b)
    if col_a != col_b:
        raise UsageError(f"--compare: {a!r} is a value of {col_a}, {b!r} of {col_b}; compare two values of one column")
    want_a, want_b = want_a.strip().lower(), want_b.strip().lower()
    if want_a == want_b:
        raise UsageError(f"--compare: {a!r} and {b!r} are the same {col_a}")
    keys = [k for k in PAIR_KEYS if k != col_a]
    sides: tuple[dict[tuple[Any, ...], list[Row]], dict[tuple[Any, ...], list[Row]]] = ({}, {})
    for r in rows:
        for i, want in enumerate((want_a, want_b)):
            if _matches(r, col_a, want):
                sides[i].setdefault(tuple(value_of(r, k) for k in keys), []).append(r)
    for spec, runs in zip((a, b), sides, strict=True):
        if not runs:
            raise UsageError(f"--compare: no run has {col_a} {spec!r}")
    common = sides[0].keys() & sides[1].keys()
    if not common:
        raise UsageError(f"--compare: {a!r} and {b!r} ran no instance in common (with the other columns equal)")
    machines = tuple(sorted({r.machine for k in common for s in sides for r in s[k] if r.machine is not None}))
    if len(machines) > 1 and not across_machines:
        raise UsageError(f"--compare: the runs come from {len(machines)} machines ({', '.join(machines)}); a "
                         "difference between them may be the machines', not the solvers'; --across-machines "
                         "compares them anyway")  # fmt: skip
    times = [(_time(sides[0][k], time), _time(sides[1][k], time)) for k in sorted(common, key=_order)]
    logs = [math.log(ta / tb) for ta, tb in times if ta is not None and tb is not None]
    only_a = sum(ta is not None and tb is None for ta, tb in times)
    only_b = sum(ta is None and tb is not None for ta, tb in times)
    gm, low, high, w, p = _statistics(logs)
    name_a, name_b = _label(a, col_a), _label(b, col_a)
    word = "no difference at 95%"
    if p is not None and low is not None and high is not None and p < 1 - CONFIDENCE and (high < 1 or low > 1):
        word = f"{name_a} faster" if high < 1 else f"{name_b} faster"
    return Comparison(col_a, name_a, name_b, len(common), len(logs), only_a, only_b, gm, low, high, w, p, word,
                      machines, across_machines and len(machines) > 1)  # fmt: skip


def _label(spec: str, column: str) -> str:
    return spec.partition("=")[2] if spec.startswith(f"{column}=") else spec


def _statistics(logs: list[float]) -> tuple[float | None, float | None, float | None, float | None, float | None]:
    """(geometric mean ratio, its 95% CI, Wilcoxon statistic, p-value) of the log ratios."""
    if not logs:
        return None, None, None, None, None
    gm = math.exp(statistics.fmean(logs))
    if len(logs) < 2:
        return gm, None, None, None, None
    import numpy as np
    from scipy import stats

    x = np.asarray(logs)
    low = high = None
    if len(logs) >= MIN_PAIRS and np.ptp(x) == 0:  # every pair the same ratio: no spread
        low = high = gm
    elif len(logs) >= MIN_PAIRS:
        ci = stats.ttest_1samp(x, 0.0).confidence_interval(CONFIDENCE)
        low, high = math.exp(float(ci.low)), math.exp(float(ci.high))
    if not np.any(x) or len(logs) < MIN_PAIRS:
        return gm, low, high, None, None
    test = stats.wilcoxon(x)
    return gm, low, high, float(test.statistic), float(test.pvalue)


def text(c: Comparison, time: str = "wall") -> str:
    """The comparison for the terminal (and Markdown): a few plain lines, the verdict last."""
    lines = [f"compare {c.column}: A = {c.a}, B = {c.b} ({time} time; per instance the median of its repeats)"]
    if c.across_machines:
        lines.append(f"across machines: the runs come from {len(c.machines)} machines ({', '.join(c.machines)})")
    lines.append(f"instances run by both: {c.both}; solved by both: {c.pairs}; by A only: {c.only_a}; "
                 f"by B only: {c.only_b}")  # fmt: skip
    if c.geomean is not None:
        ci = f" (95% CI n/a: needs {MIN_PAIRS} pairs)" if c.ci_low is None else \
            f" (95% CI x{c.ci_low:.3g} to x{c.ci_high:.3g})"  # fmt: skip
        lines.append(f"time A / B, geometric mean over {c.pairs}: x{c.geomean:.3g}{ci}")
    if c.p_value is not None:
        lines.append(f"Wilcoxon signed-rank test: W = {c.wilcoxon:g}, p = {c.p_value:.3g}")
    elif c.pairs < MIN_PAIRS:
        lines.append(f"Wilcoxon signed-rank test: not run ({c.pairs} pairs; {MIN_PAIRS} or more can reach 5%)")
    lines.append(f"verdict: {c.verdict}")
    return "\n".join(lines) + "\n"
