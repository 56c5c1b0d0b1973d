"""Vectorised reading of a DIMACS body in chunks: the whole-file reader and the streaming model check.

The body is read a few MB at a time, cut at a line end, and parsed by numpy's text
reader into 64-bit integers; a chunk it cannot vouch for (comments, signs standing
alone, a token it does not consume, a literal out of range) goes through the
line-by-line parser of :mod:`.dimacs`, which names the line of any error.  Memory
follows the chunk and the model, never the header's variable count, so a model is
checked against a file of any size in bounded memory.  A small body (:data:`SMALL_BODY`) is checked
in pure Python instead, with the same verdicts: importing numpy would cost more than the check.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

from cnfgen_queens.bounds import MAX_TOKEN
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

SCAN_CHUNK = 1 << 18  # bytes of text per chunk: its arrays stay in the CPU caches (faster than 4 MB)
# a body up to this is checked in pure Python: importing numpy costs more (the N = 40 pairwise CNF, 1.3 MB,
# takes about as long either way, numpy's import included: scripts/bench_solve_loop.py --threshold)
SMALL_BODY = 1 << 20
SMALL_BODY_NUMPY_LOADED = 1 << 14  # once numpy is imported anyway, only a tiny body is faster without it
SMALL_MODEL = 1 << 16  # a model of up to this many literals is read in pure Python, a larger one with numpy
Values = bytearray  # a model: 1 at the index of each true variable, the last entry a 0 sentinel for any beyond


class Prefixed:
    """``head`` and then the rest of ``stream``, read in pieces (what :func:`literal_chunks` reads)."""

    def __init__(self, head: bytes, stream: IO[bytes]) -> None:
        self.head, self.stream = head, stream

    def read(self, size: int = -1) -> bytes:
        if self.head:
            piece, self.head = (self.head, b"") if size < 0 else (self.head[:size], self.head[size:])
            return piece
        return self.stream.read(size)


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


def _fast(piece: bytes, num_vars: int) -> np.ndarray | None:
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
    stream: IO[bytes], header: Header, name: str, warn: Warn = _stderr_warn, chunk: int | None = None
) -> Iterator[np.ndarray]:
    """int64 arrays of the body's literals, each ending with a clause's 0 (the stream is at the body)."""
    import numpy as np

    chunk = chunk or SCAN_CHUNK
    num_vars, line = header.num_vars, header.body_line
    carry = np.zeros(0, np.int64)
    rest = b""
    line_start, in_comment, ended = True, False, False
    while not ended:
        data = stream.read(chunk)
        at_end = not data
        piece, rest = (rest + data, b"") if at_end else _cut(rest + data, name, line)
        if not piece:
            if at_end:
                break
            continue
        arr = None if not line_start else _fast(piece, num_vars)
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
        if carry.size:
            arr = np.concatenate((carry, arr))
        zeros = np.flatnonzero(arr == 0)
        if zeros.size:
            end = int(zeros[-1]) + 1
            carry = arr[end:]
            yield arr[:end]
        else:
            carry = arr
        if at_end:
            break
    if carry.size:
        warn(f"{name}: last clause has no terminating 0; taken as ended")
        yield np.concatenate((carry, np.zeros(1, np.int64)))


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
    largest variable they mention."""

    violated: tuple[int, Clause] | None
    clauses: int
    max_var: int


def check_stream(
    source: CnfFile, value: Values | None, warn: Warn = _stderr_warn, small: int | None = None
) -> StreamCheck:
    """Check the model ``value`` clause by clause; with None, only read the whole body (DimacsError for
    anything that is not DIMACS).  A body of up to ``small`` bytes is read in pure Python (no numpy to
    import: a solve in a shell loop starts fast), a larger one in numpy chunks; both accept and refuse
    the same bodies (tests/test_scan_paths.py)."""
    if small is None:
        small = SMALL_BODY if "numpy" not in sys.modules else SMALL_BODY_NUMPY_LOADED
    with open_cnf(source.path, None) as f:
        header = read_header(f, source.name)
        head = f.read(small + 1)
        if len(head) <= small:
            return _check_small(small_literals(head, header, source.name, warn), value)
        return _check_chunks(literal_chunks(Prefixed(head, f), header, source.name, warn), value)  # type: ignore[arg-type]


def small_literals(body: bytes, header: Header, name: str, warn: Warn = _stderr_warn) -> list[int]:
    """The literals of a whole (small) body, each clause ended by 0: what :func:`literal_chunks` yields."""
    lits: list[int] = []
    with suppress(EndOfBody):  # the literals before a '%' line are kept
        lits.extend(body_literals(body.splitlines(), name, header.body_line, header.num_vars, warn))
    if lits and lits[-1] != 0:
        warn(f"{name}: last clause has no terminating 0; taken as ended")
        lits.append(0)
    return lits


def _check_small(lits: list[int], value: Values | None) -> StreamCheck:
    """:func:`check_stream` of a literal list, in pure Python."""
    top = max(map(abs, lits), default=0)
    if value is None:
        return StreamCheck(None, lits.count(0), top)
    beyond = len(value) - 1  # the sentinel's index: this variable and any larger one are false
    index = start = 0
    sat = False
    for i, lit in enumerate(lits):
        if lit == 0:
            if not sat:
                return StreamCheck((index, tuple(lits[start:i])), index + 1, top)
            index, start, sat = index + 1, i + 1, False
        elif not sat:
            var = -lit if lit < 0 else lit
            sat = (var < beyond and value[var] == 1) != (lit < 0)
    return StreamCheck(None, index, top)


def _check_chunks(chunks: Iterable[np.ndarray], value: Values | None) -> StreamCheck:
    """:func:`check_stream` of 0-terminated literal arrays, with numpy."""
    import numpy as np

    array = None if value is None else np.frombuffer(value, dtype=np.bool_)
    index = top = 0
    for lits in chunks:
        if array is None:
            top = max(top, int(np.abs(lits).max()))
            index += int(np.count_nonzero(lits == 0))
            continue
        bad, clauses, most = _scan(lits, array)
        top = max(top, most)
        if bad is not None:
            return StreamCheck((index + bad[0], bad[1]), index + bad[0] + 1, top)
        index += clauses
    return StreamCheck(None, index, top)


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
