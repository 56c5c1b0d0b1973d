"""``scripts/test.sh`` reads well and fails right (issue 31, item 4): one line a step, their output in a log,
a closing summary after pytest's own closing line, and the exit status of the first failure.

Its functions (``step``, ``finish``, ``run_pytest``) run here as they are in the script, with harmless steps
and a ``python`` that prints what pytest would and exits as told; the installs are not run again.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from helpers import ROOT

SCRIPT = ROOT / "scripts" / "test.sh"


def functions() -> str:
    """The script's functions and its EXIT trap, cut from the script itself."""
    text = SCRIPT.read_text()
    start, end = text.index("\nstep() {"), text.index("\ntrap finish EXIT\n") + len("\ntrap finish EXIT\n")
    return text[start:end]


def run(tmp_path: Path, body: str, pytest_status: int = 0) -> subprocess.CompletedProcess[str]:
    fake_pytest = (
        "python() {\n"
        "    echo 'SKIPPED [1] tests/execution/test_slurm.py:49: no SLURM config: scripts/slurm-local.sh start'\n"
        f"    echo '3 passed, 1 skipped in 0.50s'\n    return {pytest_status}\n"
        "}\n"
    )
    harness = (
        'set -euo pipefail\nmkdir -p build\nLOG=build/test-setup.log\nPYTEST_LOG=build/test-pytest.log\n: >"$LOG"\n'
        'STEPS=()\nSLURM_UP=0\nPYTEST_STATUS=""\n' + functions() + fake_pytest + body
    )
    (tmp_path / "harness.sh").write_text(harness)
    return subprocess.run(["bash", "harness.sh"], cwd=tmp_path, capture_output=True, text=True, timeout=60)


def test_the_script_is_strict_and_its_log_is_ignored_by_git() -> None:
    text = SCRIPT.read_text()
    assert "set -euo pipefail" in text and 'run_pytest "$@" || status=$?' in text
    assert text.rstrip().endswith('exit "$status"')  # the full run's status, else the other Pythons' runs'
    ignored = subprocess.run(["git", "check-ignore", "-q", "build/test-setup.log"], cwd=ROOT, timeout=60)
    assert ignored.returncode == 0


def test_another_python_is_found_or_named_in_one_line(tmp_path: Path) -> None:
    """The 3.13 and 3.12 runs find their interpreter (pyenv's or on PATH); a missing one fails in one sentence."""
    done = run(tmp_path, 'other_python 3.1 || echo "status $?"\n')
    assert done.stdout.splitlines()[0] == "status 1"
    assert done.stderr.startswith("test.sh: FAILED: no Python 3.1 ") and done.stderr.count("\n") == 1
    assert "README" in done.stderr


def test_a_missing_python_fails_the_run_before_anything_runs(tmp_path: Path) -> None:
    """CI runs the 3.13 and 3.12 runs: an interpreter missing there fails the run at once, in one line."""
    text = SCRIPT.read_text()
    assert text.index("PYTHON313=$(other_python 3.13)") < text.index('step "virtual environment .venv"')
    assert "CNFGEN_QUEENS_OTHER_PYTHONS" not in text  # not opt-in: every run has them
    done = run(tmp_path, 'PYTHON313=$(other_python 3.1)\necho "went on"\n')
    assert done.returncode == 1 and "went on" not in done.stdout
    assert [line for line in done.stderr.splitlines() if "no Python" in line] == [done.stderr.splitlines()[0]]


def test_a_passing_run_ends_with_pytests_line_then_the_summary(tmp_path: Path) -> None:
    done = run(tmp_path, 'step "ruff check" bash -c "echo checked; echo noise >&2"\nrun_pytest\n')
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert re.fullmatch(r"test\.sh: ruff check \.\.\. ok \(\d+ s\)", lines[0])  # one line; its output: the log
    assert "checked" not in done.stdout and "noise" not in done.stdout + done.stderr
    assert "checked" in (tmp_path / "build" / "test-setup.log").read_text()
    summary = lines.index(next(line for line in lines if line.startswith("test.sh: summary (wall time")))
    assert lines[summary - 2] == "3 passed, 1 skipped in 0.50s"  # pytest's own closing line, then the summary
    assert any(re.fullmatch(r"  ok      ruff check \(\d+ s\)", line) for line in lines[summary:])
    assert "  pytest: passed: 3 passed, 1 skipped in 0.50s" in lines[summary:]
    assert any("SKIPPED [1] tests/execution/test_slurm.py:49: no SLURM config" in line for line in lines[summary:])


@pytest.mark.parametrize(("status", "words"), [(1, "FAILED (exit 1)"), (5, "no test was collected (exit 5)")])
def test_pytests_failure_is_the_scripts_exit_status(tmp_path: Path, status: int, words: str) -> None:
    done = run(tmp_path, "run_pytest\n", pytest_status=status)
    assert done.returncode == status, done.stdout
    assert "  pytest: FAILED" in done.stdout and words in done.stdout


def test_a_failing_step_stops_the_run_shows_its_output_and_sums_up(tmp_path: Path) -> None:
    done = run(tmp_path, 'step "mypy" bash -c "echo an error; exit 3"\nstep "never" true\nrun_pytest\n')
    assert done.returncode == 3
    assert "test.sh: mypy ... FAILED (exit 3); the end of build/test-setup.log:" in done.stdout
    assert "    an error" in done.stdout  # the end of the log, on the terminal
    assert "never" not in done.stdout and "  FAILED  mypy (exit 3)" in done.stdout
    assert "  pytest: not run (a step above failed)" in done.stdout
