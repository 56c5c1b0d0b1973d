"""The bounds of a certificate's manifest, checked before any work (:mod:`.certificate_check`).

A manifest comes from outside: every field the check reads must have its type and lie within a
bound before anything is built from it, so that a forged one (``n`` of 10^9, a count of 10^100, a list
of a million cubes, JSON nested ten thousand deep) is refused in one line instead of running for ever.
N is bounded by gen-queens' own cap (:data:`.formula.MAX_N`), then by the size cap of a formula held
in memory (:func:`.size_cap.check_held_size`, in :func:`.certificate_check.regenerate`); the number of
cubes by N*N, so that the work the check does (one cube's boards and proof at a time) follows the
certificate's length.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from cnfgen_queens.bounds import MAX_TEXT, TooLarge, json_value, read_text
from cnfgen_queens.errors import UsageError
from cnfgen_queens.model.formula import MAX_N
from cnfgen_queens.model.variants import CELLS_PER_LINE

MAX_NAME = 256  # characters of an encoding's name or a file name in the manifest
SHA256 = re.compile(r"[0-9a-f]{64}")


class ManifestRejected(Exception):
    """A manifest field out of its bounds; the message names the field (a :class:`.CertificateRejected`)."""


def load_manifest(path: Path) -> Any:
    """The JSON of ``path``, read within :data:`.bounds.MAX_TEXT` bytes; UsageError naming the file when it
    cannot be read, is not JSON, or nests deeper than the parser goes."""
    try:
        return json_value(read_text(path, MAX_TEXT, "certificate manifest", UsageError))
    except FileNotFoundError:
        raise
    except UnicodeDecodeError as e:
        raise UsageError(f"{path} is not a text manifest (byte {e.start} is not UTF-8): not a certificate's "
                         "manifest.json") from None  # fmt: skip
    except (OSError, ValueError) as e:  # TooLarge and UsageError are ValueErrors
        if isinstance(e, TooLarge | UsageError):
            raise UsageError(str(e)) from None
        raise UsageError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _integer(manifest: dict[str, Any], key: str, low: int, high: int | None) -> int:
    value = manifest.get(key)
    if type(value) is not int or value < low or (high is not None and value > high):
        within = f"{low}..{high:,}" if high is not None else f">= {low}"
        raise ManifestRejected(f"the manifest's {key} is not an integer in {within}: {_short(value)}")
    return value


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not 0 < len(value) <= MAX_NAME:
        raise ManifestRejected(f"the manifest's {what} is not a name of 1..{MAX_NAME} characters: {_short(value)}")
    return value


def check_bounds(manifest: dict[str, Any]) -> None:
    """Raise ManifestRejected, naming the field, for any field the check reads that is of the wrong type
    or out of its bound (N within gen-queens' cap, counts non-negative and at most what N allows, lists
    no longer than N allows); nothing is built from the manifest before this passes."""
    n = _integer(manifest, "n", 1, MAX_N)
    cells = n * n
    _name(manifest.get("encoding"), "encoding")
    if type(manifest.get("column_alo")) is not bool:
        raise ManifestRejected(f"the manifest's column_alo is not true or false: {_short(manifest.get('column_alo'))}")
    if manifest.get("group_size") is not None:
        _integer(manifest, "group_size", 1, cells)
    variant = manifest.get("variant", [])
    lines = 2 + 2 * (cells // CELLS_PER_LINE + 1)  # torus, random; placed and blocked squares, 16 a line
    if not isinstance(variant, list) or len(variant) > lines or not all(isinstance(v, str) for v in variant):
        raise ManifestRejected(f"the manifest's variant is not a list of at most {lines} lines: {_short(variant)}")
    if not isinstance(manifest.get("formula_sha256"), str) or not SHA256.fullmatch(manifest["formula_sha256"]):
        raise ManifestRejected(f"the manifest's formula_sha256 is not a SHA-256 in hex: "
                               f"{_short(manifest.get('formula_sha256'))}")  # fmt: skip
    entries = manifest.get("cubes")
    if not isinstance(entries, list) or len(entries) > cells:  # N = 2, 3: no cubes at all
        size = f"{len(entries):,} cubes" if isinstance(entries, list) else _short(entries)
        raise ManifestRejected(f"the manifest's cubes are not a list of at most {cells:,} cubes (N={n}): {size}")
    for i, entry in enumerate(entries, 1):
        _cube_entry(entry, i, n)
    _integer(manifest, "total", 0, None)
    _name(manifest.get("cover_proof"), "cover_proof")


def _cube_entry(entry: Any, i: int, n: int) -> None:
    if not isinstance(entry, dict):
        raise ManifestRejected(f"the manifest's cube {i} is not an object: {_short(entry)}")
    cube = entry.get("cube")
    if (not isinstance(cube, list) or not 0 < len(cube) <= 2
            or not all(type(x) is int and 0 < x <= n * n for x in cube)):  # fmt: skip
        raise ManifestRejected(f"the manifest's cube {i} is not one or two cells of 1..{n * n}: {_short(cube)}")
    count = entry.get("count")
    if type(count) is not int or count < 0:
        raise ManifestRejected(f"the manifest's cube {i} count is not an integer >= 0: {_short(count)}")
    for key in ("solutions", "proof"):
        _name(entry.get(key), f"cube {i} {key}")
