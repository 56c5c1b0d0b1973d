"""Limits of a run and the one deadline every loop, runner and writer checks.

One bound on a time limit for every command and config: :data:`MAX_TIME` seconds, what kissat,
minisat and picosat accept (a larger limit is refused, not clamped).  A :class:`Deadline` is an
instant on the monotonic clock, so a step of the wall clock (NTP, a user's ``date -s``) moves no
limit.  That clock is the machine's, shared by this process and a forked child; a Deadline that
is pickled (to a spawned worker, a Dask worker on another machine) travels as the seconds it has
left and is anchored again on the receiver's clock.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .errors import UsageError

MAX_TIME = 2**31 - 1  # seconds: kissat, minisat and picosat reject a larger time limit
MAX_MEMORY = 2**31 - 1  # MB: minisat rejects a larger -mem-lim
DEFAULT_OUTPUT_MB = 1024  # solver output (stdout + stderr) past this is an ERROR "output limit"
ISOLATION_MODES = ("auto", "cgroup", "none")


@dataclass(frozen=True)
class Limits:
    """Resource limits of one solver run and how they are enforced.

    ``time`` in wall-clock seconds, ``memory`` in MB (None: unlimited), ``output`` in MB
    of stdout + stderr, ``isolation``: ``cgroup`` (BenchExec), ``none`` (process group,
    rusage) or ``auto`` (cgroup where the machine allows it).  Limits beyond what the
    solvers accept (2^31 - 1 seconds or MB) are refused (UsageError), not clamped.
    """

    time: float | None = None
    memory: int | None = None
    output: int = DEFAULT_OUTPUT_MB
    isolation: str = "auto"

    def __post_init__(self) -> None:
        check_time_limit(self.time)
        if self.memory is not None and not 0 < self.memory <= MAX_MEMORY:
            raise UsageError(f"memory limit must be a positive number of MB up to {MAX_MEMORY}, got {self.memory}")
        if not 0 < self.output <= MAX_MEMORY:
            raise UsageError(f"output limit must be a positive number of MB up to {MAX_MEMORY}, got {self.output}")
        if self.isolation not in ISOLATION_MODES:
            raise UsageError(f"isolation must be one of {', '.join(ISOLATION_MODES)}, got {self.isolation!r}")


def check_time_limit(seconds: float | None, what: str = "time limit") -> float | None:
    """``seconds`` when it is a positive finite number up to :data:`MAX_TIME` (or None); UsageError otherwise."""
    if seconds is not None and not 0 < seconds <= MAX_TIME:
        raise UsageError(f"{what} must be a positive number of seconds up to {MAX_TIME}, got {seconds:g}")
    return seconds


@dataclass(frozen=True)
class Deadline:
    """When time is up: ``at`` on :func:`time.monotonic`'s clock, or None for never.

    >>> Deadline.after(None).expired()
    False
    >>> Deadline.after(3600).left() > 3590
    True
    """

    at: float | None = None

    @classmethod
    def after(cls, seconds: float | None, since: float | None = None) -> Deadline:
        """The deadline ``seconds`` from now, or from ``since`` (an earlier :func:`time.monotonic`); never for None."""
        return cls(None if seconds is None else (time.monotonic() if since is None else since) + seconds)

    def expired(self, grace: float = 0.0) -> bool:
        """Whether the deadline (plus ``grace`` seconds) has passed."""
        return self.at is not None and time.monotonic() > self.at + grace

    def left(self, grace: float = 0.0) -> float | None:
        """Seconds until the deadline plus ``grace`` (at least 0), or None for never."""
        return None if self.at is None else max(0.0, self.at + grace - time.monotonic())

    @property
    def never(self) -> bool:
        return self.at is None

    def __reduce__(self) -> tuple[object, tuple[float | None, float]]:
        """Pickled as the seconds left and the wall-clock time then: the monotonic clock of another process or
        machine has another zero, and a pickled deadline may wait (a pool's queue holds its next tasks
        pickled): it is unpickled with what is left of it then, not with the seconds it had when pickled
        (``count --jobs 2 -t 3``: a worker stopped at the deadline took a queued task with 3 s more)."""
        return _deadline_after, (self.left(), time.time())


def _deadline_after(seconds: float | None, pickled: float | None = None) -> Deadline:
    """:meth:`Deadline.after` for unpickling, less the time since it was pickled (``pickled``: that instant on
    the wall clock; a clock behind the pickler's takes none off); an expired deadline stays expired."""
    if seconds is not None and pickled is not None:
        seconds = max(0.0, seconds - max(0.0, time.time() - pickled))
    return Deadline.after(seconds)


NEVER = Deadline()
