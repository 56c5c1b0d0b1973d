"""Repeats until the answer is clear: ``repeats: {min: 3, max: 20, until: 0.05}``.

Every cell (a run of the grid without its repeat index) runs ``min`` times; then, round by round, a
cell whose 95% bootstrap confidence interval of the median time (:func:`.spread.spread`) is wider
than ``until`` times the median on either side gets one more repeat, until it is narrow enough or
the cell has ``max`` repeats.  A cell with an unsolved repeat stops there (a timeout repeated is no
clearer).  What is stored decides, so a batch stopped between rounds goes on where it was.
"""

from __future__ import annotations

from collections.abc import Iterable

from .config import Config
from .grid import Run, _repeat_keys, iter_runs
from .spread import spread
from .store import Row, Store
from .verdict import Verdict, verdict


def bound(config: Config, runs: int) -> str:
    """The dry run's line: how many runs the grid's ``runs`` (at ``min`` repeats) may become."""
    if config.repeats_max is None or config.repeats_until is None:
        return ""
    cells = runs // config.repeats
    return (f"repeats: {config.repeats} to {config.repeats_max} per cell, until the 95% interval of the median is "
            f"within {config.repeats_until:.0%} of it: {runs} to {cells * config.repeats_max} runs")  # fmt: skip


def clear(rows: list[Row], until: float) -> bool:
    """Whether a cell's repeats answer it: an unsolved one, or the interval within ``until`` of the median."""
    times = [r.wall for r in rows if verdict(r) is Verdict.SOLVED and r.wall is not None]
    if len(times) < len(rows) or len(times) < 2:
        return True
    return spread(times).half_width() <= until


def more(config: Config, stored: Iterable[Row]) -> list[Run]:
    """The next repeat of every cell that has its ``min`` repeats or more stored and is not yet clear."""
    if config.repeats_max is None or config.repeats_until is None:
        return []
    by_key = {r.run_key: r for r in stored}
    out = []
    for first in iter_runs(config):
        if first.repeat != 0:
            continue
        keys = _repeat_keys(first, config.repeats_max)
        have = []
        for key in keys:
            if key not in by_key:
                break
            have.append(by_key[key])
        if config.repeats <= len(have) < config.repeats_max and not clear(have, config.repeats_until):
            k = len(have)
            run = Run(first.instance, first.solver, first.task, first.time_limit, first.memory_limit, k,
                      first.output_limit, first.engine)  # fmt: skip
            object.__setattr__(run, "key", keys[k])
            out.append(run)
    return out


def next_round(config: Config, store: Store) -> list[Run]:
    """:func:`more` over what ``store`` holds."""
    return more(config, store.rows()) if config.adaptive else []
