"""At-most-one encodings, registered by name; see :mod:`.base` for the contract.

Each module in ``_MODULES`` registers its encodings on import; the list's order
is the order of ``--list-encodings`` and of ``names()``.
"""

from __future__ import annotations

import importlib

from ..errors import UsageError
from .base import REGISTRY, Clause, Encoding, VarPool, measured_counts, register

_MODULES = ("pairwise", "sequential", "commander", "nested", "binary", "product", "bimander", "ladder", "pysat_card")
for _m in _MODULES:
    importlib.import_module(f"{__name__}.{_m}")


class UnknownEncoding(UsageError):
    pass


def get(name: str) -> Encoding:
    """The encoding called ``name``; the error lists the valid names."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise UnknownEncoding(f"unknown encoding {name!r}; valid: {', '.join(names())}") from None


def names() -> list[str]:
    return list(REGISTRY)


__all__ = [
    "REGISTRY",
    "Clause",
    "Encoding",
    "UnknownEncoding",
    "VarPool",
    "get",
    "measured_counts",
    "names",
    "register",
]
