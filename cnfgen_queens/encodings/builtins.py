"""The built-in encodings' modules, loaded on demand: ``MODULES`` in the order of ``--list-encodings``.

Each module registers its encodings on import (:func:`.base.register`); :func:`load_builtins` loads them
all and puts the registry in their order, any plugin's encodings after them.
"""

from __future__ import annotations

import importlib

from .base import REGISTRY, Encoding

PACKAGE = "cnfgen_queens.encodings"

MODULES = ("pairwise", "sequential", "commander", "nested", "binary", "product", "bimander", "ladder", "pysat_card")
_all_loaded = False


def load_module(module: str) -> None:
    """Import the built-in module ``module`` (its import registers its encodings)."""
    importlib.import_module(f"{PACKAGE}.{module}")


def load_builtins() -> None:
    """Every module of ``MODULES``, the registry then in their order (each module's names as it registers
    them), whichever were loaded first."""
    global _all_loaded
    if _all_loaded:
        return
    for module in MODULES:
        load_module(module)
    rank = {f"{PACKAGE}.{m}": i for i, m in enumerate(MODULES)}
    ordered = sorted(REGISTRY.items(), key=lambda item: _rank(item[1], rank))
    REGISTRY.clear()
    REGISTRY.update(ordered)
    _all_loaded = True


def _rank(enc: Encoding, rank: dict[str, int]) -> int:
    """A built-in's place: its module's in ``MODULES``; a plugin's encodings after every built-in."""
    return rank.get(enc.build.__module__, len(rank)) if enc.builtin else len(rank)
