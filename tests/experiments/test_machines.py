"""The machine of every run (issue 32, items 1 and 2): read in the worker, stored once per machine,
named by each row with the load at its start; older stores still read; a second machine flagged in the
report and refused in a comparison unless --across-machines."""

from __future__ import annotations

import dataclasses
import os
import platform
import sqlite3
from pathlib import Path

import pytest
from helpers import in_process

from cnfgen_queens.experiments import machine
from cnfgen_queens.experiments.machine import Machine, this_machine
from cnfgen_queens.experiments.store import Row, Store


def _batch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A real batch: N 5..8, two encodings, the embedded CaDiCaL, two repeats."""
    cfg = tmp_path / "m.yaml"
    results = tmp_path / "m.sqlite"
    cfg.write_text(
        "experiment: m\ninstances:\n  n: {from: 5, to: 8}\n  encodings: [pairwise, sequential]\n"
        f"solvers: [pysat:cadical195]\nlimits: {{time: 60, memory: 2048}}\nrepeats: 2\nresults: {results}\n"
    )
    code, _, err = in_process(["batch", str(cfg), "--jobs", "1", "--no-progress"], capsys)
    assert code == 0, err
    return results


@pytest.fixture(scope="module")
def two_machines(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of a real batch, then the same runs again as if from a second machine (its own row in
    ``machines``, another host, times twice as long): a store merged from a laptop and a cluster node."""
    from cnfgen_queens.cli import main

    tmp = tmp_path_factory.mktemp("two")
    cfg, results = tmp / "m.yaml", tmp / "m.sqlite"
    cfg.write_text(
        "experiment: m\ninstances:\n  n: {from: 5, to: 10}\n  encodings: [pairwise, sequential]\n"
        f"solvers: [pysat:cadical195]\nlimits: {{time: 60, memory: 2048}}\nrepeats: 1\nresults: {results}\n"
    )
    assert main(["batch", str(cfg), "--jobs", "1", "--no-progress"]) == 0
    other = dataclasses.replace(this_machine(), cpu_model="Fake CPU 9000", physical_cores=64, logical_cores=128)
    with Store(results) as store:
        store.record_machine(other.fingerprint, other.as_dict())
        for r in store.rows():
            if r.encoding == "sequential":  # the sequential runs were measured on the other machine
                store.add(dataclasses.replace(r, machine=other.fingerprint, host="node7", wall=2 * (r.wall or 0)))
    return results


def test_this_machine_reads_proc(tmp_path: Path) -> None:
    m = this_machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        models = [
            line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines() if line.startswith("model name")
        ]
        if models:
            assert m.cpu_model == models[0]
        meminfo = Path("/proc/meminfo").read_text().splitlines()
        total = next(int(line.split()[1]) for line in meminfo if line.startswith("MemTotal:"))
        assert m.memory_mb == total // 1024
    assert m.logical_cores == os.cpu_count()
    assert m.physical_cores is None or 1 <= m.physical_cores <= (m.logical_cores or 1)
    assert (m.kernel, m.python) == (platform.release(), platform.python_version())
    if (Path(__file__).parents[2] / ".git").exists():
        assert m.git_commit is not None and len(m.git_commit) == 40
    # the fingerprint is of the fields: stable, and another CPU is another machine
    assert m.fingerprint == Machine.from_dict(m.as_dict()).fingerprint
    assert dataclasses.replace(m, cpu_model="other").fingerprint != m.fingerprint
    assert m.describe().startswith(m.cpu_model or "unknown CPU")


def test_a_batch_stores_its_machine_once_and_each_run_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = _batch(tmp_path, capsys)
    with Store(results, readonly=True) as store:
        rows = store.rows()
        (count,) = store.db.execute("SELECT COUNT(*) FROM machines").fetchone()
    assert len(rows) == 4 * 2 * 2 and count == 1
    assert {r.machine for r in rows} == {this_machine().fingerprint}
    assert all(r.load_avg is not None and r.load_avg >= 0 for r in rows)
    assert machine.stored(results) == {this_machine().fingerprint: this_machine()}
    code, out, _ = in_process(["report", str(results)], capsys)
    assert code == 0 and "machines:" not in out  # one machine: the table alone, as before
    code, out, _ = in_process(["report", str(results), "--machines"], capsys)
    assert code == 0
    assert "machines: 1\n" in out and this_machine().describe() in out and "mix runs" not in out


def test_an_older_store_still_reads_and_gets_the_columns_when_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = _batch(tmp_path, capsys)
    db = sqlite3.connect(results)  # as written before the machines: no table, no columns
    db.executescript(
        "DROP TABLE machines; ALTER TABLE runs DROP COLUMN machine; ALTER TABLE runs DROP COLUMN load_avg;"
    )
    db.close()
    with Store(results, readonly=True) as store:
        rows = store.rows()
    assert len(rows) == 16 and {(r.machine, r.load_avg) for r in rows} == {(None, None)}
    assert machine.stored(results) == {}
    code, out, err = in_process(["report", str(results), "--compare", "pairwise", "sequential", "--machines"], capsys)
    assert code == 0, err
    assert "machines:" not in out and "verdict: " in out
    with Store(results) as store:  # opened for writing: the table and the columns come back, the rows stay
        store.record_machine("f" * 16, this_machine().as_dict())
        assert {"machine", "load_avg"} <= store.columns and len(store.rows()) == 16
    assert list(machine.stored(results)) == ["f" * 16]


def test_a_store_of_two_machines_is_flagged_and_its_comparison_refused(
    two_machines: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = in_process(["report", str(two_machines)], capsys)
    assert code == 0, err
    assert "machines: 2\n" in out and "Fake CPU 9000, 64 cores / 128 threads" in out and "node7" in out
    assert "mix runs" not in out  # each line ran on one machine
    compare = ["report", str(two_machines), "--compare", "pairwise", "sequential"]
    code, out, err = in_process(compare, capsys)
    assert code == 2 and "come from 2 machines" in err and "--across-machines" in err and out == ""
    assert len(err.strip().splitlines()) == 1
    code, out, err = in_process([*compare, "--across-machines"], capsys)
    assert code == 0, err
    assert "across machines: the runs come from 2 machines" in out and "verdict: " in out


def test_a_line_of_two_machines_is_flagged(
    two_machines: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    merged = tmp_path / "merged.sqlite"
    with Store(two_machines, readonly=True) as src, Store(merged) as out:
        rows = src.rows()
        for fingerprint, info in machine.stored(two_machines).items():
            out.record_machine(fingerprint, info.as_dict())
        for r in rows:  # pairwise N 5 moved to the other machine: the pairwise line mixes two
            mine = r.encoding == "pairwise" and r.n == 5
            other = next(m for m in {x.machine for x in rows} if m != r.machine)
            out.add(dataclasses.replace(r, machine=other) if mine else r)
    code, out_text, _ = in_process(["report", str(merged)], capsys)
    assert code == 0
    assert "1 line(s) mix runs of more than one machine" in out_text and "solve pysat:cadical195 pairwise" in out_text


def test_rows_name_their_machine_in_the_runs_csv(
    two_machines: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = tmp_path / "runs.csv"
    code, _, _ = in_process(["report", str(two_machines), "--runs-csv", str(csv)], capsys)
    assert code == 0
    from cnfgen_queens.experiments.report import load_rows

    back = load_rows(csv)
    assert [r.machine for r in back] == [r.machine for r in _rows(two_machines)]


def _rows(path: Path) -> list[Row]:
    with Store(path, readonly=True) as store:
        return store.rows()


def test_the_machines_section_counts_runs_started_on_a_busy_machine(two_machines: Path) -> None:
    rows, machines = _rows(two_machines), machine.stored(two_machines)
    me = this_machine()
    loads = [dataclasses.replace(r, load_avg=float(k % 2) * 2 * (me.logical_cores or 1)) for k, r in enumerate(rows)]
    mine = [r for r in loads if r.machine == me.fingerprint]
    assert machine.busy(loads, machines) == sum(r.load_avg >= (me.logical_cores or 1) for r in mine) > 0
    assert machine.busy([dataclasses.replace(r, load_avg=0.0) for r in rows], machines) == 0
    text = machine.section(loads, machines)
    assert f"{machine.busy(loads, machines)} of {len(rows)} runs started with the load average at or above" in text


def test_a_new_commit_of_this_tool_is_no_new_machine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Runs of one box before and after a commit (or an upgrade) of this tool: two rows of ``machines`` (each
    records its version), one machine to the comparison guard and the mixed-line note; another CPU is still
    refused (test above)."""
    results = _batch(tmp_path, capsys)
    later = dataclasses.replace(this_machine(), tool_version="9.9.9", git_commit="e" * 40)
    assert later.fingerprint != this_machine().fingerprint and later.platform == this_machine().platform
    with Store(results) as store:
        store.record_machine(later.fingerprint, later.as_dict())
        for r in store.rows():
            if r.encoding == "sequential":  # measured after the commit
                store.add(dataclasses.replace(r, machine=later.fingerprint))
    code, out, err = in_process(["report", str(results), "--compare", "pairwise", "sequential"], capsys)
    assert code == 0, err
    assert "machines: 2\n" in out and "commit eeeeeeeeee" in out  # both recorded and shown
    assert "mix runs of more than one machine" not in out and "across machines" not in out and "verdict: " in out
    rows = Store(results, readonly=True).rows()
    assert {r.machine for r in machine.one_per_platform(rows, machine.stored(results))} == {
        min(this_machine().fingerprint, later.fingerprint)
    }
