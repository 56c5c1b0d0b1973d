"""The per-user cache directory (measured PySAT counts, solver versions): where it is and how it is written.

Everything kept there can be found again, so a cache that is missing, unreadable, corrupt or not
writable is never an error: the value is measured again.
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "CNFGEN_QUEENS_CACHE_DIR"  # where the cache is (default: $XDG_CACHE_HOME/cnfgen-queens)


def cache_dir() -> Path:
    """``$CNFGEN_QUEENS_CACHE_DIR``, else ``$XDG_CACHE_HOME/cnfgen-queens``, else ``~/.cache/cnfgen-queens``."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cnfgen-queens"


def write_cache(path: Path, text: str) -> bool:
    """Replace ``path`` with ``text`` atomically (a temporary file of this process, then a rename), so a
    concurrent reader sees the old file or the new one; False (and nothing left behind) when it cannot."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")  # one writer a process
        try:
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    except OSError:
        return False
    return True
