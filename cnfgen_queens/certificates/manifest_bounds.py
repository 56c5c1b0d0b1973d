"""The bounds of a certificate's manifest, checked before any work (:mod:`.certificate_check`).

A manifest comes from outside: every field the check reads must have its type and lie within a
bound before anything is built from it, so that a forged one (``n`` of 10^9, a count of 10^100, a list
of a million cubes, JSON nested ten thousand deep) is refused in one line instead of running for ever.
N is bounded by :func:`largest_n`, the last N with a published count (27): the check bounds every cube's
boards and the total by the plain board's published count, and above the last one nothing bounds them
(the plain board of N = 27 alone has 2.3 x 10^17); then by the size cap of a formula held in memory
(:func:`.size_cap.check_held_size`, in :func:`.certificate_check.regenerate`).  The number of cubes is
bounded by N*N, so that the work the check does (one cube's boards and proof at a time) follows the
certificate's length.

Sizes are bounded by what a real certificate of that N can be (measured, ``count N --certify``, CaDiCaL
1.9.5): the manifest by its cubes (:func:`manifest_cap`, about 130 bytes a cube written), read only
after a look at its N (the smallest ``"n"`` in its text, within :func:`largest_n`: another key can only
lower the cap), so that a forged one of 55 MB is refused unparsed; each DRAT proof by
:func:`proof_cap`; each cube's boards, and the total, by the published count of the plain board
(every variant's boards are boards of the plain N x N board).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from cnfgen_queens.bounds import MAX_TEXT, TooLarge, json_value, read_text
from cnfgen_queens.errors import UsageError
from cnfgen_queens.model.known_counts import known_counts
from cnfgen_queens.model.variants import CELLS_PER_LINE

MAX_NAME = 256  # characters of an encoding's name or a file name in the manifest
SHA256 = re.compile(r"[0-9a-f]{64}")
N_KEY = re.compile(r'"n"\s*:\s*([0-9]{1,12})')  # the manifest's N, looked at before the JSON is parsed
MANIFEST_BASE = 64 * 1024  # bytes of a manifest besides its cubes and variant lines (real: about 400)
MANIFEST_PER_CUBE = 512  # bytes a cube's entry may take (real: 128-130 with json.dumps(indent=1))
MANIFEST_PER_LINE = 256  # bytes a variant line may take (16 squares)
# The largest cube proof of a real certificate, bytes, all encodings at N = 11 and pairwise at N = 12:
# N = 9: 2,237; 10: 7,104; 11: 66,170 (pairwise) to 93,632 (product); 12: 349,812 (x5.4 a step from N = 9).
# A proof may be 12 times the largest seen at N = 12 and grows 6 times a step, never under 1 MiB.
PROOF_CAP_12 = 4 * 2**20
PROOF_GROWTH = 6
PROOF_CAP_MIN = 2**20


class ManifestRejected(Exception):
    """A manifest field out of its bounds; the message names the field (a :class:`.CertificateRejected`)."""


def manifest_cap(n: int) -> int:
    """The most bytes a manifest of a certificate of N can take (its cubes and variant lines at most)."""
    lines = 2 + 2 * (n * n // CELLS_PER_LINE + 1)
    return MANIFEST_BASE + MANIFEST_PER_CUBE * n * n + MANIFEST_PER_LINE * lines


def proof_cap(n: int) -> int:
    """The most bytes a DRAT proof of a certificate of N may have (see :data:`PROOF_CAP_12`)."""
    return max(PROOF_CAP_MIN, int(PROOF_CAP_12 * float(PROOF_GROWTH) ** (n - 12))) if n < 40 else 2**62


def most_boards(n: int) -> int | None:
    """The most boards a certificate of N can list: the plain board's published count (None above N = 27)."""
    known = known_counts().get(n)
    return None if known is None else known[0]


def largest_n() -> int:
    """The largest N a certificate is checked for (and written for): the last with a published count, which
    bounds the boards it may list.

    >>> largest_n()
    27
    """
    return max(known_counts())


def size_text(size: int) -> str:
    """Bytes as the refusals say them: ``55.0 MB``, ``452.0 KB``."""
    return f"{size / 2**20:.1f} MB" if size >= 2**20 else f"{size / 1024:.1f} KB"


def load_manifest(path: Path) -> Any:
    """The JSON of ``path``, read within :data:`.bounds.MAX_TEXT` bytes and within :func:`manifest_cap` of the
    smallest N it names, at most :func:`largest_n` (looked at before the JSON is parsed, and again after, for
    the N it holds); UsageError naming the file when it cannot be read, is not JSON, nests deeper than the
    parser goes, or is larger than a certificate of its N can be."""
    try:
        text = read_text(path, MAX_TEXT, "certificate manifest", UsageError)
        named = min((int(m) for m in N_KEY.findall(text)), default=1)  # another "n" can only lower the cap
        n = min(named, largest_n())
        if len(text) > manifest_cap(n):
            beyond = f"; N={named} is above N={n}, the largest N a certificate is checked for" if named > n else ""
            raise UsageError(
                f"{path}: {size_text(len(text))}, more than the manifest of a certificate of N={n} "
                f"can be ({size_text(manifest_cap(n))}){beyond}; refused unparsed"
            )
        data = json_value(text)
    except FileNotFoundError:
        raise
    except UnicodeDecodeError as e:
        raise UsageError(
            f"{path} is not a text manifest (byte {e.start} is not UTF-8): not a certificate's manifest.json"
        ) from None
    except (OSError, ValueError) as e:  # TooLarge and UsageError are ValueErrors
        if isinstance(e, TooLarge | UsageError):
            raise UsageError(str(e)) from None
        raise UsageError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
    held = data.get("n") if isinstance(data, dict) else None
    if type(held) is int and 0 < held <= largest_n() and len(text) > manifest_cap(held):
        raise UsageError(
            f"{path}: {size_text(len(text))}, more than the manifest of a certificate of N={held} "
            f"can be ({size_text(manifest_cap(held))})"
        )
    return data


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
    or out of its bound (N within :func:`largest_n`, counts non-negative and at most what N allows, lists
    no longer than N allows); nothing is built from the manifest before this passes."""
    n = _integer(manifest, "n", 1, largest_n())
    cells = n * n
    _name(manifest.get("encoding"), "encoding")
    for key, default in (("column_alo", None), ("break_symmetry", False)):  # break_symmetry: only when true
        if type(manifest.get(key, default)) is not bool:
            raise ManifestRejected(f"the manifest's {key} is not true or false: {_short(manifest.get(key))}")
    if manifest.get("group_size") is not None:
        _integer(manifest, "group_size", 1, cells)
    variant = manifest.get("variant", [])
    lines = 2 + 2 * (cells // CELLS_PER_LINE + 1)  # torus, random; placed and blocked squares, 16 a line
    if not isinstance(variant, list) or len(variant) > lines or not all(isinstance(v, str) for v in variant):
        raise ManifestRejected(f"the manifest's variant is not a list of at most {lines} lines: {_short(variant)}")
    if not isinstance(manifest.get("formula_sha256"), str) or not SHA256.fullmatch(manifest["formula_sha256"]):
        raise ManifestRejected(
            f"the manifest's formula_sha256 is not a SHA-256 in hex: {_short(manifest.get('formula_sha256'))}"
        )
    entries = manifest.get("cubes")
    if not isinstance(entries, list) or len(entries) > cells:  # N = 2, 3: no cubes at all
        size = f"{len(entries):,} cubes" if isinstance(entries, list) else _short(entries)
        raise ManifestRejected(f"the manifest's cubes are not a list of at most {cells:,} cubes (N={n}): {size}")
    most = most_boards(n)
    for i, entry in enumerate(entries, 1):
        _cube_entry(entry, i, n, most)
    _integer(manifest, "total", 0, most)
    _name(manifest.get("cover_proof"), "cover_proof")


def check_counts(manifest: dict[str, Any], counts: tuple[int, int], formula: str) -> None:
    """Raise ManifestRejected unless the manifest's ``variables`` and ``clauses`` are ``counts``, those of the
    formula it names (``formula``, as the refusal describes it): a count the formula does not have is forged."""
    for key, count in zip(("variables", "clauses"), counts, strict=True):
        value = manifest.get(key)
        if type(value) is not int or value != count:
            raise ManifestRejected(
                f"the manifest's {key} is {_short(value)}, but the formula it names ({formula}) has {count:,}"
            )


def _cube_entry(entry: Any, i: int, n: int, most: int | None) -> None:
    if not isinstance(entry, dict):
        raise ManifestRejected(f"the manifest's cube {i} is not an object: {_short(entry)}")
    cube = entry.get("cube")
    if not isinstance(cube, list) or not 0 < len(cube) <= 2 or not all(type(x) is int and 0 < x <= n * n for x in cube):
        raise ManifestRejected(f"the manifest's cube {i} is not one or two cells of 1..{n * n}: {_short(cube)}")
    count = entry.get("count")
    if type(count) is not int or count < 0 or (most is not None and count > most):
        within = ">= 0" if most is None else f"in 0..{most:,} (N={n} has {most:,} boards)"
        raise ManifestRejected(f"the manifest's cube {i} count is not an integer {within}: {_short(count)}")
    for key in ("solutions", "proof"):
        _name(entry.get(key), f"cube {i} {key}")
