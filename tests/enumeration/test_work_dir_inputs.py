"""``enumerate``/``count --out DIR``: no file the restart loop writes in DIR may be one of the command's inputs.

The loop replaces ``run.json``, ``base.cnf`` and ``current.cnf`` in DIR and appends to ``solutions.txt``
(``--resume`` first cuts a torn last line off it): an input file there, or one a symlink or hard link there
names, would be destroyed.  Each case is refused with one line, exit 2, before any solver runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import need_solver, run_cli

OWN = ("run.json", "base.cnf", "current.cnf", "solutions.txt")
ALIASES = ("same name", "symlink", "hard link")


def _planted(tmp_path: Path, name: str, how: str, text: str) -> Path:
    """An input file holding ``text``: ``d/NAME`` itself, or outside ``d`` with ``d/NAME`` a link to it."""
    work = tmp_path / "d"
    work.mkdir()
    if how == "same name":
        path = work / name
        path.write_text(text)
        return path
    path = tmp_path / "input.txt"
    path.write_text(text)
    (work / name).symlink_to(path) if how == "symlink" else (work / name).hardlink_to(path)
    return path


@pytest.mark.parametrize("how", ALIASES)
@pytest.mark.parametrize("name", OWN)
def test_enumerate_refuses_a_work_file_that_is_an_input(tmp_path: Path, name: str, how: str) -> None:
    need_solver("cadical")
    holes = _planted(tmp_path, name, how, "1,1")  # no newline: --resume would cut it off solutions.txt
    before = holes.read_bytes()
    resume = ["--resume"] if name == "solutions.txt" else []  # a fresh run refuses a used solutions.txt already
    ran = run_cli(["enumerate", "6", "--solver", "cadical", "--out", "d", *resume, "--holes", str(holes)], tmp_path)
    ran.one_line(2, "--holes", f"d/{name}", "--out d")
    assert holes.read_bytes() == before
    assert ran.out == ""  # no solution: no solver ran
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == [name]  # nothing written beside it


def test_count_refuses_a_solvers_file_the_loop_would_replace(tmp_path: Path) -> None:
    cadical = need_solver("cadical")
    text = f'solvers:\n  c:\n    command: "{cadical} {{args}} {{cnf}}"\n'
    profiles = _planted(tmp_path, "run.json", "hard link", text)
    ran = run_cli(
        ["count", "6", "--solver", "c", "--engine", "loop", "--out", "d", "--solvers-file", str(profiles)], tmp_path
    )
    ran.one_line(2, "--solvers-file", "d/run.json")
    assert profiles.read_text() == text and ran.out == ""


def test_a_solver_inside_the_work_directory_under_another_name_is_fine(tmp_path: Path) -> None:
    """Only the loop's own names count: inputs kept in DIR under other names stay usable."""
    need_solver("cadical")
    (tmp_path / "d").mkdir()
    holes = tmp_path / "d" / "holes.txt"
    holes.write_text("1,1\n")
    ran = run_cli(["count", "6", "--solver", "cadical", "--out", "d", "--holes", "d/holes.txt"], tmp_path)
    assert ran.code == 0, ran
    assert holes.read_text() == "1,1\n" and "count: " in ran.out
