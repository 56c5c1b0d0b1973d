"""Records of a solver run: the limits asked for, the status and the outcome.

One :class:`Outcome` whatever the solver (binary or embedded), in the spirit of
runsolver (Roussel, "Controlling a solver execution with the runsolver tool",
JSAT 7, 2011): status, exit code, wall and CPU time, peak memory, stderr tail.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .status import Checked, ProofState, Status

__all__ = ["EXIT_CODES", "S_LINES", "Checked", "Outcome", "ProofState", "Status"]


# SAT-competition exit codes of the CLI (0: no answer, 1: solver error)
EXIT_CODES = {Status.SAT: 10, Status.UNSAT: 20, Status.ERROR: 1}
S_LINES = {Status.SAT: "SATISFIABLE", Status.UNSAT: "UNSATISFIABLE"}


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """The result of one solver run; a SAT model here has been checked against every clause."""

    status: Status
    solver: str
    version: str | None
    model: tuple[int, ...] | None  # signed literals, one per variable 1..V
    exit_code: int | None  # the solver's exit status; -signal when killed by a signal
    wall: float
    cpu: float | None
    peak_memory_mb: float | None
    verified: bool  # SAT: model checked; UNSAT: DRAT proof checked
    error: str | None
    stderr_tail: str
    proof: ProofState | None  # VERIFIED / UNVERIFIED (a rejected proof: ERROR, UNVERIFIED); None: none asked
    check_time: float | None = None  # seconds spent checking the model (or validating an UNSAT file)
    clauses_checked: int | None = None  # SAT: the clauses the model was checked against (the file's, not its header's)
    measured_by: str = "rusage"  # "cgroup" (BenchExec: the whole process tree) or "rusage"
    model_rejected: bool = False  # the solver said SAT, but its model failed the check (status ERROR, ``error``)

    @classmethod
    def not_started(
        cls, solver: str, status: Status, error: str, version: str | None = None, measured_by: str = "rusage"
    ) -> Outcome:
        """The outcome of a run whose solver never started: ``status`` and why."""
        return cls(
            status=status,
            solver=solver,
            version=version,
            model=None,
            exit_code=None,
            wall=0.0,
            cpu=None,
            peak_memory_mb=None,
            verified=False,
            error=error,
            stderr_tail="",
            proof=None,
            measured_by=measured_by,
        )

    def true_vars(self) -> set[int]:
        """The variables the model sets true (empty without a model)."""
        return {lit for lit in self.model or () if lit > 0}

    @property
    def exit_status(self) -> int:
        """The CLI exit code: 10 SAT, 20 UNSAT, 1 ERROR, 0 otherwise."""
        return EXIT_CODES.get(self.status, 0)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (status as its name, model as a list)."""
        d = asdict(self)
        d["status"] = self.status.value
        d["proof"] = None if self.proof is None else self.proof.value
        d["model"] = list(self.model) if self.model is not None else None
        return d
