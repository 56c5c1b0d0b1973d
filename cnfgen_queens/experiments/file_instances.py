"""``instances.files`` of a batch config: DIMACS files (plain or .gz/.bz2/.xz) solved beside the queens.

Each glob is relative to the config's folder.  Every file is read as ``solve`` reads one (its header
through :func:`~cnfgen_queens.cnf.dimacs.read_header_file`, the same bounds; the runs stream it
through the solver's input check) and identified by its GBD hash, so the same file under two names is
one instance, and a file changed after the config was read is never solved (the worker hashes it again).
Its ``family`` is the name of its folder (a benchmark set kept in a folder is a family); its label (the
``encoding`` column) is the file's name without ``.cnf`` and a compression suffix; its ``n`` is 0.
"""

from __future__ import annotations

import glob
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..cnf.compressed import CODECS
from ..cnf.dimacs import read_header_file
from ..cnf.gbd_hash import gbd_hash
from ..errors import UsageError
from .config_check import Check

FILE_KEYS = ("files",)
MAX_FILES = 10_000  # files one config names (each is hashed when the config is read)
QUEENS = "queens"  # the family of a generated instance


def generated(family: str | None) -> bool:
    """Whether a run's ``family`` column says its instance is a generated N-queens formula (None: a run stored
    before the column, all generated)."""
    return family is None or family == QUEENS


@dataclass(frozen=True)
class InstanceFile:
    """A DIMACS file of the config: where it is, its family and label, its GBD hash and header sizes."""

    path: str  # absolute
    family: str
    label: str
    gbd_hash: str
    variables: int
    clauses: int

    def normalized(self) -> dict[str, Any]:
        """What determines its runs' results (not where it is)."""
        return {"gbd_hash": self.gbd_hash, "family": self.family, "name": self.label}


def label_of(path: Path) -> str:
    """``php-5-4`` of ``php-5-4.cnf.xz``: the name without a compression suffix and ``.cnf``."""
    name = path.name
    for codec in CODECS:
        name = name.removesuffix(codec.suffix)
    return name.removesuffix(".cnf") or name


def instance_files(c: Check, value: Any, source: str) -> tuple[InstanceFile, ...]:
    """The files ``instances.files`` names (globs relative to the config's folder), sorted by path, each
    once (by GBD hash: a copy under another name is the same instance); a glob matching nothing, a file
    ``solve`` would refuse or too many files are config errors naming the glob."""
    patterns = value if isinstance(value, list) else [value]
    if not patterns or not all(isinstance(p, str) and p.strip() for p in patterns):
        c.expected("instances.files", "a list of file names or globs (relative to the config's folder)", value)
    base = Path(source).parent if not source.startswith("<") else Path()  # "<config>": a mapping from Python
    found: dict[str, tuple[int, Path]] = {}
    for i, pattern in enumerate(patterns):
        full = Path(pattern).expanduser()
        full = full if full.is_absolute() else base / full
        matches = sorted(Path(m) for m in glob.glob(str(full), recursive=True) if Path(m).is_file())
        if not matches:
            c.fail(f"instances.files[{i}]", f"no file matches {pattern!r} (relative to {base.resolve()})")
        for m in matches:
            found.setdefault(str(m.resolve()), (i, m))
        if len(found) > MAX_FILES:
            c.fail(f"instances.files[{i}]", f"over {MAX_FILES} files: the grid would be too large")
    files: dict[str, InstanceFile] = {}
    for path_text, (i, shown) in sorted(found.items()):
        path = Path(path_text)
        try:
            header = read_header_file(path, None)
            digest = gbd_hash(path)
        except (UsageError, OSError) as e:  # DimacsError, InputError (a corrupt archive), unreadable
            cause = getattr(e, "strerror", None) or str(e)
            c.fail(f"instances.files[{i}]", cause if str(shown) in cause else f"{shown}: {cause}")
        files.setdefault(
            digest,
            InstanceFile(
                path_text, path.parent.name or "files", label_of(path), digest, header.num_vars, header.num_clauses
            ),
        )
    return tuple(files.values())
