"""The embedded loop in a process of its own: its limits hold during a solver call, and nothing found is lost.

Before forked_loop.py, ``enumerate N --time-limit T`` with a pysat: solver checked the clock only
between solver calls (CaDiCaL 1.9.5 holds the GIL and has no interrupt), and ``--memory-limit``
was refused for embedded solvers.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from child_loops import allocate, crash, fail, found_two, sleep, two_then
from helpers import CLI_ENTRY, default_signals, descendants, marked_processes, run_cli

from cnfgen_queens.cli import main
from cnfgen_queens.enumeration.forked_loop import GRACE, _Lines, enumerate_forked
from cnfgen_queens.enumeration.records import EnumerationError, Found
from cnfgen_queens.errors import UsageError
from cnfgen_queens.limits import Deadline, Limits
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.solutions.api import Request, SolverChoice, count, solutions
from cnfgen_queens.solvers import fresh_process
from cnfgen_queens.solvers.outcome import Status

# seconds a loaded machine may add to the kill and the reaping: ten times the quiet figures (each ends within
# about 0.5 s of its limit), and still far below what each bound catches (a call left running: minutes)
SLACK = 60.0


def processes() -> set[int]:
    """Pids of this process's living descendants once its forkserver runs (started here first, with the spare
    it keeps for the next embedded solve)."""
    fresh_process.run_python(bytes, ())
    spare = fresh_process._Spare._kept
    assert spare is not None and spare.child.pid is not None  # forked (the pid comes once it is)
    return set(descendants(os.getpid()))


def left_over(before: set[int]) -> set[int]:
    """This process's descendants beyond ``before`` once a child that has answered has had time to exit."""
    for _ in range(200):
        if set(descendants(os.getpid())) <= before:
            break
        time.sleep(0.05)
    return set(descendants(os.getpid())) - before


def test_a_call_past_the_deadline_is_killed_and_what_was_found_is_kept() -> None:
    before = processes()
    calls: list[int] = []
    got: list[Found] = []
    start = time.monotonic()
    with pytest.raises(EnumerationError) as stop:
        for found in enumerate_forked(two_then(sleep), deadline=Deadline.after(1.0), on_call=lambda: calls.append(1)):
            got.append(found)
    wall = time.monotonic() - start
    assert [f.placement for f in got] == [(1, 3, 0, 2), (2, 0, 3, 1)]
    assert stop.value.status == Status.TIMEOUT and "during a solver call" in str(stop.value)
    assert 1.0 <= wall < 1.0 + GRACE + SLACK
    assert calls == [1, 1, 1]
    assert not left_over(before)


def test_the_childs_own_stop_and_its_reason_come_after_its_solutions() -> None:
    got = []
    with pytest.raises(EnumerationError) as stop:
        got.extend(enumerate_forked(two_then(fail)))
    assert len(got) == 2 and stop.value.status == Status.ERROR
    assert str(stop.value) == "model rejected: two queens attack"


def test_memory_limit_is_memout() -> None:
    got = []
    with pytest.raises(EnumerationError) as stop:
        got.extend(enumerate_forked(two_then(allocate), memory_mb=200))
    assert len(got) == 2
    assert stop.value.status == Status.MEMOUT and "memory limit reached (200 MB)" in str(stop.value)


def test_a_crash_is_an_error_naming_the_signal() -> None:
    with pytest.raises(EnumerationError) as stop:
        list(enumerate_forked(two_then(crash)))
    assert stop.value.status == Status.ERROR and "killed by SIGSEGV" in str(stop.value)


def test_a_consumer_that_stops_early_leaves_no_process() -> None:
    before = processes()
    loop = enumerate_forked(two_then(sleep))
    assert next(loop).placement == (1, 3, 0, 2)
    loop.close()  # as `enumerate --limit 1` does
    assert not left_over(before)


def test_lines_drop_a_line_cut_by_a_kill() -> None:
    r, w = os.pipe()
    os.write(w, b"c\ns 1 0 2 4 1 3\ns 1 3 1")
    os.close(w)
    lines = _Lines(r)
    got = []
    while not lines.eof:
        got += lines.read(1.0)
    os.close(r)
    assert got == [b"c", b"s 1 0 2 4 1 3"]


def test_a_real_solver_call_is_stopped_at_the_time_limit() -> None:
    """N = 400 product: feeding CaDiCaL takes 0.9 s, its first call minutes (more than 4 on this machine)."""
    formula = QueensFormula(400, "product")
    start = time.monotonic()
    with pytest.raises(EnumerationError) as stop:
        list(solutions(Request(formula, limits=Limits(time=4.0))))
    assert stop.value.status == Status.TIMEOUT  # during the call here; while feeding on a much slower machine
    assert time.monotonic() - start < 4.0 + GRACE + SLACK


def test_cli_memory_limit_with_an_embedded_solver(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """--memory-limit was refused for pysat: solvers ("belongs to the external loop")."""
    assert main(["enumerate", "8", "--memory-limit", "2000", "--limit", "1", "--quiet"]) == 0
    assert main(["count", "8", "--memory-limit", "2000", "--quiet"]) == 0  # the loop: cubes cannot honour it
    assert capsys.readouterr().out.splitlines()[-1] == "count: 92 (published-count)"
    # in its own process: CaDiCaL aborts on bad_alloc, and pytest's faulthandler would print the child's stack
    argv = ["count", "300", "-e", "sequential", "--memory-limit", "100", "--quiet"]
    for _ in range(6):  # on Python 3.13 one run in six crawled for minutes once malloc failed (many arenas tried)
        done = run_cli(argv, tmp_path, timeout=120)
        done.one_line(1, "memory limit reached (100 MB)")
        assert done.out.splitlines() == ["partial count: 0"]


def test_a_count_by_cubes_in_one_process_is_stopped_during_a_call(capsys: pytest.CaptureFixture[str]) -> None:
    """``count 400 -e product -t 3``: one worker (not this process) when there is a limit; the first
    call of a group takes minutes at N = 400."""
    start = time.monotonic()
    assert main(["count", "400", "-e", "product", "--time-limit", "3", "--quiet"]) == 1
    assert time.monotonic() - start < 3.0 + SLACK
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["partial count: 0"] and "time limit reached" in captured.err


def test_ctrl_c_during_a_long_embedded_call_ends_at_once_and_leaves_no_process() -> None:
    """In our process PySAT's own SIGINT path ended a CaDiCaL call with "error: Caught keyboard interrupt"
    and exit 1 (measured on the code before forked_loop.py); now it is exit 130, "interrupted"."""
    marker = f"987.{os.getpid():07d}"  # a time limit no other process has (this test run's own, whatever
    # else runs on the machine): finds a leftover child by its command line
    argv = ["enumerate", "400", "-e", "product", "--quiet", "--time-limit", marker]
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI_ENTRY, *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_signals,
    )
    under: set[int] = set()
    try:
        for _ in range(600):  # until the loop's child is forked (by the command's forkserver)
            if len(under := set(descendants(proc.pid))) >= 2:
                break
            time.sleep(0.05)
        time.sleep(2.0)  # fed (0.9 s), inside the first call (an earlier Ctrl-C must end the same way)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=2 * SLACK)
    finally:  # a failure above must not leave the command (and its child, N = 400) running
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert time.monotonic() - sent < SLACK
    assert proc.returncode == 130 and out == "" and "Traceback" not in err and err.count("\n") == 1, err
    assert "interrupted" in err and "error" not in err
    assert len(under) >= 2 and marked_processes(marker) == []
    for _ in range(200):  # the forkserver and the loop's child: gone with the command
        if not under & set(descendants(1)):
            break
        time.sleep(0.05)
    assert not under & set(descendants(1))


def test_a_slow_consumer_past_the_deadline_still_gets_a_complete_enumeration() -> None:
    """The child ended (exit 0) with every line in the pipe; the consumer read them after the deadline."""
    got = []
    for found in enumerate_forked(found_two, deadline=Deadline.after(0.3)):
        time.sleep(1.0)  # a pager, a slow pipe
        got.append(found)
    assert len(got) == 2  # no TIMEOUT raised: nothing was cut short


def test_an_unusable_embedded_solver_is_a_usage_error_not_a_child_error() -> None:
    with pytest.raises(UsageError, match="is not incremental"):
        list(solutions(Request(QueensFormula(5), SolverChoice("pysat:kissat404"))))
    with pytest.raises(UsageError, match=r"^pysat:kissat404 is not incremental"):
        count(Request(QueensFormula(5), SolverChoice("pysat:kissat404"), engine="loop"))
