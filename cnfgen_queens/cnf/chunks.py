"""The chunked reader of a DIMACS body: a MB at a time into one buffer, cut at a line end, parsed fast.

The compiled scanner (:mod:`.native`) or, without it, numpy's text reader turns a piece into 64-bit
integers, or only counts its clauses (:func:`body_counts`: the input check, ``merge``); a piece they
cannot vouch for (comments, signs standing alone, a token they do not consume, a literal out of range)
goes through the line-by-line parser of :mod:`.dimacs`, which names the line of any error.  A line
longer than a chunk (one clause of millions of literals) is cut between tokens and parsed fast too.
:mod:`.scan` builds the whole-file reader and the streaming model check on it; ``stats``, ``merge``
and the embedded solver's load read through it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cnfgen_queens.bounds import MAX_TOKEN
from cnfgen_queens.cnf import native
from cnfgen_queens.cnf.dimacs import DimacsError, EndOfBody, Header, Warn, _stderr_warn, body_literals

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from types import ModuleType
    from typing import IO

    import numpy as np

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
    stream: IO[bytes], header: Header, name: str, warn: Warn = _stderr_warn, chunk: int | None = None,
    count: bool = False,
) -> Iterator[np.ndarray | Tally]:  # fmt: skip
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
    stream: IO[bytes], header: Header, name: str, warn: Warn = _stderr_warn, stop: Callable[[], bool] | None = None,
    chunk: int | None = None,
) -> tuple[int, int]:  # fmt: skip
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
        warn(f"{name}: last clause has no terminating 0; taken as ended")
        clauses += 1
    return clauses, top


class CheckStopped(Exception):
    """The caller's ``stop()`` said to end a check before the end of the file (its deadline passed, or the
    solver it runs beside answered)."""


def literal_chunks(
    stream: IO[bytes], header: Header, name: str, warn: Warn = _stderr_warn, chunk: int | None = None,
    whole: bool = True,
) -> Iterator[np.ndarray]:  # fmt: skip
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
        warn(f"{name}: last clause has no terminating 0; taken as ended")
        yield np.concatenate((*carry, np.zeros(1, np.int64)))
