"""Print the Markdown table of variables and clauses per encoding for the N-queens formula.

Usage: ``python scripts/encoding_table.py [N ...] [--no-progress]`` (default N = 8, 100, 1000).
Counts come from ``QueensFormula(N, encoding).counts()``, which does not build
the formula (PySAT's encodings have no closed form: each line length is built
once and cached: about five CPU minutes at N = 1000, mostly pysat:totalizer).
It says what it does on stderr, with a tqdm bar per (encoding, N) when stderr is a terminal.
"""

from __future__ import annotations

import sys

from cnfgen_queens import encodings
from cnfgen_queens.model.formula import QueensFormula


def table(sizes: list[int], progress: bool = False) -> str:
    from tqdm import tqdm

    head = "| encoding | " + " | ".join(f"N={n} variables | N={n} clauses" for n in sizes) + " |"
    rule = "|---|" + "---:|---:|" * len(sizes)
    rows = [head, rule]
    names = encodings.names()
    with tqdm(
        total=len(names) * len(sizes),
        unit="count",
        file=sys.stderr,
        dynamic_ncols=True,
        disable=not progress,
        leave=False,
    ) as bar:
        for name in names:
            cells = []
            for n in sizes:
                bar.set_description(f"{name} N={n}")
                num_vars, num_clauses = QueensFormula(n, name).counts()
                cells += [f"{num_vars:,}", f"{num_clauses:,}"]
                bar.update(1)
            rows.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    usage = f"usage: {sys.argv[0]} [N ...] [--no-progress]  (N: positive integers; default 8 100 1000)"
    quiet = "--no-progress" in argv
    try:
        sizes = [int(a) for a in argv if a != "--no-progress"] or [8, 100, 1000]
    except ValueError:
        print(usage, file=sys.stderr)
        return 2
    if any(n < 1 for n in sizes):
        print(usage, file=sys.stderr)
        return 2
    names = encodings.names()
    slow = " (PySAT's encodings are built once per line length: minutes at N = 1000)" if max(sizes) >= 500 else ""
    print(
        f"counting variables and clauses of {len(names)} encodings for N = {', '.join(map(str, sizes))}{slow}",
        file=sys.stderr,
        flush=True,
    )
    print(table(sizes, progress=not quiet and sys.stderr.isatty()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
