"""Directories the tool owns (``--out``, ``--certify``, ``--html``, a batch's kept output): its files there
are opened without following a link, and one process at a time works in one.

The directory the user names is taken as given (it may itself be a symlink: the user chose it).  Below
it, every folder and file is opened relative to its parent's descriptor with ``O_NOFOLLOW``, so a
symbolic link planted in the directory (``d/current.cnf -> ~/victim``) is refused in one line,
:class:`PlantedLink`, and nothing outside the directory is read, written or removed; so is a hard link where
a file is written in place (the lock file, ``solutions.txt``: the other name would change with it).  A rename or an
unlink relative to the descriptor replaces or removes a link itself, never the file it names.

:func:`lock_dir` holds an advisory lock (``flock``) on ``.cnfgen-queens.lock`` in the directory for as
long as a run uses it; the lock file holds the holder's pid and command, so that a second process is
refused in one line naming it.  The kernel drops the lock when the holder dies, ``kill -9`` included.
"""

from __future__ import annotations

import errno
import fcntl
import itertools
import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path, PurePath

from ..errors import UsageError, printable

LOCK_FILE = ".cnfgen-queens.lock"
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_LINK_ERRNOS = (errno.ELOOP, errno.ENOTDIR, errno.EMLINK)  # what O_NOFOLLOW meets at a link (EMLINK: BSDs)


class PlantedLink(UsageError):
    """A symbolic link where the tool writes a file or folder of its own directory, or a file it writes in
    place there that has another name (a hard link)."""


class DirInUse(UsageError):
    """A work directory another live process holds (:func:`lock_dir`)."""


def refused_link(shown: Path | str, dir_fd: int, name: str) -> PlantedLink:
    try:
        target = f" (to {os.readlink(name, dir_fd=dir_fd)})"
    except OSError:
        target = ""
    return PlantedLink(
        f"{shown} is a symbolic link{target} in a directory cnfgen-queens writes; it is not "
        "followed and nothing was written: remove it, or choose another directory"
    )


def is_link(dir_fd: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


HERE = PurePath()


def open_dir(root: Path, rel: PurePath = HERE, *, create: bool = False) -> int:
    """A descriptor of ``root / rel``: ``root`` opened as named, each folder of ``rel`` without following a
    link (created when ``create``); :class:`PlantedLink` for a link on the way."""
    fd = os.open(root, _DIR_FLAGS)
    try:
        where = Path(root)
        for part in rel.parts:
            where = where / part
            try:
                sub = os.open(part, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
                sub = os.open(part, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as e:
                if e.errno in _LINK_ERRNOS and is_link(fd, part):
                    raise refused_link(where, fd, part) from None
                raise
            os.close(fd)
            fd = sub
    except BaseException:
        os.close(fd)
        raise
    return fd


def split(path: Path, owned: Path) -> tuple[PurePath, str]:
    """(the folders between ``owned`` and ``path``, the file's name); ``path`` must lie below ``owned``."""
    rel = PurePath(path).relative_to(owned)  # ValueError when it is not
    if not rel.parts or ".." in rel.parts:
        raise ValueError(f"{path} is not inside {owned}")
    return rel.parent, rel.name


def open_owned(path: Path, owned: Path, flags: int, mode: int = 0o666) -> int:
    """``os.open(path, flags)`` for a file of the directory ``owned`` (folders created on the way), never
    through a link: :class:`PlantedLink` names one.  A file opened to be written must have no other name: a
    hard link (``st_nlink > 1``) is refused too, before anything is written (``O_TRUNC`` applied after)."""
    rel, name = split(path, owned)
    dir_fd = open_dir(owned, rel, create=bool(flags & os.O_CREAT))
    try:
        try:
            fd = os.open(name, (flags & ~os.O_TRUNC) | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dir_fd)
        except OSError as e:
            if e.errno in _LINK_ERRNOS and is_link(dir_fd, name):
                raise refused_link(path, dir_fd, name) from None
            raise OSError(e.errno, e.strerror, str(path)) from None  # the name the user knows, not the relative one
    finally:
        os.close(dir_fd)
    if flags & (os.O_WRONLY | os.O_RDWR | os.O_TRUNC):
        try:
            st = os.fstat(fd)
            if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                raise PlantedLink(
                    f"{path} has {st.st_nlink} hard links in a directory cnfgen-queens writes; writing "
                    "it would change every other name of it, so nothing was written: remove it, or "
                    "choose another directory"
                )
            if flags & os.O_TRUNC:
                os.ftruncate(fd, 0)
        except BaseException:
            os.close(fd)
            raise
    return fd


def refuse_links(owned: Path, names: Iterable[str]) -> None:
    """:class:`PlantedLink` when any of ``names`` (relative to ``owned``, globs allowed) is a link, or lies in
    a linked folder: checked before any work, so a run refused leaves everything as it was."""
    if not Path(owned).is_dir():
        return
    for name in names:
        rel = PurePath(name)
        if any(ch in name for ch in "*?["):  # a glob over existing entries: check each folder on the way
            fixed = [part for part in itertools.takewhile(lambda p: not any(c in p for c in "*?["), rel.parts)]
            if fixed:
                refuse_links(owned, [str(PurePath(*fixed))])
            for found in sorted(Path(owned).glob(name)):
                refuse_links(owned, [str(found.relative_to(owned))])
            continue
        try:
            fd = open_dir(owned, rel.parent)
        except OSError:  # not there (yet): nothing to follow
            continue
        try:
            if is_link(fd, rel.name):
                raise refused_link(Path(owned) / rel, fd, rel.name)
        finally:
            os.close(fd)


def not_a_file(shown: Path | str, mode: int) -> PlantedLink:
    """The refusal of a directory, FIFO, device or socket where the tool writes a file of its own."""
    kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
    return PlantedLink(
        f"{shown} is {kind} where cnfgen-queens writes a file of its own; nothing was written: "
        "remove it, or choose another directory"
    )


def refuse_planted(owned: Path, folder: str, names: Iterable[str], *, hard_links: bool = False) -> None:
    """:class:`PlantedLink` when the folder ``folder`` of ``owned`` is a link, or holds, at one of ``names`` (files
    the tool will write there), a symbolic link or anything not a regular file (a folder); with ``hard_links``,
    a file with another name too (someone else's: a batch's own files have one).  One listing of the folder
    however many names: checked before any work, or before the first of several files is replaced."""
    try:
        fd = open_dir(owned, PurePath(folder))
    except FileNotFoundError:  # not there yet: nothing planted
        return
    try:
        wanted = set(names)
        with os.scandir(fd) as entries:
            found = [(entry.name, entry.stat(follow_symlinks=False)) for entry in entries if entry.name in wanted]
        for name, st in sorted(found):
            shown = Path(owned) / folder / name
            if stat.S_ISLNK(st.st_mode):
                raise refused_link(shown, fd, name)
            if not stat.S_ISREG(st.st_mode):
                raise not_a_file(shown, st.st_mode)
            if hard_links and st.st_nlink > 1:
                raise PlantedLink(
                    f"{shown} is a hard link (one of {st.st_nlink} names of one file) in a directory "
                    "cnfgen-queens writes; nothing was written: remove it, or choose another "
                    "directory"
                )
    finally:
        os.close(fd)


def unlink_owned(path: Path, owned: Path) -> None:
    """Remove the file ``path`` of ``owned`` (a link there is removed itself, never what it names)."""
    rel, name = split(path, owned)
    dir_fd = open_dir(owned, rel)
    try:
        os.unlink(name, dir_fd=dir_fd)
    finally:
        os.close(dir_fd)


def _command() -> str:
    import shlex

    return printable(shlex.join([Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "python", *sys.argv[1:]]))


_SEEN_FROM = "pid namespace"  # the lock file's second line: where the holder's pid is its pid


def _namespace() -> str:
    """This process's PID namespace and host (``pid:[4026531836] host h1``): a pid names a process only there."""
    try:
        ns = os.readlink("/proc/self/ns/pid")
    except OSError:  # no /proc: the host alone
        ns = "?"
    return f"{ns} host {os.uname().nodename}"


def _holder(text: str) -> str:
    """Who holds the lock, from the lock file's text: its first line (``process 12 (cmd)``), said to be of
    another PID namespace or host when its second line names one (a container, a host sharing the directory),
    where that pid is not the process of that number here."""
    lines = text.strip().splitlines()
    if not lines:
        return "another process"
    seen = next((line.removeprefix(_SEEN_FROM).strip() for line in lines[1:] if line.startswith(_SEEN_FROM)), None)
    if seen is not None and seen != _namespace():
        return f"a process of another PID namespace or host ({seen}; there: {lines[0]})"
    return lines[0]


@contextmanager
def lock_dir(directory: Path, flag: str = "--out") -> Iterator[Callable[[], None]]:
    """Hold ``directory`` (made if missing) for this process while the block runs; :class:`DirInUse`, naming
    the holder's pid and command, when another process holds it.  ``flag`` names the option in messages.

    Yields a check to call before each write into the directory by name: :class:`PlantedLink` once its name
    no longer leads to the directory locked (renamed away, a link to another one put in its place: the
    writes went into that other directory)."""
    try:
        Path(directory).mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"cannot use {flag} {directory}: {e.strerror or e}") from None
    lock = Path(directory) / LOCK_FILE
    refuse_planted(Path(directory), ".", [LOCK_FILE])  # a directory there: EISDIR at the open
    fd = open_owned(lock, Path(directory), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):  # a FIFO (flock: EINVAL), a device; put there after the look above too
            raise not_a_file(lock, mode)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(os.pread(fd, 4096, 0).decode("utf-8", "replace"))
            raise DirInUse(
                f"{flag} {directory} is in use by {printable(holder)}; wait for it to end, or choose another directory"
            ) from None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"process {os.getpid()} ({_command()})\n{_SEEN_FROM} {_namespace()}\n".encode(), 0)
        except OSError as e:  # a full disk: the file is named, not "output"
            raise OSError(e.errno, e.strerror, str(lock)) from None

        def still_ours() -> None:
            try:
                now = os.stat(lock)
            except OSError:
                now = None
            mine = os.fstat(fd)
            if now is None or (now.st_dev, now.st_ino) != (mine.st_dev, mine.st_ino):
                raise PlantedLink(
                    f"{flag} {directory} was replaced during the run (renamed, or a link put in its "
                    "place); nothing more was written there"
                )

        try:
            yield still_ours
        finally:
            os.ftruncate(fd, 0)  # no holder any more
    finally:
        os.close(fd)  # the lock goes with the descriptor (with the process, on kill -9)
