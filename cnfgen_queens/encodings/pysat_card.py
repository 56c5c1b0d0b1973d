"""PySAT's cardinality encodings as at-most-one encodings ``pysat:NAME``.

A. Ignatiev, A. Morgado and J. Marques-Silva, "PySAT: a Python toolkit for
prototyping with SAT oracles", SAT 2018.  Each CNF-producing ``pysat.card.EncType``
is called as ``CardEnc.atmost(lits, bound=1, top_id=pool.top, encoding=...)``.
Auxiliary ids are then taken from our own pool: PySAT numbers them from
``top_id + 1`` (the clash of its issue 207 comes from omitting ``top_id``), and any
gap it leaves is closed by renumbering the auxiliaries in increasing order to
``pool.top + 1 ...``, so the header's variable count is exact and no variable is
unused.  Counts have no closed form here (PySAT's encoders have size quirks of
their own), so they are measured by building a line of each length once, with the
installed PySAT, whatever its release, and cached: in memory, and in
``pysat-counts-VERSION.json`` under :func:`cache_dir` (written at exit, merged with what
other processes wrote), so a later process (a batch's ``--dry-run``) builds nothing.
PySAT's encoders are imported only when one is built.
"""

from __future__ import annotations

import atexit
from functools import cache
from typing import TYPE_CHECKING

from ..user_cache import CACHE_ENV as CACHE_ENV  # (tests and conftest set it here)
from ..user_cache import cache_dir, write_cache
from .base import Clause, Encoding, VarPool, measured_counts, register

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

# name -> (original paper, propagation complete, parsimonious: measured by the conformance gate,
# tests/encodings/test_conformance.py)
PYSAT_ENCODINGS: dict[str, tuple[str, bool, bool]] = {
    "seqcounter": ("C. Sinz, CP 2005", True, False),
    "sortnetwrk": ("sorting networks, N. Een and N. Sorensson, JSAT 2 (2006)", True, False),
    "cardnetwrk": ("R. Asin et al., Constraints 16 (2011)", True, False),
    "bitwise": ("A. M. Frisch et al., J. Autom. Reasoning 35 (2005)", True, False),
    "ladder": ("I. P. Gent and P. Nightingale, ModRef 2004", True, True),
    "totalizer": ("O. Bailleux and Y. Boufkhad, CP 2003", True, False),
    "mtotalizer": ("T. Ogawa et al., ICTAI 2013", True, False),
    "kmtotalizer": ("A. Morgado, C. Dodaro and J. Marques-Silva, CP 2014", True, False),
}
PREFIX = "pysat:"
Count = tuple[int, int]


def installed_version() -> str:
    """The installed PySAT's version (its small top-level package only; no encoder is loaded)."""
    import pysat

    return str(pysat.__version__)


def cache_file() -> Path:
    return cache_dir() / f"pysat-counts-{installed_version()}.json"


def _read(path: Path) -> dict[str, dict[int, Count]]:
    """``{kind: {n: (clauses, aux)}}`` from a cache file; anything unreadable or malformed counts as empty."""
    try:
        import json

        data = json.loads(path.read_text(encoding="utf-8"))
        return {
            str(kind): {int(n): (int(c), int(a)) for n, (c, a) in rows.items()}
            for kind, rows in data.items()
            if kind in PYSAT_ENCODINGS
        }
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


_fresh: dict[str, dict[int, Count]] = {}  # measured by this process, not yet written


@cache
def stored_counts() -> dict[str, dict[int, Count]]:
    """The counts other processes measured with this PySAT (read once per process)."""
    return _read(cache_file())


def flush() -> None:
    """Write what this process measured, merged with the file as it is now (temporary file + rename);
    a cache that cannot be written is no error: counts are measured again next time."""
    if not _fresh:
        return
    path = cache_file()
    merged = _read(path)
    for kind, rows in _fresh.items():
        merged.setdefault(kind, {}).update(rows)
    import json

    text = json.dumps({k: {str(n): list(v) for n, v in sorted(rows.items())} for k, rows in merged.items()})
    if not write_cache(path, text):
        return
    _fresh.clear()


atexit.register(flush)


def pysat_atmost_one(kind: str, lits: Sequence[int], pool: VarPool) -> list[Clause]:
    """The clauses of PySAT's ``kind`` encoding of at-most-one over ``lits``, ids from ``pool``."""
    if len(lits) <= 1:
        return []
    from pysat.card import CardEnc, EncType

    cnf = CardEnc.atmost(lits=list(lits), bound=1, top_id=pool.top, encoding=getattr(EncType, kind))
    inputs = {abs(x) for x in lits}
    aux = sorted({abs(x) for c in cnf.clauses for x in c} - inputs)
    if aux and aux[0] <= pool.top:  # would be PySAT issue 207: never expected with top_id
        raise RuntimeError(f"pysat:{kind} used auxiliary variable {aux[0]} <= top {pool.top} (PySAT issue 207)")
    base = pool.top
    pool.top += len(aux)
    if not aux or aux[-1] == pool.top:  # already base+1..base+len(aux): no renumbering
        return [tuple(c) for c in cnf.clauses]
    rename = {v: base + 1 + i for i, v in enumerate(aux)}
    return [tuple(x if abs(x) in inputs else (rename[x] if x > 0 else -rename[-x]) for x in c) for c in cnf.clauses]


def _make(kind: str, reference: str, complete: bool, parsimonious: bool) -> Encoding:
    def encode(lits: Sequence[int], pool: VarPool) -> list[Clause]:
        return pysat_atmost_one(kind, lits, pool)

    @cache
    def counts(n: int) -> tuple[int, int]:
        known = stored_counts().get(kind, {}).get(n)
        if known is None:
            known = measured_counts(encode, n)
            _fresh.setdefault(kind, {})[n] = known
        return known

    encode.__doc__ = f"PySAT {kind} at-most-one ({reference})."
    return Encoding(
        name=PREFIX + kind,
        build=encode,
        size=counts,
        description=f"PySAT CardEnc {kind} ({reference}); counts measured",
        reference=f"{reference}; A. Ignatiev et al., PySAT, SAT 2018",
        propagation_complete=complete,
        parsimonious=parsimonious,
        size_declared=False,
    )


for _kind, (_ref, _complete, _parsimonious) in PYSAT_ENCODINGS.items():
    register(_make(_kind, _ref, _complete, _parsimonious))
