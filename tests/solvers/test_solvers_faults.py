"""Solvers that lie, crash, babble or hang: the runner gives the right outcome and leaves nothing running."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from helpers import need_module, need_solver, pigeonhole

from cnfgen_queens.cli import gen_main, main
from cnfgen_queens.limits import Limits
from cnfgen_queens.solvers import SolverNotFound, Status, process, resolve, solve

FAKES = Path(__file__).resolve().parents[1] / "fakes"


def gone(pid: int, group: bool = False) -> bool:
    """True when no process (not even a zombie) has this pid / process group id."""
    try:
        (os.killpg if group else os.kill)(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.fixture
def pgids(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The process group ids of every solver started by the process-group runner during the test
    (these tests are about that runner: ``auto`` isolation falls back to it here; the cgroup
    runner has its own tests in test_solvers_isolation.py)."""
    from cnfgen_queens.solvers import cgroup

    monkeypatch.setattr(cgroup, "unavailable_reason", lambda: "process-group runner under test")
    started: list[int] = []
    spawn = process._spawn

    def recording(*a, **kw):  # type: ignore[no-untyped-def]
        proc = spawn(*a, **kw)
        started.append(proc.pid)  # the solver leads its own session, so its pid is its group id
        return proc

    monkeypatch.setattr(process, "_spawn", recording)
    return started


@pytest.fixture(scope="module")
def q8(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("q") / "q8.cnf"
    assert gen_main(["8", "-o", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def php(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """PHP(12, 11): unsatisfiable and exponential for resolution."""
    return pigeonhole(tmp_path_factory.mktemp("php") / "php12.cnf", 11)


@pytest.mark.parametrize(
    ("fake", "message"),
    [
        ("wrong_model.sh", "violates clause 1 of 736: 1 2 3 4 5 6 7 8 0"),
        ("unsat_exit10.sh", "UNSATISFIABLE but exit code 10"),
        ("crash.sh", "SIGSEGV"),
        ("garbage.sh", "unparseable output"),
        ("bad_literal.sh", "not a literal"),
    ],
)
def test_lying_and_broken_solvers_are_errors(fake: str, message: str, q8: Path, pgids: list[int]) -> None:
    out = solve(q8, str(FAKES / fake))
    assert out.status is Status.ERROR
    assert message in (out.error or "")
    assert out.model is None and not out.verified
    assert pgids and all(gone(g, group=True) for g in pgids)


def test_lying_solver_cli_exit_1(q8: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", str(q8), "--solver", str(FAKES / "wrong_model.sh")]) == 1
    captured = capsys.readouterr()
    assert "s UNKNOWN" in captured.out and "s SATISFIABLE" not in captured.out
    assert "violates clause 1" in captured.err and len(captured.err.strip().splitlines()) == 1


def test_stubborn_solver_and_child_are_killed(q8: Path, tmp_path: Path, pgids: list[int]) -> None:
    pidfile = tmp_path / "pids"
    start = time.monotonic()
    out = solve(q8, str(FAKES / "stubborn.sh"), limits=Limits(time=1.0), args=[str(pidfile)])
    elapsed = time.monotonic() - start
    assert out.status is Status.TIMEOUT
    assert elapsed < 1.0 + process.GRACE + 2.0
    assert out.exit_code == -signal.SIGKILL  # SIGTERM was ignored
    fake, child = map(int, pidfile.read_text().split())
    assert pgids == [fake]
    assert gone(fake) and gone(child) and gone(fake, group=True)


def test_straggler_is_killed_after_answer(tmp_path: Path, pgids: list[int]) -> None:
    cnf = tmp_path / "u.cnf"
    cnf.write_text("p cnf 1 2\n1 0\n-1 0\n")
    pidfile = tmp_path / "pid"
    out = solve(cnf, str(FAKES / "straggler.sh"), args=[str(pidfile)])
    assert out.status is Status.UNSAT and "left running" in (out.error or "")
    assert gone(int(pidfile.read_text())) and gone(pgids[0], group=True)


def test_ctrl_c_stops_the_group(q8: Path, tmp_path: Path, pgids: list[int], sigint_raises: None) -> None:
    pidfile = tmp_path / "pids"
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        solve(q8, str(FAKES / "stubborn.sh"), args=[str(pidfile)])
    timer.join()
    fake, child = map(int, pidfile.read_text().split())
    assert gone(fake) and gone(child) and gone(pgids[0], group=True)


@pytest.mark.parametrize("name", ["kissat", pytest.param("picosat", marks=pytest.mark.slow)])
def test_time_limit_on_pigeonhole(name: str, php: Path, pgids: list[int]) -> None:
    need_solver(name)
    start = time.monotonic()
    out = solve(php, name, limits=Limits(time=2.0))
    # a hang guard, ten times the quiet figure (the schedule's own bounds are
    # tests/solvers/test_time_limit_bound.py's; 5 s failed at load 14)
    assert time.monotonic() - start < 30.0
    assert out.status is Status.TIMEOUT, out.error
    assert out.wall >= 1.9 and out.model is None
    assert pgids and all(gone(g, group=True) for g in pgids)


def test_runner_kills_real_solver_without_its_own_limit(php: Path, tmp_path: Path, pgids: list[int]) -> None:
    """A user profile with no time flag: the runner alone stops kissat (SIGTERM to the group)."""
    path = need_solver("kissat")
    yaml_file = tmp_path / "solvers.yaml"
    yaml_file.write_text(f"solvers:\n  bare-kissat:\n    command: '{path} {{args}} {{cnf}}'\n")
    start = time.monotonic()
    out = solve(php, "bare-kissat", limits=Limits(time=1.0), solvers_file=yaml_file)
    assert time.monotonic() - start < 30.0  # a hang guard (the status says the runner stopped it)
    assert out.status is Status.TIMEOUT and out.solver == "bare-kissat"
    assert all(gone(g, group=True) for g in pgids)


def test_embedded_time_limit(php: Path) -> None:
    start = time.monotonic()
    out = solve(php, limits=Limits(time=2.0))
    assert time.monotonic() - start < 30.0  # a hang guard (the status says the limit stopped it)
    assert out.status is Status.TIMEOUT and out.solver == "pysat:cadical195"


def test_missing_binary_one_line(q8: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    yaml_file = tmp_path / "solvers.yaml"
    yaml_file.write_text(
        "solvers:\n  nosuch:\n    command: 'no-such-solver-xyz {cnf}'\n    install: 'pip install nosuch'\n"
    )
    assert main(["solve", str(q8), "--solver", "nosuch", "--solvers-file", str(yaml_file)]) == 1  # not installed
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "nosuch" in err and "pip install nosuch" in err
    assert main(["solve", str(q8), "--solver", "/no/such/dir/solver"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    with pytest.raises(SolverNotFound, match="not a profile"):
        resolve("no-such-solver-xyz")


def my_children() -> list[int]:
    """Processes whose parent is this test process (from /proc)."""
    me, kids = os.getpid(), []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_bytes()
            except OSError:
                continue
            if int(stat[stat.rfind(b")") + 2 :].split()[1]) == me:
                kids.append(int(entry))
    return kids


def test_embedded_ctrl_c_leaves_nothing(php: Path, sigint_raises: None) -> None:
    import gc

    before = set(my_children())  # other tests may leave helpers (e.g. multiprocessing's resource tracker)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        solve(php)  # no limit: only Ctrl-C stops it
    timer.join()
    gc.collect()  # pysat's own SIGINT path would crash here; the forked child keeps us safe
    assert set(my_children()) <= before


def test_memory_limit_is_memout(q8: Path) -> None:
    need_solver("kissat")
    big = q8.parent / "q60.cnf"
    assert gen_main(["60", "-o", str(big)]) == 0
    assert solve(big, "kissat", limits=Limits(memory=8)).status is Status.MEMOUT


@pytest.mark.parametrize("tools", ["util-linux", "none"])
def test_the_process_group_runners_limits_hold_with_no_python_before_the_exec(
    tools: str, q8: Path, pgids: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 45: the solver starts with no ``preexec_fn`` (Python run between fork and exec, which a lock held by
    another thread can hang): util-linux's prlimit sets its RLIMIT_AS before the exec, or, where util-linux is
    missing, the runner sets it right after the start; either way N=60 under 8 MB is MEMOUT and N=8 is SAT."""
    from cnfgen_queens.solvers import spawn

    need_solver("kissat")
    if tools == "none":
        monkeypatch.setattr(spawn, "util_linux", lambda: (None, None))
        monkeypatch.setattr(process, "util_linux", lambda: (None, None))
    big = q8.parent / "q60.cnf"
    assert gen_main(["60", "-o", str(big)]) == 0
    assert solve(big, "kissat", limits=Limits(memory=8, isolation="none")).status is Status.MEMOUT
    assert solve(q8, "kissat", limits=Limits(memory=200, isolation="none")).status is Status.SAT
    assert pgids and all(gone(g, group=True) for g in pgids)


def test_unsat_with_bogus_proof_is_error(q8: Path, tmp_path: Path) -> None:
    need_module("dratify")
    yaml_file = tmp_path / "solvers.yaml"
    yaml_file.write_text(f"solvers:\n  liar:\n    command: '{FAKES / 'unsat_bogus_proof.sh'} {{cnf}} {{proof}}'\n")
    out = solve(q8, "liar", proof=tmp_path / "p.drat", solvers_file=yaml_file)
    assert out.status is Status.ERROR and "proof rejected" in (out.error or "") and out.proof == "unverified"
    assert solve(q8, "liar", solvers_file=yaml_file).status is Status.UNSAT  # without a proof it cannot be caught


def test_a_timed_out_group_is_killed_leader_last(monkeypatch: pytest.MonkeyPatch) -> None:
    """At the time limit's SIGKILL the solver's other processes die before its leader, the one BenchExec waits
    for: BenchExec lists its cgroup's tasks the moment the leader is reaped, and a member still dying then
    cost a 0.5 s sleep (``--time-limit 1`` under cgroups took 1.9 s; measured 0.75 -> 0.21-0.36 s after the
    deadline, scripts/bench_time_limit.py).  At the leader's kill, every member is dead (a zombie)."""
    import subprocess

    from cnfgen_queens.solvers import reaper

    proc = subprocess.Popen(["sh", "-c", "trap '' TERM; sleep 300 & sleep 300 & wait"], process_group=0)
    try:
        end = time.monotonic() + 60
        while len(reaper.group_members(proc.pid)) < 3 and time.monotonic() < end:
            time.sleep(0.01)
        members = [pid for pid, _ in reaper.group_members(proc.pid) if pid != proc.pid]
        assert len(members) == 2, members
        at_the_leaders_kill: list[list[bytes]] = []
        real = reaper.killpg

        def killpg(pgid: int, sig: int) -> bool:
            if sig == signal.SIGKILL:  # not the SIGSTOP that stops the group first
                states = {pid: fields[0] for pid, fields in reaper._proc_stats() if pid in members}
                at_the_leaders_kill.append(list(states.values()))
            return real(pgid, sig)

        monkeypatch.setattr(reaper, "killpg", killpg)
        reaper.kill_leader_last(proc.pid, 30.0)
        assert at_the_leaders_kill and all(state in reaper.DEAD for state in at_the_leaders_kill[0])
        proc.wait(60)  # killed, or ended by itself once its children were: either way, after them
        living = [pid for pid, fields in reaper._proc_stats() if pid in members and fields[0] not in reaper.DEAD]
        assert living == []
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
