"""A built HTML report put in place: one rename of its directory, or of each of its files into an existing
report (the page last); build directories a ``kill -9`` left removed."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
from pathlib import Path

from ..cnf.owned import open_dir, refuse_links, refuse_planted


def fsync(path: Path) -> None:
    """Flush a file or a directory (its entries) to the disk, so the rename publishes complete files."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def publish(build: Path, target: Path, files: list[str], old: list[str]) -> None:
    """Rename ``build`` to a new ``target``; into an existing one, rename each of ``files`` (the page last),
    then remove the files the earlier report listed (``old``) and this one does not: nothing else is touched."""
    if not target.exists():
        os.rename(build, target)
        return
    refuse_links(target, [*files, *old])
    refuse_planted(target, ".", files)  # every file checked before the first is replaced
    src, dst = os.open(build, os.O_RDONLY | os.O_DIRECTORY), open_dir(target)
    try:
        for name in sorted(files, key=lambda name: name == "index.html"):
            try:
                os.replace(name, name, src_dir_fd=src, dst_dir_fd=dst)
            except OSError as e:  # named: the file, not the folder
                raise OSError(e.errno, e.strerror, str(target / name)) from None
        for name in sorted(set(old) - set(files)):
            with contextlib.suppress(FileNotFoundError, IsADirectoryError):  # a folder there now: not ours
                os.unlink(name, dir_fd=dst)
        os.fsync(dst)
    finally:
        os.close(src)
        os.close(dst)
    shutil.rmtree(build, ignore_errors=True)  # empty by now


def sweep_builds(parent: Path, name: str) -> list[Path]:
    """Remove the build directories (``.NAME.PID.XXXXXXXX.tmp``) a ``kill -9`` left in ``parent``: only those
    whose process is gone, never one a live report is writing."""
    removed = []
    prefix = f".{name}."
    for path in parent.glob(f"{glob.escape(prefix)}*.tmp"):
        pid = path.name[len(prefix) :].split(".", 1)[0]
        if pid.isdigit() and not _alive(int(pid)) and path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's: alive
        return True
    return True
