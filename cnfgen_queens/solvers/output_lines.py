"""A solver's output as the parser reads it: line after line, in pieces of at most so many bytes, with the
whole blank and comment lines between them skipped in bulk, and a ``stop`` asked before each megabyte.

A solver may answer at once and then print hundreds of megabytes of blank or comment lines: read a line at
a time in Python, 300 MB of blank lines took 176 s, past any time limit.  Here they are skipped at the
disk's speed, and the caller's ``stop`` (the run's deadline) ends the reading of anything else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cnfgen_queens.cnf.scan import CheckStopped

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import BinaryIO

READ_CHUNK = 1 << 20  # bytes read from the output at a time; ``stop`` is asked before each
SKIP_IN_PYTHON = 64  # comment lines skipped one by one before numpy skips the following ones
BLANKS = b" \t\n\r\f\v"  # what bytes.lstrip() strips, and the parser before a line's first word


def output_lines(
    stream: BinaryIO, piece: int, at_line_start: Callable[[], bool], stop: Callable[[], bool] | None = None
) -> Iterator[bytes]:
    """What ``stream.readline(piece)`` would return, line after line, less the whole blank and comment lines
    that come where ``at_line_start()`` says a line starts (the parser would skip them); CheckStopped once
    ``stop()`` says so (asked before each read)."""
    buf, pos, end = b"", 0, False
    while True:
        if at_line_start():
            pos = _skipped(buf, pos)
        newline = buf.find(b"\n", pos, pos + piece)
        if newline >= 0:
            yield buf[pos : newline + 1]
            pos = newline + 1
        elif len(buf) - pos >= piece or (end and pos < len(buf)):
            yield buf[pos : pos + piece]
            pos = min(len(buf), pos + piece)
        elif end:
            return
        else:
            if stop is not None and stop():
                raise CheckStopped
            data = stream.read(READ_CHUNK)
            buf, pos, end = buf[pos:] + data, 0, not data


def _blanks(buf: bytes, pos: int) -> int:
    """Where the blanks from ``pos`` end (looked at in windows that double: the cost follows what is skipped)."""
    window = 256
    while True:
        part = buf[pos : pos + window]
        rest = part.lstrip(BLANKS)
        pos += len(part) - len(rest)
        if rest or len(part) < window:
            return pos
        window *= 2


def _skipped(buf: bytes, pos: int) -> int:
    """Where the first line at or after ``pos`` (a line's start) begins that is neither blank nor a comment
    (``c`` and a blank), or the incomplete line at the end of ``buf``.  Blanks are skipped by ``lstrip``, a
    few comment lines in Python, further ones with numpy (in windows that double while they hold nothing
    else).  What is skipped here is what the parser would skip (a line's leading blanks too)."""
    for _ in range(SKIP_IN_PYTHON):
        pos = _blanks(buf, pos)
        if buf[pos : pos + 1] != b"c" or buf[pos + 1 : pos + 2] not in (b" ", b"\t", b"\n"):
            return pos
        end = buf.find(b"\n", pos)
        if end < 0:
            return pos
        pos = end + 1
    import numpy as np  # only for an output of more than SKIP_IN_PYTHON comment lines: not at start-up

    window = 1 << 12
    while pos < len(buf):
        a = np.frombuffer(buf, np.uint8, count=min(window, len(buf) - pos), offset=pos)
        ends = np.flatnonzero(a == 10)
        if not ends.size:
            return pos
        starts = np.empty_like(ends)
        starts[0], starts[1:] = 0, ends[:-1] + 1
        first, second = a[starts], a[np.minimum(starts + 1, a.size - 1)]
        boring = (first == 10) | ((first == 99) & ((second == 32) | (second == 9) | (second == 10)))
        other = np.flatnonzero(~boring)
        if other.size:
            return pos + int(starts[other[0]])
        pos, window = pos + int(ends[-1]) + 1, window * 2
    return pos
