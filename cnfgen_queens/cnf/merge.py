"""Merging: a CNF with the clauses of blocks files appended and its header count corrected.

``merge`` and ``gen-queens --block`` read blocks files (bare clause lines, or a DIMACS file whose
header is dropped) through the same bounded readers as ``solve`` (a body of up to 4 MiB line by
line, a larger one by :func:`.scan.literal_chunks`: the compiled scanner, or numpy; the base's clauses
are only counted, by the compiled scanner when there is one): memory follows the literals read,
a line without a blank past :data:`cnfgen_queens.bounds.MAX_TOKEN` is refused, and every literal
of the blocks and of the base is checked against the base's header, so no solver is ever handed
a literal its header does not declare.

Blocks files are in unshuffled names (``cnfgen-queens block`` prints the primary cell variables
x(r,c) = r*N+c+1): into a base whose header records a shuffle, ``merge`` renames them with that
shuffle, as ``gen-queens --shuffle --block`` shuffles them with the formula.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, BinaryIO

from ..bounds import MAX_LINE
from . import native
from .compressed import open_input
from .dimacs import (
    Clause,
    DimacsError,
    Header,
    Warn,
    _parse_p_line,
    _stderr_warn,
    iter_body,
    n_clauses,
    open_body,
    open_cnf,
    read_header_file,
    write_clauses,
    write_header,
)
from .scan import Prefixed, body_counts, literal_chunks
from .shuffle import header_shuffle_map, rename

SMALL_BODY = 1 << 22  # a body up to this size is parsed line by line, without numpy (merge starts fast)


def merge(base: Path, blocks: Iterable[Path], out: BinaryIO, warn: Warn = _stderr_warn) -> int:
    """Copy ``base`` with the clauses of the ``blocks`` files appended and the count corrected.

    A blocks file is bare clause lines or a full DIMACS file (its header is checked
    and dropped).  Every literal, of the base and of the blocks, must be within the
    base's variables.  The blocks are in unshuffled names: a shuffled base's header
    renames them (ShuffleError for an unreadable shuffle comment).  Returns the total
    clause count.
    """
    header = read_header_file(base)
    forward = header_shuffle_map(header)
    extra: list[Clause] = []
    for path in blocks:
        extra.extend(read_blocks(path, header.num_vars, warn))
    if forward is not None:
        extra = [rename(clause, forward) for clause in extra]
    return merge_clauses(base, extra, out, header)


def count_body_clauses(base: Path, header: Header, warn: Warn = _stderr_warn) -> int:
    """Clauses in the body of ``base``, every literal checked against the header (DimacsError): counted by the
    compiled scanner (:func:`.scan.body_counts`), or without it line by line when small."""
    name = str(base)
    with open_body(base, header) as f:
        data = f.read(SMALL_BODY + 1)
        if native.NATIVE is None and len(data) <= SMALL_BODY:
            count = sum(1 for _ in iter_body(data.splitlines(), name, header.body_line, header.num_vars, warn))
        else:
            count = body_counts(Prefixed(data, f), header, name, warn)[0]  # type: ignore[arg-type]
    if count != header.num_clauses:
        warn(f"{base}: header says {n_clauses(header.num_clauses)}, file has {count}; the merged header says {count}")
    return count


def merge_clauses(base: Path, extra: list[Clause], out: BinaryIO, header: Header | None = None) -> int:
    """Copy ``base`` (its body as bytes, after a check of every literal) with ``extra`` appended; returns
    the clause count."""
    header = header or read_header_file(base)
    total = count_body_clauses(base, header) + len(extra)
    if header.p_offset or not header.comments:  # the comment lines as they are (read_header cuts long ones)
        with open_cnf(base, None) as f:
            left = header.p_offset
            while left > 0 and (chunk := f.read(min(left, 1 << 20))):
                out.write(chunk)
                left -= len(chunk)
        write_header(out, header.num_vars, total)
    else:
        write_header(out, header.num_vars, total, header.comments)
    with open_body(base, header) as f:
        last = b"\n"
        while chunk := f.read(1 << 20):
            out.write(chunk)
            last = chunk[-1:]
        if last != b"\n":
            out.write(b"\n")
    write_clauses(out, extra)
    return total


def _past_header(f: IO[bytes], name: str) -> tuple[int, bytes]:
    """Skip the comment lines and an optional ``p cnf`` line: (the next line's number, bytes read past them).

    Lines are read at most :data:`cnfgen_queens.bounds.MAX_LINE` bytes at a time; a longer comment is skipped in pieces.
    """
    line = 1
    while raw := f.readline(MAX_LINE):
        s = raw.strip()
        if s[:1] == b"c":
            while not raw.endswith(b"\n") and (raw := f.readline(MAX_LINE)):
                pass
        elif s[:1] == b"p":
            if not raw.endswith(b"\n") and f.read(1):
                raise DimacsError(f"{name}:{line}: a header line longer than {MAX_LINE} bytes")
            _parse_p_line(s.decode(errors="replace"), f"{name}:{line}")
            return line + 1, b""
        elif s or not raw.endswith(b"\n"):
            return line, raw  # a clause line (or the start of a long blank one): the body starts here
        line += 1
    return line, b""


def read_blocks(path: Path, num_vars: int, warn: Warn = _stderr_warn) -> list[Clause]:
    """Clauses of a blocks file: bare clause lines, or a DIMACS file whose header is dropped."""
    name = str(path)
    raw = sys.stdin.buffer if name == "-" else None
    name = "<stdin>" if raw is not None else name
    f = open_input(name, warn, DimacsError, raw=raw)
    try:
        first, head = _past_header(f, name)
        return list(_clauses(f, head, Header(num_vars, 0, body_line=first), name, warn))
    finally:
        if raw is None:
            f.close()


def _clauses(f: IO[bytes], head: bytes, header: Header, name: str, warn: Warn) -> Iterator[Clause]:
    """The clauses of ``head`` and the rest of ``f``, every literal checked against the header: a small
    body line by line, a larger one by :func:`.scan.literal_chunks` (memory follows its chunks)."""
    data = head + f.read(SMALL_BODY + 1)
    if len(data) <= SMALL_BODY + len(head):
        yield from iter_body(data.splitlines(), name, header.body_line, header.num_vars, warn)
        return
    import numpy as np

    for lits in literal_chunks(Prefixed(data, f), header, name, warn):  # type: ignore[arg-type]
        flat = lits.tolist()
        start = 0
        for end in np.flatnonzero(lits == 0).tolist():
            yield tuple(flat[start:end])
            start = end + 1
