"""Orbits of placements under the 8 symmetries of the board, and their sizes.

The canonical board of an orbit is its lexicographically least placement (the queen's
column per row, read row by row); each canonical board stands for ``orbit_size`` boards
(8 divided by the size of its stabiliser: 1, 2, 4 or 8), which sum to OEIS A000170 over
the orbits (OEIS A002562).  The symmetry-broken count (:mod:`.border_cubes`) uses these
sizes as weights.
"""

from __future__ import annotations

from cnfgen_queens.model.board import Placement


def orbit(placement: Placement) -> set[Placement]:
    """The distinct images of a placement under the 8 symmetries: the placement and its inverse
    permutation (the transpose), each reversed (a vertical flip) and complemented (a horizontal flip)."""
    p = tuple(placement)
    m = len(p) - 1
    inverse = [0] * len(p)
    for r, c in enumerate(p):
        inverse[c] = r
    q = tuple(inverse)
    cp, cq = tuple(m - c for c in p), tuple(m - r for r in q)
    return {p, p[::-1], cp, cp[::-1], q, q[::-1], cq, cq[::-1]}


def canonical(placement: Placement) -> Placement:
    """The lex-least image of a placement under the 8 symmetries."""
    return min(orbit(placement))


def orbit_size(placement: Placement) -> int:
    """How many distinct boards the placement's orbit holds (1, 2, 4 or 8)."""
    return len(orbit(placement))
