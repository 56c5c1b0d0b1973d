#!/usr/bin/env python3
"""Add the installed PySAT's at-most-one counts to ``cnfgen_queens/data/pysat_counts.csv``.

``pysat:*`` encodings have no closed form here (PySAT's C++ encoders have size quirks:
sortnetwrk rounds up to powers of two, mtotalizer is irregular), so their
``(clauses, auxiliaries)`` for line lengths 0..TABLE_MAX_N are measured by building
each one with the installed PySAT and stored under its version.  At run time a
version found in the table is looked up; any other version is measured as before.
tests/test_pysat_counts.py checks the installed version's rows against a build.

    python scripts/pysat_counts_table.py          # add or replace the installed version's rows
    python scripts/pysat_counts_table.py --check  # exit 1 if the rows differ from a build
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path

from cnfgen_queens import encodings
from cnfgen_queens.cnf.atomic import atomic_output
from cnfgen_queens.encodings import measured_counts
from cnfgen_queens.encodings.pysat_card import (
    PREFIX,
    PYSAT_ENCODINGS,
    TABLE,
    TABLE_HEADER,
    TABLE_MAX_N,
    installed_version,
    read_table,
)


def measured_rows(version: str) -> list[str]:
    rows = []
    for kind in PYSAT_ENCODINGS:
        build = encodings.get(PREFIX + kind).build
        counts = [measured_counts(build, n) for n in range(TABLE_MAX_N + 1)]
        clauses = " ".join(str(c) for c, _ in counts)
        aux = " ".join(str(a) for _, a in counts)
        rows.append(f"{version},{kind},{clauses},{aux}")
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--check", action="store_true", help="compare the installed version's rows with a build")
    args = ap.parse_args(argv)
    version = installed_version()
    path = Path(str(resources.files("cnfgen_queens").joinpath(TABLE)))
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    rows = measured_rows(version)
    if args.check:
        table = read_table(text).get(version)
        want = read_table("\n".join([TABLE_HEADER, *rows])).get(version)
        same = table == want
        print(f"PySAT {version}: {'table matches a build' if same else 'table MISSING or DIFFERENT'}")
        return 0 if same else 1
    comments = [line for line in text.splitlines() if line.startswith("#")]
    kept = [line for line in text.splitlines()[len(comments) + 1 :] if line and not line.startswith(f"{version},")]
    body = "\n".join([*comments, TABLE_HEADER, *sorted(kept), *rows]) + "\n"
    with atomic_output(path) as f:
        f.write(body.encode())
    print(f"{path}: {len(rows)} rows for PySAT {version} (n = 0..{TABLE_MAX_N})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
