"""Cubes for the variants: the torus by its symmetries, placed queens and blocked squares by rows.

Each :class:`SplitGroup` is a piece of the search: literals every cube of the group shares
(queens positive, blocked cells negative) and the cubes' own queens.  The pieces partition the
solutions, so a count over them is exact:

* the plain torus (``--torus`` alone): :mod:`.torus_cubes`, the boards with a queen at (0, 0) (a
  translation moves any solution there), about one per orbit of the linear maps that fix (0, 0),
  weighed by :func:`weight`;
* any other variant (``--place``, ``--random-place``, ``--block-square``/``--holes``, with or
  without ``--torus``): no symmetry (placed queens and holes break it), weight 1; the groups are
  the open cells of the first row without a placed queen (not a hole, not attacked by a placed
  queen), the cubes those of the second such row that the first row's queen leaves open.  Every
  solution has one queen in each row, on an open cell, so it lies in exactly one cube; a cell
  that is not open holds no queen in any solution (the formula's unit clauses and lines say so).
"""

from __future__ import annotations

from dataclasses import dataclass

from cnfgen_queens.counting.torus_cubes import orbit_weight, torus_groups
from cnfgen_queens.model.board import Cell, Placement
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.variants import Variant

Literals = tuple[int, ...]
SECOND_ROW_UP_TO = 64  # N up to which the groups are split by a second row (up to N^2 cubes listed)


@dataclass(frozen=True)
class SplitGroup:
    """Cubes sharing ``fixed`` literals (queens positive, blocked cells negative); each cube adds queens.
    ``pruning``: clauses that remove only boards counting 0 (the torus's ties), for a solver of the group."""

    fixed: Literals
    cubes: tuple[Literals, ...]
    pruning: tuple[Literals, ...] = ()


def torus_only(variant: Variant) -> bool:
    """The plain torus: its translations and linear maps keep every solution a solution."""
    return variant.torus and not variant.placed and not variant.holes


def _literal(n: int, cell: Cell) -> int:
    return cell[0] * n + cell[1] + 1


def split_groups(formula: QueensFormula) -> list[SplitGroup]:
    """The pieces of ``formula``'s search (see the module docstring), in a fixed order."""
    n, variant = formula.n, formula.variant
    if torus_only(variant):
        return [
            SplitGroup(
                tuple(_literal(n, q) for q in g.queens) + tuple(-_literal(n, x) for x in g.blocked),
                tuple((_literal(n, x),) for x in g.row3) or ((),),
                tuple((-_literal(n, a), -_literal(n, b)) for a, b in g.pairs),
            )
            for g in torus_groups(n)
        ]
    return row_groups(n, variant)


def row_groups(n: int, variant: Variant) -> list[SplitGroup]:
    """Groups by the open cells of the first free row, cubes by those of the second (N <= 64)."""
    placed_rows = {r for r, _ in variant.placed}
    free = [r for r in range(n) if r not in placed_rows][: 2 if n <= SECOND_ROW_UP_TO else 1]
    holes = set(variant.holes)

    def open_cells(r: int, queens: tuple[Cell, ...]) -> list[Cell]:
        return [
            (r, c) for c in range(n) if (r, c) not in holes and not any(variant.attacks(n, q, (r, c)) for q in queens)
        ]

    if not free:  # every row has its placed queen
        return [SplitGroup((), ((),))]
    groups = []
    for a in open_cells(free[0], variant.placed):
        if len(free) == 1:
            cubes: tuple[Literals, ...] = ((),)
        else:
            cubes = tuple((_literal(n, b),) for b in open_cells(free[1], (*variant.placed, a)))
        if cubes:
            groups.append(SplitGroup((_literal(n, a),), cubes))
    return groups


def weight(n: int, torus: bool, placement: Placement) -> int:
    """What a found board counts: on the plain torus N times its orbit's size if it is the orbit's
    representative, else 0 (:func:`.torus_cubes.orbit_weight`, which raises OutsideCube for a board in
    no cube); 1 for every other variant."""
    return n * orbit_weight(placement) if torus else 1
