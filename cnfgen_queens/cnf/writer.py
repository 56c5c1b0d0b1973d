"""The one CNF writer: a :class:`QueensFormula` as DIMACS, plus extra clauses, optionally shuffled.

``gen-queens`` and the batch's instance cache both write through :func:`write_cnf`,
so a file has the same bytes whichever wrote it.  Unshuffled, the body streams
(vectorised for large formulas, :mod:`cnfgen_queens.cnf.fast_writer`); shuffled, every
clause is held in memory (:mod:`cnfgen_queens.cnf.shuffle`; vectorised for large formulas,
with the same bytes, :mod:`cnfgen_queens.cnf.shuffle_fast`).
"""

from __future__ import annotations

from itertools import chain
from typing import TYPE_CHECKING

from cnfgen_queens.cnf.dimacs_write import Clause, write_clauses, write_header

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import BinaryIO

    from cnfgen_queens.model.formula import QueensFormula

FAST_MIN_CLAUSES = 200_000  # below this numpy's import costs more than it saves (the fast path is not even loaded)


def write_cnf(
    out: BinaryIO,
    formula: QueensFormula,
    comments: Sequence[str] = (),
    extra: Sequence[Clause] = (),
    *,
    show: bool = False,
    shuffle: int | None = None,
    fast: bool | None = None,
) -> int:
    """Header and every clause of ``formula``, then the ``extra`` clauses (e.g. blocking clauses, in the
    formula's own variable names); returns the clause count, checked against the header's.

    ``show``: the ``c p show 1 .. N*N 0`` projection line after ``comments`` (which then leave it out).
    ``shuffle``: a seed; clause order, literal order and variable names (``extra`` too) are permuted and,
    when there is a header to hold it, the seed is recorded so that decode/block can undo it.
    ``fast``: force the vectorised (True) or the reference (False) path; by default the size decides
    (an encoding that is not ``positional`` always takes the reference path).
    """
    num_vars, num_clauses = formula.counts()
    total = num_clauses + len(extra)
    if shuffle is not None:
        from cnfgen_queens.cnf.shuffle import shuffle_clauses, shuffle_comments

        lines = list(comments)
        if show:
            lines.append("p show " + " ".join(map(str, range(1, formula.n**2 + 1))) + " 0")
        write_header(out, num_vars, total, shuffle_comments(lines, num_vars, shuffle) if lines else ())
        if _fast(formula, fast) and all(extra):  # an empty clause: " 0" in the reference, kept there
            from cnfgen_queens.cnf.shuffle_fast import shuffle_write

            written = shuffle_write(out, formula, extra, shuffle)
        else:
            written = write_clauses(out, shuffle_clauses(chain(formula.clauses(), extra), num_vars, shuffle))
    else:
        write_header(out, num_vars, total, comments, formula.n**2 if show else None)
        written = _write_body(out, formula, fast)
        written += write_clauses(out, extra)
    if written != total:  # an internal invariant, never expected
        raise RuntimeError(f"internal error: wrote {written} clauses, the header says {total}")
    return written


def _fast(formula: QueensFormula, fast: bool | None) -> bool:
    """Whether the vectorised path writes the formula: forced by ``fast``, else by its size; never for an
    encoding that is not ``positional``."""

    return formula.enc.positional and (formula.counts()[1] >= FAST_MIN_CLAUSES if fast is None else fast)


def tune_malloc(formula: QueensFormula, shuffle: int | None = None) -> None:
    """For a process that is ours alone (the ``gen-queens`` command): when the vectorised path will write
    ``formula`` unshuffled, let it change glibc's malloc settings for the rest of the process
    (:func:`.fast_writer.reuse_freed_memory`); a library caller's process is left alone."""
    if shuffle is None and _fast(formula, None):
        from cnfgen_queens.cnf.fast_writer import reuse_freed_memory

        reuse_freed_memory()


def _write_body(out: BinaryIO, formula: QueensFormula, fast: bool | None) -> int:

    if not _fast(formula, fast):
        return write_clauses(out, formula.clauses())
    from cnfgen_queens.cnf.fast_writer import write_body_fast

    return write_body_fast(out, formula) + write_clauses(out, formula.tail())
