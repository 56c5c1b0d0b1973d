"""At-most-one encodings, registered by name in one registry; see :mod:`.base` for the record.

Built-ins and plugins (:mod:`.plugins`: ``register_encoding``, ``--plugin``, the entry-point group
``cnfgen_queens.encodings``) go through the same :func:`register`.  Each built-in module in ``MODULES``
registers its encodings on import; the list's order is the order of ``--list-encodings`` and of
``names()``, plugins' encodings after them, in the order registered.  Only pairwise (the default) is
loaded with the package: :func:`get` loads the built-in module that registers the name asked for (a
start-up shortcut, never needed for correctness: a name not found there loads every built-in and every
entry point), :func:`names` all of them (``gen-queens N`` loads one encoding, not nine modules).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UsageError, either
from .base import REGISTRY, Clause, Encoding, VarPool, measured_counts, register
from .builtins import MODULES, load_builtins, load_module

load_module("pairwise")  # the default, always there


class UnknownEncoding(UsageError):
    """A name that is not a registered encoding; the message lists the valid ones."""


def get(name: str) -> Encoding:
    """The encoding called ``name`` (its module loaded now, or every built-in and entry point); the error
    lists the valid names."""
    if name not in REGISTRY:
        module = "pysat_card" if name.startswith("pysat:") else name
        if module in MODULES:
            load_module(module)
        if name not in REGISTRY:
            load_builtins()
            _load_entry_points()
    try:
        return REGISTRY[name]
    except KeyError:
        own = either("--plugin FILE.py", "cnfgen_queens.register_encoding")
        raise UnknownEncoding(
            f"unknown encoding {name!r}; valid: {', '.join(names())} (an encoding of your own: {own})"
        ) from None


def names() -> list[str]:
    load_builtins()
    _load_entry_points()
    return list(REGISTRY)


def _load_entry_points() -> None:
    """The installed packages' encodings (:mod:`.plugins`, loaded now: not at start-up)."""
    from cnfgen_queens.encodings.plugin_loading import load_entry_points

    load_entry_points()


@dataclass(frozen=True)
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
    parsimonious: bool | None = None
    plugin: str | None = None  # the plugin (file or module) that registered it; None for a built-in


def sizes(length: int = 8, group_size: int | None = None) -> list[EncodingSize]:
    """Every encoding's clause and auxiliary counts for a line of ``length`` literals, in :func:`names` order;
    ValueError for a bad ``group_size`` (checked on every encoding before any is counted)."""
    params = {"group_size": group_size} if group_size else {}
    for name in names():
        get(name).count(2, **params)
    from cnfgen_queens.encodings.plugins import origin

    out = []
    for name in names():
        enc = get(name)
        clauses, aux = enc.count(length, **params)
        source = None if enc.builtin else origin(name)
        out.append(
            EncodingSize(
                name,
                length,
                clauses,
                aux,
                enc.propagation_complete,
                enc.description,
                enc.reference,
                parsimonious=enc.parsimonious,
                plugin=None if source is None else source.spec,
            )
        )
    return out


__all__ = [
    "REGISTRY",
    "Clause",
    "Encoding",
    "EncodingSize",
    "UnknownEncoding",
    "VarPool",
    "get",
    "load_builtins",
    "measured_counts",
    "names",
    "register",
    "sizes",
]
