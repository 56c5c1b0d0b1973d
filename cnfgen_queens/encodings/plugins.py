"""Encodings from outside the package: the public contract, plugin files and modules, entry points, workers.

The contract (kept, so that plugins written today keep working): a plugin module registers its encodings
when it is imported, by calling :func:`register_encoding` (``cnfgen_queens.register_encoding``)::

    register_encoding(name="mine", build=build, description="...", reference="...",
                      size=None, propagation_complete=None)

where ``build(lits, pool)`` returns the clauses (sequences of non-zero ints) saying that at most one of
``lits`` is true, and takes each auxiliary variable from ``pool.new()``.  A plugin reaches the registry
(the same one the built-ins are in, :data:`.base.REGISTRY`) in one of four ways:

- from Python, by calling :func:`register_encoding`;
- from a file or a module named on the command line (``--plugin FILE.py`` or ``--plugin MODULE``) or in a
  batch config (``plugins: [...]``): :func:`.plugin_loading.load_plugin`;
- from an installed package, through the entry-point group ``cnfgen_queens.encodings`` (each entry point
  names the module to import), loaded when a name is not a built-in's (:func:`.plugin_loading.load_entry_points`);
- in a worker process (spawned, Dask, SLURM): the plugins the submitting process loaded travel with each
  task (:func:`.plugin_loading.with_plugins`), their source included, and are loaded there before the task runs.

Registration refuses, in one line naming the plugin and the cause (a :class:`PluginError`, exit 2): a
file that cannot be read or imported, a name taken by a built-in or by another plugin, and an encoding
that fails the quick part of the conformance gate (semantics and hygiene up to n = 6,
:func:`.conformance.quick_check`), run once per (name, source hash) in this process (milliseconds: no
cache on disk); a claim left as None (propagation complete, parsimonious) is measured there up to n = 10.
A plugin's encoding is written clause by clause (``positional=False``); its counts are measured by building
a line of each length once (cached), and a declared ``size`` is compared with them, so that a wrong closed
form never reaches a header.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..errors import UsageError
from . import conformance
from .base import REGISTRY, Clause, Encoding, VarPool, measured_counts, register
from .builtins import load_builtins
from .measures import Malformed, Size, as_clauses

ENTRY_POINT_GROUP = "cnfgen_queens.encodings"


class PluginError(UsageError):
    """A plugin that cannot be loaded or registered, or an encoding that failed while encoding: one line
    naming the plugin (or encoding) and the cause."""


@dataclass(frozen=True)
class PluginSource:
    """Where a plugin came from: ``spec`` as given (a file's path or a module's name), the path or module
    imported, the source's SHA-256 (hex), the source text of a file (shipped to workers) and the encodings
    its import registered."""

    spec: str
    target: str  # the absolute path of a file, or the module name
    sha256: str
    text: str | None = None  # a file's source (None for a module)
    names: tuple[str, ...] = ()

    @property
    def short_hash(self) -> str:
        return self.sha256[:16]


_origin: dict[str, PluginSource] = {}  # encoding name -> the plugin that registered it
_declared: dict[str, Size] = {}  # encoding name -> the closed-form size its plugin declared
_importing: list[str] = []  # the names registered while a plugin is being imported (plugin_loading)
_current: list[PluginSource] = []  # the plugin being imported now (innermost last; plugin_loading sets it)


def register_encoding(
    *,
    name: str,
    build: Callable[[Sequence[int], VarPool], Sequence[Sequence[int]]],
    description: str,
    reference: str,
    size: Callable[[int], tuple[int, int]] | None = None,
    propagation_complete: bool | None = None,
    parsimonious: bool | None = None,
) -> Encoding:
    """Register the at-most-one encoding ``name``, usable then by every command, grid and worker.

    Args:
        name: the name ``--encoding`` takes (no whitespace; not a built-in's).
        build: ``build(lits, pool)`` -> the clauses (sequences of non-zero ints) saying at most one of
            ``lits`` is true; each auxiliary variable from ``pool.new()``.
        description: one line for ``--list-encodings``.
        reference: the paper (or other source) it follows.
        size: ``size(n)`` -> ``(clauses, auxiliary variables)`` for ``n`` inputs in closed form, compared with
            what is built (up to n = 6 here, 128 by ``check-encoding``, and on every line a formula has).
        propagation_complete: whether unit propagation alone, one input true, sets every other input false
            (None: measured up to n = 10; ``check-encoding`` checks a claim up to ``--max-n``).
        parsimonious: whether every allowed input assignment has exactly one auxiliary extension (model
            counts preserved without projection); None: measured up to n = 10.

    Raises:
        PluginError (a UsageError): a name taken or not a word, or an encoding that fails the quick check
            (semantics and hygiene up to n = 6), naming the counterexample.

    Examples:
        >>> import cnfgen_queens as cq
        >>> def build(lits, pool):
        ...     return [(-a, -b) for i, a in enumerate(lits) for b in lits[i + 1:]]
        >>> enc = cq.register_encoding(name="doc-pairs", build=build, description="pairwise again",
        ...                            reference="binomial encoding")
        >>> enc.propagation_complete, enc.parsimonious, cq.queens(8, "doc-pairs").nclauses
        (True, True, 736)
        >>> unregister("doc-pairs")
    """
    source = _source_of(build)
    where = f"plugin {source.spec}" if source else f"encoding {name!r}"
    if not isinstance(name, str) or not name or any(c.isspace() for c in name) or not name.isprintable():
        raise PluginError(f"{where}: an encoding's name is one printable word, got {name!r}")
    load_builtins()  # a built-in's name is taken even before its module is loaded
    taken = REGISTRY.get(name)
    if taken is not None:
        other = _origin.get(name)
        if taken.builtin:
            raise PluginError(f"{where}: encoding {name!r} clashes with a built-in encoding of that name")
        if source is None or other is None or other.sha256 != source.sha256:
            by = f"plugin {other.spec}" if other else "Python"
            raise PluginError(f"{where}: encoding {name!r} is already registered (by {by})")
        return taken  # the same source imported again (a worker, a second --plugin naming it)
    guarded, declared = _guarded(name, build), _sized(name, size)
    try:
        measured = conformance.quick_check(name, guarded, source.sha256 if source else None, declared)
    except conformance.Refused as e:
        raise PluginError(f"{where}: encoding {name!r} {e}" if source else f"encoding {name!r} {e}") from None
    enc = Encoding(
        name=name,
        build=guarded,
        size=_built_size(name, guarded, declared),
        description=str(description),
        reference=str(reference),
        propagation_complete=measured.propagation_complete if propagation_complete is None else propagation_complete,
        parsimonious=measured.parsimonious if parsimonious is None else parsimonious,
        positional=False,
        size_declared=size is not None,
        builtin=False,
    )
    register(enc)
    if declared is not None:
        _declared[name] = declared
    if source is not None:
        _origin[name] = source
    if _current:
        _importing.append(name)  # credited to the plugin being imported (plugin_loading)
    return enc


def unregister(name: str) -> None:
    """Forget a plugin's encoding (tests, notebooks); a built-in's name is a ValueError."""
    if name in REGISTRY and REGISTRY[name].builtin:
        raise ValueError(f"{name!r} is a built-in encoding")
    REGISTRY.pop(name, None)
    _origin.pop(name, None)
    _declared.pop(name, None)


def _guarded(name: str, build: Callable[..., Any]) -> Callable[..., list[Clause]]:
    """``build`` whose exceptions become one line naming the encoding (a PluginError, exit 2), whose clauses
    come back as tuples of ints (what the writers take)."""

    def encode(lits: Sequence[int], pool: VarPool) -> list[Clause]:
        try:
            return as_clauses(build(lits, pool))
        except PluginError:
            raise
        except Exception as e:
            cause = str(e) if isinstance(e, Malformed) else f"{type(e).__name__}: {e}"
            raise PluginError(f"{_who(name)} failed while encoding {len(lits)} inputs: {cause}") from None

    encode.__module__ = getattr(build, "__module__", __name__)
    encode.__doc__ = getattr(build, "__doc__", None)
    return encode


def _sized(name: str, size: Size | None) -> Size | None:
    """A declared ``size`` whose exceptions and wrong types become one line naming the encoding."""
    if size is None:
        return None

    def counts(n: int) -> tuple[int, int]:
        try:
            clauses, aux = size(n)
            if type(clauses) is not int or type(aux) is not int or clauses < 0 or aux < 0:
                raise TypeError(f"size({n}) returned {(clauses, aux)!r}, not two counts")
            return clauses, aux
        except Exception as e:
            raise PluginError(f"{_who(name)}: its size failed: {type(e).__name__}: {e}") from None

    return counts


def _built_size(name: str, guarded: Callable[..., list[Clause]], declared: Size | None) -> Size:
    """The counts a formula's header takes: measured by building a line of each length once (cached), and
    compared with a ``declared`` closed form, so that a wrong one stops the command before its header is
    written (one line naming the encoding and the length)."""

    @cache
    def counts(n: int) -> tuple[int, int]:
        built = measured_counts(guarded, n)
        if declared is not None and declared(n) != built:
            said = declared(n)
            raise PluginError(
                f"{_who(name)}: its size({n}) declares {said[0]} clauses and {said[1]} auxiliaries, its build makes "
                f"{built[0]} and {built[1]} (check-encoding {name} tells more)"
            )
        return built

    return counts


def declared_size(name: str) -> Size | None:
    """The closed form a plugin declared for encoding ``name`` (None: none declared, or a built-in)."""
    return _declared.get(name)


def _who(name: str) -> str:
    origin = _origin.get(name)
    return f"plugin {origin.spec}, encoding {name!r}" if origin else f"encoding {name!r}"


def _source_of(build: Callable[..., Any]) -> PluginSource | None:
    """The plugin whose import is registering ``build`` (its file or module), or the module ``build`` was
    defined in when it has a file; None for code with no source file (an interactive session)."""
    if _current:
        return _current[-1]
    module = sys.modules.get(getattr(build, "__module__", "") or "")
    path = getattr(module, "__file__", None)
    if path and os.path.isfile(path) and getattr(module, "__name__", "") != "__main__":
        with open(path, "rb") as f:
            data = f.read()
        return PluginSource(path, os.path.abspath(path), hashlib.sha256(data).hexdigest())
    return None


def origin(name: str) -> PluginSource | None:
    """The plugin that registered encoding ``name`` (None: a built-in, or registered from Python without a
    source file)."""
    return _origin.get(name)


def header_line(name: str) -> str:
    """The DIMACS comment naming the plugin of the (plugin's) encoding ``name`` and its source's hash."""
    src = _origin.get(name)
    if src is None:
        return f"plugin: encoding {name} registered from Python (no source file): not reproducible by the command"
    return f"plugin: {src.spec} sha256:{src.sha256}"


def command_spec(name: str) -> str | None:
    """What ``--plugin`` names for encoding ``name`` in a reproducing command (None: a built-in, an entry
    point's, which loads itself, or one with no source file)."""
    src = _origin.get(name)
    if src is None or (src.text is None and _is_entry_point(src.target)):
        return None
    return src.spec


def _is_entry_point(module: str) -> bool:
    from importlib.metadata import entry_points

    return any(ep.value.split(":")[0].strip() == module for ep in entry_points(group=ENTRY_POINT_GROUP))
