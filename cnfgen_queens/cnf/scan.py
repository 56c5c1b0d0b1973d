"""Vectorised reading of a DIMACS body in chunks: the whole-file reader and the streaming model check.

The body is read in chunks by :func:`.chunks.literal_chunks` (numpy's text reader, the
line-by-line parser of :mod:`.dimacs` for what it cannot vouch for).  Memory follows the
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
    import numpy as np

from cnfgen_queens.cnf import native
from cnfgen_queens.cnf.chunks import SCAN_CHUNK, CheckStopped, Prefixed, body_counts, literal_chunks
from cnfgen_queens.cnf.dimacs import (
    Clause,
    EndOfBody,
    Header,
    Warn,
    _stderr_warn,
    body_literals,
    n_clauses,
    open_cnf,
    read_header,
)

__all__ = ["SCAN_CHUNK", "CheckStopped", "Prefixed", "literal_chunks"]  # read here by stats, merge, the solvers

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
    source: CnfFile, value: Values | None, warn: Warn = _stderr_warn, small: int | None = None,
    stop: Callable[[], bool] | None = None,
) -> StreamCheck:  # fmt: skip
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
            return _check_small(small_literals(head, header, source.name, warn), value)
        stream = Prefixed(head, f)
        if value is None:
            clauses, top = body_counts(stream, header, source.name, warn, stop)  # type: ignore[arg-type]
            return StreamCheck(None, clauses, top)
        chunks = literal_chunks(stream, header, source.name, warn, whole=False)  # type: ignore[arg-type]
        return _check_chunks(chunks, value, stop)


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
