"""No output path may be an input; every write reports its error; nothing said "wrote" that is not on disk.

Issue 24's reproducers, each run as the user would (the CLI in its own process, bounded in memory and time).
"""

from __future__ import annotations

import os
import sqlite3
import stat
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import need_solver, run_cli

from cnfgen_queens.cli import gen_main

ALIASES = ("same name", "symlink", "hard link")


def alias(path: Path, how: str) -> Path:
    """``path`` itself, a symlink to it, or a hard link to it (in the same folder)."""
    if how == "same name":
        return path
    other = path.with_name(f"alias-{how.replace(' ', '-')}{path.suffix}")
    (other.symlink_to if how == "symlink" else other.hardlink_to)(path.name if how == "symlink" else path)
    return other


@pytest.fixture
def cnf(tmp_path: Path) -> Path:
    path = tmp_path / "a.cnf"
    gen_main(["8", "-o", str(path)])
    return path


@pytest.mark.parametrize("how", ALIASES)
def test_solve_refuses_a_proof_over_its_input(cnf: Path, how: str) -> None:
    need_solver("kissat")
    before = cnf.read_bytes()
    ran = run_cli(["solve", "a.cnf", "--proof", alias(cnf, how).name, "--solver", "kissat"], cnf.parent)
    ran.one_line(2, "--proof", "same file as the input")
    assert cnf.read_bytes() == before and "model verified" not in ran.out


def test_solve_refuses_a_fifo_as_proof(cnf: Path) -> None:
    os.mkfifo(cnf.parent / "p.drat")
    run_cli(["solve", "a.cnf", "--proof", "p.drat"], cnf.parent, timeout=120).one_line(2, "--proof", "FIFO")


@pytest.mark.parametrize("flag", ["--markdown", "--csv", "--json", "--runs-csv"])
@pytest.mark.parametrize("how", ALIASES)
def test_report_refuses_a_table_over_its_database(db: Path, flag: str, how: str) -> None:
    before = db.read_bytes()
    ran = run_cli(["report", db.name, flag, alias(db, how).name], db.parent)
    ran.one_line(2, flag, "same file")
    assert db.read_bytes() == before and "wrote" not in ran.err


def test_report_refuses_a_table_or_plot_over_another_database(db: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as c:
        c.execute("CREATE TABLE t (x)")
    before = other.read_bytes()
    for argv in (["--markdown", other.name], ["--cactus", "other.png"]):
        if argv[0] == "--cactus":
            (tmp_path / "other.png").symlink_to(other.name)
        ran = run_cli(["report", db.name, *argv], tmp_path)
        ran.one_line(2, argv[0], "SQLite database")
        assert other.read_bytes() == before


def full_device(folder: Path) -> Path:
    """A device like /dev/full (every write: ENOSPC) of the test's own, so no other process can replace it."""
    path = folder / "full"
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except OSError:
        path = Path("/dev/full")
    if not path.is_char_device():
        pytest.skip("no full device: not root and /dev/full is not the character device")
    return path


@pytest.mark.parametrize("flag", ["--markdown", "--csv", "--json", "--runs-csv"])
def test_report_to_a_full_disk_is_an_error(db: Path, flag: str) -> None:
    full = full_device(db.parent)
    ran = run_cli(["report", db.name, flag, str(full)], db.parent)
    assert ran.code == 1 and "wrote" not in ran.err, ran
    assert ran.lines == [f"cnfgen-queens report: error: cannot write {full}: No space left on device"], ran.err
    assert full.is_char_device()  # written into, never renamed over


@pytest.mark.parametrize("argv", [["8", "-o"], ["8", "--format", "opb", "-o"]])
def test_gen_to_a_full_disk_is_an_error(tmp_path: Path, argv: list[str]) -> None:
    full = full_device(tmp_path)
    run_cli([*argv, str(full)], tmp_path, gen=True).one_line(1, f"cannot write {full}", "No space left")
    assert full.is_char_device()


def test_a_directory_as_output_is_an_error(tmp_path: Path, db: Path) -> None:
    (tmp_path / "d").mkdir()
    run_cli(["8", "-o", "d"], tmp_path, gen=True).one_line(2, "cannot write d", "directory")
    run_cli(["report", db.name, "--json", "d"], tmp_path).one_line(2, "cannot write d", "directory")


def test_decode_refuses_to_write_over_the_answer(tmp_path: Path, cnf: Path) -> None:
    answer = tmp_path / "ans.txt"
    answer.write_text("s SATISFIABLE\nv " + " ".join(str(v) for v in [1, *range(-2, -65, -1)]) + " 0\n")
    before = answer.read_bytes()
    for how in ALIASES:
        ran = run_cli(["decode", "ans.txt", "-n", "8", "-o", alias(answer, how).name], tmp_path)
        ran.one_line(2, "same file as the input")
        assert answer.read_bytes() == before
    run_cli(["decode", "ans.txt", "--cnf", "a.cnf", "-o", "a.cnf"], tmp_path).one_line(2, "same file")


def test_gen_refuses_to_write_over_a_file_it_reads(tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_text("-1 -10 0\n")
    (tmp_path / "h.txt").write_text("1,1\n")
    for flag, name in (("--block", "b.txt"), ("--holes", "h.txt"), ("--place-file", "h.txt")):
        before = (tmp_path / name).read_bytes()
        run_cli(["8", flag, name, "-o", name], tmp_path, gen=True).one_line(2, "same file")
        assert (tmp_path / name).read_bytes() == before


def test_merge_in_place_is_the_one_exception(tmp_path: Path, cnf: Path) -> None:
    blocks = tmp_path / "b.txt"
    blocks.write_text("-1 -10 0\n")
    before = blocks.read_bytes()
    run_cli(["merge", "a.cnf", "b.txt", "-o", "b.txt"], tmp_path).one_line(2, "same file")
    assert blocks.read_bytes() == before
    count = int(cnf.read_text().split("p cnf 64 ")[1].split()[0])
    assert run_cli(["merge", "a.cnf", "b.txt", "-o", "a.cnf"], tmp_path).code == 0  # scripts/enumerate.sh
    assert f"p cnf 64 {count + 1}\n" in cnf.read_text() and cnf.read_text().endswith("-1 -10 0\n")


def _fifo(tmp_path: Path) -> Path:
    fifo = tmp_path / "fifo.cnf"
    os.mkfifo(fifo)
    return fifo


@pytest.mark.parametrize(
    "command",
    [
        lambda: (["8", "-o", "fifo.cnf"], True),
        lambda: (["decode", "ans.txt", "-n", "4", "-o", "fifo.cnf"], False),
    ],
)
def test_a_fifo_with_no_reader_is_refused_not_waited_on(tmp_path: Path, command: Callable) -> None:
    (tmp_path / "ans.txt").write_text("s SATISFIABLE\nv -1 2 -3 -4 -5 -6 -7 8 9 -10 -11 -12 -13 -14 15 -16 0\n")
    _fifo(tmp_path)
    argv, gen = command()
    run_cli(argv, tmp_path, gen=gen, timeout=120).one_line(1, "cannot write fifo.cnf", "no reader")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ans.txt", "fifo.cnf"]  # nothing beside it


def test_a_fifo_with_a_reader_gets_the_bytes(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    try:
        ran = run_cli(["6", "-o", "fifo.cnf"], tmp_path, gen=True, timeout=120)
    finally:
        if reader.is_alive():  # the writer never came: unblock the reader
            with open(fifo, "wb"):
                pass
        reader.join(10)
    assert ran.code == 0, ran
    assert got and got[0].startswith(b"c ") and b"p cnf 36 " in got[0]


def test_report_on_a_device_says_what_it_is(tmp_path: Path) -> None:
    ran = run_cli(["report", "/dev/null"], tmp_path)
    ran.one_line(2, "/dev/null", "not a regular file")
    assert "no such" not in ran.err


def test_a_foreign_wal_database_gets_nothing_beside_it(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as c:
        c.execute("PRAGMA journal_mode=WAL")
        c.execute("CREATE TABLE things (x)")
        c.execute("INSERT INTO things VALUES (1)")
    c.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["foreign.db"]
    before = foreign.read_bytes()
    run_cli(["report", "foreign.db"], tmp_path).one_line(2, "not a cnfgen-queens results database")
    config = tmp_path / "c.yaml"
    config.write_text(
        "experiment: x\nresults: foreign.db\ninstances:\n  n: [4]\n  encodings: [pairwise]\n"
        "solvers: [pysat:cadical195]\nlimits: {time: 10}\n"
    )
    ran = run_cli(["batch", "c.yaml", "--no-progress"], tmp_path)
    assert ran.code == 2 and "not a cnfgen-queens results database" in ran.err, ran
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml", "foreign.db"]
    assert foreign.read_bytes() == before


def test_our_store_is_read_by_report_without_files_beside_it(db: Path) -> None:
    names = sorted(p.name for p in db.parent.iterdir())
    assert run_cli(["report", db.name], db.parent).code == 0
    assert sorted(p.name for p in db.parent.iterdir()) == names


@pytest.mark.parametrize("how", ALIASES)
@pytest.mark.parametrize(
    ("first", "second"), [("--csv", "--json"), ("--markdown", "--runs-csv"), ("--cactus", "--time-vs-n")]
)
def test_report_refuses_two_outputs_naming_one_file(db: Path, how: str, first: str, second: str) -> None:
    """F10: ``report --csv a.csv --json a.csv`` wrote one over the other, exit 0."""
    ext = ".svg" if first == "--cactus" else ".csv"
    one = db.parent / f"a{ext}"
    one.write_text("mine\n")
    other = alias(one, how)
    ran = run_cli(["report", db.name, first, one.name, second, other.name], db.parent)
    ran.one_line(2, f"{second} {other.name} is the same file as {first} {one.name}")
    assert one.read_text() == "mine\n" and ran.out == "" and "wrote" not in ran.err
    if how == "same name":  # a file not there yet: the same path
        ran = run_cli(["report", db.name, first, f"new{ext}", second, str(db.parent / f"new{ext}")], db.parent)
        ran.one_line(2, f"{second} {db.parent / f'new{ext}'} is the same file as {first} new{ext}")
        assert not (db.parent / f"new{ext}").exists()


def test_two_outputs_into_one_device_are_fine(db: Path) -> None:
    ran = run_cli(["report", db.name, "--csv", os.devnull, "--json", os.devnull], db.parent)
    assert ran.code == 0, ran


@pytest.mark.parametrize("listed", [True, False])
def test_report_html_checks_every_file_before_replacing_any(db: Path, listed: bool) -> None:
    """F10: a file of an earlier report turned into a folder (``r/scatter.svg/``): "cannot write r: Is a
    directory", with cactus.svg and runs.js already replaced and index.html the old one.  ``listed``: the
    earlier report's page lists the file (checked before any work), or not (checked before the renames)."""
    assert run_cli(["report", db.name, "--html", "r"], db.parent).code == 0
    report = db.parent / "r"
    if not listed:
        page = (report / "index.html").read_text()
        (report / "index.html").write_text(page.replace(" scatter.svg", "", 1))
    before = {p.name: p.read_bytes() for p in report.iterdir()}
    assert "scatter.svg" in before
    (report / "scatter.svg").unlink()
    (report / "scatter.svg").mkdir()
    (report / "scatter.svg" / "mine.txt").write_text("mine\n")
    ran = run_cli(["report", db.name, "--html", "r", "--title", "another"], db.parent)
    ran.one_line(2, "r/scatter.svg is a directory")
    assert {p.name: p.read_bytes() for p in report.iterdir() if p.is_file()} == {
        name: data for name, data in before.items() if name != "scatter.svg"
    }  # nothing replaced
    assert (report / "scatter.svg" / "mine.txt").read_text() == "mine\n"
    assert not [p for p in db.parent.iterdir() if p.name.startswith(".r.")]  # no build directory left
