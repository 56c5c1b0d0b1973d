"""The optional compiled part (``_native``, built from ``_native.c`` by ``pip install``), or None.

It formats the generator's literals and scans DIMACS bodies; without it (no C compiler where the package was
installed, or ``CNFGEN_QUEENS_PURE=1`` in the environment) the pure-Python/numpy path gives the same bytes and
the same verdicts (the tests run both).  Callers read :data:`NATIVE` at each call, so a test may set it.
"""

from __future__ import annotations

import os
from types import ModuleType

PURE_VARIABLE = "CNFGEN_QUEENS_PURE"  # set to 1: the compiled part is not used

NATIVE: ModuleType | None = None
try:
    if os.environ.get(PURE_VARIABLE, "") not in ("", "0"):
        raise ImportError(PURE_VARIABLE)
    from cnfgen_queens.cnf import _native

    NATIVE = _native
except ImportError:
    pass
