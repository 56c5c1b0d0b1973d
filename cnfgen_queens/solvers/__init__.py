"""Run any SAT solver the same way: profiles, discovery, limits, parsing, model and proof checks.

Pipeline: ``resolve`` (profile or path or ``pysat:NAME``) -> ``process.run_process``
(limits, own process group) or ``embedded`` -> ``parse`` -> model check against every
clause -> :class:`Outcome`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .default import DEFAULT_SOLVER

if TYPE_CHECKING:
    from typing import Any

    from .discovery import SolverMissing, SolverNotFound, SolverSpec, list_solvers, resolve
    from .outcome import Outcome, Status
    from .profiles import Profile, ProfileError
    from .runner import RunContext, check_model, solve

# name -> submodule; imported on first use (PEP 562), so that `decode` reading output with
# `solvers.parse` does not pay for discovery and the runner at start-up
_LAZY = {
    "SolverMissing": "discovery",
    "SolverNotFound": "discovery",
    "SolverSpec": "discovery",
    "list_solvers": "discovery",
    "resolve": "discovery",
    "Outcome": "outcome",
    "Status": "outcome",
    "Profile": "profiles",
    "ProfileError": "profiles",
    "RunContext": "runner",
    "check_model": "runner",
    "solve": "runner",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_SOLVER",
    "Outcome",
    "Profile",
    "ProfileError",
    "RunContext",
    "SolverMissing",
    "SolverNotFound",
    "SolverSpec",
    "Status",
    "check_model",
    "list_solvers",
    "resolve",
    "solve",
]
