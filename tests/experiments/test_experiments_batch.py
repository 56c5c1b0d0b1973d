"""Batch runs with real solvers: local pool, Dask LocalCluster (same rows), resume after SIGKILL and Ctrl-C."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import (
    CLI_ENTRY,
    ROOT,
    comparable,
    default_signals,
    kill_test_config,
    need_module,
    need_solver,
    stored,
)
from helpers import (
    batch_config as config,
)

from cnfgen_queens.cli import main
from cnfgen_queens.experiments.store import Row
from cnfgen_queens.model.formula import QueensFormula

TOTAL = 9 * 2  # runs of the kill-test grid


SMOKE_GRID = {"n": "{from: 4, to: 8}", "encodings": "[pairwise, sequential]", "solvers": "[pysat:cadical195, kissat]"}


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Row]]:
    """N 4..8, two encodings, the embedded CaDiCaL and kissat, on the local executor."""
    need_solver("kissat")
    tmp_path = tmp_path_factory.mktemp("smoke")
    cfg = config(tmp_path, "local", **SMOKE_GRID)
    assert main(["batch", str(cfg), "--jobs", "2", "--no-progress"]) == 0
    return cfg, stored(tmp_path / "local" / "results.sqlite")


def test_local_smoke_rows(smoke: tuple[Path, list[Row]]) -> None:
    _, rows = smoke
    assert len(rows) == 5 * 2 * 2
    assert len({r.run_key for r in rows}) == len(rows)
    assert {(r.n, r.encoding, r.solver) for r in rows} == {
        (n, e, s) for n in range(4, 9) for e in ("pairwise", "sequential") for s in ("pysat:cadical195", "kissat")
    }
    for r in rows:  # every N in 4..8 has a solution; the runner checked each model
        assert (r.status, r.verified, r.error) == ("SAT", True, None), r
        assert (r.variables, r.clauses) == QueensFormula(r.n, r.encoding).counts()
        assert r.wall is not None and 0 <= r.wall < 30 and r.host and r.started and r.finished
        assert r.time_limit == 30 and r.memory_limit == 2048 and r.task == "solve"
        assert r.solver_version
        # issue 10: the model check's time and the whole run's wall time are stored apart from the solver's
        assert r.check_time is not None and 0 <= r.check_time <= r.total_wall
        assert r.total_wall is not None and r.total_wall >= r.check_time


def test_rerun_skips_finished_and_fresh_starts_over(
    smoke: tuple[Path, list[Row]], capsys: pytest.CaptureFixture[str]
) -> None:
    cfg, rows = smoke
    capsys.readouterr()
    assert main(["batch", str(cfg), "--no-progress"]) == 0
    assert "0 runs done (0 solved), 20 already stored" in capsys.readouterr().out
    assert main(["batch", str(cfg), "--dry-run"]) == 0
    assert "20 runs; 0 to do, 20 already in" in capsys.readouterr().out
    db = cfg.parent / "local" / "results.sqlite"
    assert stored(db) == rows  # untouched
    cached = sorted((cfg.parent / "local" / "cnf-cache").glob("*.cnf"))
    assert len(cached) == 10  # one file per instance, shared by the solvers
    assert main(["batch", str(cfg), "--fresh", "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert "20 runs done (20 solved), 0 already stored" in out and "--fresh: deleted 20 stored runs" in err
    assert comparable(stored(db)) == comparable(rows)


@pytest.mark.slow  # issue 13: out of the default run (CI runs it); Dask stays in test_symmetric_count.py
def test_dask_local_cluster_gives_the_same_rows(smoke: tuple[Path, list[Row]], tmp_path: Path) -> None:
    need_module("dask.distributed")
    _, local_rows = smoke
    cfg = config(tmp_path, "local", **SMOKE_GRID)  # same experiment, another results file
    assert main(["batch", str(cfg), "--executor", "dask", "--jobs", "2", "--no-progress"]) == 0
    dask_rows = stored(tmp_path / "local" / "results.sqlite")
    assert comparable(dask_rows) == comparable(local_rows)


def _start(cfg: Path, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", CLI_ENTRY, "batch", str(cfg), "--no-progress", *extra],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=default_signals,  # the tests send it SIGINT and SIGTERM, whatever the caller ignores
    )


def _wait_for_rows(db: Path, proc: subprocess.Popen[bytes], at_least: int, timeout: float = 60) -> int:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if db.is_file():
            try:
                count = (
                    sqlite3.connect(f"file:{db}?mode=ro", uri=True).execute("SELECT COUNT(*) FROM runs").fetchone()[0]
                )
            except sqlite3.Error:
                count = 0
            if count >= at_least:
                return int(count)
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError("no rows landed")


def _check_complete(db: Path, before: dict[str, Row]) -> None:
    rows = stored(db)
    assert len(rows) == TOTAL == len({r.run_key for r in rows})
    now = {r.run_key: r for r in rows}
    assert all(now[k] == r for k, r in before.items())  # what had landed was kept, not rerun
    assert all(r.status == "SAT" and r.verified for r in rows)
    assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@pytest.mark.slow  # issue 13 (CI runs it); resume stays in test_rerun_skips_finished_and_fresh_starts_over
def test_resume_after_sigkill(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = kill_test_config(tmp_path)
    db = tmp_path / "kill" / "results.sqlite"
    proc = _start(cfg, "--jobs", "2")
    _wait_for_rows(db, proc, 6)
    children = _descendants(proc.pid)
    proc.kill()
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    before = {r.run_key: r for r in stored(db)}  # readable right after the kill
    assert 6 <= len(before) < TOTAL
    assert main(["batch", str(cfg), "--no-progress"]) == 0
    # the summary line (on a busy machine the noise note comes before it)
    out = next(line for line in capsys.readouterr().out.splitlines() if " runs done (" in line).split()
    done, kept = int(out[0]), int(out[out.index("already") - 1])
    # a row whose commit was cut off mid-way by SIGKILL is still found (the WAL is recovered)
    assert done + kept == TOTAL and kept >= len(before)
    _check_complete(db, before)
    _all_gone(children)  # the workers noticed their parent died and ended themselves


def _all_gone(pids: list[int], timeout: float = 10) -> None:
    end = time.monotonic() + timeout
    while [p for p in pids if _alive(p)] and time.monotonic() < end:
        time.sleep(0.1)
    assert pids and not [p for p in pids if _alive(p)]


@pytest.mark.slow  # issue 13: out of the default run (CI runs it; SIGTERM's twin stays)
def test_ctrl_c_stops_cleanly_and_keeps_results(tmp_path: Path) -> None:
    cfg = kill_test_config(tmp_path)
    db = tmp_path / "kill" / "results.sqlite"
    proc = _start(cfg, "--jobs", "2")
    _wait_for_rows(db, proc, 6)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert time.monotonic() - t0 < 60  # ten times the quiet figure and more (a loaded machine stretches it)
    assert b"interrupted" in err and b"Traceback" not in err
    before = {r.run_key: r for r in stored(db)}
    assert 6 <= len(before) < TOTAL
    assert main(["batch", str(cfg), "--no-progress"]) == 0
    _check_complete(db, before)


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc")
def test_no_worker_outlives_the_batch(tmp_path: Path) -> None:
    """After Ctrl-C, no process started by the batch is left (workers lead their own process groups)."""
    cfg = kill_test_config(tmp_path)
    proc = _start(cfg, "--jobs", "2")
    _wait_for_rows(tmp_path / "kill" / "results.sqlite", proc, 4)
    children = _descendants(proc.pid)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=120)
    _all_gone(children, timeout=2)


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            kids = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except OSError:
            continue
        out += [int(k) for k in kids]
        todo += [int(k) for k in kids]
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_count_task(tmp_path: Path) -> None:
    cfg = config(tmp_path, "count", n="[4, 5, 6]", encodings="[sequential]", solvers="[pysat:cadical195]")
    cfg.write_text(cfg.read_text() + "task: count\n")
    assert main(["batch", str(cfg), "--jobs", "1", "--no-progress"]) == 0
    rows = stored(tmp_path / "count" / "results.sqlite")
    assert [(r.n, r.count, r.task) for r in rows] == [(4, 2, "count"), (5, 10, "count"), (6, 4, "count")]  # A000170


def test_count_task_runs_the_cli_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``count 10`` and a batch ``task: count`` on N = 10 run one engine (solutions.api) and give A000170's 724;
    ``engine: loop`` is recorded as such, and a binary solver counts by cubes too (issue 26)."""
    from cnfgen_queens.solutions import api

    chosen: list[str] = []
    real = api.choose_engine
    monkeypatch.setattr(api, "choose_engine", lambda *a, **k: chosen.append(real(*a, **k)) or chosen[-1])
    assert main(["count", "10", "--quiet"]) == 0
    assert capsys.readouterr().out == "count: 724 (published-count)\n"
    # limits of 300 s: ten times the quiet figures and more (minisat's restarts per cube passed 30 s at load 30)
    cfg = config(tmp_path, "c10", n="[10]", encodings="[pairwise]", solvers="[pysat:cadical195]", time_limit=300)
    cfg.write_text(cfg.read_text().replace(", memory: 2048", "") + "task: count\n")  # cubes bound no memory
    assert main(["batch", str(cfg), "--jobs", "1", "--no-progress"]) == 0
    [row] = stored(tmp_path / "c10" / "results.sqlite")
    assert (row.count, row.engine, row.status) == (724, "cubes", "UNSAT") and chosen == [
        "cubes"
    ]  # the batch chose in its worker
    loop = config(tmp_path, "loop", n="[6]", encodings="[pairwise]", solvers="[pysat:cadical195]", time_limit=300)
    loop.write_text(loop.read_text() + "task: count\nengine: loop\n")
    assert main(["batch", str(loop), "--jobs", "1", "--no-progress"]) == 0
    assert [(r.count, r.engine) for r in stored(tmp_path / "loop" / "results.sqlite")] == [(4, "loop")]
    need_solver("minisat")
    binary = config(tmp_path, "binary", n="[6, 8]", encodings="[pairwise]", solvers="[minisat]", time_limit=300)
    binary.write_text(binary.read_text().replace(", memory: 2048", "") + "task: count\nengine: cubes\n")
    assert main(["batch", str(binary), "--jobs", "1", "--no-progress"]) == 0  # a restart loop per cube
    rows = stored(tmp_path / "binary" / "results.sqlite")
    assert [(r.n, r.count, r.engine, r.status) for r in rows] == [(6, 4, "cubes", "UNSAT"), (8, 92, "cubes", "UNSAT")]


def test_shuffled_instances_and_the_placement_check(tmp_path: Path) -> None:
    from cnfgen_queens.experiments.config import load
    from cnfgen_queens.experiments.grid import build

    cfg = config(tmp_path, "shuffled", n="[6, 7]", encodings="[sequential]", solvers="[pysat:cadical195]")
    cfg.write_text(cfg.read_text().replace("  encodings:", "  shuffle_seeds: [0, 1]\n  encodings:"))
    assert main(["batch", str(cfg), "--jobs", "1", "--no-progress"]) == 0
    rows = stored(tmp_path / "shuffled" / "results.sqlite")
    assert [(r.n, r.shuffle_seed, r.status, r.verified, r.error) for r in rows] == [
        (n, s, "SAT", True, None) for n in (6, 7) for s in (0, 1)
    ]
    files = sorted((tmp_path / "shuffled" / "cnf-cache").glob("queens-6-*.cnf"))
    assert len(files) == 2 and files[0].read_bytes() != files[1].read_bytes()
    run = build(load(cfg))[0]  # n=6, seed 0
    path = tmp_path / "shuffled" / "cnf-cache" / run.instance.filename
    from cnfgen_queens.cnf.dimacs import read_header_file
    from cnfgen_queens.cnf.shuffle import header_shuffle_map
    from cnfgen_queens.solutions import known_answer

    header = read_header_file(path)
    forward = header_shuffle_map(header)
    assert forward is not None
    good = {r * 6 + c + 1 for r, c in enumerate((1, 3, 5, 0, 2, 4))}  # a 6-queens solution
    bad = {r * 6 + c + 1 for r, c in enumerate((0, 1, 2, 3, 4, 5))}  # all on one diagonal
    assert known_answer._not_a_board(header, {forward[v] for v in good}) is None
    msg = known_answer._not_a_board(header, {forward[v] for v in bad})
    assert msg is not None and msg.startswith(known_answer.NOT_A_SOLUTION) and "attack" in msg
