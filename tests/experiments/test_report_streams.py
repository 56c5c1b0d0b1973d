"""``report`` streams a results database (issue 42, item 6): the table, ``--spread`` and ``--compare`` are made in
one pass over the rows as SQLite reads them, each run leaving a few numbers, never the run itself; a million-run
store took 2.29 GB and 68 s.  The figures at scale are scripts/bench_report.py's (docs/performance.md); here the
memory a pass holds is measured on two store sizes, and must not grow with the rows by more than those numbers."""

from __future__ import annotations

import sqlite3
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from helpers import in_process

from cnfgen_queens.experiments import compare, runs_check, runs_read, spread
from cnfgen_queens.experiments.report import Summary
from cnfgen_queens.experiments.row import COLUMNS, RUN_COLUMNS, row_of, runs_table
from cnfgen_queens.experiments.runs_read import Runs
from cnfgen_queens.experiments.store import StoreError

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
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
    runs = Runs(path, ordered=False)
    tracemalloc.start()
    try:
        runs.tally([Summary(), spread.Spreads(), compare.Pairing("minisat", "kissat")])
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_pass_holds_a_few_numbers_per_run_not_the_runs(stores: tuple[Path, Path]) -> None:
    small, large = stores
    held(small)  # the caches of the first pass (labels, boards) filled
    grown = held(large) - held(small)  # the old report's list of rows: 2,300 bytes a run
    assert grown < PER_RUN * 4_000, f"{grown / 4_000:.0f} bytes per run"


def test_report_compares_and_spreads_a_streamed_store(
    stores: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, large = stores
    code, out, err = in_process(["report", str(large), "--compare", "minisat", "kissat", "--spread"], capsys)
    assert code == 0, err
    assert "| minisat | pairwise | 300 |" in out  # 20 N x 5 seeds x 3 repeats
    assert "spread over repeats: 2000 cells" in out
    assert "compare solver: A = minisat, B = kissat" in out and "verdict: minisat faster" in out


def kinds_and_rows(path: Path, time: str = "wall", by: tuple[str, ...] = ()) -> tuple[list[Any], list[Any]]:
    """The table, the spread and the comparison of ``path`` by the report's pass (:meth:`Runs.tally`: by kind of
    run) and by a pass over its rows, one at a time (each taker's ``add``)."""
    answers = []
    for by_kind in (True, False):
        takers = (
            Summary(by=by, time=time),
            spread.Spreads(time),
            compare.Pairing("minisat", "kissat", time=time, across_machines=True),
        )
        runs = Runs(path, ordered=False)
        if by_kind:
            runs.tally(takers, time)
        else:
            for row in runs:
                for taker in takers:
                    taker.add(row)
        answers.append([takers[0].stats(), takers[1].cells(), takers[2].result()])
    return answers[0], answers[1]


def test_a_pass_makes_a_row_per_kind_of_run_not_per_run(
    stores: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    made = []
    monkeypatch.setattr(runs_read, "row_of", lambda values: made.append(1) or row_of(values))
    _, large = stores  # 6,000 runs: 2,000 instances x 3 repeats, each solved or not
    Runs(large).tally([Summary(), spread.Spreads()])
    assert 0 < len(made) <= 4_000, len(made)  # the old pass: a Row for each of the 6,000 runs


def test_the_pass_by_kind_answers_as_the_pass_by_row(tmp_path: Path) -> None:
    path = tmp_path / "mixed.sqlite"
    bench_report.make_store(path, 6_000)
    with sqlite3.connect(path) as db:  # rows stored before the verdict column, two machines, CPU times unknown
        db.execute("UPDATE runs SET verdict = NULL, checked = NULL WHERE rowid % 3 = 0")
        db.execute("UPDATE runs SET machine = 'feedbeef00000000' WHERE rowid % 7 = 1")
        db.execute("UPDATE runs SET cpu = NULL WHERE rowid % 11 = 2")
        db.execute(
            "UPDATE runs SET time_limit = 30, wall = 31, status = 'TIMEOUT', verdict = NULL, verified = NULL "
            "WHERE rowid % 13 = 4"
        )
    for time, by in (("wall", ()), ("cpu", ("n",))):
        by_kind, by_row = kinds_and_rows(path, time, by)
        assert by_kind == by_row


@pytest.mark.parametrize(
    ("change", "column"),
    [
        ("wall = 'abc'", "wall"),
        ("n = 4, status = 'UNSAT', verdict = 'solved'", "status"),
        ("n = -1", "n"),
        ("solver_args = '[1'", "solver_args"),
        ("wall = 1e300", "wall"),
        ("encoding = x'00'", "encoding"),
    ],
)
def test_a_store_refused_by_kind_is_named_as_by_row(tmp_path: Path, change: str, column: str) -> None:
    path = tmp_path / "bad.sqlite"
    bench_report.make_store(path, 300)
    with sqlite3.connect(path) as db:
        db.execute(f"UPDATE runs SET {change} WHERE rowid = 150")
    with pytest.raises(StoreError) as by_row:
        list(Runs(path))
    with pytest.raises(StoreError) as by_kind:
        Runs(path).tally([Summary()])
    assert str(by_kind.value) == str(by_row.value) and f"column {column} holds" in str(by_row.value)


VALUES = [
    None,
    0,
    1,
    -1,
    3,
    46341,
    2**63 - 1,
    0.0,
    3.0,
    3.5,
    -0.5,
    1e308,
    float("inf"),
    "",
    "5",
    "SAT",
    "solve",
    "solved",
    "USAGE",
    "model-verified",
    "pigeonhole",
    b"",
    b"SAT",
    "[]",
]


@pytest.mark.parametrize("declared", [True, False])
def test_one_test_of_a_row_refuses_what_the_checks_of_each_column_refuse(declared: bool) -> None:
    """``refused``'s comparisons (one scan) against the type and domain checks that name the column, a value of
    every storage class in each column of a valid row; in the tool's table and in one declaring no types."""
    db = sqlite3.connect(":memory:")
    db.execute(runs_table().replace(" NOT NULL", "") if declared else f"CREATE TABLE runs ({', '.join(COLUMNS)})")
    columns = set(COLUMNS)
    each = [
        f"typeof({c.name}) NOT IN ({runs_check._SQLITE_TYPES[c.sql]}{', ' + repr('null') if c.nullable else ''})"
        for c in RUN_COLUMNS
    ]
    each += [d.outside(n, columns) for n, d in runs_check.DOMAINS.items()]
    valid = list(next(bench_report._rows(1)))
    differ = []
    for i, name in enumerate(COLUMNS):
        for value in VALUES:
            for family in (None, "pigeonhole"):
                row = [*valid[:i], value, *valid[i + 1 :]]
                row[COLUMNS.index("family")] = family if name != "family" else value
                db.execute("DELETE FROM runs")
                db.execute(f"INSERT INTO runs VALUES ({', '.join('?' * len(COLUMNS))})", row)
                one, checks = db.execute(
                    f"SELECT ifnull(({runs_check.refused(columns)}), 0) != 0, "
                    f"ifnull(({' OR '.join(each)}), 0) != 0 FROM runs"
                ).fetchone()
                if one != checks:
                    differ.append((name, value, family))
    assert not differ
