"""Work directories under races (the two failures of CI on a busy machine, made deterministic).

- A sweep by another process (every command sweeps $TMPDIR at its start) that came between the lock
  file's creation and its ``flock`` found it unlocked and removed a live directory: the solver then
  could not start (``count 10 --solver kissat``: "cannot start .../kissat").  The lock file appears
  under its name only once it is locked.
- A signal that lands inside the removal of a work directory (``rmtree`` half done) leaves it recorded: the
  process's exit removes it; one a dead process left unrecorded (``mkdtemp`` done, the path not yet noted,
  ``kill -9``) is the next start's to sweep (its maker's pid is in its name).
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cnfgen_queens.cnf import atomic
from cnfgen_queens.cnf.atomic import WORK_PREFIX, open_work_dir, sweep_work_dirs, work_dir
from cnfgen_queens.errors import Terminated, stop_on_signals


@pytest.fixture
def tmpdir_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    yield tmp_path


def _ours(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith(WORK_PREFIX))


def test_a_sweep_at_the_worst_moment_leaves_a_new_directory_alone(
    tmpdir_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process sweeps just before this one locks its new directory: the directory stays."""
    real = atomic.fcntl.flock
    swept: list[Path] = []

    def sweep_then_lock(fd: int, op: int) -> None:
        if not swept and op == atomic.fcntl.LOCK_EX:
            swept.extend(sweep_work_dirs(root=tmpdir_env))  # another descriptor: flock conflicts as across processes
            swept.append(Path("/"))  # once
        real(fd, op)

    monkeypatch.setattr(atomic.fcntl, "flock", sweep_then_lock)
    path, fd = open_work_dir("solve")
    try:
        assert swept == [Path("/")], "the sweep removed the directory being made"
        assert path.is_dir() and (path / atomic.WORK_LOCK).exists()
        monkeypatch.setattr(atomic.fcntl, "flock", real)
        assert sweep_work_dirs(root=tmpdir_env) == [] and path.is_dir()  # locked: in use
    finally:
        atomic.close_work_dir(path, fd)
    assert _ours(tmpdir_env) == []


def _signal_self(sig: int) -> None:
    os.kill(os.getpid(), sig)


@pytest.fixture
def policy(sigint_raises: None) -> Iterator[None]:
    """The command's signal policy (:func:`~cnfgen_queens.errors.stop_on_signals`) in this process, for the test."""
    import sys

    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    hook = sys.unraisablehook
    stop_on_signals()
    try:
        yield
    finally:
        sys.unraisablehook = hook
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_inside_the_removal_leaves_the_directory_to_the_exit(
    tmpdir_env: Path, sig: int, policy: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A signal cuts the removal of a work directory short: the directory stays recorded, and the process's exit
    (:func:`atomic._remove_left`) removes it."""
    real = shutil.rmtree
    calls: list[int] = []

    def rmtree_interrupted(path: Any, *args: Any, **kwargs: Any) -> None:
        calls.append(1)
        if len(calls) == 1:  # the first file goes, then the signal lands in the middle of the removal
            first = next(Path(path).iterdir())
            first.unlink()
            _signal_self(sig)
        real(path, *args, **kwargs)

    monkeypatch.setattr(atomic.shutil, "rmtree", rmtree_interrupted)
    with pytest.raises(KeyboardInterrupt) as got, work_dir("solve") as d:
        (d / "solver.out").write_text("s SATISFIABLE\n")
    assert isinstance(got.value, Terminated) == (sig != signal.SIGINT)
    assert len(_ours(tmpdir_env)) == 1
    atomic._remove_left()
    assert _ours(tmpdir_env) == []


def test_a_directory_whose_maker_died_before_locking_it_is_swept_at_once(tmpdir_env: Path) -> None:
    """``kill -9`` between ``mkdtemp`` and the lock (test_leftovers kills the moment the directory appears):
    its maker's pid, in its name, is dead, so the next start removes it, not a day later; a live maker's
    unlocked directory (being made) stays."""
    import subprocess
    import sys

    code = (
        "import tempfile, os, signal; from cnfgen_queens.cnf import atomic\n"
        "tempfile.tempdir = os.environ['ROOT']\n"
        "atomic.os.open = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)\n"  # dies before the lock file
        "atomic.open_work_dir('solve')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], env={**os.environ, "ROOT": str(tmpdir_env)}, timeout=120)
    assert proc.returncode == -signal.SIGKILL
    left = _ours(tmpdir_env)
    assert len(left) == 1 and not (tmpdir_env / left[0] / atomic.WORK_LOCK).exists()
    being_made = Path(tempfile.mkdtemp(prefix=f"{WORK_PREFIX}solve-{os.getpid()}-"))  # a live maker, no lock yet
    assert sweep_work_dirs(root=tmpdir_env) == [tmpdir_env / left[0]]
    assert _ours(tmpdir_env) == [being_made.name]


def _stuck_in_a_work_dir(root: str) -> None:
    """A batch worker's task inside its work directory: the pool ends its process."""
    import time

    tempfile.tempdir = root
    with work_dir("solve"):
        while True:
            time.sleep(0.1)


def test_an_interrupted_pool_sweeps_the_directories_of_the_workers_it_killed(tmpdir_env: Path) -> None:
    """An interrupted pool ends its workers' processes; the work directory of one ended mid-task (with BenchExec's
    run directory inside) is swept by the pool on its way out, not left for the next command."""
    import time

    from cnfgen_queens.execution.executors import LocalExecutor

    pool = LocalExecutor(1)
    try:
        pool.submit("stuck", _stuck_in_a_work_dir, str(tmpdir_env))
        end = time.monotonic() + 120
        while not _ours(tmpdir_env) and time.monotonic() < end:
            time.sleep(0.05)
        assert _ours(tmpdir_env), "the worker never made its work directory"
        time.sleep(0.5)
    finally:
        pool.close(interrupted=True)
    assert _ours(tmpdir_env) == []
