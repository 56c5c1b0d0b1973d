"""Solver versions kept across runs, so that ``solve`` in a shell loop does not ask every time.

Asking costs a ``--version`` run and, for a binary that does not say, two ``dpkg-query`` runs (about
0.1 s in all, paid once per solution by a shell enumeration loop).  An answer is kept in
``versions.json`` of the user cache (:mod:`cnfgen_queens.user_cache`), keyed on the binary's real path,
device, inode, size and modification time, the probe's arguments and this tool's version: a binary
replaced or upgraded in place is asked again.  The file is replaced atomically; a missing, corrupt or
unwritable one, or one another process rewrote meanwhile, only means asking again.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..bounds import json_value
from ..user_cache import cache_dir, write_cache
from ..version import __version__

CACHE_NAME = "versions.json"
MAX_ENTRIES = 256  # the oldest are dropped past this
MAX_BYTES = 1 << 20  # a larger file is not read (taken as empty)


def cache_key(path: str, version_args: tuple[str, ...] | None) -> str | None:
    """What identifies the binary's answer, or None when the binary cannot be stat'ed."""
    import json

    try:
        real = os.path.realpath(path)
        st = os.stat(real)
    except OSError:
        return None
    args = None if version_args is None else list(version_args)
    return json.dumps([__version__, real, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, args])


def _cache_file() -> Path:
    return cache_dir() / CACHE_NAME


def _read() -> dict[str, str]:
    """The cache's entries; anything unreadable or malformed counts as empty."""

    try:
        with open(_cache_file(), encoding="utf-8") as f:
            text = f.read(MAX_BYTES + 1)
        data = json_value(text) if len(text) <= MAX_BYTES else {}
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


def cached_version(key: str) -> str | None:
    """The version kept for ``key``, or None."""
    return _read().get(key)


def remember_version(key: str, version: str) -> None:
    """Keep ``version`` for ``key`` (merged with the file as it is now; nothing when it cannot be written)."""
    import json

    entries = _read()
    entries.pop(key, None)
    entries[key] = version  # the newest last: the oldest are dropped first
    kept = dict(list(entries.items())[-MAX_ENTRIES:])
    write_cache(_cache_file(), json.dumps(kept, indent=0))
