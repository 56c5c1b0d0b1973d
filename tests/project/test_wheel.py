"""The package as a user installs it: scripts/wheel-smoke.sh builds the sdist and the wheel, checks their
metadata (twine) and the files they carry (LICENSE, CHANGELOG.md, CITATION.cff, the package data),
installs the wheel into a fresh virtual environment outside the checkout and runs the smoke set there
(gen-queens 8, count 8, a batch and report --html, the README's five lines of Python, --version).
Slow (a few minutes: a build and a venv with every dependency); CI runs it (-m "slow or not slow")."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, need_module
from test_release import markdown_renderer

from cnfgen_queens import __version__

SCRIPT = ROOT / "scripts" / "wheel-smoke.sh"
LIMIT = 1500  # seconds: a cold pip cache at a load of 6 on 2 cores (about 190 s at a load of 20, cache warm)


@pytest.mark.slow
@pytest.mark.timeout(LIMIT + 120)
def test_wheel_installed_outside_the_checkout(tmp_path: Path) -> None:
    need_module("build")
    need_module("twine")
    markdown_renderer()  # twine check renders the Markdown README with it
    work = tmp_path / "smoke"
    assert not work.resolve().is_relative_to(ROOT), "the fresh venv must be outside the checkout"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PYTHON"] = sys.executable  # the test extra's Python: it has build and twine
    proc = subprocess.Popen(
        ["bash", str(SCRIPT), str(work)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=tmp_path,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail(f"wheel-smoke.sh took more than {LIMIT} s:\n{out[-3000:]}")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, out[-4000:]
    assert out.rstrip().endswith(f"wheel-smoke: all passed ({__version__})"), out[-2000:]
    assert len(list((work / "dist").glob(f"cnfgen_queens-{__version__}-*.whl"))) == 1  # a platform wheel
    assert (work / "venv" / "bin" / "cnfgen-queens").is_file()


def test_smoke_refuses_a_directory_inside_the_checkout(tmp_path: Path) -> None:
    """The venv the smoke set runs in is never inside the source tree (where the checkout's package
    would be imported instead of the wheel's)."""
    run = subprocess.run(
        ["bash", str(SCRIPT), str(ROOT / "build" / "smoke")], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert run.returncode == 2
    assert "inside the checkout" in run.stderr and not (ROOT / "build" / "smoke").exists()
