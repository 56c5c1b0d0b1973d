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
from collections.abc import Callable, Iterable
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
MAX_MATCHED = 10_000  # distinct values whose match is remembered


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


def _candidates(spec: str) -> list[tuple[str, str]]:
    """The (column, value) pairs ``spec`` may mean: ``FIELD=VALUE``, or its value in each of :data:`GUESS`."""
    key, eq, value = spec.partition("=")
    if eq and key in Row.__dataclass_fields__:
        return [(key, value)]
    return [(column, spec) for column in GUESS]


@dataclass
class _Side:
    """A side's runs on one instance, none kept: their times (None: one unsolved, or solved without a time)
    and their machines."""

    times: list[float] | None = field(default_factory=list)
    machines: set[str] = field(default_factory=set)

    def take(self, times: list[float | None], solved: bool) -> None:
        """Runs of one verdict (``solved`` or not), given their times (None: not measured)."""
        known = [t for t in times if t is not None]
        if self.times is not None and (not solved or len(known) < len(times)):
            self.times = None
        elif self.times is not None:
            self.times += known

    def time(self) -> float | None:
        """The median of the repeats' times, when every repeat was solved; else None (unsolved)."""
        return None if self.times is None else max(statistics.median(self.times), FLOOR)


class Pairing:
    """``--compare A B`` over runs given one at a time (:meth:`add`), none of them kept: for each column A or B
    may name (both of :data:`GUESS` for a plain value), the runs of each side by instance; :meth:`result` is
    :func:`compare`'s answer.  ``platforms`` names each machine by its platform's first fingerprint
    (:func:`.machine.platform_names`: a new commit of this tool is no new machine)."""

    def __init__(
        self,
        a: str,
        b: str,
        *,
        time: str = "wall",
        across_machines: bool = False,
        platforms: dict[str, str] | None = None,
    ) -> None:
        self.a, self.b, self.time, self.across = a, b, time, across_machines
        self.platforms = platforms or {}
        self.specs = [_candidates(a), _candidates(b)]
        columns = dict.fromkeys(column for spec in self.specs for column, _ in spec)
        self.sides: dict[str, tuple[dict[tuple[Any, ...], _Side], ...]] = {c: ({}, {}) for c in columns}
        self.keys = {c: [k for k in PAIR_KEYS if k != c] for c in columns}
        self.matched: dict[tuple[Any, ...], bool] = {}

    def _matches(self, row: Row, column: str, value: str) -> bool:
        """:func:`.report._matches`, once per distinct value of the column (a few in a store of any size)."""
        seen = (column, value, getattr(row, column), row.solver_args if column == "solver" else None)
        if (found := self.matched.get(seen)) is None:
            found = _matches(row, column, value.strip().lower())
            if len(self.matched) < MAX_MATCHED:  # a column of a value per run (FIELD=VALUE of a time) is not kept
                self.matched[seen] = found
        return found

    @property
    def columns(self) -> tuple[str, ...]:
        """The columns named by the user (``FIELD=VALUE``) that a side reads."""
        return tuple(dict.fromkeys(column for spec in self.specs if len(spec) == 1 for column, _ in spec))

    def add(self, row: Row) -> None:
        self.route(row, verdict(row))([row.cpu if self.time == "cpu" else row.wall])

    def route(self, row: Row, judged: Verdict) -> Callable[[list[float | None]], None]:
        """Where ``row`` goes, and every run judged alike with the same columns as it: the sides it is a run of
        (made now when new, its machine noted); the function that takes those runs' times."""
        machine = self.platforms.get(row.machine, row.machine) if row.machine else None
        sides = []
        for i, spec in enumerate(self.specs):
            for column, value in spec:
                if self._matches(row, column, value):
                    key = tuple(value_of(row, k) for k in self.keys[column])
                    side = self.sides[column][i].setdefault(key, _Side())
                    if machine is not None:
                        side.machines.add(machine)
                    sides.append(side)
        solved = judged is Verdict.SOLVED

        def take(times: list[float | None]) -> None:
            for side in sides:
                side.take(times, solved)

        return take

    def _side(self, i: int) -> tuple[str, str]:
        """(column, value) of spec ``i``: ``FIELD=VALUE``, or the first of :data:`GUESS` with a run of the value."""
        spec = self.specs[i]
        if len(spec) == 1:  # FIELD=VALUE
            return spec[0]
        for column, value in spec:
            if self.sides[column][i]:
                return column, value
        raise UsageError(
            f"--compare {(self.a, self.b)[i]!r}: no solver or encoding of that name in the runs; name "
            "a column as FIELD=VALUE (e.g. column_alo=true)"
        )

    def result(self) -> Comparison:
        a, b = self.a, self.b
        (col_a, want_a), (col_b, want_b) = self._side(0), self._side(1)
        if col_a != col_b:
            raise UsageError(
                f"--compare: {a!r} is a value of {col_a}, {b!r} of {col_b}; compare two values of one column"
            )
        if want_a.strip().lower() == want_b.strip().lower():
            raise UsageError(f"--compare: {a!r} and {b!r} are the same {col_a}")
        sides = self.sides[col_a]
        for spec, runs in zip((a, b), sides, strict=True):
            if not runs:
                raise UsageError(f"--compare: no run has {col_a} {spec!r}")
        common = sides[0].keys() & sides[1].keys()
        if not common:
            raise UsageError(f"--compare: {a!r} and {b!r} ran no instance in common (with the other columns equal)")
        machines = tuple(sorted(set().union(*(s[k].machines for k in common for s in sides))))
        if len(machines) > 1 and not self.across:
            raise UsageError(
                f"--compare: the runs come from {len(machines)} machines ({', '.join(machines)}); a "
                "difference between them may be the machines', not the solvers'; --across-machines "
                "compares them anyway"
            )
        times = [(sides[0][k].time(), sides[1][k].time()) for k in sorted(common, key=_order)]
        logs = [math.log(ta / tb) for ta, tb in times if ta is not None and tb is not None]
        only_a = sum(ta is not None and tb is None for ta, tb in times)
        only_b = sum(ta is None and tb is not None for ta, tb in times)
        gm, low, high, w, p = _statistics(logs)
        name_a, name_b = _label(a, col_a), _label(b, col_a)
        word = "no difference at 95%"
        if p is not None and low is not None and high is not None and p < 1 - CONFIDENCE and (high < 1 or low > 1):
            word = f"{name_a} faster" if high < 1 else f"{name_b} faster"
        return Comparison(
            col_a,
            name_a,
            name_b,
            len(common),
            len(logs),
            only_a,
            only_b,
            gm,
            low,
            high,
            w,
            p,
            word,
            machines,
            self.across and len(machines) > 1,
        )


def side(rows: Iterable[Row], spec: str) -> tuple[str, str]:
    """(column, value) of ``spec``: ``FIELD=VALUE``, or a value of the solver or encoding column."""
    pairing = Pairing(spec, spec)
    for r in rows:
        pairing.add(r)
    return pairing._side(0)


def compare(
    rows: Iterable[Row],
    a: str,
    b: str,
    *,
    time: str = "wall",
    across_machines: bool = False,
    platforms: dict[str, str] | None = None,
) -> Comparison:
    """Compare A with B over ``rows`` (see the module's docstring; read once, none kept: :class:`Pairing`);
    UsageError for specs that do not fit."""
    pairing = Pairing(a, b, time=time, across_machines=across_machines, platforms=platforms)
    for r in rows:
        pairing.add(r)
    return pairing.result()


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
    lines.append(
        f"instances run by both: {c.both}; solved by both: {c.pairs}; by A only: {c.only_a}; by B only: {c.only_b}"
    )
    if c.geomean is not None:
        ci = (
            f" (95% CI n/a: needs {MIN_PAIRS} pairs)"
            if c.ci_low is None
            else f" (95% CI x{c.ci_low:.3g} to x{c.ci_high:.3g})"
        )
        lines.append(f"time A / B, geometric mean over {c.pairs}: x{c.geomean:.3g}{ci}")
    if c.p_value is not None:
        lines.append(f"Wilcoxon signed-rank test: W = {c.wilcoxon:g}, p = {c.p_value:.3g}")
    elif c.pairs < MIN_PAIRS:
        lines.append(f"Wilcoxon signed-rank test: not run ({c.pairs} pairs; {MIN_PAIRS} or more can reach 5%)")
    lines.append(f"verdict: {c.verdict}")
    return "\n".join(lines) + "\n"
