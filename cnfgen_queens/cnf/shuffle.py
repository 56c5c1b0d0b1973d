"""Seeded shuffling of a CNF: variable names, literal order and clause order.

SAT benchmark practice: solvers' times vary with the order of clauses and the
names of variables, so a family is run on shuffled copies.  Everything is drawn
from ``random.Random(seed)`` in a fixed order:

1. the renaming, a permutation of 1..V (``shuffle_map``), drawn first, so it is a
   function of (V, seed) alone and can be rebuilt from a file's header;
2. the order of literals inside each clause, clause by clause;
3. the order of the clauses (this needs every clause in memory).

Permutations use Fisher-Yates on ``Random.random()``, whose sequence Python
guarantees across versions (``Random.shuffle``'s is not guaranteed).  The header
gets a ``shuffle: seed=S vars=V`` comment and its ``p show`` line lists the new
names of the cell variables in cell order, so ``decode``/``block`` can map a model
back with :func:`unshuffle_map` and blocking clauses forward with
:func:`header_shuffle_map`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cnfgen_queens.cnf.dimacs import Clause, Header

from ..errors import UsageError

if TYPE_CHECKING:
    import random
    from collections.abc import Iterable, Sequence

KEY = "shuffle:"
SEED_PATTERN = r"seed=(\d+)\s+vars=(\d+)"  # what follows KEY


class ShuffleError(UsageError):
    """A header whose shuffle comment cannot be read or does not fit the file."""


def _permute(items: list[int], rng: random.Random) -> None:
    """In-place Fisher-Yates with ``rng.random()`` (reproducible across Python versions)."""
    for i in range(len(items) - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        items[i], items[j] = items[j], items[i]


def _names(num_vars: int, rng: random.Random) -> list[int]:
    names = list(range(1, num_vars + 1))
    _permute(names, rng)
    return [0, *names]


def shuffle_map(num_vars: int, seed: int) -> list[int]:
    """``table[v]`` is the new name of variable ``v`` (``table[0] == 0``)."""
    import random

    return _names(num_vars, random.Random(seed))


def inverse(table: Sequence[int]) -> list[int]:
    """The inverse renaming: ``inverse(t)[t[v]] == v``."""
    inv = [0] * len(table)
    for v, w in enumerate(table):
        inv[w] = v
    return inv


def rename(clause: Iterable[int], table: Sequence[int]) -> Clause:
    """A clause (or list of literals) with every variable renamed, signs kept."""
    return tuple(table[x] if x > 0 else -table[-x] for x in clause)


def shuffle_clauses(clauses: Iterable[Clause], num_vars: int, seed: int) -> list[Clause]:
    """Rename, shuffle literals within each clause, then shuffle clause order (all in memory)."""
    import random

    rng = random.Random(seed)
    table = _names(num_vars, rng)
    out: list[Clause] = []
    for clause in clauses:
        lits = [table[x] if x > 0 else -table[-x] for x in clause]
        _permute(lits, rng)
        out.append(tuple(lits))
    order = list(range(len(out)))
    _permute(order, rng)
    return [out[i] for i in order]


def shuffle_comments(comments: Sequence[str], num_vars: int, seed: int) -> list[str]:
    """Header comments for the shuffled file: the seed line, and ``p show`` renamed (cell order kept)."""
    table = shuffle_map(num_vars, seed)
    note = (
        f"{KEY} seed={seed} vars={num_vars} (clause order, literal order and variable names permuted; "
        "the names above are before shuffling, the p show line lists the new name of each cell in cell order)"
    )
    out: list[str] = []
    for c in comments:
        if c.startswith("p show "):
            out.append(note)
            names = [int(t) for t in c.split()[2:] if t != "0"]
            out.append("p show " + " ".join(str(table[v]) for v in names) + " 0")
        else:
            out.append(c)
    if note not in out:
        out.append(note)
    return out


def header_shuffle(header: Header) -> int | None:
    """The seed of a shuffled file's header, or None when the file was not shuffled."""
    value = header.comment_value(KEY)
    if value is None:
        return None
    import re  # a shuffled file's header only

    m = re.match(SEED_PATTERN, value)
    if not m:
        raise ShuffleError(f"unreadable shuffle comment: {KEY} {value}")
    seed, num_vars = int(m.group(1)), int(m.group(2))
    if num_vars != header.num_vars:
        raise ShuffleError(f"shuffle comment says {num_vars} variables, the header {header.num_vars}")
    return seed


def header_shuffle_map(header: Header) -> list[int] | None:
    """Original name -> shuffled name for a shuffled file (for blocking clauses), or None."""
    seed = header_shuffle(header)
    return None if seed is None else shuffle_map(header.num_vars, seed)


def unshuffle_map(header: Header) -> list[int] | None:
    """Shuffled name -> original name for a shuffled file (for models), or None."""
    table = header_shuffle_map(header)
    return None if table is None else inverse(table)
