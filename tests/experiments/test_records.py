"""One result record (issue 13): schema derived from Row, Status end to end, a separate Verdict, limits.output."""

from __future__ import annotations

import dataclasses
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cnfgen_queens.cli import main
from cnfgen_queens.errors import UsageError
from cnfgen_queens.experiments import report
from cnfgen_queens.experiments.config import ConfigError, load
from cnfgen_queens.experiments.grid import build
from cnfgen_queens.experiments.store import COLUMNS, Row, Store, StoreError
from cnfgen_queens.experiments.verdict import Verdict, judge, verdict
from cnfgen_queens.limits import DEFAULT_OUTPUT_MB, MAX_MEMORY, Limits
from cnfgen_queens.solvers.outcome import Status

BASE = """experiment: exp
instances:
  n: [8]
  encodings: [pairwise]
solvers: [pysat:cadical195]
limits: {time: 10}
"""


def write(tmp_path: Path, text: str, name: str = "exp.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text + f"results: {tmp_path / 'r.sqlite'}\n")
    return path


def a_row(**changes: Any) -> Row:
    base = Row(
        run_key="k",
        config_hash="c",
        experiment="e",
        task="solve",
        n=8,
        encoding="pairwise",
        group_size=None,
        column_alo=False,
        shuffle_seed=None,
        repeat=0,
        variables=64,
        clauses=736,
        solver="kissat",
        solver_args="[]",
        solver_version=None,
        time_limit=10.0,
        memory_limit=None,
        status=Status.SAT,
        wall=1.0,
        cpu=1.0,
        peak_memory_mb=None,
        count=None,
        fundamental=None,
        verified=True,
        host=None,
        started=None,
        finished=None,
        error=None,
    )
    return dataclasses.replace(base, **changes)


def test_the_runs_table_is_the_row() -> None:
    """Every Row field is a column of a new file, in order; non-optional fields are NOT NULL."""
    db = sqlite3.connect(":memory:")
    from cnfgen_queens.experiments.store import SCHEMA

    db.executescript(SCHEMA)
    info = db.execute("PRAGMA table_info(runs)").fetchall()
    assert tuple(r[1] for r in info) == COLUMNS == tuple(f.name for f in dataclasses.fields(Row))
    not_null = {r[1] for r in info if r[3]}
    assert {"config_hash", "status", "n", "column_alo", "solver_args"} <= not_null
    assert not {"group_size", "verified", "verdict", "output_limit", "gbd_hash"} & not_null
    types = {r[1]: r[2] for r in info}
    assert (types["status"], types["wall"], types["column_alo"], types["verdict"]) == (
        "TEXT",
        "REAL",
        "INTEGER",
        "TEXT",
    )


def test_status_is_the_enum_and_the_stored_words_stay(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    with Store(path) as store:
        store.add(a_row(status=Status.TIMEOUT, verdict=Verdict.UNSOLVED, verified=None))
        store.add(a_row(run_key="k2", verdict=Verdict.SOLVED))
    stored = sqlite3.connect(path).execute("SELECT status, verdict FROM runs ORDER BY run_key").fetchall()
    assert stored == [("TIMEOUT", "unsolved"), ("SAT", "solved")]  # plain words in the file
    with Store(path, readonly=True) as store:
        rows = store.rows()
    assert [(r.status, r.verdict) for r in rows] == [(Status.TIMEOUT, Verdict.UNSOLVED), (Status.SAT, Verdict.SOLVED)]
    assert all(type(r.status) is Status and type(r.verdict) is Verdict for r in rows)


def test_an_old_file_gets_the_new_columns_and_reads(tmp_path: Path) -> None:
    """A schema-1 file without the verdict and output_limit columns, holding a status word no longer written."""
    path = tmp_path / "old.sqlite"
    Store(path).close()
    db = sqlite3.connect(path)
    for column in ("verdict", "output_limit"):
        db.execute(f"ALTER TABLE runs DROP COLUMN {column}")
    db.execute(
        "INSERT INTO runs (run_key, config_hash, experiment, task, n, encoding, column_alo, repeat, variables, "
        "clauses, solver, solver_args, status) VALUES ('k', 'c', 'e', 'count', 8, 'pairwise', 0, 0, 64, 736, "
        "'pysat:kissat', '[]', 'USAGE')"
    )
    db.commit()
    db.close()
    with Store(path, readonly=True) as store:
        (row,) = store.rows()
    assert (row.status, row.verdict, row.output_limit) == (Status.ERROR, None, None)
    assert verdict(row) is Verdict.UNSOLVED
    with Store(path) as store:
        assert {"verdict", "output_limit"} <= store.columns and store.rows() == [row]


def test_wrong_comes_from_the_verdict_not_the_error_text() -> None:
    refuted = a_row(verified=False, error="the model's queens attack each other")  # any wording
    assert judge(refuted, answer=Verdict.WRONG) is Verdict.WRONG
    stored = dataclasses.replace(refuted, verdict=Verdict.WRONG)
    assert report.is_wrong(stored) and not report.is_solved(stored)
    # a stored verdict is taken as it is, whatever the other columns say
    assert report.is_solved(dataclasses.replace(refuted, verdict=Verdict.SOLVED))
    assert verdict(a_row()) is Verdict.SOLVED and verdict(a_row(n=3)) is Verdict.WRONG  # judged on reading
    assert verdict(a_row(status=Status.UNSAT, verified=None)) is Verdict.WRONG  # 8 queens have a solution
    assert verdict(a_row(status=Status.UNSAT, verified=None, n=2)) is Verdict.SOLVED
    assert verdict(a_row(wall=11.0)) is Verdict.UNSOLVED  # after the limit


def test_runs_csv_round_trip_keeps_status_and_verdict() -> None:
    rows = [a_row(verdict=Verdict.SOLVED, output_limit=1024), a_row(run_key="k2", status=Status.MEMOUT)]
    back = report.rows_from_runs_csv(report.runs_csv(rows))
    assert back == rows and type(back[0].status) is Status and back[0].verdict is Verdict.SOLVED
    committed = Path(__file__).parents[2] / "data" / "results" / "encodings-runs.csv"
    text = committed.read_text(encoding="utf-8")  # its verdict column is empty: judged on reading
    # as written before the columns verdict, output_limit, engine, machine, load_avg, checked, break_symmetry, cores,
    # family
    before = "".join(line.rsplit(",", 9)[0] + "\n" for line in text.splitlines())
    assert before.startswith("run_key,") and before.splitlines()[0].endswith(",total_wall")
    old = report.rows_from_runs_csv(before)
    assert old == report.rows_from_runs_csv(text) and all(r.verdict is None and type(r.status) is Status for r in old)
    assert {verdict(r) for r in old} <= {Verdict.SOLVED, Verdict.UNSOLVED}


def test_output_limit_is_a_config_key(tmp_path: Path) -> None:
    plain = load(write(tmp_path, BASE), check_solvers=False)
    same = load(
        write(tmp_path, BASE.replace("{time: 10}", f"{{time: 10, output: {DEFAULT_OUTPUT_MB}}}"), "same.yaml"),
        check_solvers=False,
    )
    capped = load(
        write(tmp_path, BASE.replace("{time: 10}", "{time: 10, output: 5}"), "capped.yaml"), check_solvers=False
    )
    assert (plain.output_limit, capped.output_limit) == (DEFAULT_OUTPUT_MB, 5)
    assert plain.hash == same.hash != capped.hash  # the default keeps the hash and the run keys of older configs
    assert [r.key for r in build(plain)] == [r.key for r in build(same)]
    assert {r.key for r in build(plain)}.isdisjoint(r.key for r in build(capped))
    assert [r.output_limit for r in build(capped)] == [5]
    for bad, message in [
        ("0", "expected a positive integer"),
        (str(MAX_MEMORY + 1), f"over the limit of {MAX_MEMORY}"),
    ]:
        with pytest.raises(ConfigError, match=rf"exp\.yaml:6: limits\.output: .*{message}"):
            load(write(tmp_path, BASE.replace("{time: 10}", f"{{time: 10, output: {bad}}}")), check_solvers=False)


def test_output_limit_reaches_the_solver(tmp_path: Path) -> None:
    """A solver printing for ever under ``limits: {output: 1}``: stopped, an ERROR row, unsolved."""
    printer = tmp_path / "printer.py"
    printer.write_text(
        "#!/usr/bin/env python3\nimport sys, time\nwhile True:\n"
        "    sys.stdout.write(('c ' + 'x' * 100 + '\\n') * 1000)\n    time.sleep(0.002)\n"
    )
    printer.chmod(0o755)
    text = BASE.replace("[pysat:cadical195]", f"[{printer}]").replace("{time: 10}", "{time: 120, output: 1}")
    cfg = write(tmp_path, text)
    assert main(["batch", str(cfg), "--jobs", "1", "--no-progress"]) == 0
    with Store(tmp_path / "r.sqlite", readonly=True) as store:
        (row,) = store.rows()
    assert (row.status, row.output_limit, row.verdict) == (Status.ERROR, 1, Verdict.UNSOLVED)
    assert "output limit" in (row.error or "") and "1 MB" in (row.error or "")


def test_one_memory_bound(tmp_path: Path) -> None:
    """The config accepts exactly what the solver runner accepts (2^31 - 1 MB)."""
    from cnfgen_queens.experiments import config

    assert config.MAX_MEMORY is MAX_MEMORY == 2**31 - 1
    ok = load(write(tmp_path, BASE.replace("{time: 10}", f"{{time: 10, memory: {MAX_MEMORY}}}")), check_solvers=False)
    assert Limits(memory=ok.memory_limit).memory == MAX_MEMORY
    with pytest.raises(ConfigError, match=f"limits.memory: {MAX_MEMORY + 1} is over the limit of {MAX_MEMORY}"):
        load(
            write(tmp_path, BASE.replace("{time: 10}", f"{{time: 10, memory: {MAX_MEMORY + 1}}}")), check_solvers=False
        )
    with pytest.raises(UsageError, match="memory limit"):
        Limits(memory=MAX_MEMORY + 1)


def test_errors_the_user_fixes_are_usage_errors(tmp_path: Path) -> None:
    from cnfgen_queens.execution import executors
    from cnfgen_queens.solvers import ProfileError

    assert issubclass(ConfigError, UsageError) and issubclass(StoreError, UsageError)
    assert issubclass(ProfileError, UsageError)
    with pytest.raises(UsageError, match="--scheduler needs --executor dask"):
        executors.make("local", 1, "tcp://127.0.0.1:1")
    foreign = tmp_path / "foreign.sqlite"
    sqlite3.connect(foreign).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(UsageError, match="not a cnfgen-queens results database"):
        Store(foreign)


def test_no_import_cycle_in_experiments() -> None:
    """config is imported first by everything else: it must not pull in tasks or grid."""
    code = (
        "import sys; import cnfgen_queens.experiments.config; "
        "print(sorted(m for m in sys.modules if m.startswith('cnfgen_queens.experiments')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "tasks" not in out and "grid" not in out and "cnfgen_queens.experiments.config" in out


def test_every_measured_and_instance_field_is_stored() -> None:
    """make_row copies fields by name: a field of Measurement or Instance without a column would be lost."""
    from cnfgen_queens.experiments.batch import INSTANCE_COLUMNS, MEASUREMENT_COLUMNS
    from cnfgen_queens.experiments.grid import VARIANT_FIELDS, Instance
    from cnfgen_queens.experiments.tasks import Measurement

    # refuted becomes the verdict; machine_info goes to the machines table (the row keeps its fingerprint)
    measured = {f.name for f in dataclasses.fields(Measurement)} - {"refuted", "machine_info"}
    assert set(MEASUREMENT_COLUMNS) == measured
    # the variant is one JSON column; break_symmetry is a column of its own too (report --compare pairs on it)
    variant = set(VARIANT_FIELDS) - {"break_symmetry"}
    # a DIMACS file's path is the instances table's, its hash the gbd_hash column (what generate returns)
    file = {"file", "file_hash"}
    assert set(INSTANCE_COLUMNS) == {f.name for f in dataclasses.fields(Instance)} - variant - file
