"""Atomic file output: a temporary file next to the target, fsync, rename; removed if anything goes wrong.

Ctrl-C (SIGINT) already arrives as KeyboardInterrupt, and SIGTERM and SIGHUP as
:class:`cnfgen_queens.errors.Terminated` while an atomic write is under way
(:func:`~cnfgen_queens.errors.signals_unwind`): in a CLI command that is the command's own
Terminated (one line, exit 128 + the signal); for a library caller with the default handlers
the same unwinding removes the temporary file (and stops any solver the command runs) before
the process exits with 128 + the signal number.  A signal the caller ignores stays ignored.
A forked child that inherits the handler gets the default action instead, and never removes
its parent's file.
Only ``kill -9`` leaves a temporary file behind; :func:`sweep_temporaries` removes
those of a known target.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from ..errors import signals_unwind

TEMP_SUFFIX = ".tmp"


def temp_prefix(path: Path) -> str:
    return f".{path.name}."


@contextmanager
def atomic_output(path: Path) -> Iterator[BinaryIO]:
    """A binary file that appears at ``path`` only when the block completes (temp + fsync + rename).

    The temporary name is chosen before the file is created, so an interrupt arriving at any
    moment (even inside the creating call) finds it and removes the file.
    """
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    with signals_unwind():
        pid = os.getpid()
        tmp: Path | None = None
        try:
            for _ in range(100):
                tmp = parent / f"{temp_prefix(path)}{os.urandom(4).hex()}{TEMP_SUFFIX}"
                try:  # mode 0666 less the umask, as for any ordinary file
                    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
                    break
                except FileExistsError:
                    tmp = None
            else:
                raise FileExistsError(f"no free temporary name next to {path}")
            with os.fdopen(fd, "wb") as f:
                yield f
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            if tmp is not None and os.getpid() == pid:
                tmp.unlink(missing_ok=True)
            raise


def sweep_temporaries(path: Path) -> list[Path]:
    """Remove the temporary files :func:`atomic_output` leaves for ``path`` when killed with -9.

    Only for a target that a single process writes (a run's own work directory).
    """
    path = Path(path)
    removed = []
    prefix = temp_prefix(path)
    for tmp in path.parent.glob(f"{prefix}*{TEMP_SUFFIX}"):
        middle = tmp.name[len(prefix) : -len(TEMP_SUFFIX)]
        if len(middle) == 8 and middle.replace("_", "").isalnum():  # mkstemp's 8 random characters
            tmp.unlink(missing_ok=True)
            removed.append(tmp)
    return removed


WORK_PREFIX = "cnfgen-queens-"
WORK_LOCK = ".in-use"  # held (flock) by the process using the directory, for as long as it does
STALE_UNLOCKED = 24 * 3600  # seconds after which a work directory with no lock file (older code) is stale


@contextmanager
def work_dir(kind: str) -> Iterator[Path]:
    """``$TMPDIR/cnfgen-queens-KIND-XXXXXXXX``, removed when the block ends; locked while in use, so that
    :func:`sweep_work_dirs` (the next run) removes the one a ``kill -9`` left, never one still in use."""
    path = Path(tempfile.mkdtemp(prefix=f"{WORK_PREFIX}{kind}-"))
    try:
        fd = os.open(path / WORK_LOCK, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield path
        finally:
            os.close(fd)
    finally:
        shutil.rmtree(path, ignore_errors=True)


def sweep_work_dirs(kinds: tuple[str, ...], root: Path | None = None) -> list[Path]:
    """Remove the work directories of ``kinds`` (:func:`work_dir`) in ``root`` (default ``$TMPDIR``) that no
    live process holds: those a ``kill -9`` left.  One with no lock file counts only after a day."""
    removed = []
    base = Path(root or tempfile.gettempdir())
    for kind in kinds:
        for path in base.glob(f"{WORK_PREFIX}{kind}-*"):
            try:
                fd = os.open(path / WORK_LOCK, os.O_RDONLY | os.O_CLOEXEC)
            except FileNotFoundError:  # being created, or left by older code: judged by age
                try:
                    stale = path.is_dir() and time.time() - path.stat().st_mtime > STALE_UNLOCKED
                except OSError:
                    continue
                if stale:
                    shutil.rmtree(path, ignore_errors=True)
                    removed.append(path)
                continue
            except OSError:  # not ours to judge (another user's, not a directory)
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # in use
            else:
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
            finally:
                os.close(fd)
    return removed
