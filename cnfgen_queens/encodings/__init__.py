"""At-most-one encodings, registered by name; see :mod:`.base` for the contract.

Each module in ``_MODULES`` registers its encodings on import; the list's order
is the order of ``--list-encodings`` and of ``names()``.  Only pairwise (the default) is
loaded with the package: :func:`get` loads the module of the name asked for, :func:`names`
all of them (``gen-queens N`` loads one encoding, not nine modules).
"""

from __future__ import annotations

from ..errors import UsageError
from ..frozen import record
from .base import REGISTRY, Clause, Encoding, VarPool, measured_counts, register

_MODULES = ("pairwise", "sequential", "commander", "nested", "binary", "product", "bimander", "ladder", "pysat_card")
_all_loaded = False


def _load(module: str) -> None:
    __import__(f"{__name__}.{module}")  # not importlib: start-up has not loaded it


def _load_all() -> None:
    """Every module of ``_MODULES``, the registry then in their order (each module's names as it registers
    them), whichever were loaded first."""
    global _all_loaded
    if _all_loaded:
        return
    for module in _MODULES:
        _load(module)
    rank = {f"{__name__}.{m}": i for i, m in enumerate(_MODULES)}
    ordered = sorted(REGISTRY.items(), key=lambda item: rank.get(item[1].build.__module__, len(rank)))
    REGISTRY.clear()
    REGISTRY.update(ordered)
    _all_loaded = True


_load("pairwise")  # the default, always there


class UnknownEncoding(UsageError):
    """A name that is not a registered encoding; the message lists the valid ones."""


def get(name: str) -> Encoding:
    """The encoding called ``name`` (its module loaded now); the error lists the valid names."""
    if name not in REGISTRY:
        module = "pysat_card" if name.startswith("pysat:") else name
        if module in _MODULES:
            _load(module)
        if name not in REGISTRY:
            _load_all()
    try:
        return REGISTRY[name]
    except KeyError:
        raise UnknownEncoding(f"unknown encoding {name!r}; valid: {', '.join(names())}") from None


def names() -> list[str]:
    _load_all()
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
