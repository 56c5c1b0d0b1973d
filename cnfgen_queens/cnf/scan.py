"""Vectorised reading of a DIMACS body in chunks: the whole-file reader and the streaming model check.

The body is read in chunks by :func:`literal_chunks` (the chunked reader, the last section: numpy's text
reader, the line-by-line parser of :mod:`.dimacs` for what it cannot vouch for).  Memory follows the
chunk and the model, never the header's variable count nor the length of a clause, so a model is
checked against a file of any size in bounded memory.  A small body (:data:`SMALL_BODY`) is checked
in pure Python instead, with the same verdicts: importing numpy would cost more than the check.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import ModuleType
    from typing import IO

    import numpy as np

from cnfgen_queens.bounds import MAX_TOKEN
from cnfgen_queens.cnf import native
from cnfgen_queens.cnf.dimacs import (
    Clause,
    DimacsError,
    EndOfBody,
    Header,
    Warn,
    _stderr_warn,
    body_literals,
    n_clauses,
    open_cnf,
    read_header,
)

# a body up to this is checked in pure Python: importing numpy costs more (the N = 40 pairwise CNF, 1.3 MB,
# takes about as long either way, numpy's import included: scripts/bench_solve_loop.py --threshold)
SMALL_BODY = 1 << 20
SMALL_BODY_NUMPY_LOADED = 1 << 14  # once numpy is imported anyway, only a tiny body is faster without it
SMALL_BODY_NATIVE = 1 << 12  # the compiled scanner counts a body (no model) faster than Python from a few KB
SMALL_MODEL = 1 << 16  # a model of up to this many literals is read in pure Python, a larger one with numpy
Values = bytearray  # a model: 1 at the index of each true variable, the last entry a 0 sentinel for any beyond


@dataclass(frozen=True)
class Cnf:
    """A parsed CNF: header plus all literals flat, each clause ended by 0 (numpy int32)."""

    header: Header
    lits: np.ndarray = field(repr=False)

    @property
    def num_vars(self) -> int:
        return self.header.num_vars

    @property
    def num_clauses(self) -> int:
        return int((self.lits == 0).sum())

    def clauses(self) -> Iterator[Clause]:
        start = 0
        for end in (self.lits == 0).nonzero()[0].tolist():
            yield tuple(self.lits[start:end].tolist())
            start = end + 1


def read_cnf(path: Path | str, warn: Warn = _stderr_warn) -> Cnf:
    """Parse a whole CNF file, plain or compressed (memory follows the file's literals)."""
    import numpy as np

    name = str(path)
    with open_cnf(path, warn) as f:
        header = read_header(f, name)
        parts = [c.astype(np.int32) for c in literal_chunks(f, header, name, warn)]
    lits = np.concatenate(parts) if parts else np.zeros(0, np.int32)
    cnf = Cnf(header, lits)
    if cnf.num_clauses != header.num_clauses:
        warn(f"{name}: header says {n_clauses(header.num_clauses)}, file has {cnf.num_clauses}")
    return cnf


def _scan(lits: np.ndarray, value: np.ndarray) -> tuple[tuple[int, Clause] | None, int, int]:
    """(the first clause ``value`` (bool by variable) falsifies in a 0-terminated literal array, or None;
    the clauses; the largest variable)."""
    import numpy as np

    ends = np.flatnonzero(lits == 0)
    if not ends.size:
        return None, 0, 0
    var = np.abs(lits)
    top = int(var.max())
    np.minimum(var, value.size - 1, out=var)  # the last entry is a False sentinel for variables beyond
    sat = value.take(var)
    sat ^= lits < 0
    sat[ends] = False  # the terminators satisfy nothing
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    # an empty clause starts at its own terminator, so reduceat reads False: violated
    bad = np.flatnonzero(~np.logical_or.reduceat(sat, starts))
    if not bad.size:
        return None, int(ends.size), top
    i = int(bad[0])
    return (i, tuple(lits[starts[i] : ends[i]].tolist())), int(ends.size), top


def _first_violated(lits: np.ndarray, value: np.ndarray) -> tuple[int, Clause] | None:
    """The first clause of a 0-terminated literal array that ``value`` (bool by variable) falsifies."""
    return _scan(lits, value)[0]


def _values(true_vars: Iterable[int], top: int) -> np.ndarray:
    """bool by variable 0..top (+ one False sentinel) with ``true_vars`` set."""
    import numpy as np

    value = np.zeros(top + 2, dtype=bool)
    tv = np.fromiter((v for v in true_vars if 0 < v <= top), dtype=np.int64)
    value[tv] = True
    return value


def violated_clause(cnf: Cnf, true_vars: set[int] | Iterable[int]) -> tuple[int, Clause] | None:
    """The first clause (0-based index, literals) not satisfied by a model, or None.

    ``true_vars`` lists the variables set true; every other variable is false.
    """
    import numpy as np

    if cnf.lits.size == 0:
        return None
    return _first_violated(cnf.lits, _values(true_vars, int(np.abs(cnf.lits).max())))


@dataclass(frozen=True)
class CnfFile:
    """A CNF on disk to check a model against by streaming, and the name to use in messages."""

    path: Path
    name: str


@dataclass(frozen=True)
class StreamCheck:
    """A streaming check: the first violated clause (index, literals) or None, the clauses read and the
    largest variable they mention.  ``length``: the violated clause's length when ``violated`` shows only
    its first :data:`SHOWN` literals (a clause longer than a chunk is never held whole)."""

    violated: tuple[int, Clause] | None
    clauses: int
    max_var: int
    length: int | None = None


SHOWN = 4096  # literals of a violated clause longer than a chunk that a message quotes


def check_stream(
    source: CnfFile,
    value: Values | None,
    warn: Warn = _stderr_warn,
    small: int | None = None,
    stop: Callable[[], bool] | None = None,
) -> StreamCheck:
    """Check the model ``value`` clause by clause; with None, only read the whole body (DimacsError for
    anything that is not DIMACS).  A body of up to ``small`` bytes is read in pure Python (no numpy to
    import: a solve in a shell loop starts fast), a larger one in chunks (the compiled scanner, which only
    counts when there is no model, or numpy); all accept and refuse the same bodies
    (tests/cnf/test_scan_paths.py).  Memory follows the chunk and the model, not the clause: a clause line of
    any length is read in pieces.  ``stop`` is asked between chunks; when it says True
    the check ends with :class:`CheckStopped`."""
    if small is None and value is None and native.NATIVE is not None:
        small = SMALL_BODY_NATIVE
    elif small is None:
        small = SMALL_BODY if "numpy" not in sys.modules else SMALL_BODY_NUMPY_LOADED
    with open_cnf(source.path, None) as f:
        header = read_header(f, source.name)
        head = f.read(small + 1)
        if len(head) <= small:
            return _check_small(_written_literals(head, header, source.name, warn), value, source.name, warn)
        stream = Prefixed(head, f)
        if value is None:
            clauses, top = body_counts(stream, header, source.name, warn, stop)  # type: ignore[arg-type]
            return StreamCheck(None, clauses, top)
        chunks = literal_chunks(stream, header, source.name, warn, whole=False)  # type: ignore[arg-type]
        return _check_chunks(chunks, value, stop)


def small_literals(body: bytes, header: Header, name: str, warn: Warn = _stderr_warn) -> list[int]:
    """The literals of a whole (small) body, each clause ended by 0: what :func:`literal_chunks` yields."""
    lits = _written_literals(body, header, name, warn)
    if lits and lits[-1] != 0:
        _unended(name, warn)
        lits.append(0)
    return lits


def _written_literals(body: bytes, header: Header, name: str, warn: Warn) -> list[int]:
    """The literals of a whole (small) body as written: the last clause may lack its 0."""
    lits: list[int] = []
    with suppress(EndOfBody):  # the literals before a '%' line are kept
        lits.extend(body_literals(body.splitlines(), name, header.body_line, header.num_vars, warn))
    return lits


def _unended(name: str, warn: Warn) -> None:
    warn(f"{name}: last clause has no terminating 0; taken as ended")


def _check_small(lits: list[int], value: Values | None, name: str, warn: Warn) -> StreamCheck:
    """:func:`check_stream` of a body's literals as written (:func:`_written_literals`), in pure Python.  As in
    the chunks, a model's check ends at the first violated clause: a last clause without its 0 is warned of
    only when the check reaches it."""
    top = max(map(abs, lits), default=0)
    unended = bool(lits) and lits[-1] != 0
    if value is None:
        if unended:
            _unended(name, warn)
        return StreamCheck(None, lits.count(0) + unended, top)
    beyond = len(value) - 1  # the sentinel's index: this variable and any larger one are false
    index = start = 0
    sat = False
    for i, lit in enumerate([*lits, 0] if unended else lits):
        if lit == 0:
            if i == len(lits):  # the 0 the last clause lacks: the check has reached it
                _unended(name, warn)
            if not sat:
                return StreamCheck((index, tuple(lits[start:i])), index + 1, top)
            index, start, sat = index + 1, i + 1, False
        elif not sat:
            var = -lit if lit < 0 else lit
            sat = (var < beyond and value[var] == 1) != (lit < 0)
    return StreamCheck(None, index, top)


def _check_chunks(chunks: Iterable[np.ndarray], value: Values, stop: Callable[[], bool] | None = None) -> StreamCheck:
    """:func:`check_stream` of literal arrays that may end inside a clause, with numpy."""
    import numpy as np

    under_way = _UnderWay(np.frombuffer(value, dtype=np.bool_))
    for lits in chunks:
        if stop is not None and stop():
            raise CheckStopped
        bad = under_way.feed(lits)
        if bad is not None:
            return bad
    return StreamCheck(None, under_way.index, under_way.top)


class _UnderWay:
    """The model check of :func:`_check_chunks`: the clause under way (satisfied yet, its first literals,
    its length), the clauses done and the largest variable."""

    def __init__(self, value: np.ndarray) -> None:
        self.value, self.index, self.top = value, 0, 0
        self.sat, self.shown, self.length = False, list[int](), 0

    def feed(self, lits: np.ndarray) -> StreamCheck | None:
        """Check one array; the first violated clause, when it ends in it."""
        import numpy as np

        if not lits.size:
            return None
        self.top = max(self.top, int(np.abs(lits).max()))
        zeros = np.flatnonzero(lits == 0)
        if not zeros.size:
            self._extend(lits)
            return None
        first, last = int(zeros[0]), int(zeros[-1])
        self._extend(lits[:first])
        if not self.sat:
            cut = None if len(self.shown) == self.length else self.length
            return StreamCheck((self.index, tuple(self.shown)), self.index + 1, self.top, cut)
        self.index += 1
        if last > first:
            bad, clauses, _ = _scan(lits[first + 1 : last + 1], self.value)
            if bad is not None:
                return StreamCheck((self.index + bad[0], bad[1]), self.index + bad[0] + 1, self.top)
            self.index += clauses
        self.sat, self.shown, self.length = False, [], 0
        self._extend(lits[last + 1 :])
        return None

    def _extend(self, part: np.ndarray) -> None:
        import numpy as np

        self.length += int(part.size)
        if self.sat or not part.size:
            return
        var = np.minimum(np.abs(part), self.value.size - 1)  # the last entry: a False sentinel for any beyond
        self.sat = bool((self.value.take(var) ^ (part < 0)).any())
        if not self.sat and len(self.shown) < SHOWN:
            self.shown.extend(part[: SHOWN - len(self.shown)].tolist())


def model_values(model: Sequence[int], num_vars: int) -> tuple[Values | None, str | None]:
    """(1 by true variable with a 0 sentinel, None) or (None, why the model is malformed); a small model in
    pure Python, a large one with numpy."""
    if len(model) > SMALL_MODEL:
        return _model_values_numpy(model, num_vars)
    top = max(map(abs, model), default=0)
    if top > num_vars:
        return None, f"model mentions variable {top}, but the CNF has {num_vars}"
    pos = bytearray(top + 2)
    for lit in model:
        if lit > 0:
            pos[lit] = 1
    clash = min((-lit for lit in model if lit < 0 and pos[-lit]), default=None)
    if clash is not None:
        return None, f"model sets variable {clash} both true and false"
    return pos, None


def _model_values_numpy(model: Sequence[int], num_vars: int) -> tuple[Values | None, str | None]:
    """(bool by variable with a False sentinel, None) or (None, why the model is malformed)."""
    import numpy as np

    lits = np.fromiter(model, dtype=np.int64, count=len(model))
    var = np.abs(lits)
    top = int(var.max()) if var.size else 0
    if top > num_vars:
        return None, f"model mentions variable {top}, but the CNF has {num_vars}"
    pos = np.zeros(top + 2, dtype=bool)
    neg = np.zeros(top + 2, dtype=bool)
    pos[lits[lits > 0]] = True
    neg[-lits[lits < 0]] = True
    clash = np.flatnonzero(pos & neg)
    if clash.size:
        return None, f"model sets variable {int(clash[0])} both true and false"
    return bytearray(pos.tobytes()), None


# --- the chunked reader --------------------------------------------------------------------------------------
# The chunked reader of a DIMACS body: a MB at a time into one buffer, cut at a line end, parsed fast.
#
# The compiled scanner (:mod:`.native`) or, without it, numpy's text reader turns a piece into 64-bit
# integers, or only counts its clauses (:func:`body_counts`: the input check, ``merge``); a piece they
# cannot vouch for (comments, signs standing alone, a token they do not consume, a literal out of range)
# goes through the line-by-line parser of :mod:`.dimacs`, which names the line of any error.  A line
# longer than a chunk (one clause of millions of literals) is cut between tokens and parsed fast too.
# The whole-file reader and the streaming model check (the first sections) build on it; ``stats``, ``merge``
# and the embedded solver's load read through it.

SCAN_CHUNK = 1 << 18  # bytes of text per chunk: its arrays stay in the CPU caches (faster than 4 MB)
NATIVE_CHUNK = 1 << 20  # with the compiled scanner, which builds no temporaries: fewer rounds of Python


class Prefixed:
    """``head`` and then the rest of ``stream``, read in pieces or lines (what :func:`literal_chunks` and
    the solver-output readers read)."""

    def __init__(self, head: bytes, stream: IO[bytes]) -> None:
        self.head, self.at, self.stream = head, 0, stream  # head[at:] is still to be read (no copy a line)

    def read(self, size: int = -1) -> bytes:
        if self.at < len(self.head):
            end = len(self.head) if size < 0 else min(len(self.head), self.at + size)
            piece, self.at = self.head[self.at : end], end
            return piece
        return self.stream.read(size)

    def readinto(self, buffer: memoryview) -> int:
        if self.at < len(self.head):
            n = min(len(buffer), len(self.head) - self.at)
            with memoryview(self.head) as head:
                buffer[:n] = head[self.at : self.at + n]
            self.at += n
            return n
        return int(self.stream.readinto(buffer))  # type: ignore[attr-defined]

    def readline(self, size: int = -1) -> bytes:
        if self.at >= len(self.head):
            return self.stream.readline(size)
        end = self.head.find(b"\n", self.at) + 1 or len(self.head)
        end = end if size < 0 else min(end, self.at + size)
        piece, self.at = self.head[self.at : end], end
        if self.at < len(self.head) or piece.endswith(b"\n") or len(piece) == size:
            return piece
        return piece + self.stream.readline(size - len(piece) if size >= 0 else -1)


def _signs_ok(piece: bytes) -> bool:
    """Every '-' starts a token and is followed by a digit (numpy's reader takes "1-2" as two numbers
    and a lone "-" as 0); anything else it does not consume makes it raise."""
    import numpy as np

    b = np.frombuffer(piece, dtype=np.uint8)
    at = np.flatnonzero(b == 45)
    if not at.size:
        return True
    if at[-1] + 1 >= b.size:
        return False
    after = b[at + 1]
    before = b[np.maximum(at - 1, 0)]
    return bool(np.all((after >= 48) & (after <= 57) & ((at == 0) | (before <= 32))))


def fast_literals(piece: bytes, num_vars: int) -> np.ndarray | None:
    """The literals of ``piece`` when the fast reader gives exactly them, else None (use the slow path): the
    compiled scanner (:mod:`.native`) when there is one, else numpy's reader."""
    import numpy as np

    scanner = native.NATIVE
    if scanner is not None:
        out = np.empty(len(piece) // 2 + 1, np.int64)
        got = scanner.scan_literals(piece, 0, len(piece), num_vars, out)
        return None if got is None else out[: got[0]]
    if b"c" in piece or b"p" in piece or b"%" in piece or b"+" in piece or not _signs_ok(piece):
        return None
    try:
        empty = not piece or piece.isspace()  # isspace stops at the first other byte: O(1) on a body
        arr = np.zeros(0, np.int64) if empty else np.fromstring(piece, dtype=np.int64, sep=" ")
    except ValueError:
        return None
    if arr.size and (int(arr.max()) > num_vars or int(arr.min()) < -num_vars):
        return None  # saturated int64 included: the slow path names the variable exactly
    return arr


Tally = tuple[int, int, int, bool]  # a piece's (literals, zeros, largest variable, last literal is 0)


def _cut(buf: bytearray, have: int, name: str, line: int) -> int:
    """Where the piece ends in ``buf[:have]``: after its last line end, else after the last blank of one long
    line (whole tokens; the rest waits for the next read); 0: nothing whole yet."""
    i = buf.rfind(b"\n", 0, have)
    if i >= 0:
        return i + 1
    j = max(buf.rfind(b, 0, have) for b in (b" ", b"\t", b"\r", b"\v", b"\f"))
    if j >= 0:
        return j + 1
    if have > MAX_TOKEN:
        raise DimacsError(f"{name}:{line}: {have} bytes without a space or line end: not DIMACS")
    return 0


def _read_into(stream: IO[bytes], buf: bytearray, at: int, size: int) -> int:
    """Read up to ``size`` bytes into ``buf[at:]`` (which has room); the count, 0 at the end."""
    readinto = getattr(stream, "readinto", None)
    if readinto is None:
        data = stream.read(size)
        buf[at : at + len(data)] = data
        return len(data)
    with memoryview(buf) as view, view[at : at + size] as part:
        return int(readinto(part))


def pieces(
    stream: IO[bytes],
    header: Header,
    name: str,
    warn: Warn = _stderr_warn,
    chunk: int | None = None,
    count: bool = False,
) -> Iterator[np.ndarray | Tally]:
    """The body's literals piece by piece (whole lines, or whole tokens of a line longer than a chunk): int64
    arrays, or with ``count`` only each piece's :data:`Tally` (no array is built: with the compiled scanner,
    numpy is not even imported).  Every literal is checked against the header either way."""
    scanner = native.NATIVE
    chunk = chunk or (NATIVE_CHUNK if scanner is not None else SCAN_CHUNK)
    num_vars, line = header.num_vars, header.body_line
    buf, have = bytearray(2 * chunk), 0  # buf[:have]: read and not parsed yet
    line_start, in_comment, at_end = True, False, False
    top = 0  # the largest variable so far (the compiled scanner goes faster once it is the header's)
    while not at_end:
        if len(buf) - have < chunk:  # a line longer than the buffer: room for its next chunk
            buf.extend(bytes(chunk))
        got = _read_into(stream, buf, have, chunk)
        at_end, have = not got, have + got
        cut = have if at_end else _cut(buf, have, name, line)
        if not cut:
            continue
        parsed, newlines, piece = None, 0, b""
        # a piece that goes on with a clause line begun in the last one is parsed fast too; the rest of a long
        # comment line is not
        if not (not line_start and in_comment):
            parsed, newlines, piece = _fast(scanner, buf, cut, num_vars, count, top)
        if parsed is None:
            piece = piece or bytes(buf[:cut])
            newlines = piece.count(b"\n")
            parsed, at_end = _slow(_lines_of(piece, line_start, in_comment), name, line, num_vars, warn, count)
            if line_start:  # matters only when the piece is one unfinished line
                in_comment = piece.lstrip()[:1] == b"c"
        elif line_start:
            in_comment = False  # the fast readers refuse a 'c'
        if count:
            top = max(top, parsed[2])
        line += newlines
        line_start = buf[cut - 1] == 10
        buf[: have - cut] = buf[cut:have]
        have -= cut
        yield parsed


def _fast(
    scanner: ModuleType | None, buf: bytearray, cut: int, num_vars: int, count: bool, top: int
) -> tuple[np.ndarray | Tally | None, int, bytes]:
    """(the piece ``buf[:cut]`` read by the compiled scanner or numpy, or None for the slow path; its line
    ends; the piece as bytes when it was copied)."""
    if scanner is not None and count:
        got = scanner.scan_count(buf, 0, cut, num_vars, top)
        return (None, 0, b"") if got is None else ((got[0], got[1], got[2], got[4]), got[3], b"")
    if scanner is not None:
        import numpy as np

        out = np.empty(cut // 2 + 1, np.int64)
        read = scanner.scan_literals(buf, 0, cut, num_vars, out)
        return (None, 0, b"") if read is None else (out[: read[0]], read[1], b"")
    piece = bytes(buf[:cut])
    arr = fast_literals(piece, num_vars)
    if arr is None:
        return None, 0, piece
    return (_tally(arr) if count else arr), piece.count(b"\n"), piece


def _tally(arr: np.ndarray) -> Tally:
    if not arr.size:
        return 0, 0, 0, False
    return int(arr.size), int((arr == 0).sum()), int(abs(arr).max()), bool(arr[-1] == 0)


def _lines_of(piece: bytes, line_start: bool, in_comment: bool) -> tuple[bytes, bool]:
    """(what of ``piece`` the parser reads, whether it goes on with a clause line begun before it): the rest of a
    long comment line is left out."""
    if not line_start and in_comment:
        nl = piece.find(b"\n")
        return (b"" if nl < 0 else piece[nl + 1 :]), False
    return piece, not line_start


def _slow(
    lines: tuple[bytes, bool], name: str, line: int, num_vars: int, warn: Warn, count: bool
) -> tuple[np.ndarray | Tally, bool]:
    """(the piece read line by line by the parser of :mod:`.dimacs`, which names the line of an error; whether
    a '%' line ended the body).  ``lines``: the piece and whether it goes on with a clause line (:func:`_lines_of`)."""
    text, continued = lines
    lits: list[int] = []
    ended = False
    try:
        lits.extend(body_literals(text.splitlines(), name, line, num_vars, warn, continued))
    except EndOfBody:
        ended = True
    if count:
        return (len(lits), lits.count(0), max(map(abs, lits), default=0), bool(lits) and lits[-1] == 0), ended
    import numpy as np

    return np.array(lits, dtype=np.int64), ended


def body_counts(
    stream: IO[bytes],
    header: Header,
    name: str,
    warn: Warn = _stderr_warn,
    stop: Callable[[], bool] | None = None,
    chunk: int | None = None,
) -> tuple[int, int]:
    """(clauses, largest variable) of the body, every literal checked against the header, in bounded memory;
    ``stop`` is asked between pieces (:class:`CheckStopped` when it says True)."""
    clauses = top = 0
    open_clause = False
    for lits, zeros, big, last_zero in pieces(stream, header, name, warn, chunk, count=True):
        if stop is not None and stop():
            raise CheckStopped
        clauses, top = clauses + zeros, max(top, big)
        if lits:
            open_clause = not last_zero
    if open_clause:
        _unended(name, warn)
        clauses += 1
    return clauses, top


class CheckStopped(Exception):
    """The caller's ``stop()`` said to end a check before the end of the file (its deadline passed, or the
    solver it runs beside answered)."""


def literal_chunks(
    stream: IO[bytes],
    header: Header,
    name: str,
    warn: Warn = _stderr_warn,
    chunk: int | None = None,
    whole: bool = True,
) -> Iterator[np.ndarray]:
    """int64 arrays of the body's literals (the stream is at the body), each ending with a clause's 0; with
    ``whole=False`` as they are read, so a clause longer than a chunk comes in pieces (memory follows the
    chunk, not the clause), the last piece ending with its 0."""
    import numpy as np

    carry: list[np.ndarray] = []  # the pieces of the clause under way (whole=True)
    open_clause = False
    for arr in pieces(stream, header, name, warn, chunk):
        assert isinstance(arr, np.ndarray)
        if not arr.size:
            continue
        open_clause = arr[-1] != 0
        if not whole:
            yield arr
        elif open_clause and not (arr == 0).any():
            carry.append(arr)
        else:
            end = int(np.flatnonzero(arr == 0)[-1]) + 1
            yield np.concatenate((*carry, arr[:end])) if carry else arr[:end]
            carry = [arr[end:]] if end < arr.size else []
    if open_clause:
        _unended(name, warn)
        yield np.concatenate((*carry, np.zeros(1, np.int64)))
