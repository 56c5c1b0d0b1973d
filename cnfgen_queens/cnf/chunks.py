"""The chunked reader of a DIMACS body: a few MB at a time, cut at a line end, parsed by numpy.

numpy's text reader turns a chunk into 64-bit integers; a chunk it cannot vouch for (comments, signs
standing alone, a token it does not consume, a literal out of range) goes through the line-by-line
parser of :mod:`.dimacs`, which names the line of any error.  A line longer than a chunk (one clause
of millions of literals) is cut between tokens and parsed fast too.  :mod:`.scan` builds the whole-file
reader and the streaming model check on it; ``stats``, ``merge`` and the embedded solver's load read
through it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

from cnfgen_queens.bounds import MAX_TOKEN
from cnfgen_queens.cnf.dimacs import DimacsError, EndOfBody, Header, Warn, _stderr_warn, body_literals

SCAN_CHUNK = 1 << 18  # bytes of text per chunk: its arrays stay in the CPU caches (faster than 4 MB)


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
    """The literals of ``piece`` when numpy's reader gives exactly them, else None (use the slow path)."""
    import numpy as np

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


def _cut(data: bytes, name: str, line: int) -> tuple[bytes, bytes]:
    """(whole lines, or whole tokens of one long line; the rest for the next read)."""
    i = data.rfind(b"\n")
    if i >= 0:
        return data[: i + 1], data[i + 1 :]
    j = max(data.rfind(b) for b in (b" ", b"\t", b"\r", b"\v", b"\f"))
    if j >= 0:
        return data[: j + 1], data[j + 1 :]
    if len(data) > MAX_TOKEN:
        raise DimacsError(f"{name}:{line}: {len(data)} bytes without a space or line end: not DIMACS")
    return b"", data


def literal_chunks(
    stream: IO[bytes], header: Header, name: str, warn: Warn = _stderr_warn, chunk: int | None = None,
    whole: bool = True,
) -> Iterator[np.ndarray]:  # fmt: skip
    """int64 arrays of the body's literals (the stream is at the body), each ending with a clause's 0; with
    ``whole=False`` as they are read, so a clause longer than a chunk comes in pieces (memory follows the
    chunk, not the clause), the last piece ending with its 0."""
    import numpy as np

    chunk = chunk or SCAN_CHUNK
    num_vars, line = header.num_vars, header.body_line
    carry: list[np.ndarray] = []  # the pieces of the clause under way (whole=True)
    rest = b""
    line_start, in_comment, ended, open_clause = True, False, False, False
    while not ended:
        data = stream.read(chunk)
        at_end = not data
        piece, rest = (rest + data, b"") if at_end else _cut(rest + data, name, line)
        if not piece:
            if at_end:
                break
            continue
        # a piece that goes on with a clause line begun in the last one is parsed fast too; the rest of a long
        # comment line is not
        arr = None if not line_start and in_comment else fast_literals(piece, num_vars)
        if arr is None:
            text = piece
            if not line_start and in_comment:  # the rest of a long comment line
                nl = text.find(b"\n")
                text = b"" if nl < 0 else text[nl + 1 :]
            continued = not line_start and not in_comment
            lits: list[int] = []
            try:
                lits.extend(body_literals(text.splitlines(), name, line, num_vars, warn, continued))
            except EndOfBody:
                ended = True
            arr = np.array(lits, dtype=np.int64)
        if line_start:  # matters only when the piece is one unfinished line
            in_comment = piece.lstrip()[:1] == b"c"
        line += piece.count(b"\n")
        line_start = piece.endswith(b"\n")
        if arr.size:
            open_clause = arr[-1] != 0
            if not whole:
                yield arr
            elif open_clause and not (arr == 0).any():
                carry.append(arr)
            else:
                end = int(np.flatnonzero(arr == 0)[-1]) + 1
                yield np.concatenate((*carry, arr[:end])) if carry else arr[:end]
                carry = [arr[end:]] if end < arr.size else []
        if at_end:
            break
    if open_clause:
        warn(f"{name}: last clause has no terminating 0; taken as ended")
        yield np.concatenate((*carry, np.zeros(1, np.int64)))
