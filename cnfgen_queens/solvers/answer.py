"""What a binary solver's run answered, read from its output files (:mod:`.parse`) and judged before the
model check (:func:`.parse.classify`): the runner's one reading of a finished run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cnfgen_queens.cnf.model_sink import ModelSink
from cnfgen_queens.cnf.scan import CheckStopped

from .finished import Finished, tail
from .parse import Claim, classify, read_competition, read_minisat
from .status import Status

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from ..limits import Limits
    from .profiles import Profile


UNREAD_OUTPUT = "time limit reached before the solver's output was read"


def read_answer(
    profile: Profile,
    run: Finished,
    model_file: Path | None,
    limits: Limits,
    stderr: str,
    sink: ModelSink,
    stop: Callable[[], bool] | None = None,
) -> tuple[Status, str | None, Claim]:
    """The status the output supports (before the model check), streaming over the output files.

    A run stopped at the time or output limit is not parsed at all: its output is not an answer.  The
    reading ends when ``stop()`` says so (the run's deadline): the run is then a TIMEOUT.
    """
    if run.output_exceeded:
        note = f"output limit: the solver printed more than {limits.output} MB (stdout + stderr), stopped"
        return Status.ERROR, note, Claim(None, None, False, None, None)
    try:
        if run.timed_out:
            claim = Claim(None, None, False, None, None)
        elif profile.result_file:
            if model_file is not None and model_file.exists():
                with open(model_file, "rb") as f:
                    claim = read_minisat(f, sink, stop)
            else:
                claim = read_minisat(None)
        else:
            assert run.stdout_file is not None
            with open(run.stdout_file, "rb") as f:
                claim = read_competition(f, sink, stop)
    except CheckStopped:
        return Status.TIMEOUT, UNREAD_OUTPUT, Claim(None, None, False, None, None)
    noise = stderr + "\n" + (claim.garbage or "")
    if profile.result_file and run.stdout_file is not None:
        noise += "\n" + tail(run.stdout_file).decode("utf-8", "replace")
    status, error = classify(claim, profile, run, limits, noise)
    if run.memory_exceeded and status in (Status.ERROR, Status.UNKNOWN):
        status, error = Status.MEMOUT, f"out of memory: the cgroup's {limits.memory} MB limit was reached"
    return status, error, claim
