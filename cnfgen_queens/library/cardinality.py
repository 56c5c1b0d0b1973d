"""The at-most-one encodings on any literals (a PySAT ``IDPool`` or our pool), and their sizes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cnfgen_queens.encodings import EncodingSize, VarPool, get, sizes
from cnfgen_queens.errors import UsageError, python_words

from .arguments import edge


@edge
def list_encodings(length: int = 8, group_size: int | None = None) -> list[EncodingSize]:
    """Every at-most-one encoding with its clause and auxiliary counts on a line of ``length`` literals:
    the table of ``gen-queens --list-encodings -n LENGTH``.

    Examples:
        >>> import cnfgen_queens as cq
        >>> [(e.name, e.clauses, e.aux) for e in cq.list_encodings(8)][:3]
        [('pairwise', 28, 0), ('sequential', 20, 7), ('commander', 21, 3)]
    """
    with python_words():
        try:
            return sizes(length, group_size)
        except UsageError:
            raise
        except ValueError as e:
            raise UsageError(str(e)) from None


class _IDPoolVars(VarPool):
    """A PySAT ``IDPool`` seen as our ``VarPool``: fresh ids come from the IDPool (which skips its
    occupied ranges) and its ``top`` follows, so its next ``id()`` or ``top_id`` never clashes."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool

    @property
    def top(self) -> int:
        return int(self.pool.top)

    @top.setter
    def top(self, value: int) -> None:  # the pysat: encodings reserve their auxiliaries this way
        self.pool.top = value

    def new(self) -> int:
        return int(self.pool.id(("cnfgen_queens.at_most_one", self.pool.top + 1)))


@edge
def at_most_one(
    lits: Sequence[int], encoding: str = "pairwise", *, pool: Any = None, group_size: int | None = None
) -> list[list[int]]:
    """The clauses of ``encoding`` saying at most one of ``lits`` is true, for any literals of your own.

    Auxiliary variables come from ``pool``: a PySAT ``IDPool`` (its ``top`` is first raised past every
    literal, so they never clash with inputs even when ``top_id`` was forgotten, PySAT issue 207, and it
    is left past the auxiliaries), our ``VarPool``, or None (they start
    after the largest literal).

    Examples:
        >>> import cnfgen_queens as cq
        >>> from pysat.formula import IDPool
        >>> pool = IDPool()
        >>> x = [pool.id(f"x{i}") for i in range(5)]
        >>> cq.at_most_one(x, "commander", pool=pool, group_size=2)[:3]
        [[-1, -2], [-6, 1, 2], [-1, 6]]
        >>> pool.top
        8
    """
    with python_words():
        enc = get(encoding)
        lits = list(lits)  # integers, checked at the edge
        if 0 in lits:
            raise UsageError("lits must hold non-zero integer literals")
        if len({abs(lit) for lit in lits}) != len(lits):
            raise UsageError("lits must hold literals of distinct variables")
        top = max((abs(lit) for lit in lits), default=0)
        vars: VarPool
        if pool is None:
            vars = VarPool(top)
        elif isinstance(pool, VarPool):
            vars = pool
        else:
            vars = _IDPoolVars(pool)
        vars.top = max(vars.top, top)
        try:
            clauses = enc(lits, vars, group_size=group_size) if len(lits) >= 2 else []
        except UsageError:
            raise
        except ValueError as e:
            raise UsageError(str(e)) from None
        return [list(c) for c in clauses]
