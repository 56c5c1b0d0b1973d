"""Fault injection for batch experiments: config bombs, a foreign results file, a tampered instance cache.

Every case asserts the exit code, the one-line message naming the key or file, and what is left behind.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from helpers import kill_test_config, one_line, stored

from cnfgen_queens.cli import main

BASE = """\
instances:
  n: [8]
  encodings: [pairwise]
solvers: [pysat:cadical195]
limits: {time: 10}
results: RESULTS
"""


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "exp.yaml"
    path.write_text(text.replace("RESULTS", str(tmp_path / "out" / "results.sqlite")))
    return path


def _one_line_error(capsys: pytest.CaptureFixture[str], *argv: str, code: int = 2) -> str:
    assert main(list(argv)) == code
    err = one_line(capsys.readouterr().err)
    assert err.startswith("cnfgen-queens batch: error: "), err
    return err


def _alias_bomb(width: int, depth: int, under: str = "") -> str:
    """The "billion laughs" YAML: each level lists the previous one ``width`` times (width^depth values)."""
    lines = [f"{under}l0: &l0 [{', '.join(['lol'] * width)}]"]
    for i in range(1, depth):
        lines.append(f"{under}l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


BOMBS = {
    "alias bomb at the top": (
        _alias_bomb(9, 9),
        "exp.yaml:6: l5: 597871 values (YAML aliases expanded), over the limit",
    ),
    "alias bomb in a key": (
        BASE.replace("solvers:", "  bomb:\n" + _alias_bomb(9, 9, "    ") + "solvers:"),
        "instances.bomb.l5: 597871 values",
    ),
    "alias bomb as a list": (
        "x: &x [" + ", ".join(["lol"] * 50) + "]\ny: &y [" + ", ".join(["*x"] * 50) + "]\n"
        "z: [" + ", ".join(["*y"] * 50) + "]\n",
        "z: 127551 values",
    ),
    "self-referencing alias": ("a: &a [1, *a]\n", "exp.yaml:1: a[1]: a YAML alias refers to itself"),
    "nesting": ("[" * 5000 + "]" * 5000 + "\n", "exp.yaml: nested too deeply"),
    "huge N": (BASE.replace("[8]", "[99999999999999999999]"), "instances.n[0]: 99999999999999999999 is over the limit"),
    "huge range": (BASE.replace("[8]", "{from: 1, to: 1000000000}"), "instances.n.to: 1000000000 is over the limit"),
    "counting cost": (
        BASE.replace("[8]", "{from: 1000, to: 100000, step: 1000}"),
        "instances.n: the N sum to 5050000, x 1 encodings",
    ),
    "measured counts": (
        BASE.replace("[8]", "[8, 1000]").replace("[pairwise]", "[pairwise, pysat:totalizer]"),
        "instances.encodings[1]: pysat:totalizer counts are measured by building it: N up to 200, not 1000",
    ),
    "huge repeats": (BASE + "repeats: 1000000000\n", "exp.yaml:7: repeats: 1000000000 is over the limit of 1000000"),
    "grid product": (
        BASE.replace("[8]", "[8, 9, 10]").replace("[pairwise]", "all") + "repeats: 50000\n",
        "grid: 3 N x 16 encodings x 1 solvers x 50000 repeats = 2400000 runs, over the limit of 1000000",
    ),
    "huge seed": (
        BASE.replace("  encodings", "  shuffle_seeds: [99999999999999999999]\n  encodings"),
        "instances.shuffle_seeds[0]: 99999999999999999999 is over the limit of 9223372036854775807",
    ),
    "too many seeds": (
        BASE.replace("  encodings", f"  shuffle_seeds: [{', '.join(map(str, range(100_001)))}]\n  encodings"),
        "instances.shuffle_seeds: 100002 values (YAML aliases expanded), over the limit of 100000",
    ),
    "keep_output not a bool": (BASE + "keep_output: 1\n", "exp.yaml:7: keep_output: expected true or false, got 1"),
    "huge time limit": (BASE.replace("{time: 10}", "{time: 1.0e+300}"), "limits.time: 1e+300 seconds is over"),
    "huge memory limit": (
        BASE.replace("{time: 10}", "{time: 10, memory: 99999999999999}"),
        "limits.memory: 99999999999999 is over the limit of 2147483647",  # the solvers' bound (issue 13)
    ),
    "huge group size": (
        BASE.replace("[pairwise]", "[commander]").replace("  encodings", "  group_size: 99999999999\n  encodings"),
        "instances.group_size: 99999999999 is over the limit",
    ),
}


@pytest.mark.parametrize(
    "name", [pytest.param(b, marks=pytest.mark.slow) if b == "too many seeds" else b for b in BOMBS]
)
def test_config_bombs_fail_fast_naming_the_key(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    text, expected = BOMBS[name]
    path = _config(tmp_path, text)
    t0 = time.process_time()
    err = _one_line_error(capsys, "batch", str(path), "--dry-run")
    assert expected in err
    assert time.process_time() - t0 < 10  # CPU seconds, loosely (each took minutes or gigabytes before)
    assert not (tmp_path / "out").exists()  # nothing was created


def test_twenty_thousand_seeds_are_fast_and_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Duplicates are found with a dict (the quadratic check took 21 s), and a duplicate is still named."""
    seeds = ", ".join(map(str, range(20_000)))
    path = _config(tmp_path, BASE.replace("  encodings", f"  shuffle_seeds: [{seeds}]\n  encodings"))
    t0 = time.process_time()
    assert main(["batch", str(path), "--dry-run"]) == 0
    assert time.process_time() - t0 < 10
    out = capsys.readouterr().out
    assert out.startswith("grid: 1 N x 1 encodings x 20000 seeds x 1 solvers x 1 repeats = 20000 runs")
    assert out.count("\ntodo ") == 20_000
    path = _config(tmp_path, BASE.replace("  encodings", f"  shuffle_seeds: [{seeds}, 17]\n  encodings"))
    assert "instances.shuffle_seeds[20000]: duplicate entry 17" in _one_line_error(capsys, "batch", str(path))


def test_aliases_within_the_limit_still_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = BASE.replace("[8]", "&sizes [6, 8]").replace("solvers:", "  max_clauses: 100000\nsolvers:")
    text = text.replace("limits: {time: 10}", "limits: &lim {time: 10}") + "experiment: *lim\n"
    path = _config(tmp_path, text)
    err = _one_line_error(capsys, "batch", str(path), "--dry-run")
    assert "experiment: expected a non-empty string, got a mapping" in err  # an alias is a value like any other
    path = _config(tmp_path, text.replace("experiment: *lim\n", ""))
    assert main(["batch", str(path), "--dry-run"]) == 0
    assert "= 2 runs; 2 to do" in capsys.readouterr().out


def test_results_path_the_file_system_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for results, expected in (
        (
            str(tmp_path / ("r" * 300 + ".sqlite")),
            "results: a name of 307 bytes in the path: the file system allows 255",
        ),
        (str(tmp_path / "/".join(["d" * 200] * 25)), "results: a path of"),
        ('"a\\0b.sqlite"', "results: a file name cannot contain a NUL character"),
    ):
        path = _config(tmp_path, BASE.replace("RESULTS", results))
        for extra in ((), ("--dry-run",)):
            assert expected in _one_line_error(capsys, "batch", str(path), *extra)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exp.yaml"]
    (tmp_path / "dir.sqlite").mkdir()
    path = _config(tmp_path, BASE.replace("RESULTS", str(tmp_path / "dir.sqlite")))
    for extra in ((), ("--dry-run",)):
        assert "dir.sqlite: a directory, not a results file" in _one_line_error(capsys, "batch", str(path), *extra)


def _foreign_db(path: Path) -> None:
    import sqlite3

    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE runs (id INTEGER, note TEXT); INSERT INTO runs VALUES (1, 'mine');")
    db.executescript("CREATE TABLE meta (k TEXT); INSERT INTO meta VALUES ('x');")
    db.close()


@pytest.mark.parametrize("flags", [(), ("--fresh",), ("--dry-run",), ("--fresh", "--dry-run")])
def test_foreign_database_is_refused_and_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: tuple[str, ...]
) -> None:
    db = tmp_path / "other.db"
    _foreign_db(db)
    before, stat = db.read_bytes(), db.stat()
    path = _config(tmp_path, BASE.replace("RESULTS", str(db)))
    err = _one_line_error(capsys, "batch", str(path), "--no-progress", *flags)
    assert f"{db}: not a cnfgen-queens results database (its tables: meta, runs); left untouched" in err
    assert db.read_bytes() == before and db.stat().st_mtime_ns == stat.st_mtime_ns
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exp.yaml", "other.db"]  # no -wal, no cnf-cache
    assert main(["report", str(db)]) == 2
    assert "not a cnfgen-queens results database" in capsys.readouterr().err


def test_store_errors_are_not_blamed_on_the_scheduler(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A bad results file under --executor dask is the file's error, not the scheduler address's (issue 13)."""
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"SQLite format 2? no: a text file\n" * 50)
    path = _config(tmp_path, BASE.replace("RESULTS", str(junk)))
    argv = ("--no-progress", "--executor", "dask", "--scheduler", "tcp://127.0.0.1:1")
    err = _one_line_error(capsys, "batch", str(path), *argv)
    assert "not a usable results database" in err and "--scheduler" not in err


def test_not_sqlite_and_empty_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import sqlite3

    junk = tmp_path / "junk.db"
    junk.write_bytes(b"SQLite format 2? no: a text file\n" * 50)
    before = junk.read_bytes()
    path = _config(tmp_path, BASE.replace("RESULTS", str(junk)))
    assert "not a usable results database" in _one_line_error(capsys, "batch", str(path), "--no-progress")
    assert junk.read_bytes() == before
    for empty in (tmp_path / "zero.db", tmp_path / "no-tables.db"):  # an empty file or database is taken
        if empty.name == "zero.db":
            empty.write_bytes(b"")
        else:
            sqlite3.connect(empty).execute("PRAGMA user_version = 7").connection.close()
        path = _config(tmp_path, BASE.replace("RESULTS", str(empty)))
        assert main(["batch", str(path), "--dry-run"]) == 0
        assert "= 1 runs; 1 to do" in capsys.readouterr().out
        assert main(["batch", str(path), "--no-progress"]) == 0
        rows = sqlite3.connect(empty).execute("SELECT n, status, verified FROM runs").fetchall()
        assert rows == [(8, "SAT", 1)]


def test_tampered_cache_is_regenerated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The reproducer: a cached CNF replaced by one with the same counts and a contradiction gave UNSAT twice."""
    import sqlite3

    from helpers import need_solver

    from cnfgen_queens.cnf.gbd_hash import gbd_hash

    need_solver("minisat")
    path = _config(tmp_path, BASE.replace("[pysat:cadical195]", "[pysat:cadical195, minisat]"))
    assert main(["batch", str(path), "--no-progress", "--jobs", "1"]) == 0
    (cnf,) = (tmp_path / "out" / "cnf-cache").glob("queens-8-*.cnf")
    original = cnf.read_bytes()
    db = tmp_path / "out" / "results.sqlite"
    hashes = sqlite3.connect(db).execute("SELECT DISTINCT gbd_hash FROM runs").fetchall()
    assert hashes == [(gbd_hash(cnf),)] and len(hashes[0][0]) == 32
    lines = original.decode().splitlines(keepends=True)
    lines[-2:] = ["1 0\n", "-1 0\n"]  # the same counts in the header and body, now unsatisfiable
    cnf.write_text("".join(lines))
    path.write_text(path.read_text() + "repeats: 2\n")  # two new runs on the cached file
    assert main(["batch", str(path), "--no-progress", "--jobs", "1"]) == 0
    assert "2 runs done (2 solved), 2 already stored" in capsys.readouterr().out
    rows = sqlite3.connect(db).execute("SELECT status, verified, gbd_hash FROM runs").fetchall()
    assert rows == [("SAT", 1, hashes[0][0])] * 4
    assert cnf.read_bytes() == original  # written again
    assert sorted(p.name for p in cnf.parent.iterdir()) == [cnf.name]  # no temporary left


def test_cache_of_unknown_origin_is_not_trusted(tmp_path: Path) -> None:
    """A cache file no batch of this results file wrote (e.g. copied in) is written again before use."""
    import sqlite3

    from cnfgen_queens.experiments.config import load
    from cnfgen_queens.experiments.grid import build

    path = _config(tmp_path, BASE)
    run = build(load(path))[0]
    cache = tmp_path / "out" / "cnf-cache"
    cache.mkdir(parents=True)
    fake = cache / run.instance.filename
    assert main(["gen", "8", "-o", str(fake)]) == 0
    fake.write_text(fake.read_text().rsplit("\n", 2)[0] + "\n-1 0\n")  # last clause replaced: same counts
    assert main(["batch", str(path), "--no-progress", "--jobs", "1"]) == 0
    rows = sqlite3.connect(tmp_path / "out" / "results.sqlite").execute("SELECT status, verified FROM runs")
    assert rows.fetchall() == [("SAT", 1)]


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_sigterm_stops_the_batch_like_ctrl_c(tmp_path: Path) -> None:
    """SIGTERM: workers and solvers stopped at once, a line saying what was saved, exit 143; resume completes."""
    import signal

    from test_experiments_batch import (
        TOTAL,
        _all_gone,
        _check_complete,
        _descendants,
        _start,
        _wait_for_rows,
    )

    cfg = kill_test_config(tmp_path)
    db = tmp_path / "kill" / "results.sqlite"
    proc = _start(cfg, "--jobs", "2")
    _wait_for_rows(db, proc, 4)
    children = _descendants(proc.pid)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err
    text = err.decode()
    assert "Traceback" not in text and text.count("\n") == 1, text  # stderr: the one line of the stop, under any load
    said = [line for line in out.decode().splitlines() if not line.startswith("note: load average ")]
    assert len(said) == 1 and " runs done (" in said[0], out  # stdout: the summary, after the noise note if busy
    before = {r.run_key: r for r in stored(db)}
    assert f"terminated (SIGTERM); workers stopped, {len(before)} finished runs saved in {db}" in text
    assert 4 <= len(before) < TOTAL
    _all_gone(children, timeout=2)  # stopped by the batch itself, not by the workers' 3 s orphan watch
    assert main(["batch", str(cfg), "--no-progress"]) == 0
    _check_complete(db, before)


def _run_python(code: str) -> tuple[int, str]:
    import subprocess
    import sys

    from helpers import default_signals

    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, preexec_fn=default_signals
    )
    return proc.returncode, proc.stderr


def test_interrupts_outside_a_subcommand_are_quiet() -> None:
    """Ctrl-C in start-up imports, outside the handler, or in atexit handlers: one line, exit 130."""
    as_command = "import sys; sys.argv = ['cnfgen-queens']; import signal; from cnfgen_queens import cli; "
    code, err = _run_python(as_command + "print(signal.getsignal(signal.SIGINT).__name__, file=sys.stderr)")
    assert (code, err) == (0, "quiet_exit\n")  # installed before the CLI's imports
    code, err = _run_python(
        as_command + "cli._console('cnfgen-queens', lambda: (_ for _ in ()).throw(KeyboardInterrupt))"
    )
    assert (code, err) == (130, "cnfgen-queens: interrupted\n")
    at_exit = "import atexit, os, time; atexit.register(lambda: (os.kill(os.getpid(), signal.SIGINT), time.sleep(5)))"
    code, err = _run_python(as_command + at_exit + "; cli._console('cnfgen-queens', lambda: 0)")
    assert (code, err) == (130, "cnfgen-queens: interrupted\n")
    code, err = _run_python(
        "import signal, sys; from cnfgen_queens import cli; print(signal.getsignal(2), file=sys.stderr)"
    )
    assert code == 0 and "quiet_exit" not in err  # a library import changes nothing


def test_environment_and_header_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """decode with 'c n=0' in the header, solve /dev/full, output to a full disk: no generic message."""
    import os

    cnf, answer = tmp_path / "z.cnf", tmp_path / "answer.txt"
    assert main(["gen", "4", "-o", str(cnf)]) == 0
    cnf.write_text(cnf.read_text().replace("c n=4 ", "c n=0 "))
    answer.write_text("s SATISFIABLE\nv -1 2 -3 -4 -5 -6 -7 8 9 -10 -11 -12 -13 -14 15 -16 0\n")
    for argv, code, expected in (
        (["decode", str(answer), "--cnf", str(cnf)], 2, f"{cnf}: the header says n=0, which is no board size"),
        (["solve", "/dev/full"], 2, "cnfgen-queens solve: error: /dev/full: a device, not a CNF file"),
    ):
        assert main(argv) == code
        err = capsys.readouterr().err
        assert expected in err and err.count("\n") == 1 and "CNFGEN_QUEENS_DEBUG" not in err, err
    if os.path.exists("/dev/full"):
        import subprocess
        import sys

        for argv in (["gen", "8"], ["decode", str(answer), "-n", "4"]):
            with open("/dev/full", "w") as full:
                proc = subprocess.run(
                    [sys.executable, "-c", "import sys; from cnfgen_queens.cli import main; sys.exit(main())", *argv],
                    stdout=full,
                    stderr=subprocess.PIPE,
                    text=True,
                    timeout=60,
                )
            assert proc.returncode == 1 and proc.stderr.endswith("error: output: No space left on device\n")
            assert proc.stderr.count("\n") == 1, proc.stderr


def test_fast_run_keys_equal_the_defined_digest(tmp_path: Path) -> None:
    """expand() builds each key's JSON once per (instance, solver); every key is still digest(params)."""
    from helpers import need_solver

    from cnfgen_queens.experiments.config import digest, load
    from cnfgen_queens.experiments.grid import build

    need_solver("minisat")
    text = BASE.replace("[pysat:cadical195]", "[minisat, {name: minisat, args: [-123456789012345]}]")
    runs = build(load(_config(tmp_path, text + "repeats: 12\n")))
    assert len(runs) == 24 and len({r.key for r in runs}) == 24
    for run in runs:
        assert run.key == digest(run.params())


def test_results_file_from_before_a_column_was_added(tmp_path: Path) -> None:
    """A file of this schema without a newer nullable column: read with NULL there, and given it on write."""
    import sqlite3

    from cnfgen_queens.experiments.store import Store

    path = tmp_path / "old.sqlite"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE runs DROP COLUMN gbd_hash")
    db.execute(
        "INSERT INTO runs (run_key, config_hash, experiment, task, n, encoding, column_alo, repeat, variables, "
        "clauses, solver, solver_args, status) VALUES ('k', 'c', 'e', 'solve', 8, 'pairwise', 0, 0, 64, 736, "
        "'minisat', '[]', 'SAT')"
    )
    db.commit()
    db.close()
    with Store(path, readonly=True) as store:
        (row,) = store.rows()
    assert (row.n, row.status, row.gbd_hash) == (8, "SAT", None)
    with Store(path) as store:
        assert "gbd_hash" in store.columns and store.rows() == [row]
