"""One rule for a solver or scheduler that is not there (docs/large-files.md, exit codes): a known solver that is
not installed, or a scheduler that does not answer, is the environment (exit 1, an OSError from the library);
a name that is no solver at all is usage (exit 2, UsageError); so is an input file that cannot be read."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from helpers import ROOT, one_line

import cnfgen_queens as cq
from cnfgen_queens.cli import main
from cnfgen_queens.errors import UsageError
from cnfgen_queens.solvers import SolverMissing, resolve
from cnfgen_queens.solvers.discovery import INSTALL_SCRIPT_SOLVERS
from cnfgen_queens.solvers.profiles import BUILTIN


@pytest.fixture
def absent(tmp_path: Path) -> Path:
    """A solvers file whose profile names a binary that is nowhere."""
    path = tmp_path / "solvers.yaml"
    path.write_text('solvers:\n  absent:\n    command: "no-such-solver-binary-here {cnf}"\n')
    return path


@pytest.fixture
def cnf(tmp_path: Path) -> Path:
    path = tmp_path / "q.cnf"
    path.write_text("p cnf 1 1\n1 0\n")
    return path


def test_a_known_solver_not_installed_is_exit_1(absent: Path, cnf: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", str(cnf), "--solver", "absent", "--solvers-file", str(absent)]) == 1
    assert "not on PATH" in one_line(capsys.readouterr().err)
    assert main(["solvers", "--path", "absent", "--solvers-file", str(absent)]) == 1
    assert "not on PATH" in one_line(capsys.readouterr().err)
    if shutil.which("glucose") is None:  # the reviewer's case: a built-in profile whose binary is absent
        assert main(["solve", str(cnf), "--solver", "glucose"]) == 1
        assert "install-solvers.sh" not in one_line(capsys.readouterr().err)  # the script does not install glucose
        assert main(["count", "6", "--solver", "glucose"]) == 1
        one_line(capsys.readouterr().err)


def test_a_name_that_is_no_solver_is_exit_2(cnf: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", str(cnf), "--solver", "no-such-solver-name"]) == 2
    assert "unknown solver" in one_line(capsys.readouterr().err)
    assert main(["solvers", "--path", "./no/such/binary"]) == 2
    assert "no executable file" in one_line(capsys.readouterr().err)
    assert main(["solve", str(cnf.with_name("missing.cnf")), "--solver", "minisat"]) == 2
    assert "cannot read" in one_line(capsys.readouterr().err)


def test_the_library_raises_what_the_cli_exits_with(absent: Path, cnf: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"missing\.cnf"):  # Python's own OSError (issue 31)
        cq.solve(cnf.with_name("missing.cnf"), "minisat")
    with pytest.raises(IsADirectoryError):
        cq.solve(cnf.parent, "minisat")  # a directory
    with pytest.raises(UsageError, match="unknown solver"):
        cq.solve(cnf, "no-such-solver-name")
    with pytest.raises(SolverMissing, match="not on PATH") as caught:
        cq.solve(cnf, "absent", solvers_file=absent)
    assert isinstance(caught.value, OSError)


def test_the_install_script_hint_only_for_what_it_installs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = (ROOT / "scripts" / "install-solvers.sh").read_text()
    debs = set(re.search(r'^DEBS="([^"]*)"', script, re.M).group(1).split())  # type: ignore[union-attr]
    pip = "passagemath-kissat" in script
    installs = {
        name
        for name, p in BUILTIN.items()
        if p.install.removeprefix("apt-get install ") in debs or (pip and "passagemath-kissat" in p.install)
    }
    assert installs == INSTALL_SCRIPT_SOLVERS
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on PATH
    for name in BUILTIN:
        try:
            resolve(name)
        except SolverMissing as e:
            assert ("install-solvers.sh" in str(e)) == (name in INSTALL_SCRIPT_SOLVERS), name
