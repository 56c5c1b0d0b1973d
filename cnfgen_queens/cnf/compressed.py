"""Compressed files: ``.gz``, ``.bz2`` and ``.xz`` by extension and by magic bytes (stdlib gzip, bz2, lzma).

SAT benchmark sets are distributed compressed.  Reading trusts the bytes: a file is
decompressed by its magic number, a compressed file without its extension is read
with a warning, and a name promising a format its bytes do not have is an error.
``.zst`` is recognised but not read (no zstandard dependency): the error says so.
Writing picks the format from the output name, deterministically (gzip without a
timestamp or file name), so the same command writes the same bytes.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..bounds import check_ratio, refuse_device
from ..errors import InputError as InputError  # defined there (cnf.dimacs loads no codec at start-up); named here

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import IO, BinaryIO

    from _typeshed import WriteableBuffer

READ_BUFFER = 1 << 20


@dataclass(frozen=True)
class Codec:
    """A compression format: its name, file suffix, magic bytes and command-line tool."""

    name: str
    suffix: str
    magic: bytes
    readable: bool = True


CODECS = (
    Codec("gzip", ".gz", b"\x1f\x8b"),
    Codec("bzip2", ".bz2", b"BZh"),
    Codec("xz", ".xz", b"\xfd7zXZ\x00"),
    Codec("zstd", ".zst", b"\x28\xb5\x2f\xfd", readable=False),
)
MAGIC_BYTES = max(len(c.magic) for c in CODECS)


def by_name(path: Path | str) -> Codec | None:
    """The codec the file name's extension names (``q.cnf.xz`` -> xz), or None."""
    name = str(path).lower()
    return next((c for c in CODECS if name.endswith(c.suffix)), None)


def by_magic(head: bytes) -> Codec | None:
    """The codec whose magic number starts ``head``, or None."""
    return next((c for c in CODECS if head.startswith(c.magic)), None)


STDIN_NAMES = ("-", "<stdin>")  # what a piped input is called: no file name, so no extension to expect


def sniff(path: Path | str) -> Codec | None:
    """The codec of a file's first bytes (the content decides, not the name)."""
    with open(path, "rb") as f:
        return by_magic(f.read(MAGIC_BYTES))


def _unsupported(codec: Codec, name: str) -> InputError:
    return InputError(
        f"{name}: {codec.name}-compressed data; {codec.suffix} is not supported, "
        f"decompress it first ({codec.name} -d) or use .gz, .bz2 or .xz"
    )


def check_codec(name: str, head: bytes, warn: Callable[[str], None] | None) -> Codec | None:
    """The codec to read ``name`` with, given its first bytes; errors for a name its bytes contradict."""
    magic, named = by_magic(head), by_name(name)
    if magic is not None and not magic.readable:
        raise _unsupported(magic, name)
    if named is not None and magic is not named:
        if not named.readable:
            raise _unsupported(named, name)
        what = f"{magic.name}-compressed data" if magic else "not " + named.name + " data (uncompressed or garbage)"
        raise InputError(f"{name}: named {named.suffix} but its bytes are {what}")
    if magic is not None and named is None and warn is not None and name not in STDIN_NAMES:  # stdin has no name
        warn(f"{name}: {magic.name}-compressed data without the {magic.suffix} extension; reading it as {magic.name}")
    return magic


def decompressor(codec: Codec, raw: IO[bytes]) -> io.BufferedIOBase:
    """A reader of the decompressed bytes of the compressed stream ``raw``."""
    if codec.suffix == ".gz":
        import gzip

        return gzip.GzipFile(fileobj=raw, mode="rb")
    if codec.suffix == ".bz2":
        import bz2

        return bz2.BZ2File(raw, "rb")
    import lzma

    return lzma.LZMAFile(raw, "rb")


class _Counted(io.RawIOBase):
    """The compressed stream, counting the bytes the decompressor takes from it."""

    def __init__(self, raw: io.BufferedReader) -> None:
        self.raw, self.count = raw, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        got = self.raw.readinto(buffer)
        self.count += got
        return got

    def close(self) -> None:
        if not self.closed:
            self.raw.close()
        super().close()


class _Decoded(io.RawIOBase):
    """Decompressed bytes; corrupt or truncated data raises one-line ``error``s, not library tracebacks, and
    a stream that grows past the bounds' ratio (:func:`cnfgen_queens.bounds.check_ratio`) is refused."""

    def __init__(
        self, inner: io.BufferedIOBase, raw: _Counted, codec: Codec, name: str, error: type[Exception]
    ) -> None:
        self._inner, self._raw, self._codec, self._name, self._error = inner, raw, codec, name, error
        self._out = 0
        self.warnings: list[tuple[Callable[[str], None], str]] = []  # said once the first bytes decode

    def _say_warnings(self) -> None:
        for warn, message in self.warnings:
            warn(message)
        self.warnings = []

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        import lzma
        import zlib

        view = memoryview(buffer).cast("B")
        try:
            data = self._inner.read(len(view))
        except (EOFError, OSError, lzma.LZMAError, zlib.error) as e:
            raise self._error(f"{self._name}: corrupt or truncated {self._codec.name} data ({e})") from None
        if self.warnings:  # data that decodes: only then is "reading it as gzip" news (else the error says it)
            self._say_warnings()
        view[: len(data)] = data
        self._out += len(data)
        check_ratio(self._name, self._out, self._raw.count, self._error)
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self._inner.close()
            self._raw.close()
        super().close()


def open_input(
    path: Path | str,
    warn: Callable[[str], None] | None = None,
    error: type[Exception] = InputError,
    raw: IO[bytes] | None = None,
) -> BinaryIO:
    """A buffered binary reader of ``path``'s content, decompressed when its bytes are compressed.

    ``raw`` reads an already open stream (stdin) named ``path``.  Raises OSError for an
    unreadable file and ``error`` (one line) for a device, a wrong extension, zstd, corrupt data, or a
    decompression past the bounds of :mod:`cnfgen_queens.bounds`.
    """
    name = str(path)
    if raw is None:
        refuse_device(path, error)
    given: IO[bytes] = raw if raw is not None else open(path, "rb", buffering=READ_BUFFER)  # noqa: SIM115
    stream: io.BufferedReader
    if isinstance(given, io.BufferedReader):  # noqa: SIM108
        stream = given
    else:  # stdin's buffer or a BytesIO: any binary stream with readinto serves as the raw stream
        stream = io.BufferedReader(given, READ_BUFFER)  # type: ignore[arg-type]
    held: list[str] = []
    try:
        codec = check_codec(name, stream.peek(MAGIC_BYTES)[:MAGIC_BYTES], None if warn is None else held.append)
    except InputError as e:
        stream.close()
        raise error(str(e)) from None
    if codec is None:
        return stream
    counted = _Counted(stream)
    inner = decompressor(codec, counted)  # type: ignore[arg-type]
    decoded = _Decoded(inner, counted, codec, name, error)
    if warn is not None:
        decoded.warnings = [(warn, message) for message in held]
    return io.BufferedReader(decoded, READ_BUFFER)


def compressing(out: BinaryIO, path: Path | str) -> BinaryIO:
    """A writer compressing into ``out`` as ``path``'s extension says, or ``out`` itself; close it to finish.

    Raises ValueError for ``.zst`` (not supported for writing).
    """
    codec = by_name(path)
    if codec is None:
        return out
    if not codec.readable:
        raise ValueError(f"{path}: writing {codec.suffix} is not supported; use .gz, .bz2 or .xz")
    if codec.suffix == ".gz":
        import gzip

        return gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=6, mtime=0)  # type: ignore[return-value]
    if codec.suffix == ".bz2":
        import bz2

        return bz2.BZ2File(out, "wb", compresslevel=9)  # type: ignore[return-value]
    import lzma

    return lzma.LZMAFile(out, "wb", preset=6)  # type: ignore[return-value]
