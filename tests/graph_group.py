"""The automorphism group of a graph, computed from the graph alone (for tests of the board's groups).

Individualisation and refinement, as nauty does it in spirit: colour refinement (1-dimensional
Weisfeiler-Leman) splits the vertices until every class is stable; a search individualises one
vertex of a class on each side and refines again; a discrete colouring is a bijection, kept when it
maps every edge to an edge.  A stabiliser chain (a base ``b_1, b_2, ..``; at each level one
automorphism that fixes the earlier base points and moves ``b_i`` to each other point of its orbit)
gives generators and the order (the product of the orbits' lengths).  Nothing here knows what the
graph is: the torus's group in ``model/lex_leader.py`` is compared with what this finds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

Perm = tuple[int, ...]


def torus_queens_graph(n: int) -> list[frozenset[int]]:
    """The cells of the N-torus (``r * N + c``), adjacent when they share a row, a column or a wrapped diagonal."""
    cells = [(r, c) for r in range(n) for c in range(n)]
    return [
        frozenset(
            j
            for j, (r2, c2) in enumerate(cells)
            if j != i and (r == r2 or c == c2 or (r - c - r2 + c2) % n == 0 or (r + c - r2 - c2) % n == 0)
        )
        for i, (r, c) in enumerate(cells)
    ]


def _refine(adj: Sequence[frozenset[int]], colour: list[int]) -> tuple[list[int], list[object]]:
    """The stable colouring refining ``colour`` and its classes' signatures (equal for isomorphic inputs)."""
    k = len(set(colour))
    while True:
        sig = [(colour[v], tuple(sorted(colour[u] for u in adj[v]))) for v in range(len(adj))]
        ids = {s: i for i, s in enumerate(sorted(set(sig)))}
        colour = [ids[s] for s in sig]
        if len(ids) == k:
            return colour, sorted(ids)
        k = len(ids)


def _start(size: int, points: Sequence[int]) -> list[int]:
    colour = [0] * size
    for i, v in enumerate(points):
        colour[v] = i + 1
    return colour


def find(adj: Sequence[frozenset[int]], source: list[int], target: list[int]) -> Perm | None:
    """An automorphism mapping ``source[i]`` to ``target[i]`` for every i, or None when there is none."""
    size = len(adj)
    c1, s1 = _refine(adj, _start(size, source))
    c2, s2 = _refine(adj, _start(size, target))
    if s1 != s2:
        return None
    if len(s1) == size:
        where = {c: v for v, c in enumerate(c2)}
        p = tuple(where[c1[v]] for v in range(size))
        return p if all({p[u] for u in adj[v]} == adj[p[v]] for v in range(size)) else None
    sizes = Counter(c1)
    cell = min((k for k in sizes if sizes[k] > 1), key=lambda k: (sizes[k], k))
    v = c1.index(cell)
    for w in (w for w in range(size) if c2[w] == cell):
        found = find(adj, [*source, v], [*target, w])
        if found is not None:
            return found
    return None


def automorphisms(adj: Sequence[frozenset[int]]) -> tuple[list[Perm], int]:
    """Generators of the graph's automorphism group and its order."""
    size = len(adj)
    base: list[int] = []
    gens: list[Perm] = []
    order = 1
    while True:
        colour, _ = _refine(adj, _start(size, base))
        for b in (b for b in range(size) if b not in base):
            level: list[Perm] = []
            orbit = {b}
            for v in range(size):
                if v in orbit or v in base or colour[v] != colour[b]:
                    continue
                p = find(adj, [*base, b], [*base, v])
                if p is not None:
                    level.append(p)
                    orbit = closed(orbit, level)
            if len(orbit) > 1:
                break
        else:
            return gens, order
        base.append(b)
        gens += level
        order *= len(orbit)


def closed(points: Iterable[int], gens: Sequence[Perm]) -> set[int]:
    """The points reached from ``points`` by the generators."""
    out = set(points)
    todo = list(out)
    while todo:
        x = todo.pop()
        for g in gens:
            if g[x] not in out:
                out.add(g[x])
                todo.append(g[x])
    return out


def group(gens: Sequence[Perm], size: int) -> set[Perm]:
    """Every element of the group the generators generate."""
    identity = tuple(range(size))
    out = {identity}
    todo = [identity]
    while todo:
        x = todo.pop()
        for g in gens:
            y = tuple(g[i] for i in x)
            if y not in out:
                out.add(y)
                todo.append(y)
    return out


def set_orbits(sets: Iterable[frozenset[int]], gens: Sequence[Perm]) -> list[set[frozenset[int]]]:
    """The orbits of the generated group on sets of vertices (each set's images under it)."""
    left = set(sets)
    out = []
    while left:
        start = min(left, key=sorted)
        orbit = {start}
        todo = [start]
        while todo:
            x = todo.pop()
            for g in gens:
                y = frozenset(g[i] for i in x)
                if y not in orbit:
                    orbit.add(y)
                    todo.append(y)
        assert orbit <= left | {start}
        left -= orbit
        out.append(orbit)
    return out
