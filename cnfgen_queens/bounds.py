"""The input budget every reader shares: how long a line, how large a decompression, how large a file.

One set of numbers for ``solve``, ``stats``, ``merge``, ``decode``/``block``, ``gen-queens --block``,
``--holes``/``--place-file``, YAML configs and solver profiles, so that memory follows the bytes
read, never a count a header claims, and an endless or exploding input is refused with one line.
"""

from __future__ import annotations

import os
import stat
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

MAX_LINE = 1 << 26  # 64 MiB: a header line is read in pieces of this size; a longer non-comment one is refused
MAX_TOKEN = 1 << 16  # 64 KiB: a body "literal" (bytes without a blank) longer than this is not DIMACS
MAX_RATIO = 500  # decompressed : compressed bytes; real CNFs stay under 100 (xz of pairwise queens: 55)
RATIO_FLOOR = 1 << 26  # 64 MiB: the ratio is checked once this much has been decompressed
MAX_TEXT = 1 << 26  # 64 MiB: files read whole (configs, solver profiles, square lists) are refused above this


class TooLarge(ValueError):
    """An input over one of the bounds above; the message names the file and the bound."""


def refuse_device(path: str | Path, error: type[Exception] = TooLarge) -> None:
    """Raise ``error`` when ``path`` is a character or block device (``/dev/zero`` never ends)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # the open that follows names the problem
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        raise error(f"{path}: a device, not a file (an endless one would fill the memory)")


def once_only(path: str | Path) -> bool:
    """Whether ``path`` is a FIFO or a pipe (``<(cmd)`` is ``/dev/fd/63``): its bytes can be read only once
    (:mod:`.cnf.read_once` spools them); False for anything else, or what cannot be looked at."""
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def read_text(path: str | Path, limit: int = MAX_TEXT, what: str = "file", error: type[Exception] = TooLarge) -> str:
    """The UTF-8 text of a file read whole: devices refused, at most ``limit`` bytes read (more: ``error``).

    OSError and UnicodeDecodeError pass through for the caller to name.
    """
    refuse_device(path, error)
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise error(f"{path}: over {_size(limit)}, the limit for a {what}")
    return data.decode("utf-8")


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n} bytes"


def check_ratio(name: str, decompressed: int, compressed: int, error: type[Exception] = TooLarge) -> None:
    """Raise ``error`` for a stream past :data:`RATIO_FLOOR` at more than :data:`MAX_RATIO` to 1."""
    if decompressed > RATIO_FLOOR and decompressed > MAX_RATIO * max(compressed, 1):
        raise error(
            f"{name}: {compressed:,} compressed bytes decompress to over {decompressed:,}: a ratio above "
            f"{MAX_RATIO}:1 past {_size(RATIO_FLOOR)}, refused as a decompression bomb"
        )


class HugeInteger:
    """A JSON integer of more digits than Python converts (``sys.get_int_max_str_digits()``, 4300): read as this,
    not an int, so that the reader's check of the field refuses it by its key, shown as ``an integer of 5000
    digits, more than 4300`` (Python's own ValueError there named neither)."""

    def __init__(self, digits: int) -> None:
        self.digits = digits

    def __repr__(self) -> str:
        return f"an integer of {self.digits} digits, more than {sys.get_int_max_str_digits()}"


def _integer(text: str) -> int | HugeInteger:
    digits = len(text.lstrip("-"))
    return HugeInteger(digits) if digits > sys.get_int_max_str_digits() else int(text)


def json_value(text: str | bytes) -> Any:
    """``json.loads(text)``, with JSON nested deeper than the parser goes a ValueError like any other malformed
    JSON (Python's parser raises RecursionError there, which no caller expects from a file it reads), and an
    integer of more digits than Python converts a :class:`HugeInteger` (looked for first: the parser calls
    back for each integer only in a text that has such a run of digits)."""
    import json
    import re

    limit = sys.get_int_max_str_digits()
    pattern = f"[0-9]{{{limit + 1}}}"
    found = re.search(pattern.encode(), text) if isinstance(text, bytes) else re.search(pattern, text)
    huge = limit > 0 and found is not None
    try:
        return json.loads(text, parse_int=_integer if huge else None)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
