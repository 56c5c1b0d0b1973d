"""The one progress bar of every long command: tqdm on stderr, imported only when shown.

Off with ``quiet`` (``--quiet``/``--no-progress``) and, unless ``tty_only`` is False, when stderr
is not a terminal (logs and pipes stay clean).  The bar is made at the first update, so a total
known only then (the cube groups) can be given there.
"""

from __future__ import annotations

import functools
import sys
from typing import Any


class Progress:
    """``update(n, total=None, **postfix)`` advances the bar by ``n``; ``close()`` clears it."""

    def __init__(
        self,
        unit: str,
        desc: str | None,
        *,
        total: int | None = None,
        quiet: bool = False,
        tty_only: bool = True,
        leave: bool = False,
    ) -> None:
        self.unit, self.desc, self.total, self.leave = unit, desc, total, leave
        self.enabled = not quiet and (not tty_only or sys.stderr.isatty())
        self.bar: Any = None

    def update(self, n: int = 1, total: int | None = None, **postfix: Any) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            self.bar = _bar_class()(
                total=self.total if total is None else total,
                unit=self.unit,
                desc=self.desc,
                file=sys.stderr,
                dynamic_ncols=True,
                mininterval=0.5,
                leave=self.leave,
            )
        if postfix:
            self.bar.set_postfix(refresh=False, **postfix)
        if n:
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


@functools.cache
def _bar_class() -> Any:
    """tqdm without its monitor thread (``monitor_interval = 0``, on a class of ours: a caller's own tqdm keeps
    its setting).  That thread would run in this process from the first bar on, and a fork while it runs is
    unsafe (:func:`~cnfgen_queens.solvers.process.fork_is_safe`): the cube counter's pool would start its
    workers from the forkserver instead of forking them."""
    from tqdm import tqdm

    class Bar(tqdm):
        monitor_interval = 0

    return Bar
