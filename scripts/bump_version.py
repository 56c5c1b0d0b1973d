#!/usr/bin/env python3
"""Move the version everywhere it is written: ``python scripts/bump_version.py X.Y.Z [--date YYYY-MM-DD]``.

The version's one source is ``cnfgen_queens/version.py`` (the package metadata reads it there); what
repeats it, and moves with it here, is ``CITATION.cff`` (``version`` and ``date-released``), the
``## [Unreleased]`` section of ``CHANGELOG.md`` (which becomes ``## [X.Y.Z] - DATE`` under a new, empty
one) and the ``c cnfgen-queens X.Y.Z`` header lines printed in README.md and docs/*.md.  ``--check``
changes nothing: it prints the version each place names and exits 1 when they differ.  Every file is
written atomically (temporary file and rename), and nothing is written unless every place was found.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEMVER = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)")
VERSION_LINE = re.compile(r'^__version__ = "([^"]+)"$', re.M)
CFF_VERSION = re.compile(r"^version: ?\"?([^\"\n]+)\"?$", re.M)
CFF_DATE = re.compile(r"^date-released: ?\"?(\d{4}-\d{2}-\d{2})\"?$", re.M)
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", re.M)
UNRELEASED = "## [Unreleased]"
HEADER = re.compile(r"^c cnfgen-queens (\S+?):", re.M)  # a CNF's first line, as printed in the docs


def documented(root: Path) -> list[Path]:
    """The pages whose printed outputs hold the version: README.md and docs/*.md."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def versions(root: Path) -> dict[str, set[str]]:
    """The version (or versions) each place names; an empty set where it names none."""
    latest = RELEASE.search((root / "CHANGELOG.md").read_text())  # the newest release, first below Unreleased
    found = {
        "cnfgen_queens/version.py": set(VERSION_LINE.findall((root / "cnfgen_queens/version.py").read_text())),
        "CITATION.cff": set(CFF_VERSION.findall((root / "CITATION.cff").read_text())),
        "CHANGELOG.md": {latest.group(1)} if latest else set(),
    }
    for page in documented(root):
        hits = set(HEADER.findall(page.read_text()))
        if hits:
            found[str(page.relative_to(root))] = hits
    return found


def _write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _sub_once(pattern: re.Pattern[str], new: str, text: str, where: str) -> str:
    out, n = pattern.subn(new, text)
    if n != 1:
        raise SystemExit(f"bump_version: {where}: expected one match of {pattern.pattern!r}, found {n}")
    return out


def bump(root: Path, new: str, date: str) -> list[Path]:
    """The new texts of every place, written only once all of them were made; returns the files changed."""
    old = VERSION_LINE.findall((root / "cnfgen_queens/version.py").read_text())
    if len(old) != 1:
        raise SystemExit("bump_version: cnfgen_queens/version.py: no single __version__ line")
    if _key(new) <= _key(old[0]):
        raise SystemExit(f"bump_version: {new} is not after the present version {old[0]}")
    texts: dict[Path, str] = {}
    path = root / "cnfgen_queens/version.py"
    texts[path] = _sub_once(VERSION_LINE, f'__version__ = "{new}"', path.read_text(), "version.py")
    path = root / "CITATION.cff"
    text = _sub_once(CFF_VERSION, f"version: {new}", path.read_text(), "CITATION.cff")
    texts[path] = _sub_once(CFF_DATE, f"date-released: {date}", text, "CITATION.cff")
    path = root / "CHANGELOG.md"
    text = path.read_text()
    if text.count(UNRELEASED + "\n") != 1:
        raise SystemExit(f"bump_version: CHANGELOG.md: expected one line {UNRELEASED!r}")
    if f"## [{new}]" in text:
        raise SystemExit(f"bump_version: CHANGELOG.md already has a section {new}")
    texts[path] = text.replace(UNRELEASED + "\n", f"{UNRELEASED}\n\n## [{new}] - {date}\n", 1)
    for page in documented(root):
        text = page.read_text()
        changed = re.sub(rf"^c cnfgen-queens {re.escape(old[0])}:", f"c cnfgen-queens {new}:", text, flags=re.M)
        if changed != text:
            texts[page] = changed
    for path, text in texts.items():
        _write(path, text)
    return list(texts)


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


def _date(text: str) -> str:
    try:
        return datetime.date.fromisoformat(text).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date YYYY-MM-DD: {text!r}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("version", nargs="?", help="the new version, MAJOR.MINOR.PATCH")
    parser.add_argument("--date", type=_date, default=None, help="the release date (default: today, UTC)")
    parser.add_argument("--check", action="store_true", help="change nothing: print each place's version")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout (default: this script's)")
    args = parser.parse_args(argv)
    if args.check:
        if args.version is not None or args.date is not None:
            parser.error("--check takes no version and no --date")
        found = versions(args.root)
        for place, names in found.items():
            print(f"{place}: {', '.join(sorted(names)) or 'none'}")
        return 0 if len(set().union(*found.values())) == 1 and all(found.values()) else 1
    if args.version is None or not SEMVER.fullmatch(args.version):
        parser.error(f"a version MAJOR.MINOR.PATCH is needed, not {args.version!r}")
    date = args.date or datetime.datetime.now(datetime.UTC).date().isoformat()
    for path in bump(args.root, args.version, date):
        print(f"{path.relative_to(args.root)}: {args.version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
