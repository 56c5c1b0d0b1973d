"""PySAT's cardinality encodings as at-most-one encodings ``pysat:NAME``.

A. Ignatiev, A. Morgado and J. Marques-Silva, "PySAT: a Python toolkit for
prototyping with SAT oracles", SAT 2018.  Each CNF-producing ``pysat.card.EncType``
is called as ``CardEnc.atmost(lits, bound=1, top_id=pool.top, encoding=...)``.
Auxiliary ids are then taken from our own pool: PySAT numbers them from
``top_id + 1`` (the clash of its issue 207 comes from omitting ``top_id``), and any
gap it leaves is closed by renumbering the auxiliaries in increasing order to
``pool.top + 1 ...``, so the header's variable count is exact and no variable is
unused.  Counts have no closed form here (PySAT's encoders have size quirks of
their own), so for line lengths up to ``TABLE_MAX_N`` they are read from
``data/pysat_counts.csv``: measured by building each line length with a given PySAT
version (scripts/pysat_counts_table.py) and used only when that version is
installed.  Otherwise, and for longer lines, they are measured by building once
per (name, n) and cached.  PySAT's encoders are imported only when one is built.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from functools import cache
from importlib import resources

from .base import Clause, Encoding, VarPool, measured_counts, register

# name -> (original paper, propagation complete: measured by tests/test_encodings_more.py)
PYSAT_ENCODINGS: dict[str, tuple[str, bool]] = {
    "seqcounter": ("C. Sinz, CP 2005", True),
    "sortnetwrk": ("sorting networks, N. Een and N. Sorensson, JSAT 2 (2006)", True),
    "cardnetwrk": ("R. Asin et al., Constraints 16 (2011)", True),
    "bitwise": ("A. M. Frisch et al., J. Autom. Reasoning 35 (2005)", True),
    "ladder": ("I. P. Gent and P. Nightingale, ModRef 2004", True),
    "totalizer": ("O. Bailleux and Y. Boufkhad, CP 2003", True),
    "mtotalizer": ("T. Ogawa et al., ICTAI 2013", True),
    "kmtotalizer": ("A. Morgado, C. Dodaro and J. Marques-Silva, CP 2014", True),
}
PREFIX = "pysat:"
TABLE = "data/pysat_counts.csv"
TABLE_HEADER = "pysat,kind,clauses,aux"  # clauses and aux: space-separated, for n = 0..TABLE_MAX_N
TABLE_MAX_N = 200
Counts = tuple[tuple[int, int], ...]


def installed_version() -> str:
    """The installed PySAT's version (its small top-level package only; no encoder is loaded)."""
    import pysat

    return str(pysat.__version__)


def read_table(text: str) -> dict[str, dict[str, Counts]]:
    """``{pysat version: {kind: ((clauses, aux) for n = 0..)}}`` from the CSV text (``#`` lines are comments)."""
    out: dict[str, dict[str, Counts]] = {}
    for row in csv.DictReader(line for line in text.splitlines() if line.strip() and not line.startswith("#")):
        clauses, aux = row["clauses"].split(), row["aux"].split()
        if len(clauses) != len(aux):
            raise ValueError(f"{TABLE}: {row['pysat']} {row['kind']}: {len(clauses)} clause counts, {len(aux)} aux")
        out.setdefault(row["pysat"], {})[row["kind"]] = tuple(zip(map(int, clauses), map(int, aux), strict=True))
    return out


@cache
def tabled_counts() -> dict[str, Counts]:
    """The table's rows for the installed PySAT, by kind; empty when that version is not in the table."""
    text = resources.files("cnfgen_queens").joinpath(TABLE).read_text(encoding="utf-8")
    return read_table(text).get(installed_version(), {})


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


def _make(kind: str, reference: str, complete: bool) -> Encoding:
    def encode(lits: Sequence[int], pool: VarPool) -> list[Clause]:
        return pysat_atmost_one(kind, lits, pool)

    @cache
    def counts(n: int) -> tuple[int, int]:
        known = tabled_counts().get(kind, ())
        return known[n] if 0 <= n < len(known) else measured_counts(encode, n)

    encode.__doc__ = f"PySAT {kind} at-most-one ({reference})."
    return Encoding(
        name=PREFIX + kind,
        build=encode,
        size=counts,
        description=f"PySAT CardEnc {kind} ({reference}); counts measured",
        reference=f"{reference}; A. Ignatiev et al., PySAT, SAT 2018",
        propagation_complete=complete,
    )


for _kind, (_ref, _complete) in PYSAT_ENCODINGS.items():
    register(_make(_kind, _ref, _complete))
