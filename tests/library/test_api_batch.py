"""The Python API's batch and results against ``batch`` and ``report``, and the issue's five lines (issue 23)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import in_process as cli
from helpers import need_module

import cnfgen_queens as cq
from cnfgen_queens.experiments.report import runs_csv
from cnfgen_queens.experiments.store import MEASURED, Row

CONFIG = {
    "experiment": "api",
    "instances": {"n": [5, 6], "encodings": ["pairwise", "commander"]},
    "solvers": ["pysat:cadical195"],
    "limits": {"time": 60},
}


def test_run_batch_and_load_results_are_batch_and_report(tmp_path: Path, capsys) -> None:
    import yaml

    from_dict = tmp_path / "dict.sqlite"
    summary = cq.run_batch({**CONFIG, "results": str(from_dict)}, jobs=1)
    assert (summary.done, summary.solved, summary.failed) == (4, 4, [])
    assert cq.run_batch({**CONFIG, "results": str(from_dict)}).skipped == 4  # a rerun does what is missing
    config = tmp_path / "cli.yaml"
    config.write_text(yaml.safe_dump({**CONFIG, "results": str(tmp_path / "cli.sqlite")}))
    assert cli(["batch", str(config), "--jobs", "1", "--no-progress"], capsys)[0] == 0
    rows, cli_rows = cq.load_results(from_dict), cq.load_results(tmp_path / "cli.sqlite")
    assert [r["status"] for r in rows] == ["SAT"] * 4 and isinstance(rows[0]["status"], str)

    def same(rs: list[dict]) -> list[dict]:
        return [{k: v for k, v in r.items() if k not in MEASURED} for r in rs]

    assert same(rows) == same(cli_rows)
    csv = tmp_path / "runs.csv"
    assert cli(["report", str(from_dict), "--runs-csv", str(csv)], capsys)[0] == 0
    assert csv.read_text() == runs_csv([Row(**r) for r in rows])
    assert same(cq.load_results(csv)) == same(rows)  # the CSV reads back the same
    with pytest.raises(FileNotFoundError, match="path: no such file"):  # Python's own, naming the parameter
        cq.load_results(tmp_path / "none.sqlite")
    with pytest.raises(cq.UsageError, match=r"instances\.n"):
        cq.run_batch({**CONFIG, "instances": {"n": ["ten"], "encodings": ["pairwise"]}})


def test_load_results_as_frame(tmp_path: Path) -> None:
    need_module("pandas")
    results = tmp_path / "r.sqlite"
    cq.run_batch({**CONFIG, "results": str(results)}, jobs=1)
    frame = cq.load_results(results, as_frame=True)
    assert list(frame["n"]) == [r["n"] for r in cq.load_results(results)] and len(frame) == 4
    assert set(frame["status"]) == {"SAT"}


def test_load_results_without_pandas(tmp_path: Path, monkeypatch) -> None:
    results = tmp_path / "r.sqlite"
    cq.run_batch({**CONFIG, "instances": {"n": [5], "encodings": ["pairwise"]}, "results": str(results)}, jobs=1)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="needs pandas"):
        cq.load_results(results, as_frame=True)
    assert len(cq.load_results(results)) == 1


DONE_WHEN = """
import cnfgen_queens as cq
f = cq.queens(8, encoding="commander")
out = cq.solve(f)
print(cq.decode(out.model, f))
print(cq.count(f).total)
"""


def check_done_when(python: str, env: dict[str, str] | None = None) -> None:
    proc = subprocess.run([python, "-c", DONE_WHEN], capture_output=True, text=True, timeout=300, cwd="/", env=env)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == "92" and lines[-2] == ""
    board = lines[:-2]
    assert len(board) == 8 and all(line.count("\u265b") == 1 for line in board), proc.stdout


def test_the_five_lines_of_the_issue() -> None:
    """In a process of its own, as a user's script (from /, so the installed package is what runs)."""
    check_done_when(sys.executable)


@pytest.mark.slow
@pytest.mark.timeout(1500)  # its pip install may take the 1200 s its subprocess is given
def test_the_five_lines_in_a_fresh_virtualenv(tmp_path: Path) -> None:
    """The issue's Done-when: a new virtualenv, ``pip install -e .``, the five lines."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the new venv's install, nothing else
    pip = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "-e", str(root)],
        capture_output=True,
        text=True,
        timeout=1200,
        env=env,
    )
    assert pip.returncode == 0, pip.stderr[-2000:]
    check_done_when(str(venv / "bin" / "python"), env)
