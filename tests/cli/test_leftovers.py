"""No leftovers (issue 30, item 6): after SIGTERM, SIGINT or SIGHUP no temporary directory of ours
(``cnfgen-queens-*``) or of BenchExec's (``BenchExec_run_*``) remains in $TMPDIR, whatever the engine,
executor and solver kind, and no process; what a ``kill -9`` left is swept at the next start, never a
live process's directory."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import CLI_ENTRY, all_gone, default_signals, descendants, need_module, need_solver
from test_signals import start, stop, wait_for

SIGNALS = [signal.SIGTERM, signal.SIGINT, signal.SIGHUP]


def _ours(spool: Path) -> list[str]:
    return sorted(p.name for p in spool.iterdir())


def _signalled(tmp_path: Path, sig: int, ready: str, *argv: str, group: bool = False, settle: float = 0.5) -> None:
    """Run ``argv`` with its own empty $TMPDIR, signal it ``settle`` seconds after ``ready`` (a glob) is there,
    check it is clean.  ``group``: the signal goes to its whole process group, as a terminal's Ctrl-C or hangup
    does."""
    proc, spool = _start(tmp_path, *argv) if group else start(tmp_path, *argv)
    wait_for(proc, lambda: list(spool.glob(ready)))
    time.sleep(settle)  # well inside the run: solvers started, work directories made
    if group:
        below = descendants(proc.pid)
        os.killpg(proc.pid, sig)
        _, err = proc.communicate(timeout=120)
    else:
        _, err, below = stop(proc, sig)
    assert proc.returncode == 128 + sig, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert _ours(spool) == []
    assert all_gone(below, timeout=10) == []  # well before a slow solver's sleep ends by itself


def _start(tmp_path: Path, *argv: str) -> tuple[subprocess.Popen[str], Path]:
    """:func:`test_signals.start` in a process group of its own, which a test may signal whole."""
    spool = tmp_path / "spool"
    spool.mkdir(exist_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI_ENTRY, *argv],
        cwd=tmp_path,
        text=True,
        env={**os.environ, "TMPDIR": str(spool)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=default_signals,
        process_group=0,
    )
    return proc, spool


def _slow_batch(tmp_path: Path) -> Path:
    """A batch config whose runs each take a minute (a solver that sleeps): signalled, they are cut short."""
    solver = tmp_path / "slow.sh"
    solver.write_text("#!/bin/sh\nsleep 60\necho 's UNKNOWN'\n")
    solver.chmod(0o755)
    config = tmp_path / "slow.yaml"
    config.write_text(
        f"experiment: slow\ninstances:\n  n: [8, 9, 10]\n  encodings: [pairwise]\n"
        f"solvers: [{{name: {solver}}}]\nlimits: {{time: 120}}\nresults: slow.sqlite\n"
    )
    return config


@pytest.mark.parametrize("group", [False, True], ids=["process", "group"])
@pytest.mark.parametrize("sig", SIGNALS)
def test_batch_on_a_local_dask_cluster(tmp_path: Path, sig: int, group: bool) -> None:
    """F9: ``batch -j 2 --executor dask`` left cnfgen-queens-input-* and -solve-* (5 of 5): a run was cut by
    the worker's death, not unwound; to the process group, Dask's workers printed tracebacks."""
    need_module("dask.distributed")
    config = _slow_batch(tmp_path)
    _signalled(
        tmp_path,
        sig,
        "cnfgen-queens-solve-*",
        "batch",
        str(config),
        "-j",
        "2",
        "--executor",
        "dask",
        "--no-progress",
        group=group,
    )


@pytest.mark.parametrize("sig", SIGNALS)
def test_batch_with_local_workers_signalled_as_a_group(tmp_path: Path, sig: int) -> None:
    """F9: a terminal hangup of ``batch -j 2`` killed multiprocessing's resource tracker, which then printed
    "process died unexpectedly" and a KeyError traceback per semaphore (3 of 3)."""
    config = _slow_batch(tmp_path)
    _signalled(tmp_path, sig, "cnfgen-queens-solve-*", "batch", str(config), "-j", "2", "--no-progress", group=True)


@pytest.mark.parametrize("sig", SIGNALS)
def test_count_on_a_local_dask_cluster_signalled_as_a_group(tmp_path: Path, sig: int) -> None:
    """F9: a terminal hangup of ``count 14 --jobs 2 --executor dask`` printed the resource tracker's tracebacks."""
    need_module("dask.distributed")
    _signalled(
        tmp_path,
        sig,
        "cnfgen-queens-dask-*",
        "count",
        "14",
        "--jobs",
        "2",
        "--executor",
        "dask",
        "--quiet",
        group=True,
        settle=3,
    )


@pytest.mark.parametrize("sig", SIGNALS)
def test_count_with_forked_workers_signalled_as_a_group(tmp_path: Path, sig: int) -> None:
    need_solver("minisat")
    _signalled(
        tmp_path,
        sig,
        "cnfgen-queens-solve-*",
        "count",
        "12",
        "--jobs",
        "2",
        "--solver",
        "minisat",
        "--quiet",
        group=True,
    )


@pytest.mark.parametrize("sig", SIGNALS)
def test_count_by_cubes_on_forked_workers_with_a_binary(tmp_path: Path, sig: int) -> None:
    """The issue's reproducer: ``count 12 --jobs 2 --solver minisat`` left -input-, -solve- and BenchExec_run_*."""
    need_solver("minisat")
    _signalled(tmp_path, sig, "cnfgen-queens-solve-*", "count", "12", "--jobs", "2", "--solver", "minisat", "--quiet")


@pytest.mark.parametrize("sig", SIGNALS)
def test_count_by_the_loop_with_a_binary(tmp_path: Path, sig: int) -> None:
    need_solver("minisat")
    _signalled(
        tmp_path, sig, "cnfgen-queens-solve-*", "count", "9", "--engine", "loop", "--solver", "minisat", "--quiet"
    )


@pytest.mark.parametrize("sig", SIGNALS)
def test_enumerate_without_out_uses_a_work_directory_of_ours(tmp_path: Path, sig: int) -> None:
    need_solver("minisat")
    _signalled(tmp_path, sig, "cnfgen-queens-loop-*/solutions.txt", "enumerate", "10", "--solver", "minisat", "--quiet")


@pytest.mark.parametrize("sig", SIGNALS)
def test_solve_from_stdin(tmp_path: Path, sig: int) -> None:
    """``solve -`` spools stdin to a work directory: gone after the signal too."""
    need_solver("minisat")
    spool = tmp_path / "spool"
    spool.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI_ENTRY, "solve", "-", "--solver", "minisat"],
        cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(spool)},
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=default_signals,
    )
    assert proc.stdin is not None
    proc.stdin.write("p cnf 2 1\n")  # and no more: stdin stays open, the spool is being written
    proc.stdin.flush()
    wait_for(proc, lambda: list(spool.glob("cnfgen-queens-spool-*/stdin.cnf")))
    _, err, below = stop(proc, sig)
    assert proc.returncode == 128 + sig and len(err.splitlines()) == 1, err
    assert _ours(spool) == [] and all_gone(below) == []


def test_stale_directories_of_dead_processes_are_swept_at_the_next_start(tmp_path: Path) -> None:
    """kill -9 of a count with forked workers: what it left goes at the next command's start, not a live one's."""
    need_solver("minisat")
    proc, spool = start(tmp_path, "count", "12", "--jobs", "2", "--solver", "minisat", "--quiet")
    wait_for(proc, lambda: list(spool.glob("cnfgen-queens-solve-*")))
    below = descendants(proc.pid)
    for pid in [proc.pid, *below]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    assert all_gone(below) == []
    assert [name for name in _ours(spool) if name.startswith("cnfgen-queens-")]  # what kill -9 leaves
    code = "import time; from cnfgen_queens.cnf.atomic import work_dir\nwith work_dir('input') as d:\n"
    busy = subprocess.Popen(
        [sys.executable, "-c", code + "    print(d, flush=True); time.sleep(60)"],
        env={**os.environ, "TMPDIR": str(spool)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert busy.stdout is not None
        in_use = Path(busy.stdout.readline().strip())
        later, _ = start(tmp_path, "solve", "missing.cnf", "--solver", "minisat")  # any command with work dirs
        later.communicate(timeout=120)
        assert _ours(spool) == [in_use.name]
    finally:
        busy.kill()
        busy.wait()


FINALIZER = """
import os, signal, sys, time
from cnfgen_queens.errors import Terminated, stop_on_signals
class Finalized:
    def __del__(self):  # as WeakSet._remove, called where Python cannot raise
        os.kill(os.getpid(), signal.SIGHUP)
        for _ in range(100_000):  # the handler runs in here
            pass
stop_on_signals()
try:
    Finalized()
    time.sleep(30)
    print("never stopped")
except Terminated as e:
    print("stopped", e.exit_code)
"""


def test_a_signal_landing_in_a_finalizer_still_stops_the_command(tmp_path: Path) -> None:
    """F9: once in ~30 SIGHUPs, ``count 12 --jobs 2`` printed "Exception ignored in: WeakSet._remove ...
    Terminated": raised inside a finalizer, the signal was printed and dropped; it is raised again outside."""
    done = subprocess.run(
        [sys.executable, "-c", FINALIZER], capture_output=True, text=True, timeout=60, preexec_fn=default_signals
    )
    assert (done.stdout, done.stderr) == ("stopped 129\n", "")


CUT_WAIT = """
import os, signal, sys, threading, time
from cnfgen_queens.execution.executors import LocalExecutor

if __name__ == "__main__":
    pool = LocalExecutor(1)
    for _ in range(2):
        pool.submit("k", time.sleep, 60)
    looked = []
    def on_call(frame, event, arg):  # no method of a future in the main thread: the pool's thread looks at them
        if frame.f_code.co_filename.endswith("_base.py") and threading.current_thread() is threading.main_thread():
            looked.append(frame.f_code.co_name)
    sys.setprofile(on_call)
    threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()
    try:
        pool.wait_any()
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    sys.setprofile(None)
    pool.close(interrupted=True)
    print("closed", looked, flush=True)
"""


def test_ctrl_c_inside_the_wait_for_a_run_leaves_no_lock_held(tmp_path: Path) -> None:
    """F9 (found stressing SIGINT to a batch's group, about 1 in 100): Ctrl-C landing inside
    ``concurrent.futures.wait`` while it took the futures' locks left one held, and the batch hung at exit.
    The main thread now takes no future's lock while it waits (``execution/landing.py``)."""
    script = tmp_path / "cut.py"
    script.write_text(CUT_WAIT)
    try:
        done = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, timeout=60, preexec_fn=default_signals
        )
    except subprocess.TimeoutExpired:
        raise AssertionError("hung: a future's lock stayed held after the interrupt") from None
    assert (done.stdout, done.returncode) == ("interrupted\nclosed []\n", 0), done.stderr


# A signal that lands just as a block begins to remove its work directory, before remove_tree holds signals:
# the removal was cut short and the directory stayed (CI at a load of 8: ``enumerate 10 --solver minisat`` left
# a ``cnfgen-queens-solve-*`` after SIGHUP, once in a whole suite's run).  The trace function lands it exactly there.
SIGNAL_AT_REMOVAL = """
import signal, sys
from cnfgen_queens.cnf import atomic

def on_call(frame, event, arg):
    if frame.f_code is atomic.remove_tree.__code__ and "cnfgen-queens-{kind}-" in str(frame.f_locals["path"]):
        sys.settrace(None)
        signal.raise_signal({sig})
    return None

sys.settrace(on_call)
"""
LIBRARY_SOLVE = "import cnfgen_queens as cq, sys; cq.solve(cq.queens(8), solver='minisat'); sys.exit(0)"


@pytest.mark.parametrize("sig", SIGNALS)
@pytest.mark.parametrize(
    ("kind", "argv"),
    [
        ("solve", ["enumerate", "8", "--solver", "minisat", "--quiet"]),
        ("loop", ["enumerate", "8", "--solver", "minisat", "--quiet"]),
        ("input", ["enumerate", "8", "--solver", "minisat", "--quiet"]),
        ("spool", ["solve", "-", "--solver", "minisat"]),
        ("solve", None),
    ],  # the library, with Python's own handlers
    ids=["solve", "loop", "input", "spool", "library"],
)
def test_a_signal_as_a_work_directory_is_being_removed_leaves_nothing(
    tmp_path: Path, kind: str, argv: list[str] | None, sig: int
) -> None:
    need_solver("minisat")
    inject = SIGNAL_AT_REMOVAL.format(kind=kind, sig=int(sig))
    if argv is None:
        code = f"import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n{inject}\n{LIBRARY_SOLVE}"
    else:
        code = CLI_ENTRY.replace("from cnfgen_queens.cli import main", f"{inject}\nfrom cnfgen_queens.cli import main")
    spool = tmp_path / "spool"
    spool.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", code, *(argv or [])],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "TMPDIR": str(spool)},
        input="p cnf 2 2\n1 0\n-2 0\n",
        preexec_fn=default_signals,
        timeout=120,
    )
    if argv is None:  # Python's own handlers: Ctrl-C unwinds (its traceback, then Python ends itself by SIGINT),
        # SIGTERM and SIGHUP kill the process; what the kill left, the next command's start sweeps
        assert done.returncode == -sig, done.stderr
        env = {**os.environ, "TMPDIR": str(spool)}
        next_command = [sys.executable, "-c", CLI_ENTRY, "solve", "-", "--solver", "minisat"]
        subprocess.run(next_command, cwd=tmp_path, env=env, input=b"p cnf 1 1\n1 0\n", capture_output=True, timeout=120)
    else:
        assert done.returncode == 128 + sig and len(done.stderr.splitlines()) == 1, done.stderr
    assert _ours(spool) == []


# The same for a temporary file of an atomic write: a signal landing in a context manager's __enter__ after its
# generator made the file (or in __exit__ before it resumes the generator) left the generator suspended; it was
# closed later, after the outer block had closed the directory's descriptor, and the file stayed ("Exception
# ignored in: <generator object _replacing>", EBADF; ``gen-queens 500 -o`` beside another checkout's tests).
SIGNAL_IN_A_CONTEXT_MANAGER = """
import contextlib, signal, sys

def on_call(frame, event, arg):
    if frame.f_code is contextlib._GeneratorContextManager.{method}.__code__:
        if "{method}" == "__exit__" and _ours(frame) and frame.f_locals["typ"] is None:
            sys.settrace(None)
            signal.raise_signal({sig})  # before __exit__ resumes the generator
        return on_return
    return None

def on_return(frame, event, arg):
    if event == "return" and _ours(frame):
        sys.settrace(None)
        signal.raise_signal({sig})  # after the generator yielded, before the caller's with is set up
    return on_return

def _ours(frame):
    return getattr(getattr(frame.f_locals.get("self"), "gen", None), "__name__", "") == "{generator}"

sys.settrace(on_call)
"""


@pytest.mark.parametrize("sig", SIGNALS)
@pytest.mark.parametrize("method", ["__enter__", "__exit__"])
@pytest.mark.parametrize("generator", ["_replacing", "atomic_output"])
def test_a_signal_inside_a_context_manager_leaves_no_temporary_file(
    tmp_path: Path, generator: str, method: str, sig: int
) -> None:
    inject = SIGNAL_IN_A_CONTEXT_MANAGER.format(method=method, generator=generator, sig=int(sig))
    code = CLI_ENTRY.replace("from cnfgen_queens.cli import main", f"{inject}\nfrom cnfgen_queens.cli import gen_main")
    code = code.replace("sys.exit(main(", "sys.exit(gen_main(")
    out = tmp_path / "out"
    out.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", code, "8", "-o", str(out / "p.cnf")],
        capture_output=True,
        text=True,
        preexec_fn=default_signals,
        timeout=120,
    )
    assert done.returncode == 128 + sig and len(done.stderr.splitlines()) == 1, done.stderr
    assert _ours(out) == []  # neither the temporary file nor a half-done output
