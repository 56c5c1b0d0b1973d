"""A bundle (:mod:`.bundle`) read back: its members checked against its MANIFEST, unpacked, its store read."""

from __future__ import annotations

import hashlib
import json
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..cnf.atomic import work_dir
from ..errors import UsageError

MANIFEST = "MANIFEST"
STORE = "store.sqlite"
CONFIG = "config.yaml"
INFO = "bundle.json"
MAX_MEMBER = 1 << 32  # bytes of one member read back at the most


class BundleError(UsageError):
    """A bundle that cannot be made or read: one line naming the file or member."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: str | Path) -> str | None:
    """The SHA-256 of the file at ``path`` (hex); None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except OSError:
        return None


def verified(path: Path) -> dict[str, bytes]:
    """Every member of the bundle at ``path`` (name -> bytes), each checked against the MANIFEST:
    :class:`BundleError` naming the first member that is missing, extra, changed or not a plain file."""
    members: dict[str, bytes] = {}
    try:
        with tarfile.open(path, mode="r:gz") as tar:
            for info in tar:
                name = info.name
                if not info.isfile() or name.startswith("/") or ".." in Path(name).parts or name in members:
                    raise BundleError(f"{path}: member {name!r} is not a plain file of the bundle: refused")
                if info.size > MAX_MEMBER:
                    raise BundleError(f"{path}: member {name!r} of {info.size} bytes: too large, refused")
                f = tar.extractfile(info)
                assert f is not None
                members[name] = f.read()
    except (OSError, tarfile.TarError, EOFError) as e:
        raise BundleError(f"{path}: not a readable bundle ({getattr(e, 'strerror', None) or e})") from None
    if MANIFEST not in members:
        raise BundleError(f"{path}: no {MANIFEST}: not a cnfgen-queens bundle")
    listed: dict[str, str] = {}
    for line in members[MANIFEST].decode("utf-8", "replace").splitlines():
        digest, sep, name = line.partition("  ")
        if not sep or len(digest) != 64:
            raise BundleError(f"{path}: {MANIFEST}: a line that is not 'SHA-256  NAME': {line[:80]!r}")
        listed[name] = digest
    for name in sorted(set(listed) | set(members) - {MANIFEST}):
        if name not in members:
            raise BundleError(f"{path}: member {name} is in the MANIFEST but not in the bundle: refused")
        if name not in listed:
            raise BundleError(f"{path}: member {name} is not in the MANIFEST: refused")
        if sha256(members[name]) != listed[name]:
            raise BundleError(f"{path}: member {name} does not match its SHA-256 in the MANIFEST: refused")
    return members


def is_bundle(path: Path | str) -> bool:
    """Whether ``path`` looks like a bundle (a gzip file), not a results database."""
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"\x1f\x8b"
    except OSError:
        return False


def extract(members: dict[str, bytes], into: Path) -> None:
    """Write the checked ``members`` under ``into`` (made if needed; files there of the same name replaced)."""
    for name, data in sorted(members.items()):
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


@contextmanager
def store_of(path: Path) -> Iterator[Path]:
    """A results database to read: ``path`` itself, or a bundle's ``store.sqlite`` (checked, in a work folder)."""
    if not is_bundle(path):
        yield path
        return
    members = verified(path)
    with work_dir("bundle") as folder:
        (folder / STORE).write_bytes(members[STORE])
        yield folder / STORE


def info_of(members: dict[str, bytes], path: Path) -> dict[str, Any]:
    try:
        value = json.loads(members[INFO])
    except (KeyError, ValueError):
        raise BundleError(f"{path}: no readable {INFO}: not a cnfgen-queens bundle") from None
    if not isinstance(value, dict):
        raise BundleError(f"{path}: {INFO} is not a JSON object")
    return value
