"""Directories the tool writes into are its own (issue 30, item 1): a symbolic link planted there is refused
in one line, never followed, and nothing outside is touched; an input is never one of the outputs (one
check, by device and inode); a file the tool did not write is never deleted (``report --html`` again)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import need_solver, run_cli

from cnfgen_queens.cnf.atomic import atomic_output
from cnfgen_queens.cnf.owned import PlantedLink, open_owned, refuse_links
from cnfgen_queens.cnf.same_file import OutputIsInput, refuse_alias

VICTIM = "precious\n"
CONFIG = (
    "experiment: own\ninstances:\n  n: [5]\n  encodings: [pairwise]\nsolvers: [minisat]\nlimits: {time: 30}\n"
    "keep_output: true\nresults: r.sqlite\n"
)


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim.txt"
    victim.write_text(VICTIM)
    return victim


def _untouched(victim: Path) -> None:
    assert victim.read_text() == VICTIM and victim.is_file() and not victim.is_symlink()


# ---- the one writer: atomic_output(owned=DIR) ----


def test_atomic_output_into_an_owned_directory_refuses_a_planted_link(tmp_path: Path) -> None:
    victim = _victim(tmp_path)
    work = tmp_path / "d"
    work.mkdir()
    (work / "out.txt").symlink_to(victim)
    with (
        pytest.raises(PlantedLink, match=r"d/out.txt is a symbolic link \(to .*victim.txt\)"),
        atomic_output(work / "out.txt", owned=work) as f,
    ):
        f.write(b"overwritten")
    _untouched(victim)
    assert sorted(p.name for p in work.iterdir()) == ["out.txt"]  # no temporary file left beside it


def test_a_link_on_the_way_to_an_owned_file_is_refused_too(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    work = tmp_path / "d"
    work.mkdir()
    (work / "sub").symlink_to(outside)
    with (
        pytest.raises(PlantedLink, match="d/sub is a symbolic link"),
        atomic_output(work / "sub" / "f.txt", owned=work) as f,
    ):
        f.write(b"x")
    with pytest.raises(PlantedLink):
        open_owned(work / "sub" / "g.txt", work, 0o101)  # O_WRONLY | O_CREAT
    with pytest.raises(PlantedLink):
        refuse_links(work, ["sub/*"])
    assert list(outside.iterdir()) == []


def test_an_ordinary_owned_write_and_the_user_named_link_still_work(tmp_path: Path) -> None:
    """The rule is for the tool's own directories: an output the user names as a link is written through."""
    work = tmp_path / "d"
    work.mkdir()
    with atomic_output(work / "a" / "b.txt", owned=work) as f:
        f.write(b"made\n")
    assert (work / "a" / "b.txt").read_text() == "made\n"
    target = tmp_path / "target.txt"
    target.write_text("old")
    (tmp_path / "named.txt").symlink_to(target)
    with atomic_output(tmp_path / "named.txt") as f:
        f.write(b"new")
    assert target.read_text() == "new" and (tmp_path / "named.txt").is_symlink()


def test_refuse_alias_compares_by_device_and_inode_in_a_directory(tmp_path: Path) -> None:
    work = tmp_path / "d"
    (work / "cubes").mkdir(parents=True)
    given = tmp_path / "in.txt"
    given.write_text("1,1\n")
    (work / "cubes" / "00001.sol").hardlink_to(given)
    with pytest.raises(OutputIsInput, match=r"--place-file .*in.txt is the same file as .*d/cubes/00001.sol, which"):
        refuse_alias(work, [("--place-file", given)], "--certify", own=["manifest.json", "cubes/*.sol"])
    refuse_alias(work, [("--place-file", tmp_path / "other.txt")], "--certify", own=["cubes/*.sol"])  # no such file


# ---- every directory the CLI writes ----


@pytest.mark.parametrize("name", ["current.cnf", "base.cnf", "run.json", "solutions.txt"])
def test_enumerate_out_refuses_a_planted_link(tmp_path: Path, name: str) -> None:
    need_solver("minisat")
    victim = _victim(tmp_path)
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / name).symlink_to(victim)
    ran = run_cli(["enumerate", "6", "--solver", "minisat", "--out", "d"], tmp_path)
    ran.one_line(2, f"d/{name} is a symbolic link", "victim.txt", "not followed")
    _untouched(victim)
    assert ran.out == ""


def test_count_by_cubes_out_refuses_a_linked_cube_folder(tmp_path: Path) -> None:
    need_solver("minisat")
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "groups").symlink_to(outside)
    ran = run_cli(["count", "6", "--solver", "minisat", "--engine", "cubes", "--out", "d"], tmp_path)
    assert ran.code != 0 and "d/groups" in ran.err and "symbolic link" in ran.err, ran
    assert "Traceback" not in ran.err
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("name", ["cover.drat", "manifest.json", "cubes"])
def test_certify_refuses_a_planted_link(tmp_path: Path, name: str) -> None:
    victim = _victim(tmp_path)
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / name).symlink_to(victim if name != "cubes" else tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    ran = run_cli(["count", "6", "--certify", "d"], tmp_path)
    ran.one_line(2, f"d/{name} is a symbolic link", "not followed")
    _untouched(victim)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_certify_refuses_a_cube_file_planted_as_a_link(tmp_path: Path) -> None:
    victim = _victim(tmp_path)
    (tmp_path / "d" / "cubes").mkdir(parents=True)
    (tmp_path / "d" / "cubes" / "00001.drat").symlink_to(victim)
    ran = run_cli(["count", "6", "--certify", "d"], tmp_path)
    ran.one_line(2, "d/cubes/00001.drat is a symbolic link")
    _untouched(victim)


@pytest.mark.parametrize("how", ["same name", "hard link"])
def test_certify_never_replaces_an_input_with_a_proof(tmp_path: Path, how: str) -> None:
    """The issue's reproducer: ``count 8 --place-file d/cover.drat --certify d`` replaced the input."""
    (tmp_path / "d").mkdir()
    placed = tmp_path / "d" / "cover.drat"
    if how == "hard link":
        placed = tmp_path / "place.txt"
        placed.write_text("1,1\n")
        (tmp_path / "d" / "cover.drat").hardlink_to(placed)
    else:
        placed.write_text("1,1\n")
    ran = run_cli(["count", "8", "--place-file", str(placed), "--certify", "d"], tmp_path)
    ran.one_line(2, "--place-file", "is the same file as d/cover.drat", "--certify d")
    assert placed.read_text() == "1,1\n"
    assert ran.out == "" and not (tmp_path / "d" / "manifest.json").exists()


# ---- hard links: a file written in place (the lock, solutions.txt) would change every name of it ----


def test_open_owned_refuses_to_write_a_hard_linked_file(tmp_path: Path) -> None:
    victim = _victim(tmp_path)
    work = tmp_path / "d"
    work.mkdir()
    (work / "f.txt").hardlink_to(victim)
    for flags in (os.O_WRONLY | os.O_APPEND, os.O_RDWR | os.O_CREAT, os.O_WRONLY | os.O_TRUNC):
        with pytest.raises(PlantedLink, match=r"d/f.txt has 2 hard links"):
            open_owned(work / "f.txt", work, flags)
        _untouched(victim)
    os.close(open_owned(work / "f.txt", work, os.O_RDONLY))  # reading changes nothing


@pytest.mark.parametrize(
    "argv", [["enumerate", "6", "--solver", "minisat", "--out", "d"], ["count", "6", "--certify", "d"]]
)
def test_a_hard_linked_lock_file_is_refused(tmp_path: Path, argv: list[str]) -> None:
    """Issue 30: a hard-linked ``.cnfgen-queens.lock`` got its other name truncated to 0 bytes."""
    need_solver("minisat")
    victim = _victim(tmp_path)
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / ".cnfgen-queens.lock").hardlink_to(victim)
    ran = run_cli(argv, tmp_path)
    ran.one_line(2, "d/.cnfgen-queens.lock has 2 hard links", "nothing was written")
    _untouched(victim)
    assert ran.out == ""


def test_resume_refuses_a_hard_linked_solutions_file(tmp_path: Path) -> None:
    """Issue 30: ``--resume`` appended the solutions it found to the other name of a hard-linked
    solutions.txt."""
    need_solver("minisat")
    assert run_cli(["enumerate", "6", "--solver", "minisat", "--out", "d"], tmp_path).code == 0
    solutions = tmp_path / "d" / "solutions.txt"
    victim = tmp_path / "victim.txt"
    victim.write_text("".join(solutions.read_text().splitlines(True)[:2]))
    before = victim.read_text()
    solutions.unlink()
    solutions.hardlink_to(victim)
    ran = run_cli(["enumerate", "6", "--solver", "minisat", "--out", "d", "--resume"], tmp_path)
    ran.one_line(2, "d/solutions.txt has 2 hard links")
    assert victim.read_text() == before


def _store(tmp_path: Path) -> Path:
    need_solver("minisat")
    config = tmp_path / "e.yaml"
    config.write_text(CONFIG)
    ran = run_cli(["batch", str(config)], tmp_path, timeout=120)
    assert ran.code == 0, ran
    return tmp_path / "r.sqlite"


def test_batch_refuses_a_linked_output_or_cache_folder(tmp_path: Path) -> None:
    need_solver("minisat")
    outside = tmp_path / "outside"
    outside.mkdir()
    config = tmp_path / "e.yaml"
    config.write_text(CONFIG)
    for folder in ("run-output", "cnf-cache"):
        (tmp_path / folder).symlink_to(outside)
        ran = run_cli(["batch", str(config)], tmp_path, timeout=120)
        assert ran.code != 0 and f"{folder} is a symbolic link" in ran.err and "Traceback" not in ran.err, ran
        assert list(outside.iterdir()) == []
        (tmp_path / folder).unlink()


GRID = CONFIG.replace("n: [5]", "n: [4, 5]")


@pytest.mark.parametrize("folder", ["run-output", "cnf-cache"])
@pytest.mark.parametrize("kind", ["symbolic", "hard"])
def test_batch_refuses_a_link_planted_where_it_writes_before_any_run(tmp_path: Path, folder: str, kind: str) -> None:
    """F5: links ``run-output/<key>.log -> victim`` were each stored as an ERROR run "PlantedLink: ...", exit 0;
    one in ``cnf-cache/`` was "error: generating ...: PlantedLink: ...", exit 1.  Refused up front instead."""
    need_solver("minisat")
    victim = _victim(tmp_path)
    config = tmp_path / "e.yaml"
    config.write_text(GRID)
    dry = run_cli(["batch", str(config), "--dry-run"], tmp_path)
    keys = [line.split()[1] for line in dry.out.splitlines() if line.startswith("todo ")]
    assert len(keys) == 2, dry
    names = [f"{keys[-1]}.log"] if folder == "run-output" else ["queens-5-pairwise-*.cnf"]
    if folder == "cnf-cache":  # the instance's cache name: made by a first batch on another results file
        assert run_cli(["batch", str(config)], tmp_path, timeout=120).code == 0
        names = [p.name for p in (tmp_path / folder).glob(names[0])]
        for p in [*(tmp_path / folder).iterdir(), *tmp_path.glob("r.sqlite*")]:
            p.unlink()
    (tmp_path / folder).mkdir(exist_ok=True)
    planted = tmp_path / folder / names[0]
    planted.symlink_to(victim) if kind == "symbolic" else planted.hardlink_to(victim)
    ran = run_cli(["batch", str(config), "--no-progress"], tmp_path, timeout=120)
    ran.one_line(2, f"{folder}/{names[0]} is a {kind} link", "nothing was written")
    assert "PlantedLink" not in ran.err and ran.out == ""
    _untouched(victim)
    assert sorted(p.name for p in (tmp_path / folder).iterdir()) == names  # nothing else made there: no run ran


def test_report_html_again_keeps_what_the_user_added_and_refuses_a_link(tmp_path: Path) -> None:
    db = _store(tmp_path)
    ran = run_cli(["report", str(db), "--html", "r"], tmp_path)
    assert ran.code == 0, ran
    ours = sorted(p.name for p in (tmp_path / "r").iterdir())
    (tmp_path / "r" / "notes.txt").write_text("mine\n")
    (tmp_path / "r" / "sub").mkdir()
    (tmp_path / "r" / "sub" / "more.txt").write_text("mine too\n")
    ran = run_cli(["report", str(db), "--html", "r"], tmp_path)
    assert ran.code == 0, ran
    assert (tmp_path / "r" / "notes.txt").read_text() == "mine\n"
    assert (tmp_path / "r" / "sub" / "more.txt").read_text() == "mine too\n"
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == sorted([*ours, "notes.txt", "sub"])
    victim = _victim(tmp_path)
    (tmp_path / "r" / "runs.js").unlink()
    (tmp_path / "r" / "runs.js").symlink_to(victim)
    ran = run_cli(["report", str(db), "--html", "r"], tmp_path)
    ran.one_line(2, "r/runs.js is a symbolic link")
    _untouched(victim)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".r.")]  # no build directory left


def test_report_html_removes_only_files_its_earlier_report_listed(tmp_path: Path) -> None:
    db = _store(tmp_path)
    assert run_cli(["report", str(db), "--html", "r"], tmp_path).code == 0
    page = (tmp_path / "r" / "index.html").read_text()
    assert '<meta name="cnfgen-queens-files" content="index.html cactus.svg runs.js ' in page
    (tmp_path / "r" / "gone.svg").write_text("<svg/>")
    listed = page.replace('content="index.html ', 'content="index.html gone.svg ')  # as if an earlier report wrote it
    (tmp_path / "r" / "index.html").write_text(listed)
    assert run_cli(["report", str(db), "--html", "r"], tmp_path).code == 0
    assert not (tmp_path / "r" / "gone.svg").exists()  # listed as its own: removed
    assert (tmp_path / "r" / "index.html").read_text() == page


def test_a_build_directory_left_by_kill_9_is_swept_by_the_next_report(tmp_path: Path) -> None:
    db = _store(tmp_path)
    dead = tmp_path / ".r.999999999.abcd1234.tmp"  # no such process
    dead.mkdir()
    (dead / "index.html").write_text("half")
    live = tmp_path / f".r.{1}.abcd1234.tmp"  # pid 1 is alive: never swept
    live.mkdir()
    assert run_cli(["report", str(db), "--html", "r"], tmp_path).code == 0
    assert not dead.exists() and live.exists()


def test_the_user_cache_never_writes_through_a_planted_link(tmp_path: Path) -> None:
    from cnfgen_queens.user_cache import write_cache

    victim = _victim(tmp_path)
    cache = tmp_path / "cache"
    cache.mkdir()
    target = cache / "versions.json"
    (cache / f".versions.json.{os.getpid()}.tmp").symlink_to(victim)  # its temporary name, planted in advance
    dead = cache / ".versions.json.999999999.tmp"  # what a kill -9 left
    dead.write_text("half")
    assert write_cache(target, "{}\n")
    assert target.read_text() == "{}\n" and not target.is_symlink()
    _untouched(victim)
    assert sorted(p.name for p in cache.iterdir()) == ["versions.json"]
    target.unlink()
    target.symlink_to(victim)  # the file itself a link: replaced, not followed
    assert write_cache(target, "[]\n")
    _untouched(victim)
    assert target.read_text() == "[]\n" and not target.is_symlink()
