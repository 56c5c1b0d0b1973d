"""What ``solve``, ``enumerate`` and ``count`` make of their run options (:mod:`.arg_groups`):
:class:`Limits` from the parsed flags, ``--jobs`` capped to the cores, the ``measured by`` note."""

from __future__ import annotations

import argparse
import os
import sys
from time import monotonic
from typing import TYPE_CHECKING

from .. import STARTED
from ..limits import DEFAULT_OUTPUT_MB, Limits
from ..solvers.cgroup import IsolationUnavailable, choose, unavailable_reason, usable_cores
from .common import fail

if TYPE_CHECKING:
    from ..limits import Limits


def limits_from(args: argparse.Namespace, time: float | None = None, memory: int | None = None) -> Limits:
    """The Limits the flags ask for; a limit out of range or an impossible isolation is a one-line error
    (exit 2 for a value, 1 when cgroups were asked for and this machine has none)."""

    output = getattr(args, "output_limit", None) or DEFAULT_OUTPUT_MB
    isolation = getattr(args, "isolation", "auto")
    try:
        limits = Limits(time, memory, output, isolation)
    except ValueError as e:
        fail(str(e))
    if isolation == "cgroup":
        try:
            choose(isolation)
        except IsolationUnavailable as e:
            fail(str(e), 1)
    return limits


def command_start() -> float:
    """When a command's ``--time-limit`` starts, on :func:`time.monotonic`'s clock: when this package was
    imported (:data:`cnfgen_queens.STARTED`, our first statement) when it is the console script
    (``cnfgen-queens``, ``python -m cnfgen_queens``), so that our start-up counts as the user's clock counts
    it; else now (``main()`` called by a program running already)."""
    arg0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(arg0) == "cnfgen-queens" or arg0.endswith(os.path.join("cnfgen_queens", "__main__.py")):
        return STARTED
    return monotonic()


def cap_jobs(args: argparse.Namespace) -> None:
    """``--jobs`` above the cores this process may use is capped to them, with a one-line note."""
    cores = usable_cores()
    if args.jobs > cores:
        print(f"{args.prog}: note: --jobs {args.jobs} capped to the {cores} core(s) available", file=sys.stderr)
        args.jobs = cores


def measured(measured_by: str, isolation: str, binary: bool) -> str:
    """The ``measured by`` part of solve's ``c`` line, with the reason when ``auto`` fell back to rusage."""
    text = f"  measured by {measured_by}"
    if binary and isolation == "auto" and measured_by == "rusage":
        text += f" (no cgroup isolation: {unavailable_reason()})"
    return text
