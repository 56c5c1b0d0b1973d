"""The size in bytes of a formula's clause lines without writing them (gen-queens refuses a large file first).

Exact from the fast writer's line templates (:mod:`.generate`) when they are cheap to build:
each line's bytes are its template's fixed bytes plus the digits of its variables, summed over
arithmetic progressions of variables.  Otherwise estimated by a power law in the line length.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from cnfgen_queens.cnf.fast_writer import _template

if TYPE_CHECKING:
    import numpy as np

    from cnfgen_queens.model.formula import QueensFormula

SIZE_BUDGET = 2_000_000  # template clauses to build for an exact size; above this the size is estimated
SAMPLE_MAX = 20_000  # clauses of the largest template an estimate is scaled from


def digit_sum(lo: int, hi: int) -> int:
    """Total decimal digits of the integers lo..hi-1 (lo >= 1)."""
    total, p = 0, 1
    while p < hi:
        a, b = max(lo, p), min(hi, p * 10)
        if a < b:
            total += (b - a) * len(str(p))
        p *= 10
    return total


def _weighted_digits(prefix: np.ndarray, first: int, step: int) -> int:
    """Sum over i of weight[i] * digits(first + step*i), given the weights' prefix sums (prefix[0] = 0)."""
    k, total, i = prefix.size - 1, 0, 0
    while i < k:
        digits = len(str(first + step * i))
        j = min(k, -(-(10**digits - first) // step))  # the first index with more digits
        total += digits * int(prefix[j] - prefix[i])
        i = j
    return total


def _line_bytes(formula: QueensFormula, k: int, digits: int) -> tuple[int, np.ndarray, np.ndarray, int] | None:
    """(bytes of a line of length k besides its variables' digits, weight prefix sums of its cell and
    auxiliary variables, its auxiliary count); None when the template is too large to build."""
    import numpy as np

    t = _template(formula, k)
    if t is None:
        return None
    sign, index, _, aux = t
    weight = np.bincount(index, minlength=1 + k + aux)
    fixed = int(index.size) + int(np.count_nonzero(sign < 0)) + int(weight[0])  # separators, '-', '0's
    cells = np.concatenate(([0], np.cumsum(weight[1 : k + 1])))
    auxes = np.concatenate(([0], np.cumsum(weight[k + 1 :])))
    return fixed, cells, auxes, aux


def body_bound(formula: QueensFormula) -> int | None:
    """An upper bound on the bytes of the clause lines, from counts alone (no template built), or None when the
    encoding does not state its widest clause (:attr:`.Encoding.width`).  Every literal but the at-least-one
    clauses' is taken at full width (a sign and the digits of the largest variable) with its separator; the
    variant's unit clauses and the lex-leader clauses at three literals (:func:`body_size`'s own bound)."""
    width = formula.enc.width
    if width is None:
        return None
    n = formula.n
    rows = 2 if formula.column_alo else 1
    alo = rows * (digit_sum(1, n * n + 1) + n * n + 2 * n)  # exact: each cell once, a blank each, " 0\n" a row
    num_vars, clauses = formula.counts()
    literal = len(str(num_vars)) + 2
    return alo + (clauses - rows * n) * (max(width, 3) * literal + 2)


def body_size(formula: QueensFormula) -> tuple[int, bool]:
    """(bytes of the clause lines, exact?).  Exact when the templates are cheap to build; else estimated
    by a power law in the line length through two cheap templates, every variable taken at full width.
    The lex-leader clauses of ``break_symmetry`` are bounded (three literals at full width each)."""
    size, exact = _lines_size(formula)
    if not formula.break_symmetry:
        return size, exact
    clauses = formula.group.size()[0]
    return size + clauses * (3 * (len(str(formula.counts()[0])) + 2) + 2), False


def _lines_size(formula: QueensFormula) -> tuple[int, bool]:
    n = formula.n
    alo = (2 if formula.column_alo else 1) * (digit_sum(1, n * n + 1) + n * n + 2 * n)
    lines: dict[int, list[tuple[int, int, int]]] = {}  # length -> (first, step, top) of each line
    top = n * n
    enc, params = formula.enc, formula.params
    counts: dict[int, tuple[int, int]] = {}
    for kind, _, (r, c), k in formula.board.progressions():
        if k not in counts:
            counts[k] = enc.count(k, **params)
        lines.setdefault(k, []).append((r * n + c + 1, formula.board.var_step(kind), top))
        top += counts[k][1]
    if formula.enc.positional and sum(counts[k][0] for k in lines) <= SIZE_BUDGET:
        total = alo
        for k in sorted(lines):
            got = _line_bytes(formula, k, 0)
            if got is None:
                break
            fixed, cells, auxes, aux = got
            for first, step, aux_top in lines[k]:
                total += fixed + _weighted_digits(cells, first, step)
                if aux:
                    total += _weighted_digits(auxes, aux_top + 1, 1)
        else:
            return total, True

    import numpy as np

    digits = len(str(max(top, 1)))
    cheap = [k for k in sorted(lines) if counts[k][0] <= SAMPLE_MAX and k >= 2]
    k2 = cheap[-1] if cheap else min(lines)
    k1 = max(2, k2 // 2)
    sizes = []
    for k in (k1, k2):
        got = _line_bytes(formula, k, digits)
        none = np.zeros(1, dtype=np.int64)
        fixed, cells, auxes, _ = got if got is not None else (0, none, none, 0)
        sizes.append(fixed + digits * int(cells[-1] + auxes[-1]))
    power = math.log(max(sizes[1], 1) / max(sizes[0], 1)) / math.log(k2 / k1) if k2 > k1 else 1.0
    scale = sizes[1] / k2**power
    return alo + round(sum(scale * k**power * len(ls) for k, ls in lines.items())), False
