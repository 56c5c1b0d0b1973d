"""The Global Benchmark Database instance hash of a CNF file.

M. Iser, C. Sinz: A Problem Meta-Data Library for Research in SAT, PoS 2018;
M. Iser, C. Jabs: Global Benchmark Database, SAT 2024 (https://benchmark-database.de).

GBD identifies a DIMACS file by the MD5 of its normalized clause text: comment
and header lines dropped (from the first character that is neither blank, digit
nor ``-`` to the end of the line), every run of blanks (bytes <= 0x20, line ends
included) one space, no leading or trailing blank, and `` 0`` appended when the
last token is not ``0``.  This is that definition, over 4 MB blocks with bytes
operations (faster than GBD's own C++ ``gbdc`` in
scripts/bench.py); tests check it against ``gbdc``.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from .compressed import open_input

BLOCK = 1 << 22
_SKIPPED = re.compile(rb"[^\x00-\x20\d-][^\r\n]*")  # from a letter (c, p, ...) to the end of its line
_BLANKS = bytes(range(0x21))
_TO_SPACE = bytes.maketrans(_BLANKS, b" " * len(_BLANKS))
_RUNS = re.compile(rb" {2,}")
_CLAUSE_TEXT = _BLANKS + b"0123456789-"


def gbd_hash(path: Path | str) -> str:
    """The GBD hash (32 hex digits) of the DIMACS CNF file ``path`` (.gz, .bz2, .xz: of the decompressed
    CNF); memory is bounded by :data:`BLOCK`.  InputError for a device or a corrupt compressed file."""
    h = GbdHash()
    with open_input(path) as f:  # a compressed file: the hash of its CNF, as gbdc computes it
        while block := f.read(BLOCK):
            h.update(block)
    return h.hexdigest()


class GbdHash:
    """The GBD hash fed block by block (the bytes of a whole CNF, in order, in blocks of any size): for a
    reader that sees the file once, as ``stats`` does on stdin."""

    def __init__(self) -> None:
        self.md5 = hashlib.md5()
        self.last = b""  # the last token so far
        self.pending = b""  # the unfinished end of the previous block
        self.skipping = False  # inside a comment or header line that started in an earlier block

    def update(self, block: bytes) -> None:
        if self.skipping:
            ends = [i for i in (block.find(b"\n"), block.find(b"\r")) if i >= 0]
            if not ends:
                return
            block, self.skipping = block[min(ends) :], False
        data, rest = _whole(self.pending + block)
        self.pending, self.skipping = (b"", True) if rest is None else (rest, False)  # None: a comment runs on
        self.last = _feed(self.md5, data, self.last)

    def hexdigest(self) -> str:
        md5 = self.md5.copy()
        last = _feed(md5, self.pending, self.last)
        if last and last != b"0":
            md5.update(b" 0")
        return md5.hexdigest()


def _whole(data: bytes) -> tuple[bytes, bytes | None]:
    """(the part of ``data`` that can be hashed now, the rest; None: the rest is skipped to its line end)."""
    cut = max(data.rfind(b"\n"), data.rfind(b"\r")) + 1  # whole lines: no token or comment is split
    if cut:
        return data[:cut], data[cut:]
    m = _SKIPPED.search(data)
    if m:
        return data[: m.start()], None
    cut = data.translate(_TO_SPACE).rfind(b" ") + 1  # no comment yet: cut after the last blank
    return data[:cut], data[cut:]


def _feed(md5: hashlib._Hash, data: bytes, last: bytes) -> bytes:
    """Hash the normalized tokens of ``data``; returns the last token hashed so far."""
    if data.translate(None, _CLAUSE_TEXT):  # some comment or header text (a fast test: no regex)
        data = _SKIPPED.sub(b"", data)
    text = data.translate(_TO_SPACE)
    if b"  " in text:
        text = _RUNS.sub(b" ", text)
    text = text.strip(b" ")
    if not text:
        return last
    if last:
        md5.update(b" ")
    md5.update(text)
    return text[text.rfind(b" ") + 1 :]
