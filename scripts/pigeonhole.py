"""Write the pigeonhole formulas of data/pigeonhole/ (the DIMACS files configs/files-and-profiles.yaml solves).

PHP(p, h): p pigeons in h holes, variable (i - 1) * h + j says pigeon i sits in hole j; every pigeon
sits somewhere, no two share a hole.  Unsatisfiable exactly when p > h.  Run from the repository's root:
``python scripts/pigeonhole.py`` writes php-5-4.cnf (UNSAT) and php-4-4.cnf.gz (SAT), byte for byte the same
each time (gzip without a name or time stamp).
"""

from __future__ import annotations

import gzip
from pathlib import Path


def pigeonhole(pigeons: int, holes: int) -> str:
    """The DIMACS text of PHP(pigeons, holes)."""
    var = lambda i, j: i * holes + j + 1
    clauses = [[var(i, j) for j in range(holes)] for i in range(pigeons)]
    clauses += [[-var(a, j), -var(b, j)] for j in range(holes) for a in range(pigeons) for b in range(a + 1, pigeons)]
    lines = [f"c pigeonhole: {pigeons} pigeons, {holes} holes", f"p cnf {pigeons * holes} {len(clauses)}"]
    return "\n".join([*lines, *(" ".join(map(str, c)) + " 0" for c in clauses)]) + "\n"


def main() -> None:
    folder = Path("data/pigeonhole")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "php-5-4.cnf").write_text(pigeonhole(5, 4))
    (folder / "php-4-4.cnf.gz").write_bytes(gzip.compress(pigeonhole(4, 4).encode(), mtime=0))


if __name__ == "__main__":
    main()
