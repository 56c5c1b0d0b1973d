"""Write the UNSAT completion configs of the symmetry-breaking study (``configs/symmetry-unsat/nN.yaml``).

Usage: ``python scripts/symmetry_unsat_configs.py`` (rewrites the five files; tests/model/test_break_symmetry_cli.py
checks that the committed ones are what it writes).

A batch config places the same squares for every N, but an UNSAT completion needs squares across
whole rows, so there is one config per N, each with a results file of its own (a bundle holds one config's
runs).  Each instance is a queen at 1,1 and blocked squares that
the transposition keeps (the stabiliser is the identity and the transposition): the rows ``A = 2, 4,
.., 2m`` may hold queens only in the ``m - 1`` columns ``B = 3, 5, .., 2m - 1``, and by symmetry the
columns ``A`` only in the rows ``B``.  The m rows of A need m columns: a pigeonhole, UNSAT, whose
proof grows with m (m = 12: 1-6 s for kissat, CaDiCaL and MiniSat at N = 30..60; N = 20 has room
for m = 10 only).
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from cnfgen_queens.cnf.atomic import atomic_output

NS = (20, 30, 40, 50, 60)
DIR = Path(__file__).resolve().parent.parent / "configs" / "symmetry-unsat"


def pigeons(n: int) -> int:
    """m: the rows that share m - 1 columns (2m <= N)."""
    return min(12, n // 2)


def holes(n: int, m: int) -> list[tuple[int, int]]:
    """The blocked squares (1-based), sorted: every square of a row of A outside B and off the diagonal, and
    its transpose."""
    rows, cols = range(2, 2 * m + 1, 2), set(range(3, 2 * m, 2))
    out = {(r, c) for r in rows for c in range(2, n + 1) if c not in cols and c != r}
    return sorted(out | {(c, r) for r, c in out})


def config(n: int) -> str:
    m = pigeons(n)
    cells = ", ".join(f'"{r},{c}"' for r, c in holes(n, m))
    wrapped = textwrap.fill(cells, 116, initial_indent="    ", subsequent_indent="    ")
    return f"""\
# Symmetry breaking in the formula (docs/results/symmetry.md): an UNSAT completion instance that keeps the
# transposition (a queen at 1,1; blocked squares in transposed pairs: {m} rows share {m - 1} columns, a
# pigeonhole), with and without gen-queens --break-symmetry.  Written by scripts/symmetry_unsat_configs.py.
experiment: symmetry-unsat
instances:
  n: [{n}]
  encodings: [commander]
  place: ["1,1"]
  break_symmetry: [false, true]
  holes: [
{wrapped}
  ]
solvers: [kissat, cadical, minisat]
task: solve
limits: {{time: 120, memory: 2048}}
repeats: 3
results: results/symmetry-unsat-n{n}.sqlite
"""


def main() -> int:
    DIR.mkdir(exist_ok=True)
    for n in NS:
        with atomic_output(DIR / f"n{n}.yaml") as f:
            f.write(config(n).encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
