"""``report`` streams a results database (issue 42, item 6): the table, ``--spread`` and ``--compare`` are made in
one pass over the rows as SQLite reads them, each run leaving a few numbers, never the run itself; a million-run
store took 2.29 GB and 68 s.  The figures at scale are scripts/bench_report.py's (docs/performance.md); here the
memory a pass holds is measured on two store sizes, and must not grow with the rows by more than those numbers."""

from __future__ import annotations

import sys
import tracemalloc
from pathlib import Path

import pytest
from helpers import in_process

from cnfgen_queens.experiments import compare, spread
from cnfgen_queens.experiments.report import Runs, Summary

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import bench_report

PER_RUN = 600  # bytes a pass may keep per run (measured: about 250; a Row held: about 2,300)


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A store of 2,000 and one of 6,000 runs: 4 solvers x 5 encodings x 20 N x 5 seeds, 1 and 3 repeats."""
    tmp = tmp_path_factory.mktemp("streams")
    small, large = tmp / "small.sqlite", tmp / "large.sqlite"
    bench_report.make_store(small, 2_000)
    bench_report.make_store(large, 6_000)
    return small, large


def held(path: Path) -> int:
    """The peak bytes Python holds over one pass of the report (table, spread, comparison) on ``path``."""
    runs = Runs(path)
    tracemalloc.start()
    try:
        summary, spreads, pairing = Summary(), spread.Spreads(), compare.Pairing("minisat", "kissat")
        for r in runs:
            summary.add(r)
            spreads.add(r)
            pairing.add(r)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_pass_holds_a_few_numbers_per_run_not_the_runs(stores: tuple[Path, Path]) -> None:
    small, large = stores
    held(small)  # the caches of the first pass (labels, boards) filled
    grown = held(large) - held(small)  # the old report's list of rows: 2,300 bytes a run
    assert grown < PER_RUN * 4_000, f"{grown / 4_000:.0f} bytes per run"


def test_report_compares_and_spreads_a_streamed_store(stores: tuple[Path, Path],
                                                      capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    _, large = stores
    code, out, err = in_process(["report", str(large), "--compare", "minisat", "kissat", "--spread"], capsys)
    assert code == 0, err
    assert "| minisat | pairwise | 300 |" in out  # 20 N x 5 seeds x 3 repeats
    assert "spread over repeats: 2000 cells" in out
    assert "compare solver: A = minisat, B = kissat" in out and "verdict: minisat faster" in out
