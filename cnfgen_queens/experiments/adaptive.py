"""Repeats until the answer is clear: ``repeats: {min: 3, max: 20, until: 0.05}``.

Every cell (a run of the grid without its repeat index) runs ``min`` times; then, round by round, a
cell whose 95% confidence interval of the median time (:func:`.spread.spread`) reaches farther than
``until`` times the median from it on either side gets more repeats, until both ends are within that
or the cell has ``max`` repeats.  A cell with fewer repeats than a 95% interval of the median
needs (:data:`.spread.MIN_REPEATS`) has no interval yet, so it is never clear: it gets the repeats it
lacks in one round.  An unsolved repeat counts as slower than any solved one (:mod:`.spread`): a cell
with one gets more repeats while its median or an end of its interval is unsolved (no finite bound).
A cell whose every repeat is unsolved stops (nothing to time, each repeat costs the whole limit; below
six repeats that is no 95% statement).
What is stored decides, so a batch stopped between rounds goes on where it was.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import replace

from .config import Config
from .grid import Run, _repeat_keys, iter_runs
from .spread import MIN_REPEATS, spread
from .store import Row, Store
from .summary import censored


def bound(config: Config, runs: int) -> str:
    """The dry run's line: how many runs the grid's ``runs`` (at ``min`` repeats) may become."""
    if config.repeats_max is None or config.repeats_until is None:
        return ""
    cells = runs // config.repeats
    return (
        f"repeats: {config.repeats} to {config.repeats_max} per cell, until the 95% interval of the median is "
        f"within {config.repeats_until:.0%} of it on either side: {runs} to {cells * config.repeats_max} "
        "runs"
    )


def clear(rows: list[Row], until: float) -> bool:
    """Whether a cell's repeats answer it: both ends of the interval within ``until`` of the median (never with
    fewer repeats than an interval needs, nor when the median or an end is an unsolved repeat's), or every
    repeat unsolved."""
    times = censored(rows)
    if times and all(t == math.inf for t in times):
        return True
    reach = spread(times).reach() if len(times) >= 2 else None
    return reach is not None and reach <= until


def _cells(config: Config, repeats: int) -> Iterator[tuple[Run, list[str]]]:
    """(the cell's first run, the keys of its repeats 0 .. ``repeats`` - 1) of every cell of the grid."""
    for first in iter_runs(config):
        if first.repeat == 0:
            yield first, _repeat_keys(first, repeats)


def more(config: Config, stored: Iterable[Row]) -> list[Run]:
    """The next repeats of every cell that has its ``min`` repeats or more stored and is not yet clear: one, or
    as many as it lacks of the repeats a 95% interval needs."""
    if config.repeats_max is None or config.repeats_until is None:
        return []
    by_key = {r.run_key: r for r in stored}
    out = []
    for first, keys in _cells(config, config.repeats_max):
        have = []
        for key in keys:
            if key not in by_key:
                break
            have.append(by_key[key])
        if config.repeats <= len(have) < config.repeats_max and not clear(have, config.repeats_until):
            for k in range(len(have), min(max(len(have) + 1, MIN_REPEATS), config.repeats_max)):
                run = replace(first, repeat=k)  # its key set below
                object.__setattr__(run, "key", keys[k])
                out.append(run)
    return out


def tally(config: Config, stored: set[str]) -> tuple[int, int]:
    """(runs of the grid now: its ``min`` repeats and every further one stored, of those the ones stored) of an
    adaptive grid, given the stored run keys."""
    grid = kept = 0
    for _, keys in _cells(config, config.repeats_max or config.repeats):
        there = [k in stored for k in keys]
        kept += sum(there)
        grid += sum(there[config.repeats :]) + config.repeats
    return grid, kept


def next_round(config: Config, store: Store) -> list[Run]:
    """:func:`more` over what ``store`` holds."""
    return more(config, store.rows()) if config.adaptive else []
