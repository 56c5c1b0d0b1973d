"""Every signal cleans up (issue 24, item 5): SIGTERM and SIGHUP do what Ctrl-C does in every command.

One line on stderr, exit 128 + the signal, no temporary file or directory left (ours, BenchExec's
``BenchExec_run_*``, Dask's ``dask-scratch-space``), no process left, every result already found kept.
Each command runs with its own ``$TMPDIR``, so "nothing left" is an empty directory; the signals the
caller may ignore are reset in the child (helpers.default_signals), so the tests hold under ``nohup``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import (
    CLI_ENTRY,
    all_gone,
    default_signals,
    descendants,
    is_solution,
    kill_test_config,
    need_module,
    need_solver,
)


def start(tmp_path: Path, *argv: str) -> tuple[subprocess.Popen[str], Path]:
    spool = tmp_path / "spool"
    spool.mkdir(exist_ok=True)
    env = {**os.environ, "TMPDIR": str(spool)}
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI_ENTRY, *argv],
        cwd=tmp_path,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=default_signals,
    )
    return proc, spool


def wait_for(proc: subprocess.Popen[str], ready: object, timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proc.poll() is None, proc.communicate()
        if ready():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError("the command never got to the moment the test signals it at")


def stop(proc: subprocess.Popen[str], sig: int) -> tuple[str, str, list[int]]:
    """Send ``sig``; (stdout, stderr, the processes below it at that moment)."""
    below = descendants(proc.pid)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    return out, err, below


def solutions(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_enumerate_with_an_external_solver(tmp_path: Path, sig: int) -> None:
    """Issue 24: SIGTERM left $TMPDIR/BenchExec_run_*, cnfgen-queens-input-*, -solve-* and said nothing."""
    need_solver("kissat")
    found = tmp_path / "d" / "solutions.txt"
    proc, spool = start(tmp_path, "enumerate", "12", "--solver", "kissat", "--out", "d", "--quiet")
    wait_for(proc, lambda: len(solutions(found)) >= 3)
    kept = solutions(found)
    _, err, below = stop(proc, sig)
    name = signal.Signals(sig).name
    assert proc.returncode == 128 + sig and err == f"cnfgen-queens enumerate: terminated ({name})\n", err
    assert sorted(spool.iterdir()) == []
    assert all_gone(below) == []  # often none: kissat's calls on N = 12 take milliseconds
    after = solutions(found)
    assert after[: len(kept)] == kept and len(after) >= 3
    assert all(is_solution(line, len(line.split())) for line in after)


def test_count_on_a_local_dask_cluster(tmp_path: Path) -> None:
    """Issue 24: SIGTERM to ``count --executor dask`` left dask-scratch-space (and a warning about port 8787)."""
    need_module("dask.distributed")
    proc, spool = start(tmp_path, "count", "15", "--jobs", "2", "--executor", "dask", "--quiet")
    wait_for(proc, lambda: list(spool.glob("cnfgen-queens-dask-*")))
    time.sleep(1.0)  # the cluster starting (a signal then is held back until it has started) or running
    _, err, below = stop(proc, signal.SIGTERM)
    assert proc.returncode == 143 and err == "cnfgen-queens count: terminated (SIGTERM)\n", err
    assert sorted(spool.iterdir()) == []
    assert all_gone(below) == []


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_count_with_forked_workers(tmp_path: Path, sig: int) -> None:
    proc, spool = start(tmp_path, "count", "15", "--jobs", "2", "--quiet")
    wait_for(proc, lambda: len(descendants(proc.pid)) >= 2)
    time.sleep(1.0)
    _, err, below = stop(proc, sig)
    assert proc.returncode == 128 + sig and err.count("\n") == 1 and "cnfgen-queens count: " in err, err
    assert sorted(spool.iterdir()) == [] and all_gone(below) == []


def test_an_ignored_signal_stays_ignored(tmp_path: Path) -> None:
    """``nohup gen-queens ...``: SIGHUP ignored by the caller is not turned into an exit.  The SIGHUP is sent
    once the file is being written (the package's handlers are set by then), not after a fixed sleep: on a
    loaded machine the child had not yet ignored it 0.5 s after its start (issue 31)."""
    out = tmp_path / "q.cnf"
    code = "import signal, sys; signal.signal(signal.SIGHUP, signal.SIG_IGN); from cnfgen_queens.cli import main; "
    argv = [sys.executable, "-c", code + "sys.exit(main(sys.argv[1:]))"]
    argv += ["gen", "300", "-e", "sequential", "-o", str(out)]
    proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, preexec_fn=default_signals)
    wait_for(proc, lambda: list(tmp_path.glob(".q.cnf.*.tmp")))
    proc.send_signal(signal.SIGHUP)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and err == "" and out.stat().st_size > 0


def test_an_unreachable_scheduler_fails_at_our_timeout_not_dasks(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 24: ``--scheduler tcp://127.0.0.1:1`` took 31 s to fail (Dask's 30 s connect timeout).  With ours
    set to 0.5 s here it fails in about 1 s on a quiet machine; the bound, 20 s, is ten times that with
    room for a loaded machine, and still below Dask's 30 s (issue 31: no wall-clock bound near the quiet figure)."""
    from cnfgen_queens.cli import main
    from cnfgen_queens.execution import executors

    need_module("dask.distributed")
    import distributed  # noqa: F401  (imported before the clock starts: seconds on a loaded machine)

    assert executors.SCHEDULER_TIMEOUT <= 10
    monkeypatch.setattr(executors, "SCHEDULER_TIMEOUT", 0.5)
    start = time.monotonic()
    assert main(["count", "6", "--executor", "dask", "--scheduler", "tcp://127.0.0.1:1"]) == 1  # the environment
    assert time.monotonic() - start < 20
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "tcp://127.0.0.1:1" in err


def test_kill_9_leftovers_are_removed_by_the_next_run_never_one_in_use(tmp_path: Path) -> None:
    """Issue 24: ``kill -9`` of ``enumerate`` left cnfgen-queens-input-*/-solve-* that ``--resume`` never removed."""
    need_solver("kissat")
    argv = ["enumerate", "12", "--solver", "kissat", "--out", "d", "--quiet"]
    proc, spool = start(tmp_path, *argv)
    wait_for(proc, lambda: list(spool.glob("cnfgen-queens-input-*")))
    proc.kill()
    proc.communicate(timeout=60)
    assert list(spool.glob("cnfgen-queens-input-*"))  # what kill -9 leaves
    code = "import time; from cnfgen_queens.cnf.atomic import work_dir\nwith work_dir('solve') as d:\n"
    busy = subprocess.Popen(
        [sys.executable, "-c", code + "    print(d, flush=True); time.sleep(60)"],
        env={**os.environ, "TMPDIR": str(spool)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert busy.stdout is not None
        in_use = Path(busy.stdout.readline().strip())
        resumed, _ = start(tmp_path, *argv, "--resume", "--limit", "1")
        _, err = resumed.communicate(timeout=120)
        assert resumed.returncode == 0, err
        assert [p for p in spool.iterdir() if p.name.startswith("cnfgen-queens-")] == [in_use]
    finally:
        busy.kill()
        busy.wait()


# A signal whose handler raises right after a future's lock was taken (threading.Condition.__enter__ is Python
# code: the lock is held before the with block is set up) leaves the lock held; the pool's manager thread then
# waits for it for ever and the command never exits (found in a CI run: "terminated (SIGTERM)", then 120 s).
# So the main thread calls no method of a future (execution/landing.py): this counts the calls it makes.
FUTURES_LOOKED_AT = """
import atexit, os, sys, threading
from concurrent.futures import _base

looked = []

def on_call(frame, event, arg):
    main = threading.current_thread() is threading.main_thread()
    if main and frame.f_code.co_filename == _base.__file__ and frame.f_code.co_name != "__init__":  # made, unlocked
        looked.append(frame.f_code.co_name)

sys.setprofile(on_call)
atexit.register(lambda: os.write(2, f"looked at futures: {sorted(set(looked))}\\n".encode()))
"""


@pytest.mark.parametrize("argv", [("count", "15", "--jobs", "2"), ("count", "12", "--jobs", "2", "--certify", "c")])
def test_the_main_thread_takes_no_futures_lock_and_a_signal_ends_the_command(
    tmp_path: Path, argv: tuple[str, ...]
) -> None:
    """``count --jobs 2`` (the fork pool: cubes, and the certificate's tasks) touches no future from its main
    thread, where a signal's exception may land at any instruction, and ends with 143 after SIGTERM."""
    entry = CLI_ENTRY.replace(
        "from cnfgen_queens.cli import main", FUTURES_LOOKED_AT + "\nfrom cnfgen_queens.cli import main"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", entry, *argv, "--quiet"],
        cwd=tmp_path,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp_path)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=default_signals,
        start_new_session=True,
    )
    try:
        wait_for(proc, lambda: len(descendants(proc.pid)) >= 2)
        time.sleep(1)  # tasks finishing and submitted
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"{' '.join(argv)} still running 90 s after SIGTERM")
    assert proc.returncode == 143, err
    assert err == "cnfgen-queens count: terminated (SIGTERM)\nlooked at futures: []\n", err


# At exit concurrent.futures wakes every pool manager thread still running; one that closes its wake-up pipe
# between that wake-up's check and its write makes the write fail, printed after the command's one line
# ("Exception ignored in: <module 'threading'> ... OSError: [Errno 9] Bad file descriptor"; Python 3.11, beside
# another checkout's tests).  Here both sides wait for each other, so the race is met every time unless the
# pool has joined its manager thread before the command exits.
WAKEUP_RACE = """
import threading, time
import concurrent.futures.process as cfp

def wakeup(self):
    if not self._closed:
        if cfp._global_shutdown:
            time.sleep(0.5)  # the exit's wake-up: checked, not yet written
        self._writer.send_bytes(b"")

joined = threading.Event()
join, internals = cfp._ExecutorManagerThread.join, cfp._ExecutorManagerThread.join_executor_internals

def noted_join(self, timeout=None):
    joined.set()
    return join(self, timeout)

def late_internals(self):  # the manager's last step, which closes the wake-up pipe
    end = time.monotonic() + 20
    while not (cfp._global_shutdown or joined.is_set()) and time.monotonic() < end:
        time.sleep(0.01)
    if cfp._global_shutdown:
        time.sleep(0.1)  # inside the exit's wake-up
    internals(self)

cfp._ThreadWakeup.wakeup = wakeup
cfp._ExecutorManagerThread.join, cfp._ExecutorManagerThread.join_executor_internals = noted_join, late_internals
"""


@pytest.mark.parametrize(
    "argv", [("count", "15", "--jobs", "2", "--quiet"), ("batch", "BATCH", "--jobs", "2", "--no-progress")]
)
def test_an_interrupted_pool_has_its_manager_thread_gone_before_the_exit(tmp_path: Path, argv: tuple[str, ...]) -> None:
    """The fork pool (count) and the batch's pool join their manager thread after an interrupted shutdown."""
    if "BATCH" in argv:
        argv = tuple(str(kill_test_config(tmp_path)) if a == "BATCH" else a for a in argv)
    main = "from cnfgen_queens.cli import main"
    entry = CLI_ENTRY.replace(main, f"{WAKEUP_RACE}\n{main}")
    proc = subprocess.Popen(
        [sys.executable, "-c", entry, *argv],
        cwd=tmp_path,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp_path)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=default_signals,
        start_new_session=True,
    )
    try:
        wait_for(proc, lambda: len(descendants(proc.pid)) >= 2)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 143 and len(err.splitlines()) == 1 and "terminated (SIGTERM)" in err, err


def test_a_forked_worker_dies_of_sigterm(tmp_path: Path) -> None:
    """The fork pool's workers die of SIGTERM (their pool ends them so), whatever handler their parent has."""
    proc, _ = start(tmp_path, "count", "15", "--jobs", "2", "--quiet")
    try:
        wait_for(proc, lambda: len(descendants(proc.pid)) >= 2)
        worker = descendants(proc.pid)[0]
        os.kill(worker, signal.SIGTERM)
        assert all_gone([worker]) == [], "a forked worker lived on after SIGTERM"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=120)
    assert proc.returncode != 0
