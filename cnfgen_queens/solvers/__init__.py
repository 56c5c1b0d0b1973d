"""Run any SAT solver the same way: profiles, discovery, limits, parsing, model and proof checks.

Pipeline: ``resolve`` (profile or path or ``pysat:NAME``) -> ``process.run_process``
(limits, own process group) or ``embedded`` -> ``parse`` -> model check against every
clause -> :class:`Outcome`.
"""

from __future__ import annotations

from .discovery import SolverNotFound, SolverSpec, list_solvers, resolve
from .outcome import Limits, Outcome, Status
from .profiles import Profile, ProfileError
from .runner import check_model, solve

DEFAULT_SOLVER = "pysat:cadical195"

__all__ = [
    "DEFAULT_SOLVER",
    "Limits",
    "Outcome",
    "Profile",
    "ProfileError",
    "SolverNotFound",
    "SolverSpec",
    "Status",
    "check_model",
    "list_solvers",
    "resolve",
    "solve",
]
