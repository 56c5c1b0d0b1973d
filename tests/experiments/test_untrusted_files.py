"""Files from outside are checked before they are trusted, and every error is a sentence naming the file or
option and the cause (issue 30, items 5 and 8): forged certificate manifests, hand-edited results files,
deeply nested JSON, a full disk, a read-only results folder, too many jobs."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import CLI_ENTRY, in_process, need_module, need_solver, one_line, run_cli

import cnfgen_queens as cq
from cnfgen_queens.cli import main
from cnfgen_queens.experiments.store import Store

DEEP = "[" * 100_000 + "]" * 100_000  # deeper than Python's JSON parser goes (RecursionError)


def one_sentence(err: str) -> str:
    one_line(err)
    assert "RecursionError" not in err and "OperationalError" not in err and "TypeError" not in err, err
    return err


@pytest.fixture(scope="module")
def cert5(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real certificate of N = 5 (PySAT CaDiCaL)."""
    d = tmp_path_factory.mktemp("cert") / "c5"
    assert main(["count", "5", "--certify", str(d), "--quiet"]) == 0
    return d


def forged(cert: Path, tmp_path: Path, change: dict[str, Any] | None = None, text: str | None = None) -> Path:
    d = tmp_path / "forged"
    shutil.copytree(cert, d)
    manifest = json.loads((d / "manifest.json").read_text())
    (d / "manifest.json").write_text(text if text is not None else json.dumps({**manifest, **(change or {})}))
    return d


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"n": 10**9}, "n is not an integer in 1..27"),  # spun for ever (issue 30)
        ({"n": True}, "n is not an integer"),
        ({"n": 28}, "n is not an integer in 1..27"),  # beyond the last published count, which bounds the boards
        ({"total": "all"}, "total is not an integer"),
        ({"group_size": -3}, "group_size is not an integer"),
        ({"variant": ["c"] * 10_000}, "variant is not a list of at most"),
        ({"cubes": [{"cube": [1, 20], "count": 0, "solutions": "a", "proof": "b"}] * 100}, "at most 25 cubes"),
        ({"cubes": [{"cube": [1, 20], "count": 0, "solutions": "a", "proof": "b"}] * 100_000}, "refused unparsed"),
        ({"cubes": [{"cube": [1, 20], "count": 10**100, "solutions": "a", "proof": "b"}]}, "count is not an integer"),
        ({"cubes": [{"cube": [1, 20], "count": 0, "solutions": "a", "proof": "b"}]}, "cubes are not the"),
        ({"formula_sha256": {"x": DEEP[:400] + DEEP[-400:]}}, "formula_sha256 is not a SHA-256"),
        ({"solver": DEEP}, None),  # a field the check does not read: the JSON text of it, nested 100,000 deep
        # counts of the formula, bounded by the formula the manifest names (were certified as they were)
        ({"variables": 10**18}, "the manifest's variables is 10"),
        ({"clauses": -1}, "the manifest's clauses is -1"),
        ({"clauses": 7}, "the manifest's clauses is 7, but the formula"),
        ({"variables": True}, "the manifest's variables is True"),
    ],
)
def test_a_forged_manifest_is_refused_in_one_line(
    cert5: Path, tmp_path: Path, change: dict[str, Any], field: str | None
) -> None:
    if field is None:  # written as text: json.dumps cannot write it either
        deep = DEEP[:20_000] + DEEP[-20_000:]  # 20,000 deep: within the size a manifest of N = 5 may have
        text = (cert5 / "manifest.json").read_text().replace('"format"', f'"x": {deep}, "format"', 1)
        done = run_cli(["check-count", str(forged(cert5, tmp_path, text=text))], tmp_path)
        assert done.code == 2 and "JSON nested too deeply" in one_sentence(done.err)
        return
    done = run_cli(["check-count", str(forged(cert5, tmp_path, change))], tmp_path)
    assert done.code in (1, 2) and field in one_sentence(done.err), done.err


def test_a_huge_integer_in_a_manifest_is_named_with_its_key(cert5: Path, tmp_path: Path) -> None:
    """An integer of 5,000 digits: Python's "Exceeds the limit (4300 digits)" text before."""
    text = (cert5 / "manifest.json").read_text().replace('"total": 10', f'"total": {"9" * 5000}', 1)
    done = run_cli(["check-count", str(forged(cert5, tmp_path, text=text))], tmp_path)
    err = one_sentence(done.err)
    assert done.code == 1 and "the manifest's total is not an integer" in err and "5000 digits" in err, err


def test_a_solutions_file_longer_than_its_count_is_refused(cert5: Path, tmp_path: Path) -> None:
    """The solutions file is read as a stream, at most the manifest's count of lines."""
    d = forged(cert5, tmp_path)
    sol = next(p for p in sorted((d / "cubes").glob("*.sol")) if p.read_text())
    sol.write_text(sol.read_text() * 1000)
    done = run_cli(["check-count", str(d), "--checker", "dratify"], tmp_path)
    assert done.code == 1 and "lists more than the" in one_sentence(done.err)


def test_the_untouched_certificate_still_checks(cert5: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_module("dratify")
    code, out, _ = in_process(["check-count", str(cert5), "--checker", "dratify"], capsys)
    assert (code, out) == (0, "certified count: 10\n")  # OEIS A000170(5), checked here by the proofs


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real store: minisat on N = 3 (UNSAT) and 5 (SAT)."""
    need_solver("minisat")
    tmp = tmp_path_factory.mktemp("store")
    cfg = tmp / "b.yaml"
    cfg.write_text(
        f"experiment: b\ninstances:\n  n: [3, 5]\n  encodings: [pairwise]\nsolvers: [minisat]\n"
        f"limits: {{time: 30}}\nresults: {tmp / 'r.sqlite'}\n"
    )
    assert main(["batch", str(cfg), "--jobs", "1", "--no-progress"]) == 0
    return tmp / "r.sqlite"


def edited(store: Path, tmp_path: Path, *sql: str) -> Path:
    copy = tmp_path / "edited.sqlite"
    shutil.copy(store, copy)
    with contextlib.closing(sqlite3.connect(copy)) as db:
        for statement in sql:
            db.execute(statement)
        db.commit()
    return copy


@pytest.mark.parametrize(
    ("sql", "words"),
    [
        (["ALTER TABLE runs RENAME COLUMN status TO answer"], "has no column status"),  # read as all UNSAT, exit 0
        (["UPDATE runs SET wall = 'fast' WHERE n = 5"], "column wall holds 'fast', not a number"),  # a TypeError
        (["UPDATE runs SET n = 'five' WHERE n = 5"], "column n holds 'five', not an integer"),
        (["UPDATE runs SET solver_args = '{\"a\": 1}'"], "column solver_args holds"),
        ([f"UPDATE runs SET variant = '{DEEP[:2000]}'"], "column variant holds"),
        # values of the right type outside their column's domain (F8): counted or printed as they were
        (["UPDATE runs SET status = 'MAYBE' WHERE n = 3"], "column status holds 'MAYBE', not one of SAT, UNSAT"),
        (["UPDATE runs SET wall = -5 WHERE n = 5"], "column wall holds -5.0, not a finite number >= 0"),
        (["UPDATE runs SET wall = 9e999 WHERE n = 5"], "column wall holds Inf, not a finite number >= 0"),
        (["UPDATE runs SET cpu = -9e999 WHERE n = 5"], "column cpu holds -Inf, not a finite number >= 0"),
        (["UPDATE runs SET n = 9223372036854775807 WHERE n = 5"], "holds 9223372036854775807, not an integer in 1.."),
        (["UPDATE runs SET n = 0 WHERE n = 5"], "column n holds 0, not an integer in 1..46340"),
        (["UPDATE runs SET task = 'dance'"], "column task holds 'dance', not one of solve, count"),
        (["UPDATE runs SET verdict = 'great' WHERE n = 5"], "column verdict holds 'great', not one of solved"),
        (["UPDATE runs SET checked = 'sure' WHERE n = 5"], "column checked holds 'sure', not one of model-verified"),
        (["UPDATE runs SET verified = 2 WHERE n = 5"], "column verified holds 2, not an integer in 0..1"),
        (["UPDATE runs SET time_limit = -1"], "column time_limit holds -1.0, not a finite number >= 0"),
        (["UPDATE runs SET count = -3 WHERE n = 5"], "column count holds -3, not an integer >= 0"),
    ],
)
def test_report_refuses_a_store_it_cannot_read_right(
    store: Path, tmp_path: Path, sql: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = in_process(["report", str(edited(store, tmp_path, *sql))], capsys)
    assert (code, out) == (2, "") and words in one_sentence(err)
    with pytest.raises(cq.UsageError, match=words.split(" holds")[0]):
        cq.load_results(edited(store, tmp_path, *sql))


@pytest.mark.parametrize(
    ("sql", "words"),
    [
        # schema objects the tool never creates: a trigger emptied every batch's rows as they landed
        (["CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN DELETE FROM runs; END"], "holds a trigger wipe"),
        (["CREATE VIEW fast AS SELECT * FROM runs WHERE wall < 1"], "holds a view fast"),
        (["CREATE INDEX by_n ON runs(n)"], "holds an index by_n"),
        (["CREATE TABLE notes (x TEXT)"], "holds a table notes"),
        # rows that contradict what the tool knows (each was believed, counted as solved)
        (
            ["UPDATE runs SET status = 'UNSAT', verified = NULL, checked = 'model-verified' WHERE n = 5"],
            "column status holds UNSAT, but N = 5 has solutions",
        ),
        (["UPDATE runs SET status = 'SAT', verified = 1 WHERE n = 3"], "column status holds SAT, but N = 3 has none"),
        (["UPDATE runs SET wall = NULL WHERE n = 5"], "column wall holds NULL, but the run is solved"),
        (["UPDATE runs SET wall = 1e300 WHERE n = 5"], "column wall holds 1e+300, above the run's time limit 30"),
        (["UPDATE runs SET break_symmetry = 7"], "column break_symmetry holds 7, not an integer in 0..1"),
        (["UPDATE runs SET task = 'count', count = 11 WHERE n = 5"], "column count holds 11, but N = 5 has 10"),
        (
            ["UPDATE runs SET verdict = 'solved', status = 'TIMEOUT' WHERE n = 5"],
            "column verdict holds solved, but the run is unsolved",
        ),
    ],
)
def test_report_refuses_a_store_that_contradicts_what_it_knows(
    store: Path, tmp_path: Path, sql: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = edited(store, tmp_path, *sql)
    code, out, err = in_process(["report", str(bad)], capsys)
    assert (code, out) == (2, "") and words in one_sentence(err)
    with pytest.raises(cq.UsageError, match=re.escape(words.split(",")[0])):
        cq.load_results(bad)


def test_a_contradicting_row_is_named_by_its_run(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = edited(store, tmp_path, "UPDATE runs SET wall = NULL WHERE n = 5")
    (key,) = sqlite3.connect(bad).execute("SELECT run_key FROM runs WHERE n = 5").fetchone()
    code, _, err = in_process(["report", str(bad)], capsys)
    assert code == 2 and f"(run '{key}')" in one_sentence(err)


def test_a_batch_refuses_a_store_with_a_trigger_and_keeps_its_rows(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The batch printed "12 runs done" and the trigger left 0 rows."""
    bad = edited(store, tmp_path, "CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN DELETE FROM runs; END")
    cfg = tmp_path / "b.yaml"
    cfg.write_text(
        f"experiment: c\ninstances:\n  n: [4]\n  encodings: [pairwise]\nsolvers: [minisat]\n"
        f"limits: {{time: 30}}\nresults: {bad}\n"
    )
    code, _, err = in_process(["batch", str(cfg), "--jobs", "1", "--no-progress"], capsys)
    assert code == 2 and "holds a trigger wipe" in one_sentence(err)
    assert sqlite3.connect(bad).execute("SELECT COUNT(*) FROM runs").fetchone() == (2,)


@pytest.mark.parametrize("info", ["{", "[1, 2]", '{"memory_mb": "lots"}', '{"cpu_model": {"a": 1}}'])
def test_a_bad_machine_record_is_a_sentence(
    store: Path, tmp_path: Path, info: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """ "JSONDecodeError" / "TypeError", exit 1, before."""
    bad = edited(store, tmp_path, f"UPDATE machines SET info = '{info}'")
    code, out, err = in_process(["report", str(bad), "--machines"], capsys)
    assert (code, out) == (2, "") and "machines table" in one_sentence(err)
    assert "JSONDecodeError" not in err and "TypeError" not in err


def test_a_bad_value_names_its_run(store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = edited(store, tmp_path, "UPDATE runs SET wall = -5 WHERE n = 5")
    (key,) = sqlite3.connect(bad).execute("SELECT run_key FROM runs WHERE n = 5").fetchone()
    code, _, err = in_process(["report", str(bad)], capsys)
    assert code == 2 and f"(run '{key}')" in one_sentence(err)


@pytest.mark.parametrize(("column", "value"), [("wall", "-5.0"), ("wall", "inf"), ("n", "9223372036854775807")])
def test_report_refuses_a_runs_csv_value_outside_its_domain(
    store: Path, tmp_path: Path, column: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A runs CSV (``report --runs-csv``, read back by ``report``) is checked as a store is."""
    runs = tmp_path / "runs.csv"
    assert in_process(["report", str(store), "--runs-csv", str(runs)], capsys)[0] == 0
    head, first, *rest = runs.read_text().splitlines()
    cells = first.split(",")
    cells[head.split(",").index(column)] = value
    runs.write_text("\n".join([head, ",".join(cells), *rest]) + "\n")
    code, out, err = in_process(["report", str(runs)], capsys)
    assert (code, out) == (2, "") and f"line 2: column {column} holds {value}, not " in one_sentence(err)


def test_an_old_status_word_still_reads(store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``USAGE``, once written for a count the engine refused, is a known word (read as ERROR), not a bad value."""
    old = edited(store, tmp_path, "UPDATE runs SET status = 'USAGE', verdict = 'unsolved' WHERE n = 5")
    code, out, _ = in_process(["report", str(old)], capsys)
    assert code == 0 and "| minisat | pairwise | 2 | 1 | 0 | 1 | 0 |" in out


def test_report_reads_an_older_store_without_the_newer_columns(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    older = edited(
        store, tmp_path, *(f"ALTER TABLE runs DROP COLUMN {c}" for c in ("checked", "engine", "verdict", "variant"))
    )
    code, out, _ = in_process(["report", str(older)], capsys)
    assert code == 0 and "| minisat | pairwise | 2 | 2 | 1 | 1 | 0 |" in out  # N = 5 SAT, N = 3 UNSAT: both solved


def test_deeply_nested_json_elsewhere_is_a_sentence(tmp_path: Path) -> None:
    """decode of a `solve --json`-like record, a --resume directory's run.json: a sentence, not a RecursionError."""
    need_solver("minisat")
    done = run_cli(["decode", "-", "-n", "4"], tmp_path, stdin=('{"status": ' + DEEP + "}").encode())
    assert done.code == 2 and "not JSON (JSON nested too deeply)" in one_sentence(done.err)
    work = tmp_path / "work"
    assert run_cli(["enumerate", "5", "--solver", "minisat", "--out", str(work), "--quiet"], tmp_path).code == 0
    (work / "run.json").write_text(DEEP)
    done = run_cli(["enumerate", "5", "--solver", "minisat", "--out", str(work), "--resume", "--quiet"], tmp_path)
    assert done.code == 2 and "run.json is not JSON" in one_sentence(done.err)
    (work / "run.json").write_text("[1, 2]")  # JSON, but no record: an AttributeError
    done = run_cli(["enumerate", "5", "--solver", "minisat", "--out", str(work), "--resume", "--quiet"], tmp_path)
    assert done.code == 2 and "run.json is not the record of a run" in one_sentence(done.err)


FULL_DISK = (
    "import resource, signal; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
    "resource.setrlimit(resource.RLIMIT_FSIZE, (300_000, 300_000)); "
)


def batch_config(tmp_path: Path, results: Path) -> Path:
    cfg = tmp_path / "full.yaml"
    cfg.write_text(
        f"experiment: full\ninstances:\n  n: {{from: 4, to: 30}}\n  encodings: [sequential]\n"
        f"solvers: [pysat:cadical195]\nlimits: {{time: 30}}\nresults: {results}\n"
    )
    return cfg


def test_a_batch_on_a_full_disk_says_so(tmp_path: Path) -> None:
    """Issue 30: ``OperationalError: database or disk is full``.  The disk is full for this process: a file size
    limit (RLIMIT_FSIZE) of 300 KB, which the results file's journal passes within the first runs."""
    results = tmp_path / "out" / "r.sqlite"
    argv = ["batch", str(batch_config(tmp_path, results)), "--jobs", "1", "--no-progress"]
    done = run_cli(argv, tmp_path, entry=FULL_DISK + CLI_ENTRY, timeout=300)
    err = one_sentence(done.err)
    assert done.code == 1 and f"cannot write the results file {results}" in err and "disk" in err, err
    with contextlib.closing(sqlite3.connect(results)) as db:  # what was stored before is still readable
        assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] >= 0


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["count", "9", "--certify", "d", "--quiet"], "d/manifest.json: File too large"),  # was "output: ..."
        (["enumerate", "8", "--solver", "minisat", "--out", "e", "--quiet"], "e/base.cnf: File too large"),
    ],
)
def test_a_full_disk_under_an_output_directory_names_the_file(tmp_path: Path, argv: list[str], named: str) -> None:
    need_solver("minisat")
    tight = FULL_DISK.replace("300_000", "3_000")
    done = run_cli(argv, tmp_path, entry=tight + CLI_ENTRY, timeout=300)
    assert done.code == 1 and named in one_sentence(done.err)


@contextlib.contextmanager
def tiny_tmpfs(where: Path, options: str = "size=256k") -> Iterator[Path]:
    """A 256 KB tmpfs (root only; skipped where mounting is not allowed)."""
    where.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("a tmpfs needs root (the file size limit test covers the rest)")
    if subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], capture_output=True, timeout=30
    ).returncode:
        pytest.skip("mounting a tmpfs is not allowed here")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], capture_output=True, timeout=30, check=True)


def test_a_batch_on_a_really_full_disk_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with tiny_tmpfs(tmp_path / "tiny") as tiny:
        code, _, err = in_process(
            ["batch", str(batch_config(tmp_path, tiny / "r.sqlite")), "--jobs", "1", "--no-progress"], capsys
        )
    # the results file or the instance cache beside it, whichever fills first: one sentence either way
    assert code == 1 and "the disk is full" in one_sentence(err) and str(tiny) in err


def test_a_full_disk_while_writing_an_instance_stops_the_batch_in_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tmpfs out of inodes after a few instances (ENOSPC for the next, the store still writable): one
    sentence naming the instance cache, exit 1, the runs of the instances written before kept; not a line per
    instance that could not be written."""
    with tiny_tmpfs(tmp_path / "tiny", "size=4m,nr_inodes=8") as tiny:
        results = tiny / "r.sqlite"
        argv = ["batch", str(batch_config(tmp_path, results)), "--jobs", "1", "--no-progress"]
        code, _, err = in_process(argv, capsys)
        sentence = f"cannot write the instance cache {tiny / 'cnf-cache'}: the disk is full"
        assert code == 1 and sentence in one_sentence(err)
        with Store(results, readonly=True) as store:
            kept = {r.n for r in store.rows()}
        assert kept and kept == set(range(4, 4 + len(kept)))  # the runs of every instance written before


def test_a_results_file_in_a_read_only_folder_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 30: "unable to open database file".  A folder without write permission; as root (who may write in
    any folder) a read-only tmpfs."""
    need_solver("minisat")
    folder = tmp_path / "locked"
    with contextlib.ExitStack() as stack:
        if os.geteuid() == 0:
            stack.enter_context(tiny_tmpfs(folder, "ro,size=64k"))
        else:
            folder.mkdir(mode=0o555)
            stack.callback(folder.chmod, 0o755)
        cfg = tmp_path / "ro.yaml"
        cfg.write_text(
            f"experiment: ro\ninstances:\n  n: [5]\n  encodings: [pairwise]\nsolvers: [minisat]\n"
            f"limits: {{time: 30}}\nresults: {folder / 'r.sqlite'}\n"
        )
        code, _, err = in_process(["batch", str(cfg), "--jobs", "1", "--no-progress"], capsys)
    assert code == 1 and f"its folder {folder} is not writable" in one_sentence(err)


def test_too_many_jobs_names_jobs(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 30: ``cq.count(f, jobs=10**6)`` said "736 clauses, above the limit of 20"; the cause is the jobs."""
    with pytest.raises(cq.UsageError, match=r"jobs=1000000: each local worker holds a copy .* use jobs=27173 or fewer"):
        cq.count(cq.queens(8), jobs=10**6)


# ---- errors that named the wrong thing (issue 30, round 5) ----


def full(tiny: Path) -> Path:
    """``tiny`` filled to its last byte."""
    with open(tiny / "filler", "wb", buffering=0) as f, contextlib.suppress(OSError):
        while True:
            f.write(b"\0" * 4096)
    return tiny


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["enumerate", "6", "--solver", "minisat", "--out", "e"], "e/.cnfgen-queens.lock: No space left on device"),
        (["count", "6", "--certify", "c"], "c/.cnfgen-queens.lock: No space left on device"),
    ],
)
def test_a_really_full_disk_under_an_output_directory_names_the_file(
    tmp_path: Path, argv: list[str], named: str
) -> None:
    """Issue 30: "error: output: No space left on device" (the lock file's first write)."""
    need_solver("minisat")
    with tiny_tmpfs(tmp_path / "tiny") as tiny:
        done = run_cli(argv, full(tiny))
    assert done.code == 1 and named in one_sentence(done.err), done.err


def test_a_proof_on_a_full_disk_is_named_not_the_input(tmp_path: Path) -> None:
    """Issue 30: ``solve q8.cnf --proof p.drat`` with p.drat on a full disk said "cannot read ../q8.cnf"."""
    kissat = need_solver("kissat")
    q8 = tmp_path / "q8.cnf"
    assert main(["gen", "8", "-o", str(q8)]) == 0
    with tiny_tmpfs(tmp_path / "tiny") as tiny:
        done = run_cli(["solve", str(q8), "--proof", "p.drat", "--solver", kissat], full(tiny))
    err = one_sentence(done.err)
    assert done.code == 1 and "p.drat: No space left on device" in err and "q8.cnf" not in err, err


def test_a_deeply_nested_solvers_file_is_a_sentence(tmp_path: Path) -> None:
    """Issue 30: ``solvers --solvers-file deep.yaml`` (and solve, and the API) gave a RecursionError."""
    deep = tmp_path / "deep.yaml"
    deep.write_text("solvers: " + "[" * 5000 + "]" * 5000 + "\n")
    for argv in (
        ["solvers", "--solvers-file", str(deep)],
        ["solve", "q.cnf", "--solvers-file", str(deep), "--solver", "x"],
    ):
        done = run_cli(argv, tmp_path)
        assert done.code == 2 and f"{deep}: nested too deeply" in one_sentence(done.err), argv
    with pytest.raises(cq.UsageError, match="nested too deeply"):
        cq.solve(cq.queens(4), solver="x", solvers_file=deep)


def test_a_binary_manifest_is_named_and_called_not_text(tmp_path: Path) -> None:
    """Issue 30: "'utf-8' codec can't decode byte 0xa9 in position 0" for a manifest that is no text."""
    (tmp_path / "cert").mkdir()
    (tmp_path / "cert" / "manifest.json").write_bytes(b"\xa9\xff{}\x00")
    done = run_cli(["check-count", "cert"], tmp_path)
    err = one_sentence(done.err)
    assert done.code == 2 and "cert/manifest.json is not a text manifest" in err and "codec" not in err, err


def test_a_solution_appended_on_a_full_disk_names_the_file(tmp_path: Path) -> None:
    """The loop's append to solutions.txt (a file object, whose ENOSPC names no file) says which file."""
    from cnfgen_queens.enumeration.external_loop import _append_durably

    with tiny_tmpfs(tmp_path / "tiny") as tiny:
        (tiny / "e").mkdir()
        (tiny / "e" / "solutions.txt").touch()
        with pytest.raises(OSError, match="No space left on device") as caught:
            _append_durably(full(tiny) / "e" / "solutions.txt", "1 3 5 2 4")
    assert caught.value.filename == str(tiny / "e" / "solutions.txt")
