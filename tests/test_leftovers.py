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
from helpers import CLI_ENTRY, default_signals, need_solver
from test_signals import all_gone, descendants, start, stop, wait_for

SIGNALS = [signal.SIGTERM, signal.SIGINT, signal.SIGHUP]


def _ours(spool: Path) -> list[str]:
    return sorted(p.name for p in spool.iterdir())


def _signalled(tmp_path: Path, sig: int, ready: str, *argv: str) -> None:
    """Run ``argv`` with its own empty $TMPDIR, signal it once ``ready`` (a glob) is there, check it is clean."""
    proc, spool = start(tmp_path, *argv)
    wait_for(proc, lambda: list(spool.glob(ready)))
    time.sleep(0.5)  # well inside the run: solvers started, work directories made
    _, err, below = stop(proc, sig)
    assert proc.returncode == 128 + sig, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert _ours(spool) == []
    assert all_gone(below) == []


@pytest.mark.parametrize("sig", SIGNALS)
def test_count_by_cubes_on_forked_workers_with_a_binary(tmp_path: Path, sig: int) -> None:
    """The issue's reproducer: ``count 12 --jobs 2 --solver minisat`` left -input-, -solve- and BenchExec_run_*."""
    need_solver("minisat")
    _signalled(tmp_path, sig, "cnfgen-queens-solve-*", "count", "12", "--jobs", "2", "--solver", "minisat", "--quiet")


@pytest.mark.parametrize("sig", SIGNALS)
def test_count_by_the_loop_with_a_binary(tmp_path: Path, sig: int) -> None:
    need_solver("minisat")
    _signalled(tmp_path, sig, "cnfgen-queens-solve-*", "count", "9", "--engine", "loop", "--solver", "minisat",
               "--quiet")  # fmt: skip


@pytest.mark.parametrize("sig", SIGNALS)
def test_enumerate_without_out_uses_a_work_directory_of_ours(tmp_path: Path, sig: int) -> None:
    need_solver("minisat")
    _signalled(tmp_path, sig, "cnfgen-queens-loop-*/solutions.txt", "enumerate", "10", "--solver", "minisat",
               "--quiet")  # fmt: skip


@pytest.mark.parametrize("sig", SIGNALS)
def test_solve_from_stdin(tmp_path: Path, sig: int) -> None:
    """``solve -`` spools stdin to a work directory: gone after the signal too."""
    need_solver("minisat")
    spool = tmp_path / "spool"
    spool.mkdir()
    proc = subprocess.Popen([sys.executable, "-c", CLI_ENTRY, "solve", "-", "--solver", "minisat"], cwd=tmp_path,
                            env={**os.environ, "TMPDIR": str(spool)}, text=True, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=default_signals)  # fmt: skip
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
    busy = subprocess.Popen([sys.executable, "-c", code + "    print(d, flush=True); time.sleep(60)"],
                            env={**os.environ, "TMPDIR": str(spool)}, stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert busy.stdout is not None
        in_use = Path(busy.stdout.readline().strip())
        later, _ = start(tmp_path, "solve", "missing.cnf", "--solver", "minisat")  # any command with work dirs
        later.communicate(timeout=120)
        assert _ours(spool) == [in_use.name]
    finally:
        busy.kill()
        busy.wait()
