"""An embedded (``pysat:``) solver under a memory limit, run by ``cnfgen-queens solve`` in a fresh process.

The embedded solver runs in a child forked from the process that asks, with RLIMIT_AS on top of that
process's address space.  The command line forks from a fresh interpreter; a Python program forks from
itself, and the memory it has freed but still holds (heap and arena slack) is the child's to reuse beyond
the limit: ``solve(f, memory_limit=1)`` answered SAT where ``cnfgen-queens solve -m 1`` gives MEMOUT.  So
the API hands such a solve to the command itself, and the limit means what it means there.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path

from cnfgen_queens.errors import UsageError
from cnfgen_queens.limits import Limits
from cnfgen_queens.solvers.outcome import Outcome, ProofState, Status

PREFIX = "cnfgen-queens solve: error: "
STOP_GRACE = 30.0  # seconds the command has to stop its solver and clean up once told to (SIGTERM)


def solve_as_the_cli(
    path: Path, solver: str, limits: Limits, solver_args: Sequence[str] = (), solvers_file: Path | None = None
) -> Outcome:
    """``cnfgen-queens solve PATH --solver SOLVER`` with ``limits``, in a process of its own, as an Outcome
    (the command checked the model; its refusals raise UsageError, anything else OSError)."""
    argv = [sys.executable, "-m", "cnfgen_queens", "solve", str(path), "--solver", solver, "--json"]
    if solver_args:
        argv.append(f"--solver-args={shlex.join(solver_args)}")
    if solvers_file is not None:
        argv += ["--solvers-file", str(solvers_file)]
    if limits.memory is not None:
        argv += ["--memory-limit", str(limits.memory)]
    if limits.time is not None:
        argv += ["--time-limit", repr(limits.time)]
    with subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as proc:  # fmt: skip
        try:
            stdout, stderr = proc.communicate()
        except BaseException:  # Ctrl-C, SIGTERM's Terminated: the command stops its solver and goes
            proc.terminate()
            try:
                proc.wait(STOP_GRACE)
            except subprocess.TimeoutExpired:
                proc.kill()
            raise
    lines = stdout.strip().splitlines()
    if proc.returncode not in (0, 1, 10, 20) or not lines:
        why = stderr.strip().splitlines()[-1] if stderr.strip() else f"exit {proc.returncode}"
        if proc.returncode == 2:
            raise UsageError(why.removeprefix(PREFIX))
        raise OSError(f"cnfgen-queens solve: {why.removeprefix(PREFIX)}")
    record = json.loads(lines[-1])
    known = {f.name for f in fields(Outcome)}
    values = {k: v for k, v in record.items() if k in known}
    values["status"] = Status(values["status"])
    values["proof"] = None if values.get("proof") is None else ProofState(values["proof"])
    values["model"] = None if values.get("model") is None else tuple(values["model"])
    if record.get("wrong_answer"):  # the command's own verdict on an UNSAT the header contradicts
        values["status"], values["error"] = Status.ERROR, record["wrong_answer"]
    return Outcome(**values)
