"""At-most-one encodings, registered by name; see :mod:`.base` for the contract.

Each module in ``_MODULES`` registers its encodings on import; the list's order
is the order of ``--list-encodings`` and of ``names()``.
"""

from __future__ import annotations

from ..errors import UsageError
from ..frozen import record
from .base import REGISTRY, Clause, Encoding, VarPool, measured_counts, register

_MODULES = ("pairwise", "sequential", "commander", "nested", "binary", "product", "bimander", "ladder", "pysat_card")
for _m in _MODULES:
    __import__(f"{__name__}.{_m}")  # not importlib: start-up has not loaded it


class UnknownEncoding(UsageError):
    """A name that is not a registered encoding; the message lists the valid ones."""


def get(name: str) -> Encoding:
    """The encoding called ``name``; the error lists the valid names."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise UnknownEncoding(f"unknown encoding {name!r}; valid: {', '.join(names())}") from None


def names() -> list[str]:
    return list(REGISTRY)


@record(frozen=True)
class EncodingSize:
    """One row of ``gen-queens --list-encodings``: an encoding's size on a line of ``length`` literals.

    Examples:
        >>> row = sizes(16)[1]
        >>> row.name, row.clauses, row.aux, row.propagation_complete
        ('sequential', 44, 15, True)
    """

    name: str
    length: int
    clauses: int
    aux: int
    propagation_complete: bool
    description: str
    reference: str


def sizes(length: int = 8, group_size: int | None = None) -> list[EncodingSize]:
    """Every encoding's clause and auxiliary counts for a line of ``length`` literals, in :func:`names` order;
    ValueError for a bad ``group_size`` (checked on every encoding before any is counted)."""
    params = {"group_size": group_size} if group_size else {}
    for name in names():
        get(name).count(2, **params)
    out = []
    for name in names():
        enc = get(name)
        clauses, aux = enc.count(length, **params)
        out.append(EncodingSize(name, length, clauses, aux, enc.propagation_complete, enc.description, enc.reference))
    return out


__all__ = [
    "REGISTRY",
    "Clause",
    "Encoding",
    "EncodingSize",
    "UnknownEncoding",
    "VarPool",
    "get",
    "measured_counts",
    "names",
    "register",
    "sizes",
]
