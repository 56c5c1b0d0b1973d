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
    return Path(base, "cnfgen-queens")


def write_cache(path: Path, text: str) -> bool:
    """Replace ``path`` with ``text`` atomically (a temporary file of this process, then a rename), so a
    concurrent reader sees the old file or the new one; False (and nothing left behind) when it cannot.
    The temporary file is created new (``O_EXCL``, never through a link planted under its name), and the
    ones a ``kill -9`` left (their process gone) are removed on the way."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _sweep(path)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")  # one writer a process
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            try:
                fd = os.open(tmp, flags, 0o644)
            except FileExistsError:  # this pid's, from an earlier life, or a link: removed, never followed
                tmp.unlink()
                fd = os.open(tmp, flags, 0o644)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    except OSError:
        return False
    return True


def _sweep(path: Path) -> None:
    """Remove ``.NAME.PID.tmp`` beside ``path`` whose process is gone."""
    prefix = f".{path.name}."
    for name in os.listdir(path.parent):
        pid = name[len(prefix) : -len(".tmp")] if name.startswith(prefix) and name.endswith(".tmp") else ""
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                os.kill(int(pid), 0)
            except ProcessLookupError:
                (path.parent / name).unlink(missing_ok=True)
            except PermissionError:
                pass
