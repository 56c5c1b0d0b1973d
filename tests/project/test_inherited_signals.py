"""The suite's signal tests pass when the caller ignores SIGINT and SIGHUP, as ``nohup``, a script's background
job or some CI runners leave them (or blocks them), and gives no standard input, as CI does (issue 31, item 2).

Every test file that sends a signal (found by what its source calls, so a new one is covered too) runs in
a pytest of its own started that way.  A test that signals a process must set the handlers that process
needs (``helpers.default_signals`` as its ``preexec_fn``, or the ``sigint_raises`` fixture in process):
an ignored disposition survives ``exec``, so without it the child ignores the signal and lives on.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parents[1]  # tests/
# a line that sends a signal a process may catch or ignore (SIGKILL, and signal 0, a probe, cannot be)
SENDS = re.compile(r"^(?!.*(SIGKILL|, 9\)|, 0\))).*(send_signal\(|os\.kill\(|os\.killpg\(|\.terminate\(\))", re.M)
INNER_TIMEOUT = 1500  # seconds: a hang guard for the inner run (about 3 min on a quiet 2-core machine)


def signal_test_files() -> list[str]:
    """The test files that send a signal to a process (their own or a child), but this one and the SLURM
    tests (which need a cluster; their coordinator is started with the default handlers too)."""
    found = [p.relative_to(HERE).as_posix() for p in sorted(HERE.rglob("test_*.py")) if SENDS.search(p.read_text())]
    return [name for name in found if Path(name).name not in (Path(__file__).name, "test_slurm.py")]


def test_the_signal_tests_are_found() -> None:
    files = signal_test_files()
    signalling = ("cli/test_signals.py", "cli/test_leftovers.py", "cli/test_startup_interrupts.py")
    for name in (*signalling, "enumeration/test_forked_loop.py"):
        assert name in files, files


def _ignoring() -> None:
    """``preexec_fn``: the caller of ``nohup`` or of a background job (``trap '' INT HUP``), with the three
    signals blocked too, as some runners leave them (a mask, like an ignored disposition, survives exec):
    a test must undo both."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})


@pytest.mark.slow  # minutes: the signal tests of eight files once more
@pytest.mark.timeout(INNER_TIMEOUT + 120)
def test_signal_tests_pass_with_sigint_and_sighup_ignored_and_no_stdin(tmp_path: Path) -> None:
    files = signal_test_files()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTEST_XDIST"))}
    argv = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        f"--basetemp={tmp_path / 'inner'}",
        "-m",
        "not slow",
        *(str(HERE / name) for name in files),
    ]
    proc = subprocess.Popen(
        argv,
        cwd=HERE.parent,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=_ignoring,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=INNER_TIMEOUT)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    last = out.rstrip().splitlines()[-1] if out.strip() else ""
    assert proc.returncode == 0, out[-6000:]
    assert re.search(r"\d+ passed", last) and "failed" not in last and "error" not in last, last
