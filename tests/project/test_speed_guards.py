"""Guards for the performance work (issue 6): unchanged bytes, lazy heavy imports.

Timings belong to scripts/bench.py, not here; these tests check what the speed-ups must not break.
"""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys
from pathlib import Path

import pytest

from cnfgen_queens import encodings
from cnfgen_queens.cli import gen_main
from cnfgen_queens.cnf.writer import FAST_MIN_CLAUSES, format_literals, write_cnf
from cnfgen_queens.model.formula import QueensFormula

# sha256 of `gen-queens ARGS --no-comments`, recorded when the fast path landed; a change of
# bytes for the same command must be deliberate (and these updated with a note)
GOLDEN = {
    "8": "4ccc39a04f5817d63d50144f9c9b49b9c03d90e8f6487fbe61290d6e7b626101",
    "8 -e sequential": "98d67200c279f824b0296a3fdfc71dcd36ab14e456e25569d857d7bed7a31dc4",
    "20 -e commander --column-alo": "3f036dae752ddaf8cd46d6762c8ca65e8c6fecd75877529fae84d837f8ace68b",
    "30 -e product": "3d7a160659272e299f3a8e21b99545d1be57ebeeb47161b51e501fb16d796c08",
    "12 -e nested": "26fff4ab800ea43b618bb2a0e6a77f78a4a11bddd5c4ec0506992ef7b30c77d8",
    "80": "2b23a2133bbf089549561d2e5f691adf4999417092a41fd80c85c27520f542d3",
    "150 -e ladder": "8075babc625792e15d1e932936b0c0c57f5a7a5ce4b0ed271a2890a28fa22298",
}
HEAVY = ("numpy", "networkx", "matplotlib", "dask", "distributed", "pysat", "yaml", "tqdm", "scipy")


@pytest.mark.parametrize("args", sorted(GOLDEN))
def test_golden_bytes(args: str, capfdbinary: pytest.CaptureFixture[bytes], compiled: str) -> None:
    assert gen_main([*args.split(), "--no-comments"]) == 0
    assert hashlib.sha256(capfdbinary.readouterr().out).hexdigest() == GOLDEN[args]


def test_golden_cases_cover_both_paths() -> None:
    sizes = {
        args: QueensFormula(int(args.split()[0]), *(args.split()[2:3] or ["pairwise"])).counts()[1]
        for args in GOLDEN
        if "--column-alo" not in args
    }
    assert min(sizes.values()) < FAST_MIN_CLAUSES <= max(sizes.values())


@pytest.mark.parametrize("encoding", encodings.names())
def test_fast_path_equals_reference_path(encoding: str, compiled: str) -> None:
    for n in (1, 2, 3, 4, 7, 11):
        for column_alo in (False, True):
            formula = QueensFormula(n, encoding, column_alo)
            fast, slow = io.BytesIO(), io.BytesIO()
            write_cnf(fast, formula, ["c"], fast=True)
            write_cnf(slow, formula, ["c"], fast=False)
            assert fast.getvalue() == slow.getvalue(), (encoding, n, column_alo)


def test_format_literals_edge_values(compiled: str) -> None:
    import numpy as np

    values = [1, -1, 9, -9, 10, -10, 9999, 10000, -10001, 99999999, 100000000, -2147483647, 0]
    assert format_literals(np.array(values)) == ("".join(f"{v} " for v in values[:-1]) + "0\n").encode()
    assert format_literals(np.array([], dtype=np.int64)) == b""


@pytest.mark.parametrize(
    "argv",
    [
        ["gen", "8"],
        ["decode", "{answer}", "-n", "8"],
        ["block", "{answer}", "-n", "8"],
        ["merge", "{cnf}", "{blocks}"],
    ],
)
def test_cli_start_up_imports_nothing_heavy(argv: list[str], tmp_path: Path) -> None:
    cnf, answer, blocks = tmp_path / "q.cnf", tmp_path / "a.out", tmp_path / "b.cnf"
    gen_main(["8", "-o", str(cnf)])
    answer.write_text("s SATISFIABLE\nv 4 15 21 26 38 41 51 64 0\n")
    blocks.write_text("-4 -15 -21 -26 -38 -41 -51 -64 0\n")
    real = [a.format(cnf=cnf, answer=answer, blocks=blocks) for a in argv]
    code = (
        "import sys\n"
        "from cnfgen_queens.cli import main\n"
        f"rc = main({real!r})\n"
        f"heavy = sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})\n"
        "print(rc, heavy, file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    out = proc.stderr.splitlines()[-1]
    assert out.strip() == "0 []", out
