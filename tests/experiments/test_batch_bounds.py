"""The batch checks what gen-queens checks (issue 24, item 4), at check time, for every instance.

The size guard and the DIMACS variable limit (cnf/writer.py, shared with gen-queens), config
bounds that cover float ranges (a step that makes too many values is refused before any value is
made), and a run's time limit that bounds the generation and cache write of its instance.  ``--dry-run``
prints every factor of the grid's product (the column_alo axis too), from the same list the size check uses.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from helpers import need_solver

from cnfgen_queens.cli import gen_main, main
from cnfgen_queens.experiments.config import load
from cnfgen_queens.experiments.grid import expand
from cnfgen_queens.experiments.store import Store


def write_config(tmp_path: Path, instances: str, time_limit: float = 30, solvers: str = "[pysat:cadical195]") -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(
        f"instances:\n{instances}\nsolvers: {solvers}\nlimits: {{time: {time_limit}}}\n"
        f"results: {tmp_path / 'out' / 'r.sqlite'}\n"
    )
    return path


def refused(capsys: pytest.CaptureFixture[str], argv: list[str], *words: str) -> str:
    """Refused at once: CPU seconds of this process, loosely (what a loaded machine does not stretch; each
    took a minute or more, or gigabytes, before; under 1 s now)."""
    start = time.process_time()
    assert main(argv) == 2
    assert time.process_time() - start < 20
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and all(w in err for w in words), err
    return err


@pytest.mark.parametrize("dry", [True, False])
def test_an_instance_gen_queens_refuses_is_refused_at_check_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], dry: bool
) -> None:
    """Issue 24: ``n: [3000]`` pairwise with ``limits.time: 5`` wrote a 756 MB temporary CNF into the cache."""
    cfg = write_config(tmp_path, "  n: [6, 3000]\n  encodings: [sequential, pairwise]", time_limit=5)
    assert gen_main(["3000"]) == 2
    capsys.readouterr()
    refused(capsys, ["batch", str(cfg), *(["--dry-run"] if dry else [])], "instances.encodings[1]", "N=3000", "GB")
    assert not (tmp_path / "out").exists()


def test_the_dimacs_variable_limit_is_checked_at_check_time(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 24: ``n: [46341]`` sequential wrote a CNF over the DIMACS variable limit."""
    cfg = write_config(tmp_path, "  n: [46341]\n  encodings: [sequential]")
    refused(capsys, ["batch", str(cfg), "--dry-run"], "2^31-1", "N=46341")


def test_max_clauses_leaves_out_what_the_guard_would_refuse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = write_config(tmp_path, "  n: [6, 3000]\n  encodings: [pairwise]\n  max_clauses: 1000000")
    assert main(["batch", str(cfg), "--dry-run"]) == 0
    assert "left out: n=3000 pairwise" in capsys.readouterr().out


def test_shuffled_instances_hold_every_clause_so_the_shuffle_bound_applies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = write_config(tmp_path, "  n: [400]\n  encodings: [pairwise]\n  shuffle_seeds: [1]")
    refused(capsys, ["batch", str(cfg), "--dry-run"], "instances.shuffle_seeds holds every clause in memory")


def test_allow_large_lifts_the_size_and_shuffle_guards_as_the_flag_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``instances.allow_large: true`` is gen-queens's ``--allow-large`` for a grid (the shipped large-N configs
    shuffle 34-37M clauses and were refused): the guards are lifted, the DIMACS variable limit is not, and the
    runs' keys are those of the config without it (no result changes)."""
    shuffled = "  n: [400]\n  encodings: [pairwise]\n  shuffle_seeds: [1]"
    err = refused(capsys, ["batch", str(write_config(tmp_path, shuffled)), "--dry-run"], "shuffle_seeds")
    assert "instances.allow_large: true to run it anyway" in err
    for instances in (shuffled, "  n: [6, 3000]\n  encodings: [sequential, pairwise]"):
        cfg = write_config(tmp_path, f"{instances}\n  allow_large: true")
        assert main(["batch", str(cfg), "--dry-run"]) == 0, capsys.readouterr().err
        planned = capsys.readouterr().out
        without = tmp_path / "without.yaml"
        without.write_text(cfg.read_text().replace("\n  allow_large: true", ""))
        keys = [line.split()[1] for line in planned.splitlines() if line.startswith("todo ")]
        assert keys and keys == [r.key for r in expand(load(without, check_sizes=False))[0]]
        assert load(cfg).hash == load(without, check_sizes=False).hash
    too_many = write_config(tmp_path, "  n: [46341]\n  encodings: [sequential]\n  allow_large: true")
    refused(capsys, ["batch", str(too_many), "--dry-run"], "2^31-1", "N=46341")
    bad = write_config(tmp_path, "  n: [6]\n  encodings: [pairwise]\n  allow_large: yes-please")
    refused(capsys, ["batch", str(bad), "--dry-run"], "instances.allow_large: expected true or false")


@pytest.mark.slow  # 12 s of planning (completion-100's 120 random boards): the full run (CI) plans them
@pytest.mark.parametrize(
    "config",
    sorted(p for p in (Path(__file__).resolve().parents[2] / "configs").rglob("*.yaml") if p.name != "solvers.yaml"),
    ids=lambda p: p.name,
)
def test_every_shipped_grid_is_accepted(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every config under configs/ (but the solver profiles, configs/solvers.yaml) plans its runs: the large-N
    stages were refused by a guard that came after them.  In an empty folder (their results paths are relative);
    each binary solver it names is needed (a skip where one is missing, as with every test of a real solver)."""
    for entry in load(config, check_solvers=False, check_sizes=False).solvers:
        if entry.profile is None and not entry.name.startswith("pysat:"):
            need_solver(entry.name)
    monkeypatch.chdir(tmp_path)
    assert main(["batch", str(config), "--dry-run"]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.startswith("grid: ")


@pytest.mark.parametrize(
    ("fraction", "words"),
    [
        ("{from: 0, to: 0.8, step: 0.000000001}", ("800000001 entries", "random_place_fraction")),
        ("{from: 0.5, to: 0.1, step: 0.1}", ("empty range",)),
    ],
)
def test_a_float_range_is_bounded_before_it_is_expanded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fraction: str, words: tuple[str, ...]
) -> None:
    """Issue 24: ``step: 0.000000001`` ran ``--dry-run`` for over 60 s and 3.5 GB, growing."""
    seeds = "{from: 0, to: 9}"
    cfg = write_config(
        tmp_path, f"  n: [8, 10]\n  encodings: [pairwise]\n  random_place_fraction: {fraction}\n  random_seeds: {seeds}"
    )
    refused(capsys, ["batch", str(cfg), "--dry-run"], *words)


def test_the_time_limit_bounds_the_generation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run whose instance takes longer to write than its time limit is a TIMEOUT, nothing left in the cache."""
    cfg = write_config(tmp_path, "  n: [250]\n  encodings: [pairwise]", time_limit=0.05)
    start = time.monotonic()
    assert main(["batch", str(cfg), "--no-progress", "--jobs", "1"]) == 0
    assert time.monotonic() - start < 60
    with Store(tmp_path / "out" / "r.sqlite", readonly=True) as store:
        rows = store.rows()
    assert [(r.status, r.n) for r in rows] == [("TIMEOUT", 250)]
    assert "while writing the instance" in (rows[0].error or "")
    assert list((tmp_path / "out" / "cnf-cache").iterdir()) == []


def test_placements_are_bounded_before_any_is_generated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = write_config(
        tmp_path, "  n: [8]\n  encodings: [pairwise]\n  random_place: [1, 2]\n  random_seeds: {from: 0, to: 99999}"
    )
    refused(capsys, ["batch", str(cfg), "--dry-run"], "200000 (N, K, seed) placements")


def test_two_batch_processes_on_one_store_split_the_runs(tmp_path: Path) -> None:
    """Issue 24: two batches on one results file stored 252 rows correctly but ran 502 runs between them."""
    import subprocess
    import sys

    from helpers import CLI_ENTRY, need_solver

    need_solver("minisat")
    cfg = write_config(
        tmp_path, "  n: {from: 4, to: 13}\n  encodings: [pairwise, sequential]", solvers="[minisat, pysat:cadical195]"
    )
    argv = [sys.executable, "-c", CLI_ENTRY, "batch", str(cfg), "--no-progress", "--jobs", "1"]
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=240) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    done = [int(out.split(" runs done")[0].split()[-1]) for out, _ in outs]
    with Store(tmp_path / "out" / "r.sqlite", readonly=True) as store:
        rows = store.rows()
        claims = store.db.execute("SELECT COUNT(*) FROM claims").fetchone()[0]
    assert len(rows) == 40 and sum(done) == 40 and claims == 0, (done, outs)


def test_a_claim_of_a_dead_batch_is_taken_over(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import socket
    import subprocess

    cfg = write_config(tmp_path, "  n: [5, 6]\n  encodings: [pairwise]")
    assert main(["batch", str(cfg), "--dry-run"]) == 0
    keys = [line.split()[1] for line in capsys.readouterr().out.splitlines() if line.startswith("todo ")]
    dead = subprocess.Popen(["true"])
    dead.wait()
    with Store(tmp_path / "out" / "r.sqlite") as store:  # a batch killed with -9 while running both
        for key in keys:
            store.db.execute("INSERT INTO claims VALUES (?, ?, ?, ?)", (key, socket.gethostname(), dead.pid, 0.0))
            store.db.execute("UPDATE claims SET since = strftime('%s', 'now') WHERE run_key = ?", (key,))
    assert main(["batch", str(cfg), "--no-progress"]) == 0
    assert "2 runs done" in capsys.readouterr().out


OPEN_AT = """
import sys, time
from cnfgen_queens.experiments.store import Store, StoreError
start = float(sys.argv[2])
while time.time() < start:
    pass
try:
    Store(sys.argv[1]).close()
except StoreError as e:
    print(e)
"""


def test_two_processes_creating_one_store_at_once(tmp_path: Path) -> None:
    """Two batches started together: the one that lost the race for the new file's journal mode got
    "database is locked" at once (SQLite does not wait there); it waits now (1 pair in 4 failed before)."""
    import subprocess
    import sys

    for trial in range(12):
        path, start = tmp_path / f"r{trial}.sqlite", f"{time.time() + 0.5:.3f}"
        procs = [
            subprocess.Popen([sys.executable, "-c", OPEN_AT, str(path), start], stdout=subprocess.PIPE, text=True)
            for _ in range(2)
        ]
        assert [p.communicate(timeout=60)[0] for p in procs] == ["", ""], trial


HOLD_CREATING = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA cache_size=1")  # uncommitted pages spill into the file itself (rollback journal)
db.execute("BEGIN EXCLUSIVE")
db.execute("CREATE TABLE other(x)")
db.executemany("INSERT INTO other VALUES (?)", [(i * 1000,) for i in range(2000)])
print("holding", flush=True)
time.sleep(1.5)
db.execute("ROLLBACK")
"""


def test_a_store_opened_while_another_process_creates_the_file_waits_for_it(tmp_path: Path) -> None:
    """The look a writer takes before opening (a foreign file is never changed) waits for the lock of a
    process that is creating the file, instead of reading its half-written pages without a lock (an
    immutable open): before, it saw the other process's uncommitted table and refused the file, or read
    a malformed image (1 trial in 12 of the test above under load); after, it waits, the other rolls
    back, and the store is created."""
    import subprocess
    import sys

    path = tmp_path / "r.sqlite"
    holder = subprocess.Popen([sys.executable, "-c", HOLD_CREATING, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        assert path.stat().st_size > 0  # the spilled pages are in the file
        Store(path).close()
        assert holder.wait(timeout=60) == 0
        with Store(path, readonly=True) as store:
            assert store.columns
    finally:
        if holder.poll() is None:
            holder.kill()
        holder.wait(timeout=30)


DRY_RUN_GRID = """\
instances:
  n: [6, 7, 8]
  encodings: [pairwise, sequential]
  column_alo: [false, true]
  shuffle_seeds: [1, 2]
solvers: [pysat:cadical195, pysat:minisat22, pysat:glucose4]
limits: {time: 10}
results: RESULTS
"""


def test_dry_run_line_multiplies_to_its_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(DRY_RUN_GRID.replace("RESULTS", str(tmp_path / "results.sqlite")))
    assert main(["batch", str(cfg), "--dry-run"]) == 0
    first, *runs = capsys.readouterr().out.splitlines()
    expected = "grid: 3 N x 2 encodings x 2 column_alo values x 2 seeds x 3 solvers x 1 repeats = 72 runs;"
    assert first.startswith(expected), first
    assert len([r for r in runs if r.startswith("todo ")]) == 72
