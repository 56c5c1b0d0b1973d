"""Write a :class:`QueensFormula` as DIMACS, streaming, with a vectorised fast path.

The reference path formats the clauses of :meth:`QueensFormula.clauses` one by one.
The fast path gives the same bytes for large formulas: an at-most-one encoding
is a function of the positions of its inputs only, so each line length is encoded
once on the template inputs ``1..n`` (auxiliaries ``n+1..``) and every line of that
length is obtained by substituting its cell variables and its auxiliary block
(numpy ``take``).  Literals are turned into text by a vectorised decimal
formatter.  Memory stays bounded by one line's clauses plus one output chunk.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import lru_cache
from itertools import chain
from typing import TYPE_CHECKING, BinaryIO

from .dimacs import Clause, write_clauses, write_header
from .encodings import VarPool
from .formula import QueensFormula

if TYPE_CHECKING:
    import numpy as np

FAST_MIN_CLAUSES = 200_000  # below this numpy's import costs more than it saves
TEMPLATE_MAX_LITERALS = 20_000_000  # a larger template (e.g. nested, n ~ 500) streams clause by clause
CHUNK_LITERALS = 1 << 17
Template = tuple["np.ndarray", "np.ndarray", int, int]


def write_cnf(
    out: BinaryIO,
    formula: QueensFormula,
    comments: Iterable[str] = (),
    extra: list[Clause] | None = None,
    fast: bool | None = None,
) -> int:
    """Header and every clause (plus ``extra`` blocking clauses); returns the clause count."""
    num_vars, num_clauses = formula.counts()
    extra = extra or []
    write_header(out, num_vars, num_clauses + len(extra), comments)
    if fast is None:
        fast = num_clauses >= FAST_MIN_CLAUSES
    if fast:
        written = write_body_fast(out, formula) + write_clauses(out, formula.variant.unit_clauses(formula.n))
    else:
        written = write_clauses(out, formula.clauses())
    written += write_clauses(out, extra)
    if written != num_clauses + len(extra):
        raise AssertionError(f"wrote {written} clauses, header says {num_clauses + len(extra)}")
    return written


@lru_cache(maxsize=1)
def _digits4() -> np.ndarray:
    """ASCII of 0000..9999 as one little-endian uint32 per number."""
    import numpy as np

    x = np.arange(10000)
    d = np.stack([(x // 1000) % 10, (x // 100) % 10, (x // 10) % 10, x % 10], axis=1).astype(np.uint8) + 48
    return np.ascontiguousarray(d).view(np.uint32).ravel()


@lru_cache(maxsize=4)
def _keep_patterns(groups: int) -> np.ndarray:
    """Which bytes of a token's fixed-width row to keep, per (sign, digit count), as uint32 words."""
    import numpy as np

    width = 4 * groups
    row = 8 + width  # sign word, digit words, separator word
    pats = np.zeros((2, width + 1, row), dtype=np.uint8)
    for neg in (0, 1):
        for nd in range(1, width + 1):
            pats[neg, nd, 4 + width - nd : 4 + width] = 1
            pats[neg, nd, 3] = neg
            pats[neg, nd, 4 + width] = 1
    return np.ascontiguousarray(pats.reshape(2 * (width + 1), row)).view(np.uint32)


def format_literals(flat: np.ndarray) -> bytes:
    """DIMACS text of a flat literal array in which 0 ends a clause: ``"1 -2 0\\n..."``.

    Each literal becomes a fixed-width row (sign, zero-padded digits from a table of
    0000..9999, separator) and one boolean compaction drops the padding.
    """
    import numpy as np

    a = np.asarray(flat)
    t = a.size
    if not t:
        return b""
    v = np.abs(a).astype(np.uint32)
    vmax = int(v.max())
    groups = max(1, (len(str(vmax)) + 3) // 4)
    width = 4 * groups
    words = np.empty((t, 2 + groups), dtype=np.uint32)
    words[:, 0] = 0x2D000000  # '-' in the word's last byte (little-endian)
    table = _digits4()
    rest = v
    for g in range(groups):
        rest, low = np.divmod(rest, 10000)
        words[:, groups - g] = np.take(table, low)
    words[:, groups + 1] = np.where(a == 0, 10, 32)
    kind = (a < 0).astype(np.uint8) * np.uint8(width + 1) + 1  # sign and digit count index a pattern
    p = 10
    while p <= vmax:
        kind += v >= p
        p *= 10
    keep = np.take(_keep_patterns(groups), kind, axis=0).view(np.bool_)
    return words.view(np.uint8).reshape(-1)[keep.reshape(-1)].tobytes()


def _template(formula: QueensFormula, n: int) -> Template | None:
    """The encoding of inputs 1..n, flat and 0-terminated, as (signs, variable indices, clauses, auxiliaries)."""
    import numpy as np

    enc, params = formula.enc, formula.params
    pool = VarPool(n)
    built = enc(list(range(1, n + 1)), pool, **params)
    aux = pool.top - n
    if not built:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, 0, aux
    width = len(built[0])
    if all(len(c) == width for c in built):  # the common case: one 2-D array, then a 0 column
        flat = np.zeros((len(built), width + 1), dtype=np.int64)
        flat[:, :width] = np.fromiter(chain.from_iterable(built), np.int64, len(built) * width).reshape(-1, width)
        flat = flat.reshape(-1)
    else:
        size = sum(len(c) + 1 for c in built)
        if size > TEMPLATE_MAX_LITERALS:
            return None
        flat = np.fromiter((lit for c in built for lit in (*c, 0)), dtype=np.int64, count=size)
    return np.sign(flat).astype(np.int8), np.abs(flat).astype(np.int32), len(built), aux


@lru_cache(maxsize=1)
def _reuse_freed_memory() -> None:
    """Ask glibc to keep freed blocks for reuse instead of unmapping them.

    Every chunk allocates and frees a few MB of numpy buffers; by default glibc
    returns each to the kernel and the next chunk page-faults it back in, which cost
    0.9 s of kernel time out of 2.4 s for pairwise N = 200.  Peak memory is unchanged
    (the same buffers are reused).  Does nothing where the C library is not glibc.
    """
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return
    m_trim_threshold, m_mmap_threshold = -1, -3
    mallopt(m_mmap_threshold, 256 << 20)
    mallopt(m_trim_threshold, 512 << 20)


def _line_vars(formula: QueensFormula) -> Iterator[np.ndarray]:
    """The cell variables of each at-most-one line, in the formula's order: arithmetic progressions
    on the square board, the wrapped lines' own cells on the torus."""
    import numpy as np

    board, n = formula.board, formula.n
    if formula.variant.torus:
        for line in formula.lines():
            yield np.array(board.line_vars(line), dtype=np.int64)
        return
    for kind, _, (r, c), k in board.progressions():
        first, step = r * n + c + 1, board.var_step(kind)
        yield np.arange(first, first + step * k, step, dtype=np.int64)


def write_body_fast(out: BinaryIO, formula: QueensFormula) -> int:
    """The formula's clauses by template substitution (same bytes as the reference path)."""
    import numpy as np

    _reuse_freed_memory()

    n = formula.n
    cells = np.arange(1, n * n + 1, dtype=np.int64).reshape(n, n)
    alo = [cells, cells.T] if formula.column_alo else [cells]
    for a in alo:
        out.write(format_literals(np.hstack([a, np.zeros((n, 1), dtype=np.int64)]).reshape(-1)))
    count = n * len(alo)
    templates: dict[int, Template | None] = {}
    dtype = np.int32 if formula.counts()[0] < 2**31 else np.int64
    top = n * n
    pending: list[np.ndarray] = []
    pending_size = 0
    enc, params = formula.enc, formula.params

    def flush() -> None:
        nonlocal pending, pending_size
        if pending:
            out.write(format_literals(np.concatenate(pending)))
            pending, pending_size = [], 0

    for line in _line_vars(formula):
        k = len(line)
        if k not in templates:
            templates[k] = _template(formula, k)
        t = templates[k]
        if t is None:  # too large to hold as a template: stream this line's clauses
            flush()
            pool = VarPool(top)
            count += write_clauses(out, enc(line.tolist(), pool, **params))
            top = pool.top
            continue
        sign, index, clauses, aux = t
        if clauses:
            mapping = np.concatenate(([0], line, np.arange(top + 1, top + aux + 1)), dtype=dtype)
            pending.append(np.take(mapping, index) * sign)
            pending_size += index.size
            count += clauses
        top += aux
        if pending_size >= CHUNK_LITERALS:
            flush()
    flush()
    return count
