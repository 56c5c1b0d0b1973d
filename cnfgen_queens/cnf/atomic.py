"""Atomic file output: a temporary file next to the target, fsync, rename; removed if anything goes wrong.

Every writer of a path goes through :func:`atomic_output`, which first decides what the path is
(:func:`output_target`): a new or regular file is replaced atomically; a symlink is written through (the
file it names is replaced, the link stays); a stream output (``-o``, tables, plots) into a FIFO or
character device is written into, as a shell's ``>`` would (a FIFO nobody reads is an error at once);
anything else, a directory, socket or block device, or a FIFO or device where a file is wanted (a proof,
work files that are read back), is refused with :class:`NotAFile`, a UsageError.

Signals (:func:`~cnfgen_queens.errors.stop_on_signals`) unwind as exceptions: a write cut short removes its
temporary file on the way, and what an unwinding cut short itself leaves (a signal inside a context
manager's ``__enter__`` or ``__exit__``, where its generator is left suspended) is removed when the process
exits (:func:`_remove_left`).  Only ``kill -9`` (or a library caller's SIGTERM, which Python does not
handle) leaves a temporary file behind; :func:`sweep_temporaries` removes those of a known target, and the
next command's :func:`sweep_work_dirs` the work directories.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from ..errors import UsageError
from .owned import is_link, open_dir, refused_link, split

TEMP_SUFFIX = ".tmp"


def temp_prefix(path: Path) -> str:
    return f".{path.name}."


class NotAFile(UsageError):
    """An output path that is a directory, socket or block device, or a FIFO or device where a file is
    wanted: the rename would replace it (a FIFO someone reads from, swapped for a regular file)."""


NO_READER = "a FIFO with no reader"
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def output_target(path: str | Path, *, stream: bool = False) -> Path | None:
    """The regular file an output named ``path`` replaces (through a symlink: the file it names; a new
    file: where it will be), or None when ``stream`` and ``path`` is a FIFO or character device, which is
    written into.  Raises :class:`NotAFile` for anything else that is not a regular file."""
    try:
        mode = os.stat(path).st_mode
    except OSError:  # none yet (a dangling symlink: the file it names), or not reachable: the write says why
        return Path(os.path.realpath(path))
    if stat.S_ISREG(mode):
        return Path(os.path.realpath(path))
    if stream and (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
        return None
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    why = (
        ""
        if stream or kind in ("a directory", "a socket", "a block device")
        else (" (this output is written to a file, read back or moved into place)")
    )
    raise NotAFile(f"cannot write {path}: it is {kind}, not a regular file{why}")


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


def check_output_target(path: str | Path, *, stream: bool = False) -> None:
    """Before any work: NotAFile as :func:`output_target` says, OSError when the file cannot be written."""
    target = output_target(path, stream=stream)
    if target is not None:
        check_writable(target)


@contextmanager
def _written_into(path: Path) -> Iterator[BinaryIO]:
    """A FIFO or character device opened for writing without waiting: a FIFO nobody reads is
    OSError(ENXIO, :data:`NO_READER`) at once; the bytes are flushed when the block ends."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise OSError(e.errno, NO_READER if e.errno == errno.ENXIO else (e.strerror or str(e))) from None
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)  # then write as usual
    f = os.fdopen(fd, "wb")
    try:
        yield f
        f.flush()
    finally:
        with contextlib.suppress(OSError):  # the error, if any, was raised by the flush above
            f.close()


@contextmanager
def atomic_output(path: str | Path, *, stream: bool = False, owned: Path | None = None) -> Iterator[BinaryIO]:
    """A binary file that appears at ``path`` only when the block completes (temp + fsync + rename);
    ``stream``: a FIFO or character device at ``path`` is written into instead (see :func:`output_target`).
    ``owned``: ``path`` is a file of that directory, one the tool owns (:mod:`.owned`): a symbolic link
    at ``path`` or on the way to it is refused (:class:`~.owned.PlantedLink`), never written through.

    The temporary file is created and renamed relative to the directory's descriptor, never through a
    link.  Its name is chosen before the file is created, so an interrupt arriving at any moment (even
    inside the creating call) finds it and removes the file.
    """
    if owned is not None:
        rel, name = split(Path(path), owned)
        Path(owned).mkdir(parents=True, exist_ok=True)
        dir_fd = open_dir(owned, rel, create=True)
        try:
            if is_link(dir_fd, name):
                raise refused_link(Path(path), dir_fd, name)
            mode = _mode(dir_fd, name)
            if mode and not stat.S_ISREG(mode):  # a FIFO, device, socket or folder: refused as output_target does
                kind = next((what for test, what in _KINDS if test(mode)), "not a regular file")
                raise NotAFile(
                    f"cannot write {path}: it is {kind}, not a regular file (this output is written to a "
                    "file, read back or moved into place)"
                )
            with _replacing(dir_fd, name, Path(path)) as f:
                yield f
        finally:
            os.close(dir_fd)
        return
    target = output_target(path, stream=stream)
    if target is None:
        with _written_into(Path(path)) as f:
            yield f
        return
    dir_fd = os.open(target.parent if str(target.parent) else ".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        with _replacing(dir_fd, target.name, target) as f:
            yield f
    finally:
        os.close(dir_fd)


@contextmanager
def _replacing(dir_fd: int, name: str, shown: Path) -> Iterator[BinaryIO]:
    """A new file renamed over ``name`` in the directory ``dir_fd`` when the block completes."""
    if stat.S_ISDIR(_mode(dir_fd, name)):
        raise NotAFile(f"cannot write {shown}: it is a directory, not a regular file")
    pid, where = os.getpid(), shown.parent.resolve()
    tmp: str | None = None
    try:
        for _ in range(100):
            tmp = f"{temp_prefix(Path(name))}{os.urandom(4).hex()}{TEMP_SUFFIX}"
            _live[where / tmp] = pid  # before it exists: found at exit whatever happens
            try:  # mode 0666 less the umask, as for any ordinary file
                flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
                fd = os.open(tmp, flags, 0o666, dir_fd=dir_fd)
                break
            except FileExistsError:
                _live.pop(where / tmp, None)
                tmp = None
        else:
            raise FileExistsError(f"no free temporary name next to {shown}")
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        _live.pop(where / tmp, None)
    except BaseException as e:
        if tmp is not None and os.getpid() == pid:
            try:
                os.unlink(tmp, dir_fd=dir_fd)
            except FileNotFoundError:
                pass
            except OSError:  # the directory's descriptor closed first: left to _remove_left, by its path
                pass
            else:
                _live.pop(where / tmp, None)
        if isinstance(e, OSError) and e.filename is None and e.errno in _DISK_ERRORS:  # a write: name the file
            raise OSError(e.errno, e.strerror, str(shown)) from None
        raise


_DISK_ERRORS = (errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EIO)  # a full disk, a file size limit, a quota


def _mode(dir_fd: int, name: str) -> int:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except OSError:
        return 0


def move_into(src: Path, path: Path) -> None:
    """Move the finished file ``src`` to ``path`` (a file output, as :func:`atomic_output` decides): renamed
    on one file system, else copied atomically; ``src`` is gone afterwards."""
    target = output_target(path)
    assert target is not None
    try:
        os.replace(src, target)
        return
    except OSError as e:
        if e.errno != errno.EXDEV:
            raise
    with atomic_output(target) as out, open(src, "rb") as f:
        shutil.copyfileobj(f, out, 1 << 20)
    os.unlink(src)


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
_live: dict[Path, int] = {}  # the work directories and temporary files made and not yet removed, with their maker


@atexit.register
def _remove_left() -> None:
    """At exit, the work directories and temporary files of this process still standing: a signal's exception
    that landed inside their removal, or inside a context manager's ``__enter__``/``__exit__`` (its generator
    left suspended, its cleanup not run), cut it short."""
    me = os.getpid()
    for path, maker in list(_live.items()):
        if maker == me:
            if path.is_dir() and not path.is_symlink():
                remove_tree(path)
            else:
                path.unlink(missing_ok=True)
                _live.pop(path, None)


@contextmanager
def work_dir(kind: str) -> Iterator[Path]:
    """``$TMPDIR/cnfgen-queens-KIND-PID-XXXXXXXX``, removed when the block ends (a signal's exception too);
    locked while in use, so that :func:`sweep_work_dirs` (the next run) removes the one a ``kill -9`` left,
    never one still in use.  Only the process that made it removes it (not a forked child)."""
    pid = os.getpid()
    made: list[Path] = []
    try:
        path, fd = open_work_dir(kind, made)
        try:
            yield path
        finally:
            os.close(fd)
    finally:
        if os.getpid() == pid and made:
            remove_tree(made[0])


SETTLE = 0.5  # seconds the processes of killed workers get to let their work directories go


def sweep_work_dirs_settled() -> None:
    """:func:`sweep_work_dirs` after a pool killed workers slow to unwind (at a high load the grace before
    SIGKILL passes; their directories, BenchExec's run directories inside, waited for the next command): once
    now, once more a moment later (a solver of theirs still exiting holds its lock a little longer)."""
    sweep_work_dirs()
    time.sleep(SETTLE)
    sweep_work_dirs()


def open_work_dir(kind: str, made: list[Path] | None = None) -> tuple[Path, int]:
    """A new locked work directory of ``kind`` and the descriptor that holds its lock, for an owner that is no
    ``with`` block: it closes the descriptor and removes the directory (:func:`close_work_dir`).  ``made``
    gets the path once it exists; one an interrupt left unrecorded is removed at exit (:func:`_remove_left`) or
    by the next command's sweep (its maker's pid in its name).
    The lock file takes its name only once it is locked: a sweep by another process never sees it unlocked."""
    pid, base = os.getpid(), Path(tempfile.gettempdir())
    for _ in range(100):
        path = base / f"{WORK_PREFIX}{kind}-{pid}-{os.urandom(4).hex()}"  # the maker, for a sweep
        _live[path] = pid  # before it exists: a signal's exception at any moment leaves it recorded
        try:
            os.mkdir(path, 0o700)
            break
        except FileExistsError:
            _live.pop(path, None)
    else:
        raise FileExistsError(f"no free work directory name in {base}")
    if made is not None:
        made.append(path)
    fd = os.open(path / f"{WORK_LOCK}{TEMP_SUFFIX}", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.rename(path / f"{WORK_LOCK}{TEMP_SUFFIX}", path / WORK_LOCK)
    return path, fd


def close_work_dir(path: str | Path, fd: int) -> None:
    """Release and remove a directory of :func:`open_work_dir`."""
    os.close(fd)
    remove_tree(Path(path))


def remove_tree(path: Path, tries: int = 5) -> None:
    """``rm -rf path``, and again while it still stands: a child killed a moment ago (a solver, a spooler) may
    still create a file in it after rmtree listed it, and rmtree then leaves the directory behind.  One a
    signal cut short stays recorded, for :func:`_remove_left` at exit."""
    for i in range(tries):
        shutil.rmtree(path, ignore_errors=True)
        if not os.path.lexists(path):
            _live.pop(path, None)
            return
        time.sleep(0.05 * (i + 1))


def sweep_work_dirs(kinds: tuple[str, ...] | None = None, root: Path | None = None) -> list[Path]:
    """Remove the work directories of ``kinds`` (:func:`work_dir`; every kind when None) in ``root`` (default
    ``$TMPDIR``) that no live process holds: those a ``kill -9`` left.  One with no lock file yet is judged by
    its maker, whose pid its name holds: gone (or a zombie), it never will be locked; one with no pid in its
    name (older code) counts only after a day.  One listing of ``root``, no other import: cheap enough for
    every command's start."""
    removed: list[Path] = []
    base = Path(root or tempfile.gettempdir())
    prefixes = tuple(f"{WORK_PREFIX}{kind}-" for kind in kinds) if kinds is not None else (WORK_PREFIX,)
    try:
        entries = [e.name for e in os.scandir(base) if e.name.startswith(prefixes)]
    except OSError:
        return removed
    for name in entries:
        path = base / name
        try:
            fd = os.open(path / WORK_LOCK, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
        except FileNotFoundError:  # being made, or its maker died before locking it
            if _maker_gone(name, path):
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


def _maker_gone(name: str, path: Path) -> bool:
    """Whether the unlocked work directory ``name`` will never be locked: the process named in it is gone,
    or, with no pid in the name, the directory is over a day old."""
    parts = name[len(WORK_PREFIX) :].split("-")
    if len(parts) >= 3 and parts[1].isdigit():
        try:
            with open(f"/proc/{parts[1]}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        except (OSError, IndexError):
            return False
        return state in (b"Z", b"X")
    try:
        return path.is_dir() and time.time() - path.stat().st_mtime > STALE_UNLOCKED
    except OSError:
        return False
