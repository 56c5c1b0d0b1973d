"""Print the Markdown table of variables and clauses per encoding for the N-queens formula.

Usage: ``python scripts/encoding_table.py [N ...]`` (default N = 8, 100, 1000).
Counts come from ``QueensFormula(N, encoding).counts()``, which does not build
the formula (PySAT's encodings have no closed form: each line length is built
once and cached: about five CPU minutes at N = 1000, mostly pysat:totalizer).
"""

from __future__ import annotations

import sys

from cnfgen_queens import encodings
from cnfgen_queens.formula import QueensFormula


def table(sizes: list[int]) -> str:
    head = "| encoding | " + " | ".join(f"N={n} variables | N={n} clauses" for n in sizes) + " |"
    rule = "|---|" + "---:|---:|" * len(sizes)
    rows = [head, rule]
    for name in encodings.names():
        cells = []
        for n in sizes:
            num_vars, num_clauses = QueensFormula(n, name).counts()
            cells += [f"{num_vars:,}", f"{num_clauses:,}"]
        rows.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    try:
        sizes = [int(a) for a in argv] or [8, 100, 1000]
    except ValueError:
        print(f"usage: {sys.argv[0]} [N ...]  (positive integers)", file=sys.stderr)
        return 2
    if any(n < 1 for n in sizes):
        print(f"usage: {sys.argv[0]} [N ...]  (positive integers)", file=sys.stderr)
        return 2
    print(table(sizes))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
