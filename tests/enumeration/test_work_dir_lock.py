"""One process per work directory (issue 30, item 2): ``--out`` and ``--certify`` are locked (flock on
``.cnfgen-queens.lock`` inside) for as long as a run uses them; a second process is refused in one line
naming the holder's pid and command, and ``kill -9`` of the holder frees the directory."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import CLI_ENTRY, alive, default_signals, descendants, need_solver, run_cli

from cnfgen_queens.cnf.owned import LOCK_FILE, DirInUse, PlantedLink, lock_dir


def _holder(tmp_path: Path, *argv: str) -> subprocess.Popen[str]:
    """A run holding its directory: started, then waited for until the lock file names it."""
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI_ENTRY, *argv],
        cwd=tmp_path,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=default_signals,
        start_new_session=True,
    )
    lock = tmp_path / "d" / LOCK_FILE
    end = time.monotonic() + 120
    while time.monotonic() < end:
        assert proc.poll() is None, proc.communicate()
        if lock.exists() and f"process {proc.pid} " in lock.read_text():
            return proc
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()
    raise AssertionError("the first run never took the lock")


def _kill9(proc: subprocess.Popen[str]) -> None:
    below = descendants(proc.pid)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    end = time.monotonic() + 10
    while alive(below) and time.monotonic() < end:
        time.sleep(0.05)
    assert not alive(below)


def test_a_second_process_is_refused_and_kill_9_frees_the_directory(tmp_path: Path) -> None:
    """The issue's reproducer: two ``enumerate 10 --out d --resume`` at once corrupted solutions.txt."""
    need_solver("minisat")
    argv = ["enumerate", "10", "--solver", "minisat", "--out", "d", "--resume", "--quiet"]
    first = _holder(tmp_path, *argv)
    try:
        second = run_cli(argv, tmp_path, timeout=120)
        second.one_line(2, f"--out d is in use by process {first.pid}", "enumerate 10", "--resume")
        assert second.out == ""
    finally:
        _kill9(first)
    third = run_cli(argv, tmp_path, timeout=300)  # the lock went with the killed holder: resumed, finished
    assert third.code == 0, third
    lines = (tmp_path / "d" / "solutions.txt").read_text().splitlines()
    assert len(lines) == len(set(lines)) == 724  # A000170(10): each solution once, none mixed in twice
    assert (tmp_path / "d" / LOCK_FILE).read_text() == ""  # released: no holder named any more


def test_certify_is_locked_too(tmp_path: Path) -> None:
    first = _holder(tmp_path, "count", "11", "--certify", "d", "--quiet")
    try:
        second = run_cli(["count", "6", "--certify", "d"], tmp_path, timeout=120)
        second.one_line(2, f"--certify d is in use by process {first.pid}", "count 11")
    finally:
        _kill9(first)


def test_lock_dir_in_process(tmp_path: Path) -> None:
    work = tmp_path / "w"
    with lock_dir(work, "--out"):
        assert f"process {os.getpid()} (" in (work / LOCK_FILE).read_text()
        with pytest.raises(DirInUse, match=rf"--out {work} is in use by process {os.getpid()} "), lock_dir(work):
            pass  # another open of the lock file conflicts, even in the same process
    with lock_dir(work):  # free again
        pass
    (work / LOCK_FILE).unlink()
    (work / LOCK_FILE).symlink_to(tmp_path / "victim")
    with pytest.raises(PlantedLink), lock_dir(work):
        pass
    assert not (tmp_path / "victim").exists()


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_lock_file_that_is_not_a_regular_file_is_refused(tmp_path: Path, kind: str) -> None:
    """ "Invalid argument" (a FIFO) or "Is a directory", exit 1, before."""
    work = tmp_path / "w"
    work.mkdir()
    if kind == "fifo":
        os.mkfifo(work / LOCK_FILE)
    else:
        (work / LOCK_FILE).mkdir()
    with pytest.raises(PlantedLink, match="where cnfgen-queens writes a file of its own"), lock_dir(work):
        pass
    need_solver("minisat")
    argv = ["enumerate", "5", "--solver", "minisat", "--out", str(work), "--quiet"]
    done = run_cli(argv, tmp_path, timeout=120)
    done.one_line(2, "where cnfgen-queens writes a file of its own")


def test_a_holder_in_another_pid_namespace_is_named_as_such(tmp_path: Path) -> None:
    """A holder in a container named itself "process 2": another process here, or none."""
    import fcntl

    work = tmp_path / "w"
    work.mkdir()
    fd = os.open(work / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, b"process 2 (cnfgen-queens enumerate 12)\npid namespace pid:[1]\n")
        with pytest.raises(DirInUse, match="in use by a process of another PID namespace"), lock_dir(work):
            pass
    finally:
        os.close(fd)
