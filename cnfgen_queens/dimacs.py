"""DIMACS CNF: streaming writer, strict header reader, body parser, and merge.

Strict about what it writes (exact ``p cnf V C``, one clause a line ending in
`` 0``), forgiving but never silent about what it reads: problems that still allow
a faithful reading are reported as warnings, the rest raise :class:`DimacsError`
with the line number.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    import numpy as np

Clause = tuple[int, ...]
CHUNK = 1 << 16
Warn = Callable[[str], None]


class DimacsError(ValueError):
    """A file that is not DIMACS CNF; the message names the file and line."""


def _stderr_warn(msg: str) -> None:
    print(f"warning: {msg}", file=sys.stderr)


# -- writing --------------------------------------------------------------------


def clause_line(clause: Iterable[int]) -> str:
    return " ".join(map(str, clause)) + " 0\n"


def write_header(out: BinaryIO, num_vars: int, num_clauses: int, comments: Iterable[str] = ()) -> None:
    text = "".join(f"c {c}\n" if c else "c\n" for c in comments)
    out.write(f"{text}p cnf {num_vars} {num_clauses}\n".encode())


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


@contextmanager
def atomic_output(path: Path) -> Iterator[BinaryIO]:
    """A binary file that appears at ``path`` only when the block completes (temp + fsync + rename)."""
    import tempfile  # lazily: it pulls in random, shutil, bz2 and lzma

    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    umask = os.umask(0)
    os.umask(umask)
    os.fchmod(fd, 0o666 & ~umask)  # mkstemp's 0600 is for secrets; a CNF is an ordinary file
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_writable(path: Path) -> None:
    """Raise OSError with a clear reason when ``path`` cannot be written."""
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory")
    if not parent.is_dir():
        raise FileNotFoundError(f"directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise PermissionError(f"directory {parent} is not writable")
    if path.exists() and not os.access(path, os.W_OK):
        raise PermissionError(f"{path} is not writable")
    try:  # the permission bits say nothing to root, nor about a read-only file system: try it
        probe = os.open(parent / f".{path.name}.probe-{os.getpid()}", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except OSError as e:
        raise PermissionError(f"cannot create files in {parent}: {e.strerror or e}") from None
    os.close(probe)
    os.unlink(parent / f".{path.name}.probe-{os.getpid()}")


# -- reading --------------------------------------------------------------------


@dataclass(frozen=True)
class Header:
    """The comment lines and ``p cnf`` line of a DIMACS file."""

    num_vars: int
    num_clauses: int
    comments: tuple[str, ...] = ()
    body_offset: int = 0  # byte offset just after the p line
    body_line: int = 1  # line number of the first body line

    def comment_value(self, key: str) -> str | None:
        """The rest of the first comment line ``key ...`` (``key`` without ``c``)."""
        for c in self.comments:
            if c.startswith(key):
                return c[len(key) :].strip()
        return None


def _parse_p_line(text: str, where: str) -> tuple[int, int]:
    parts = text.split()
    if len(parts) != 4 or parts[0] != "p" or parts[1] != "cnf":
        raise DimacsError(f"{where}: expected 'p cnf VARIABLES CLAUSES', got {text.strip()!r}")
    try:
        v, c = int(parts[2]), int(parts[3])
    except ValueError:
        raise DimacsError(f"{where}: non-integer counts in {text.strip()!r}") from None
    if v < 0 or c < 0:
        raise DimacsError(f"{where}: negative counts in {text.strip()!r}")
    return v, c


def read_header(stream: IO[bytes], name: str = "<input>") -> Header:
    """Read comments and the ``p cnf`` line; the stream is left at the first body byte."""
    comments: list[str] = []
    offset = 0
    lineno = 0
    for raw in stream:
        lineno += 1
        offset += len(raw)
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("c"):
            comments.append(stripped[1:].strip())
            continue
        v, c = _parse_p_line(stripped, f"{name}:{lineno}")
        return Header(v, c, tuple(comments), offset, lineno + 1)
    raise DimacsError(f"{name}: no 'p cnf' header line")


def read_header_file(path: Path) -> Header:
    with open(path, "rb") as f:
        return read_header(f, str(path))


def iter_body(
    lines: Iterable[bytes], name: str, first_line: int, num_vars: int, warn: Warn = _stderr_warn
) -> Iterator[Clause]:
    """Clauses of a DIMACS body (clauses may span lines); errors name the line."""
    current: list[int] = []
    lineno = first_line - 1
    for raw in lines:
        lineno += 1
        s = raw.strip()
        if not s or s[:1] == b"c":
            continue
        if s[:1] == b"%":  # SATLIB's end marker
            warn(f"{name}:{lineno}: '%' line: the rest of the file is ignored")
            break
        if s[:1] == b"p":
            raise DimacsError(f"{name}:{lineno}: second 'p' line")
        for tok in s.split():
            try:
                lit = int(tok)
            except ValueError:
                raise DimacsError(f"{name}:{lineno}: not a literal: {tok.decode(errors='replace')!r}") from None
            if lit == 0:
                yield tuple(current)
                current = []
            else:
                if abs(lit) > num_vars:
                    raise DimacsError(f"{name}:{lineno}: variable {abs(lit)} exceeds the header's {num_vars}")
                current.append(lit)
    if current:
        warn(f"{name}: last clause has no terminating 0; taken as ended")
        yield tuple(current)


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
    """Parse a whole CNF file (fast numpy path; a line-by-line pass reports errors)."""
    import numpy as np

    path = Path(path)
    data = path.read_bytes()
    import io

    header = read_header(io.BytesIO(data), str(path))
    body = data[header.body_offset :]
    lits: np.ndarray | None = None
    lone_sign = b"+" in body or body.rstrip()[-1:] == b"-" or any(b"-" + w in body for w in (b" ", b"\n", b"\t", b"\r"))
    if not lone_sign and b"c" not in body and b"%" not in body and b"p" not in body:
        try:
            arr = np.fromstring(body, dtype=np.int64, sep=" ") if body.strip() else np.zeros(0, np.int64)
            ok = arr.size == 0 or (arr[-1] == 0 and int(np.abs(arr).max()) <= header.num_vars)
            if ok and arr.size == _count_tokens(body):  # fromstring also takes a lone sign: count words
                lits = arr.astype(np.int32)
        except ValueError:
            lits = None
    if lits is None:  # slow, diagnostic path
        flat: list[int] = []
        for clause in iter_body(io.BytesIO(body), str(path), header.body_line, header.num_vars, warn):
            flat.extend(clause)
            flat.append(0)
        lits = np.array(flat, dtype=np.int32)
    cnf = Cnf(header, lits)
    if cnf.num_clauses != header.num_clauses:
        warn(f"{path}: header says {header.num_clauses} clauses, file has {cnf.num_clauses}")
    return cnf


def _count_tokens(body: bytes) -> int:
    """Whitespace-separated words in ``body`` (vectorised)."""
    import numpy as np

    b = np.frombuffer(body, dtype=np.uint8)
    if not b.size:
        return 0
    space = (b == 32) | (b == 10) | (b == 9) | (b == 13) | (b == 11) | (b == 12)
    return int(np.count_nonzero(~space[1:] & space[:-1])) + int(not space[0])


def violated_clause(cnf: Cnf, true_vars: set[int] | Iterable[int]) -> tuple[int, Clause] | None:
    """The first clause (0-based index, literals) not satisfied by a model, or None.

    ``true_vars`` lists the variables set true; every other variable is false.
    """
    import numpy as np

    lits = cnf.lits
    if lits.size == 0:
        return None
    value = np.zeros(cnf.num_vars + 1, dtype=bool)
    tv = np.fromiter((v for v in true_vars if 0 < v <= cnf.num_vars), dtype=np.int64)
    value[tv] = True
    sat = np.where(lits > 0, value[np.abs(lits)], ~value[np.abs(lits)])
    ends = np.flatnonzero(lits == 0)
    starts = np.concatenate(([0], ends[:-1] + 1))
    sat[ends] = False  # the terminators satisfy nothing
    per_clause = np.logical_or.reduceat(sat, starts) if ends.size else np.zeros(0, bool)
    # an empty clause starts at its own terminator, so reduceat reads False: violated
    bad = np.flatnonzero(~per_clause)
    if bad.size == 0:
        return None
    i = int(bad[0])
    return i, tuple(lits[starts[i] : ends[i]].tolist())


# -- merging --------------------------------------------------------------------


def merge(base: Path, blocks: Iterable[Path], out: BinaryIO, warn: Warn = _stderr_warn) -> int:
    """Copy ``base`` with the clauses of the ``blocks`` files appended and the count corrected.

    A blocks file is bare clause lines or a full DIMACS file (its header is checked
    and dropped).  Every block literal must be within the base's variables.
    Returns the total clause count.
    """
    header = read_header_file(base)
    extra: list[Clause] = []
    for path in blocks:
        extra.extend(read_blocks(path, header.num_vars, warn))
    return merge_clauses(base, extra, out, header)


def count_body_clauses(base: Path, header: Header, warn: Warn = _stderr_warn) -> int:
    """Clauses in the body of ``base``: counted on bytes (lines ending in ``0``) when every clause
    ends its line, as in this tool's files; parsed exactly when that count disagrees with the header."""
    count = 0
    with open(base, "rb") as f:
        f.seek(header.body_offset)
        first = True
        while chunk := f.read(1 << 20):
            chunk += f.readline()  # end on a line boundary
            if first and (chunk.startswith(b"0\n") or chunk.startswith(b"0\r\n")):
                count += 1
            first = False
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\t", b" ")
            count += chunk.count(b" 0\n") + chunk.count(b"\n0\n")
            if not chunk.endswith(b"\n") and (chunk.endswith(b" 0") or chunk == b"0"):
                count += 1
    if count == header.num_clauses:
        return count
    with open(base, "rb") as f:
        f.seek(header.body_offset)
        count = sum(1 for _ in iter_body(f, str(base), header.body_line, header.num_vars, warn))
    if count != header.num_clauses:
        warn(f"{base}: header says {header.num_clauses} clauses, file has {count}; the merged header says {count}")
    return count


def merge_clauses(base: Path, extra: list[Clause], out: BinaryIO, header: Header | None = None) -> int:
    """Copy ``base`` (its body as bytes, not parsed) with ``extra`` appended; returns the clause count."""
    header = header or read_header_file(base)
    total = count_body_clauses(base, header) + len(extra)
    write_header(out, header.num_vars, total, header.comments)
    with open(base, "rb") as f:
        f.seek(header.body_offset)
        last = b"\n"
        while chunk := f.read(1 << 20):
            out.write(chunk)
            last = chunk[-1:]
        if last != b"\n":
            out.write(b"\n")
    write_clauses(out, extra)
    return total


def read_blocks(path: Path, num_vars: int, warn: Warn = _stderr_warn) -> list[Clause]:
    """Clauses of a blocks file: bare clause lines, or a DIMACS file whose header is dropped."""
    name = str(path)
    if name == "-":
        name, lines = "<stdin>", sys.stdin.buffer.readlines()
    else:
        with open(path, "rb") as f:
            lines = f.readlines()
    first = 1
    for i, raw in enumerate(lines):
        s = raw.strip()
        if s[:1] == b"p":
            _parse_p_line(s.decode(errors="replace"), f"{name}:{i + 1}")
            lines, first = lines[i + 1 :], i + 2
            break
        if s and s[:1] != b"c":
            break
    return list(iter_body(lines, name, first, num_vars, warn))
