"""The vectorised fast path of the CNF writer (:mod:`cnfgen_queens.cnf.writer`); sizes are in :mod:`.output_size`.

The reference path formats the clauses of :meth:`QueensFormula.clauses` one by one.
The fast path gives the same bytes for large formulas of a ``positional`` encoding
(the rule is stated and owned by :class:`.encodings.Encoding`): each line length is
encoded once on the template inputs ``1..n`` (auxiliaries ``n+1..``) and every line
of that length is obtained by substituting its cell variables and its auxiliary
block (numpy ``take``).  Literals are turned into text by a vectorised decimal
formatter that works on 4-byte words in the machine's byte order (``BYTE_ORDER``;
the words are built from bytes, so either order gives the same text).  Memory stays
bounded by one line's clauses plus one output chunk.
"""

from __future__ import annotations

import os
import sys
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache
from itertools import chain
from typing import TYPE_CHECKING

from cnfgen_queens.cnf import native
from cnfgen_queens.encodings import VarPool
from cnfgen_queens.model.formula import QueensFormula

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence
    from typing import BinaryIO

    import numpy as np

TEMPLATE_MAX_LITERALS = 20_000_000  # a larger template (e.g. nested, n ~ 500) streams clause by clause
CHUNK_LITERALS = 1 << 17
TEXT_CHUNK = 1 << 20  # bytes of text a write (with the compiled part)
CACHE_BYTES = 64 << 20  # templates held in memory; the rest spill to a temporary directory
Template = tuple["np.ndarray", "np.ndarray", int, int]
Take = Callable[["np.ndarray", "np.ndarray", "np.ndarray"], bytes]  # the compiled part's format_take
BYTE_ORDER = "<" if sys.byteorder == "little" else ">"  # of the formatter's 4-byte words


def _word(four: bytes, order: str) -> int:
    """The 4-byte word whose bytes in memory are ``four``, in byte order ``order`` ('<' or '>')."""
    return int.from_bytes(four, "little" if order == "<" else "big")


@lru_cache(maxsize=2)
def _digits4(order: str) -> np.ndarray:
    """ASCII of 0000..9999 as one 4-byte word per number, in byte order ``order``."""
    import numpy as np

    x = np.arange(10000)
    d = np.stack([(x // 1000) % 10, (x // 100) % 10, (x // 10) % 10, x % 10], axis=1).astype(np.uint8) + 48
    return np.ascontiguousarray(d).view(np.dtype(order + "u4")).ravel()


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

    The compiled part writes it when there is one (:mod:`.native`); else each literal becomes a
    fixed-width row (sign, zero-padded digits from a table of 0000..9999, separator) and one boolean
    compaction drops the padding.  The rows are 4-byte words in ``BYTE_ORDER`` whose bytes are fixed,
    so the text is the same on either byte order.
    """
    import numpy as np

    scanner = native.NATIVE
    if scanner is not None:
        return bytes(scanner.format_literals(np.ascontiguousarray(flat)))
    order = BYTE_ORDER

    a = np.asarray(flat)
    t = a.size
    if not t:
        return b""
    v = np.abs(a).astype(np.uint32)
    vmax = int(v.max())
    groups = max(1, (len(str(vmax)) + 3) // 4)
    width = 4 * groups
    words = np.empty((t, 2 + groups), dtype=np.dtype(order + "u4"))
    words[:, 0] = _word(b"\0\0\0-", order)  # '-' in the word's last byte
    table = _digits4(order)
    rest = v
    for g in range(groups):
        rest, low = np.divmod(rest, 10000)
        words[:, groups - g] = np.take(table, low)
    words[:, groups + 1] = np.where(a == 0, _word(b"\n\0\0\0", order), _word(b" \0\0\0", order))
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

    array = formula.enc.array_template(n, **formula.params)
    if array is not None:  # built by numpy (pairwise, sequential)
        rows, aux = array
        clauses = int(rows.shape[0])
        grid = np.zeros((clauses, rows.shape[1] + 1), dtype=np.int64)
        grid[:, :-1] = rows
        flat = grid.reshape(-1)
        return np.sign(flat).astype(np.int8), np.abs(flat).astype(np.int32), clauses, aux
    built, aux = formula.enc.template(n, **formula.params)
    if not built:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, 0, aux
    width = len(built[0])
    if all(len(c) == width for c in built):  # the common case: one 2-D array, then a 0 column
        grid = np.zeros((len(built), width + 1), dtype=np.int64)
        grid[:, :width] = np.fromiter(chain.from_iterable(built), np.int64, len(built) * width).reshape(-1, width)
        flat = grid.reshape(-1)
    else:
        size = sum(len(c) + 1 for c in built)
        if size > TEMPLATE_MAX_LITERALS:
            return None
        flat = np.fromiter((lit for c in built for lit in (*c, 0)), dtype=np.int64, count=size)
    return np.sign(flat).astype(np.int8), np.abs(flat).astype(np.int32), len(built), aux


@lru_cache(maxsize=1)
def reuse_freed_memory() -> None:
    """Ask glibc to keep freed blocks for reuse instead of unmapping them, for the rest of the process.

    Every chunk allocates and frees a few MB of numpy buffers; by default glibc
    returns each to the kernel and the next chunk page-faults it back in, which cost
    0.9 s of kernel time out of 2.4 s for pairwise N = 200.  Peak memory is unchanged
    (the same buffers are reused).  glibc cannot report the previous settings, so they
    cannot be restored: only :func:`.writer.tune_malloc` (called by the ``gen-queens``
    process) calls this.  Does nothing where the C library is not glibc.
    """
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return
    except (ValueError, OSError):  # no such name: not glibc
        return
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own C library
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
    """The formula's clauses by template substitution (same bytes as the reference path): with the compiled part,
    each line's text straight from its template (no array of its literals), else numpy's arrays formatted."""
    count = 0
    if native.NATIVE is not None:
        for text, clauses in _texts(formula):
            out.write(text)
            count += clauses
        return count
    for flat, clauses in body_chunks(formula):
        out.write(format_literals(flat))
        count += clauses
    return count


def _texts(formula: QueensFormula) -> Iterator[tuple[bytes, int]]:
    """:func:`body_chunks` as text of about ``TEXT_CHUNK`` bytes, each line formatted from its template by the
    compiled part."""
    scanner = native.NATIVE
    assert scanner is not None
    pending: list[bytes] = []
    size = clauses = 0
    for part, count in _parts(formula, scanner.format_take):
        text = part if isinstance(part, bytes) else format_literals(part)
        pending.append(text)
        size, clauses = size + len(text), clauses + count
        if size >= TEXT_CHUNK:
            yield b"".join(pending), clauses
            pending, size, clauses = [], 0, 0
    if pending:
        yield b"".join(pending), clauses


def body_chunks(formula: QueensFormula) -> Iterator[tuple[np.ndarray, int]]:
    """The formula's clauses without the variant's unit clauses, in order, as (flat 0-terminated
    literals, clauses in them) chunks of about ``CHUNK_LITERALS``; memory stays bounded."""
    for part, clauses in _parts(formula):
        assert not isinstance(part, bytes)
        yield part, clauses


def _parts(formula: QueensFormula, take: Take | None = None) -> Iterator[tuple[np.ndarray | bytes, int]]:
    """:func:`body_chunks`; with ``take`` (the compiled ``format_take``), a line written from a template comes
    as its text instead."""
    import numpy as np

    n = formula.n
    rows = max(1, CHUNK_LITERALS // n)  # at-least-one clauses a few rows at a time: memory stays bounded
    for transposed in (False, True) if formula.column_alo else (False,):
        for r0 in range(0, n, rows):
            r = np.arange(r0, min(n, r0 + rows), dtype=np.int64)[:, None]
            c = np.arange(n, dtype=np.int64)[None, :]
            block = np.zeros((r.size, n + 1), dtype=np.int64)
            block[:, :n] = (c * n + r + 1) if transposed else (r * n + c + 1)
            yield block.reshape(-1), r.size
    templates = _Templates(formula)
    try:
        yield from _line_chunks(formula, templates, take)
    finally:
        templates.close()


def _line_chunks(
    formula: QueensFormula, templates: _Templates, take: Take | None = None
) -> Iterator[tuple[np.ndarray | bytes, int]]:
    """The at-most-one clauses of every line, in order (with ``take``, as text where a template is held)."""
    import numpy as np

    dtype = np.int32 if formula.counts()[0] < 2**31 else np.int64
    top = formula.n**2
    pending: list[np.ndarray] = []
    pending_size = pending_clauses = 0
    enc, params = formula.enc, formula.params
    for line in _line_vars(formula):
        k = len(line)
        t = templates.get(k)
        if t is None:  # too large to hold as a template: this line's clauses one by one, in chunks
            if pending:
                yield np.concatenate(pending), pending_clauses
                pending, pending_size, pending_clauses = [], 0, 0
            pool = VarPool(top)
            yield from _clause_chunks(enc(line.tolist(), pool, **params), dtype)
            top = pool.top
            continue
        sign, index, clauses, aux = t
        if clauses:
            mapping = np.concatenate(([0], line, np.arange(top + 1, top + aux + 1)), dtype=dtype)
            if take is not None:
                if pending:
                    yield np.concatenate(pending), pending_clauses
                    pending, pending_size, pending_clauses = [], 0, 0
                yield take(index, sign, mapping), clauses
            else:
                pending.append(np.take(mapping, index) * sign)
                pending_size += index.size
                pending_clauses += clauses
        top += aux
        if pending_size >= CHUNK_LITERALS:
            yield np.concatenate(pending), pending_clauses
            pending, pending_size, pending_clauses = [], 0, 0
    if pending:
        yield np.concatenate(pending), pending_clauses


def _clause_chunks(clauses: Iterable[Sequence[int]], dtype: type) -> Iterator[tuple[np.ndarray, int]]:
    """Clauses as flat 0-terminated chunks of about ``CHUNK_LITERALS``."""
    import numpy as np

    buf: list[int] = []
    count = 0
    for clause in clauses:
        buf.extend(clause)
        buf.append(0)
        count += 1
        if len(buf) >= CHUNK_LITERALS:
            yield np.array(buf, dtype=dtype), count
            buf, count = [], 0
    if count:
        yield np.array(buf, dtype=dtype), count


class _Templates:
    """Templates by line length, at most CACHE_BYTES of them in memory; the least recently used spill
    to a temporary directory and are read back (each line length is met up to four times: diagonals
    and anti-diagonals grow and shrink), so memory stays bounded at any N without rebuilding any."""

    def __init__(self, formula: QueensFormula) -> None:

        self.formula = formula
        self.memory: OrderedDict[int, Template] = OrderedDict()
        self.spilled: dict[int, tuple[int, int]] = {}
        self.streamed: set[int] = set()
        self.size = 0
        self.tmp: str | None = None
        self._lock = -1

    @staticmethod
    def _bytes(t: Template) -> int:
        return t[0].nbytes + t[1].nbytes

    def get(self, k: int) -> Template | None:
        import numpy as np

        if k in self.streamed:
            return None
        if k in self.memory:
            self.memory.move_to_end(k)
            return self.memory[k]
        if k in self.spilled:
            clauses, aux = self.spilled.pop(k)
            with np.load(self._path(k)) as z:
                t: Template | None = (z["sign"], z["index"], clauses, aux)
            assert t is not None
            os.unlink(self._path(k))
        else:
            t = _template(self.formula, k)
            if t is None:
                self.streamed.add(k)
                return None
        self.memory[k] = t
        self.size += self._bytes(t)
        while self.size > CACHE_BYTES and len(self.memory) > 1:
            self._spill()
        return t

    def _path(self, k: int) -> str:
        return f"{self.tmp}/{k}.npz"

    def _spill(self) -> None:
        import numpy as np

        k, t = self.memory.popitem(last=False)
        self.size -= self._bytes(t)
        if self.tmp is None:  # locked like every work directory: the next run sweeps one a kill -9 left
            from cnfgen_queens.cnf.atomic import open_work_dir

            path, self._lock = open_work_dir("templates")
            self.tmp = str(path)
        np.savez(self._path(k), sign=t[0], index=t[1])
        self.spilled[k] = (t[2], t[3])

    def close(self) -> None:
        if self.tmp is not None:
            from cnfgen_queens.cnf.atomic import close_work_dir

            close_work_dir(self.tmp, self._lock)
            self.tmp = None
