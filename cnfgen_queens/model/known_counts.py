"""Known N-queens solution counts, shipped as ``cnfgen_queens/data/known_counts.csv``.

Columns ``n,a000170,a002562``: all solutions (OEIS A000170, https://oeis.org/A000170)
and solutions up to the 8 symmetries of the square (OEIS A002562,
https://oeis.org/A002562), for N = 1..27.  Lines starting with ``#`` are comments.
An empty ``a002562`` cell means unknown.  Toroidal boards: OEIS A007705
(:data:`.variants.TORUS_COUNTS`).  :func:`published_count` is the one place that says which
published count applies to an instance (the CLI's check, the batch's verdict, progress totals).
"""

from __future__ import annotations

from functools import cache

from cnfgen_queens.model.variants import TORUS_COUNTS

RESOURCE = "data/known_counts.csv"


def known_counts() -> dict[int, tuple[int, int | None]]:
    """``{n: (A000170(n), A002562(n) or None)}`` from the shipped CSV (a fresh copy)."""
    return dict(_load())


@cache
def _load() -> dict[int, tuple[int, int | None]]:
    import csv  # read when a count is looked up, not at the start of every command
    from importlib import resources

    text = resources.files("cnfgen_queens").joinpath(RESOURCE).read_text(encoding="utf-8")
    rows = csv.DictReader(line for line in text.splitlines() if line.strip() and not line.startswith("#"))
    out: dict[int, tuple[int, int | None]] = {}
    for row in rows:
        fundamental = row["a002562"].strip()
        out[int(row["n"])] = (int(row["a000170"]), int(fundamental) if fundamental else None)
    return out


def published_count(
    n: int, *, torus: bool = False, other_variant: bool = False, break_symmetry: bool = False
) -> tuple[int, str] | None:
    """(the published number of models, its OEIS id) of an N x N board's formula: A000170 for the plain
    board, A007705 for the plain torus; with ``break_symmetry`` (one model per orbit) A002562 for the plain
    board, and None for the torus (no published count of its orbits under its whole group,
    :mod:`.lex_leader`); None for other variants (placed queens, blocked squares) or an N beyond the
    tables."""
    if other_variant:
        return None
    if torus:
        return None if break_symmetry or n not in TORUS_COUNTS else (TORUS_COUNTS[n], "A007705")
    known = _load().get(n)
    if known is None:
        return None
    if break_symmetry:
        return None if known[1] is None else (known[1], "A002562")
    return known[0], "A000170"
