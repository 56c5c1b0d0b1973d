"""The optional compiled part (``_native``, built from ``_native.c`` by ``pip install``), or None.

It formats the generator's literals and scans DIMACS bodies; without it (no C compiler where the package was
installed, or ``CNFGEN_QUEENS_PURE=1`` in the environment) the pure-Python/numpy path gives the same bytes and
the same verdicts (the tests run both).  Callers read :data:`NATIVE` at each call, so a test may set it; it is
loaded on first use (a shared library to open: not at the start-up of a command that does not need it).
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import ModuleType

    NATIVE: ModuleType | None

PURE_VARIABLE = "CNFGEN_QUEENS_PURE"  # set to 1: the compiled part is not used


def _load() -> ModuleType | None:
    if os.environ.get(PURE_VARIABLE, "") not in ("", "0"):
        return None
    try:
        return importlib.import_module(f"{__package__}._native")
    except ImportError:
        return None


def __getattr__(name: str) -> object:
    """:data:`NATIVE`, loaded on first use."""
    if name == "NATIVE":
        globals()["NATIVE"] = value = _load()
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
