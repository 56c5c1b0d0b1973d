"""An instance given as a DIMACS file (plain or .gz/.bz2/.xz, ``instances.files`` of a batch config), solved
beside the queens, and a run's ``family``: ``queens`` for a generated formula.

The config reads the files (:func:`cnfgen_queens.experiments.config.instance_files`); each is identified by
its GBD hash, so the same file under two names is one instance, and a file changed after the config was read
is never solved (the worker hashes it again).  Its ``family`` is the name of its folder (a benchmark set
kept in a folder is a family); its label (the ``encoding`` column) is the file's name without ``.cnf`` and
a compression suffix; its ``n`` is 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..cnf.compressed import CODECS

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
