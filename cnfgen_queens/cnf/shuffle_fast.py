"""The vectorised ``--shuffle``: the same bytes as :func:`.shuffle.shuffle_clauses`, in numpy.

The reference draws everything from ``random.Random(seed)`` in a fixed order: the renaming
(Fisher-Yates over the variables), then each clause's literal order, then the clause order.
numpy's legacy ``RandomState`` is the same Mersenne Twister with the same ``random()``
(53 bits from two 32-bit outputs), so it is started from the Python generator's own state
and gives the same stream.  Each Fisher-Yates step draws ``j = int(random() * (i + 1))``:
all the ``j`` are computed at once; the swaps of the two long shuffles (the variables, the
clauses) run in one Python loop over compact arrays, and the literals of all clauses of one
length are swapped together, a column at a time.

Memory: the clauses as one flat int32 array (about 4 bytes per literal and per clause, twice
while it is concatenated) plus the clause index: 1.9 GB at the peak for the 34M clauses of
product N = 2000, against about 4 GB of tuples in the reference.  Used by
:func:`.cnf_writer.write_cnf` for large formulas of a ``positional`` encoding (the fast
writer's rule) with no empty extra clause.
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING

from cnfgen_queens.cnf.fast_writer import _clause_chunks, body_chunks, format_literals

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import BinaryIO

    import numpy as np

    from cnfgen_queens.model.formula import QueensFormula

CLAUSE_CHUNK = 1 << 20  # clauses per step when literals are permuted and when the result is written


def _stream(seed: int) -> np.random.RandomState:
    """A numpy generator giving the same ``random()`` sequence as ``random.Random(seed)``."""
    import random

    import numpy as np

    state = random.Random(seed).getstate()[1]
    rs = np.random.RandomState()
    rs.set_state(("MT19937", np.array(state[:624], dtype=np.uint32), state[624], 0, 0.0))
    return rs


def _fisher_yates(rs: np.random.RandomState, size: int, first: int) -> array:
    """``first .. first+size-1`` permuted as ``random.Random``'s Fisher-Yates would: every
    ``j = int(random() * (i + 1))`` for i = size-1 .. 1 drawn at once, the swaps in one Python loop
    over compact arrays (8 bytes an item, not a list's 40)."""
    import numpy as np

    items = array("q", range(first, first + size))
    if size < 2:
        return items
    steps = array("q", (rs.random_sample(size - 1) * np.arange(size, 1, -1, dtype=np.float64)).astype(np.int64))
    for i, j in zip(range(size - 1, 0, -1), steps, strict=True):
        items[i], items[j] = items[j], items[i]
    return items


def shuffle_write(out: BinaryIO, formula: QueensFormula, extra: Sequence[Sequence[int]], seed: int) -> int:
    """Write the shuffled clauses of ``formula`` then ``extra`` (the reference's order); returns the count."""
    import numpy as np

    num_vars = formula.counts()[0]
    dtype = np.int32 if num_vars < 2**31 else np.int64
    tail = _clause_chunks([*formula.tail(), *extra], dtype)
    parts = [chunk.astype(dtype, copy=False) for chunk, _ in (*body_chunks(formula), *tail)]
    flat = np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)
    del parts
    ends = np.flatnonzero(flat == 0)
    m = ends.size
    starts = np.empty(m, dtype=np.int64)
    starts[:1] = 0
    starts[1:] = ends[:-1] + 1
    lengths = (ends - starts).astype(np.int32)
    del ends

    rs = _stream(seed)
    table = np.zeros(num_vars + 1, dtype=dtype)
    table[1:] = np.frombuffer(_fisher_yates(rs, num_vars, 1), dtype=np.int64)
    for c0 in range(0, m, CLAUSE_CHUNK):  # in clause order, as the reference draws: rename, then permute
        c1 = min(m, c0 + CLAUSE_CHUNK)
        seg = flat[starts[c0] : starts[c1] if c1 < m else flat.size]
        seg[:] = np.take(table, np.abs(seg)) * np.sign(seg)
        per_clause = np.maximum(lengths[c0:c1] - 1, 0)
        offsets = np.cumsum(per_clause) - per_clause
        draws = rs.random_sample(int(per_clause.sum()))
        _permute_literals(flat, starts[c0:c1], lengths[c0:c1], draws, offsets)
    del table

    order = np.frombuffer(_fisher_yates(rs, m, 0), dtype=np.int64)
    for lo in range(0, m, CLAUSE_CHUNK):
        pick = order[lo : lo + CLAUSE_CHUNK]
        sizes = lengths[pick].astype(np.int64) + 1  # with the terminating 0
        at = np.repeat(starts[pick] - (np.cumsum(sizes) - sizes), sizes) + np.arange(int(sizes.sum()))
        out.write(format_literals(np.take(flat, at)))
    return m


def _permute_literals(
    flat: np.ndarray, starts: np.ndarray, lengths: np.ndarray, draws: np.ndarray, offsets: np.ndarray
) -> None:
    """Fisher-Yates inside every clause of a chunk, in place: clause ``c`` uses ``draws[offsets[c]:]``, a
    column of swaps at a time for all clauses of one length."""
    import numpy as np

    for k in np.unique(lengths):
        k = int(k)
        if k < 2:
            continue
        rows = np.flatnonzero(lengths == k)
        cells = starts[rows][:, None] + np.arange(k)
        block = flat[cells]
        r = draws[offsets[rows][:, None] + np.arange(k - 1)]
        index = np.arange(rows.size)
        for t in range(k - 1):
            i = k - 1 - t
            j = (r[:, t] * (i + 1)).astype(np.int64)
            picked = block[index, j]
            block[index, j] = block[:, i]
            block[:, i] = picked
        flat[cells] = block
