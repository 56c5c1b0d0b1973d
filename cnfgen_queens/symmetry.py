"""Symmetry breaking for the 8 symmetries of the board: lex-leader predicates and orbit weights.

The canonical board of an orbit is its lexicographically least placement (the queen's
column per row, read row by row).  On the row-major cell variables with "queen" ordered
before "empty" this is the lex-leader of Crawford, Ginsberg, Luks and Roy, "Symmetry-breaking
predicates for search problems" (KR 1996): an assignment X is kept iff X <=lex sigma(X) for
every symmetry sigma.  :func:`lex_leader_clauses` writes that predicate in CNF with one
"equal so far" variable per compared position and three ternary clauses each, the chain
encoding of Aloul, Markov and Sakallah ("Efficient symmetry breaking for Boolean
satisfiability", IEEE Trans. Computers 2006), with their two reductions: fixed points of
sigma are skipped, and so is a position i whose partner sigma(i) < i when sigma is an
involution (the equal prefix already forces x_i = x_sigma(i)).

The predicate is complete: exactly one board per orbit satisfies it, so a solver counts
orbits (OEIS A002562); each canonical board stands for ``orbit_size`` boards (8 divided by
the size of its stabiliser: 1, 2, 4 or 8), which sum to OEIS A000170.
"""

from __future__ import annotations

from collections.abc import Iterator

from .board import Board, Placement

Clause = tuple[int, ...]


def variable_maps(n: int) -> list[list[int]]:
    """For each non-identity symmetry, ``pi`` with ``pi[v]`` the variable of the image of cell ``v``
    (1-based; ``pi[0]`` unused)."""
    board = Board(n)
    maps = []
    for sym in board.symmetries[1:]:
        pi = [0] * (n * n + 1)
        for r in range(n):
            for c in range(n):
                pi[board.var(r, c)] = board.var(*sym((r, c)))
        maps.append(pi)
    return maps


def lex_leader_clauses(n: int, first_aux: int) -> Iterator[Clause]:
    """Clauses keeping exactly the lex-least board of each orbit; auxiliaries from ``first_aux`` on.

    For one symmetry, with y_i = x_pi(i) and e the "equal so far" literal (true before the first
    compared position): ``e -> (x_i or not y_i)`` forbids the image being smaller at the first
    difference, ``e and not x_i -> e'`` and ``e and y_i -> e'`` carry equality on.
    """
    top = first_aux - 1
    for pi in variable_maps(n):
        involution = all(pi[pi[v]] == v for v in range(1, n * n + 1))
        positions = [v for v in range(1, n * n + 1) if pi[v] != v and not (involution and pi[v] < v)]
        eq: int | None = None  # None: the empty prefix, always equal
        for k, v in enumerate(positions):
            x, y = v, pi[v]
            guard = () if eq is None else (-eq,)
            yield (*guard, x, -y)
            if k == len(positions) - 1:
                break
            top += 1
            yield (*guard, x, top)
            yield (*guard, -y, top)
            eq = top


def lex_leader_aux(n: int) -> int:
    """How many auxiliary variables :func:`lex_leader_clauses` uses."""
    total = 0
    for pi in variable_maps(n):
        involution = all(pi[pi[v]] == v for v in range(1, n * n + 1))
        total += max(0, sum(1 for v in range(1, n * n + 1) if pi[v] != v and not (involution and pi[v] < v)) - 1)
    return total


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


def is_canonical(placement: Placement) -> bool:
    return canonical(placement) == tuple(placement)


def orbit_size(placement: Placement) -> int:
    """How many distinct boards the placement's orbit holds (1, 2, 4 or 8)."""
    return len(orbit(placement))
