"""The one CNF writer: a :class:`QueensFormula` as DIMACS, plus extra clauses, optionally shuffled; what a
file may be before it is written; its size without writing it; and the vectorised fast path.

``gen-queens`` and the batch's instance cache both write through :func:`write_cnf`,
so a file has the same bytes whichever wrote it.  Unshuffled, the body streams
(vectorised for large formulas, :func:`write_body_fast`); shuffled, every
clause is held in memory (:mod:`cnfgen_queens.cnf.shuffle`; vectorised for large formulas,
with the same bytes, :func:`shuffle_write`).  The header and clause lines are
:mod:`.dimacs`'s.
"""

from __future__ import annotations

import math
import os
import sys
from array import array
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from typing import TYPE_CHECKING

from cnfgen_queens.cnf import native
from cnfgen_queens.cnf.dimacs import MAX_VAR, Clause, clause_line, write_clauses, write_header
from cnfgen_queens.encodings import VarPool
from cnfgen_queens.errors import UsageError, option
from cnfgen_queens.malloc import M_MMAP_THRESHOLD, M_TRIM_THRESHOLD, mallopt
from cnfgen_queens.model.formula import QueensFormula

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence
    from typing import BinaryIO

    import numpy as np

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
    (:func:`reuse_freed_memory`); a library caller's process is left alone."""
    if shuffle is None and _fast(formula, None):
        reuse_freed_memory()


def _write_body(out: BinaryIO, formula: QueensFormula, fast: bool | None) -> int:

    if not _fast(formula, fast):
        return write_clauses(out, formula.clauses())
    return write_body_fast(out, formula) + write_clauses(out, formula.tail())


# --- what a file may be before it is written ----------------------------------------------------------------
# What a CNF file may be before it is written: the DIMACS variable limit, the size cap, the shuffle cap.
#
# ``gen-queens`` and the Python library (:meth:`cnfgen_queens.library.Formula.write`) check the same
# formula the same way, before a byte is written, with the same words (options named as flags); a batch
# checks every instance of its config with it too (``shuffled_by`` and ``advice`` name its config keys).

LARGE_BYTES = 50 * 10**9  # above this (or LARGE_CLAUSES) gen-queens asks for --allow-large
LARGE_CLAUSES = 2**31
SIZE_FROM = 1_000_000  # clauses from which the output size is computed (it needs numpy)
SHUFFLE_MAX_CLAUSES = 20_000_000  # about 1.1 GB on the vectorised path, 2.5 GB of clause tuples on the other
SIZE_FROM_UNBUILT = 2**25  # SIZE_FROM for a caller that builds no template to size (a batch's check): under
# 33.5M clauses, 50 GB would take over 1,490 bytes a clause; every encoding's clauses are mostly binary


def human(size: int) -> str:
    """``size`` bytes in TB, GB or MB with one decimal (bytes below a MB)."""
    for unit, scale in (("TB", 10**12), ("GB", 10**9), ("MB", 10**6)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


@dataclass(frozen=True)
class Asker:
    """Who asks for an output, as :func:`check_output` words and sizes a refusal: ``shuffled_by`` names what
    asked for the shuffle and ``advice`` ends a refusal (default: the flag ``--allow-large``); the byte size is
    computed from ``size_from`` clauses on (default :data:`SIZE_FROM`)."""

    shuffled_by: str = "--shuffle"
    advice: str | None = None
    size_from: int | None = None


GEN_QUEENS = Asker()


def check_output(
    formula: QueensFormula,
    comments: Sequence[str],
    blocks: Sequence[Clause] = (),
    *,
    allow_large: bool = False,
    shuffle: int | None = None,
    asker: Asker = GEN_QUEENS,
) -> None:
    """Raise UsageError, before anything is written, for a formula beyond DIMACS's 2^31-1 variables, and
    without ``allow_large`` for one of over :data:`LARGE_BYTES` or :data:`LARGE_CLAUSES`, or a shuffled one
    of over :data:`SHUFFLE_MAX_CLAUSES` (a shuffle holds every clause in memory).

    ``comments`` are the header's lines (their bytes count); ``blocks`` the extra clauses written after.
    ``asker`` words the refusal (:class:`Asker`)."""
    num_vars, num_clauses = formula.counts()
    clauses = num_clauses + len(blocks)
    allow = option("--allow-large")  # allow_large=True from the Python API
    if num_vars > MAX_VAR:
        raise UsageError(
            f"{formula.encoding} at N={formula.n} needs {num_vars:,} variables, above the DIMACS "
            "limit of 2^31-1; use a smaller N or another encoding"
        )
    if not allow_large and clauses >= (SIZE_FROM if asker.size_from is None else asker.size_from):
        n2 = formula.n**2
        header = sum(len(c) + 3 for c in comments) + len(f"p cnf {num_vars} {clauses}\n")
        header += 9 + digit_sum(1, n2 + 1) + n2 + 2 if comments else 0  # the streamed c p show line
        header += sum(len(clause_line(c)) for c in blocks)
        bound = body_bound(formula)  # enough when it is under the limit: no template to build
        if bound is not None and header + bound <= LARGE_BYTES and clauses < LARGE_CLAUSES:
            body, exact = bound, False
        else:
            body, exact = body_size(formula)
        size = header + body
        if size > LARGE_BYTES or clauses >= LARGE_CLAUSES:
            what = f"{size:,} bytes ({human(size)})" if exact else f"about {human(size)}"
            raise UsageError(
                f"N={formula.n} {formula.encoding} would write {what} and {clauses:,} clauses, above "
                f"the limit of {human(LARGE_BYTES)} or 2^31 clauses; "
                f"{asker.advice or f'pass {allow} to write it anyway'}"
            )
    if shuffle is not None and clauses > SHUFFLE_MAX_CLAUSES and not allow_large:
        raise UsageError(
            f"{asker.shuffled_by} holds every clause in memory: N={formula.n} {formula.encoding} has "
            f"{clauses:,} clauses, above {SHUFFLE_MAX_CLAUSES:,}; "
            f"{asker.advice or f'pass {allow} to try anyway'}"
        )


# --- the vectorised fast path -------------------------------------------------------------------------------
# The reference path formats the clauses of :meth:`QueensFormula.clauses` one by one.
# The fast path gives the same bytes for large formulas of a ``positional`` encoding
# (the rule is stated and owned by :class:`.encodings.Encoding`): each line length is
# encoded once on the template inputs ``1..n`` (auxiliaries ``n+1..``) and every line
# of that length is obtained by substituting its cell variables and its auxiliary
# block (numpy ``take``).  Literals are turned into text by a vectorised decimal
# formatter that works on 4-byte words in the machine's byte order (``BYTE_ORDER``;
# the words are built from bytes, so either order gives the same text).  Memory stays
# bounded by one line's clauses plus one output chunk.

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
    cannot be restored: only :func:`tune_malloc` (called by the ``gen-queens``
    process) calls this.  Does nothing where the C library is not glibc.
    """
    mallopt(M_MMAP_THRESHOLD, 256 << 20)
    mallopt(M_TRIM_THRESHOLD, 512 << 20)


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


# --- the size of the clause lines without writing them ------------------------------------------------------
# The size in bytes of a formula's clause lines without writing them (gen-queens refuses a large file first).
#
# Exact from the fast writer's line templates (:func:`_template`) when they are cheap to build:
# each line's bytes are its template's fixed bytes plus the digits of its variables, summed over
# arithmetic progressions of variables.  Otherwise estimated by a power law in the line length.

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


# --- the vectorised --shuffle ---------------------------------------------------------------------------------
# The vectorised ``--shuffle``: the same bytes as :func:`.shuffle.shuffle_clauses`, in numpy.
#
# The reference draws everything from ``random.Random(seed)`` in a fixed order: the renaming
# (Fisher-Yates over the variables), then each clause's literal order, then the clause order.
# numpy's legacy ``RandomState`` is the same Mersenne Twister with the same ``random()``
# (53 bits from two 32-bit outputs), so it is started from the Python generator's own state
# and gives the same stream.  Each Fisher-Yates step draws ``j = int(random() * (i + 1))``:
# all the ``j`` are computed at once; the swaps of the two long shuffles (the variables, the
# clauses) run in one Python loop over compact arrays, and the literals of all clauses of one
# length are swapped together, a column at a time.
#
# Memory: the clauses as one flat int32 array (about 4 bytes per literal and per clause, twice
# while it is concatenated) plus the clause index: 1.9 GB at the peak for the 34M clauses of
# product N = 2000, against about 4 GB of tuples in the reference.  Used by
# :func:`write_cnf` for large formulas of a ``positional`` encoding (the fast
# writer's rule) with no empty extra clause.

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
