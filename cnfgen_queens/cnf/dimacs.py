"""DIMACS CNF: the header and clause lines written, the strict header reader, the body parser.

Files may be compressed (:mod:`.compressed`); literals are read as Python ints and
checked against the header and 2^31-1, so nothing is silently cut to 32 bits.  The
vectorised whole-file and streaming readers live in :mod:`.dimacs_scan`.

Strict about what it writes (exact ``p cnf V C``, one clause a line ending in
`` 0``), forgiving but never silent about what it reads: problems that still allow
a faithful reading are reported as warnings, the rest raise :class:`DimacsError`
with the line number.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cnfgen_queens.bounds import MAX_LINE
from cnfgen_queens.errors import InputError, printable, warn

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from pathlib import Path
    from typing import IO, BinaryIO

Warn = Callable[[str], None]

Clause = tuple[int, ...]
CHUNK = 1 << 16
MAX_VAR = 2**31 - 1  # the largest variable DIMACS solvers accept (signed 32-bit literals)


def n_clauses(k: int) -> str:
    """``1 clause``, ``3 clauses``."""
    return f"{k} clause" if k == 1 else f"{k} clauses"


def clause_line(clause: Iterable[int]) -> str:
    return " ".join(map(str, clause)) + " 0\n"


def write_header(
    out: BinaryIO, num_vars: int, num_clauses: int, comments: Iterable[str] = (), show: int | None = None
) -> None:
    """Comment lines, then (``show``) the projection line ``c p show 1 ... show 0`` streamed in
    pieces, then ``p cnf V C``."""
    out.write("".join(f"c {printable(c)}\n" if c else "c\n" for c in comments).encode())  # one line each
    if show is not None:
        out.write(b"c p show")
        for lo in range(1, show + 1, CHUNK * 4):
            out.write((" " + " ".join(map(str, range(lo, min(show + 1, lo + CHUNK * 4))))).encode())
        out.write(b" 0\n")
    out.write(f"p cnf {num_vars} {num_clauses}\n".encode())


def write_clauses(out: BinaryIO, clauses: Iterable[Clause]) -> int:
    """Write clauses in chunks; returns how many were written."""
    count = 0
    buf: list[str] = []
    for clause in clauses:
        buf.append(" ".join(map(str, clause)))
        if len(buf) >= CHUNK:
            out.write((" 0\n".join(buf) + " 0\n").encode())
            count += len(buf)
            buf.clear()
    if buf:
        out.write((" 0\n".join(buf) + " 0\n").encode())
        count += len(buf)
    return count


class DimacsError(InputError):
    """A file that is not DIMACS CNF; the message names the file and line."""


class VariableBeyond(DimacsError):
    """A literal whose variable exceeds the bound it is read against (``where`` is ``file:line``)."""

    def __init__(self, where: str, literal: int, bound: int) -> None:
        super().__init__(f"{where}: variable {abs(literal)} exceeds the header's {bound}")
        self.where, self.literal, self.bound = where, literal, bound

    def __reduce__(self) -> tuple[type, tuple[str, int, int]]:  # picklable across processes, like its base
        return VariableBeyond, (self.where, self.literal, self.bound)


def _stderr_warn(msg: str) -> None:
    warn(msg)


# -- reading --------------------------------------------------------------------


@dataclass(frozen=True)
class Header:
    """The comment lines and ``p cnf`` line of a DIMACS file."""

    num_vars: int
    num_clauses: int
    comments: tuple[str, ...] = ()
    body_offset: int = 0  # byte offset just after the p line (in the decompressed bytes)
    body_line: int = 1  # line number of the first body line
    p_offset: int = 0  # byte offset of the p line: the comment lines are the bytes before it

    def comment_value(self, key: str) -> str | None:
        """The rest of the first comment line ``key ...`` (``key`` without ``c``)."""
        for c in self.comments:
            if c.startswith(key):
                return c[len(key) :].strip()
        return None

    def board_size(self) -> int | None:
        """N from our header: the ``n=N`` description (what ``n=(\\d+)\\s`` matches, without re: decode's
        start-up does not load it), else the length of ``p show``; None without either."""
        for c in self.comments:
            digits = c[2:].split(maxsplit=1)[0] if c.startswith("n=") and c[2:3].isdecimal() else ""
            if digits.isdecimal() and (c + " ")[2 + len(digits)].isspace():
                return int(digits)
        show = self.comment_value("p show")
        if show:
            k = len(show.split()) - 1
            n = math.isqrt(k)
            if n * n == k and n > 0:
                return n
        return None


def _shown(text: str | bytes) -> str:
    """A piece of input fit for a one-line message: printable, at most 60 characters."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    text = "".join(ch if ch.isprintable() else "?" for ch in text.strip())
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _parse_p_line(text: str, where: str) -> tuple[int, int]:
    parts = text.split()
    if len(parts) != 4 or parts[0] != "p" or parts[1] != "cnf":
        raise DimacsError(f"{where}: expected 'p cnf VARIABLES CLAUSES', got {_shown(text)}")
    try:
        v, c = int(parts[2]), int(parts[3])
    except ValueError:
        raise DimacsError(f"{where}: non-integer counts in {_shown(text)}") from None
    if v < 0 or c < 0:
        raise DimacsError(f"{where}: negative counts in {_shown(text)}")
    if v > MAX_VAR:
        raise DimacsError(f"{where}: {v} variables, above the DIMACS limit of 2^31-1 = {MAX_VAR}")
    return v, c


def _binary(raw: bytes) -> bool:
    return b"\0" in raw or (not raw.isascii() and _not_utf8(raw))


def _not_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def read_header(stream: IO[bytes], name: str = "<input>") -> Header:
    """Read comments and the ``p cnf`` line; the stream is left at the first body byte.

    A line is read in pieces of at most MAX_LINE bytes, so a file without line ends
    never sits whole in memory; an over-long comment is kept cut short.
    """
    comments: list[str] = []
    offset = 0
    lineno = 0
    while raw := stream.readline(MAX_LINE):
        lineno += 1
        offset += len(raw)
        if _binary(raw):
            raise DimacsError(f"{name}:{lineno}: binary data, not DIMACS text")
        long = not raw.endswith(b"\n")
        while long and (rest := stream.readline(MAX_LINE)):  # skip the rest of an over-long line
            offset += len(rest)
            long = not rest.endswith(b"\n")
            if not raw.lstrip()[:1] == b"c":
                raise DimacsError(f"{name}:{lineno}: a header line longer than {MAX_LINE} bytes: {_shown(raw)}")
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("c"):
            comments.append(stripped[1:].strip())
            continue
        v, c = _parse_p_line(stripped, f"{name}:{lineno}")
        return Header(v, c, tuple(comments), offset, lineno + 1, offset - len(raw))
    raise DimacsError(f"{name}: no 'p cnf' header line")


def open_cnf(path: Path | str, warn: Warn | None = _stderr_warn) -> BinaryIO:
    """A reader of the (decompressed) bytes of a CNF file; errors are DimacsError or OSError."""
    from cnfgen_queens.cnf.compressed import open_input  # a file read: not at gen-queens' start-up

    return open_input(path, warn, DimacsError)


def read_header_file(path: Path | str, warn: Warn | None = _stderr_warn) -> Header:
    with open_cnf(path, warn) as f:
        return read_header(f, str(path))


def open_body(path: Path | str, header: Header) -> BinaryIO:
    """The file's bytes from the first body byte on (a seek when plain, else read past the header)."""
    f = open_cnf(path, None)
    try:
        if f.seekable() and isinstance(f.raw, io.FileIO):  # type: ignore[attr-defined]
            f.seek(header.body_offset)
        else:
            left = header.body_offset
            while left > 0 and (got := len(f.read(min(left, CHUNK * 16)))):
                left -= got
    except BaseException:
        f.close()
        raise
    return f


class EndOfBody(Exception):
    """SATLIB's ``%`` line: the rest of the file is not part of the formula."""


def body_literals(
    lines: Iterable[bytes],
    name: str,
    first_line: int,
    num_vars: int,
    warn: Warn = _stderr_warn,
    continued: bool = False,
) -> Iterator[int]:
    """Literals of body lines, 0 ending each clause; raises EndOfBody at a ``%`` line.

    ``continued``: the first line continues a line begun elsewhere (no comment check).
    """
    lineno = first_line - 1
    for raw in lines:
        lineno += 1
        s = raw.strip()
        if continued:
            continued = False
        elif not s or s[:1] == b"c":
            continue
        elif s[:1] == b"%":  # SATLIB's end marker
            warn(f"{name}:{lineno}: '%' line: the rest of the file is ignored")
            raise EndOfBody
        elif s[:1] == b"p":
            raise DimacsError(f"{name}:{lineno}: second 'p' line")
        for tok in s.split():
            try:
                lit = int(tok)
            except ValueError:
                raise DimacsError(f"{name}:{lineno}: not a literal: {_shown(tok)}") from None
            if lit and abs(lit) > num_vars:
                raise VariableBeyond(f"{name}:{lineno}", lit, num_vars)
            yield lit


def iter_body(
    lines: Iterable[bytes], name: str, first_line: int, num_vars: int, warn: Warn = _stderr_warn
) -> Iterator[Clause]:
    """Clauses of a DIMACS body (clauses may span lines); errors name the line."""
    current: list[int] = []
    try:
        for lit in body_literals(lines, name, first_line, num_vars, warn):
            if lit == 0:
                yield tuple(current)
                current = []
            else:
                current.append(lit)
    except EndOfBody:
        pass
    if current:
        warn(f"{name}: last clause has no terminating 0; taken as ended")
        yield tuple(current)
