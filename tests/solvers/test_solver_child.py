"""The long-lived solver child of a batch worker (solvers/solver_child.py): one fork for many runs, with the
limits and isolation of a child forked for each run.

Each case compares the kept child with a fresh fork on the same input (same status, same kind of error),
and checks that nothing of a stopped child remains."""

from __future__ import annotations

import fcntl
import gc
import multiprocessing
import os
import signal
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import ROOT, pigeonhole

from cnfgen_queens.cli import gen_main
from cnfgen_queens.cnf.scan import CnfFile, read_cnf
from cnfgen_queens.limits import Limits
from cnfgen_queens.solvers import child_loop, embedded, solver_child
from cnfgen_queens.solvers.embedded import solve_embedded
from cnfgen_queens.solvers.outcome import Status
from cnfgen_queens.solvers.process import run_forked
from cnfgen_queens.solvers.reaper import subreaper

# the kept child and fresh forks of this process, as a batch worker has them (in a pytest-xdist worker, beside its
# IO thread, on purpose: conftest.fork_paths)
pytestmark = pytest.mark.usefixtures("fork_paths")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture(scope="module")
def cnfs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("child")
    paths = {"q8": d / "q8.cnf", "q60": d / "q60.cnf", "q3": d / "q3.cnf"}
    for name, path in paths.items():
        assert gen_main([name[1:], "-o", str(path)]) == 0
    paths["hard"] = pigeonhole(d / "php.cnf", 12)
    return paths


@pytest.fixture(autouse=True)
def no_child() -> Iterator[None]:
    solver_child.close()
    yield
    pids = solver_child.pids()
    solver_child.close()
    assert not [pid for pid in pids if _alive(pid)]


def _child_pid() -> int:
    child = solver_child.current()
    assert child is not None
    return child.pid


def test_runs_share_one_child_and_answer_as_a_fresh_fork(cnfs: dict[str, Path]) -> None:
    q8 = read_cnf(cnfs["q8"])
    fresh = solve_embedded("cadical195", q8, Limits(10))
    kept = [solve_embedded("cadical195", q8, Limits(10), reuse=True) for _ in range(5)]
    pid = _child_pid()
    kept.append(solve_embedded("cadical195", CnfFile(cnfs["q3"], "q3"), Limits(10), reuse=True))
    assert _child_pid() == pid  # one fork for six runs
    assert fresh.status is Status.SAT and all(r.status is Status.SAT for r in kept[:5])
    assert all(r.model == fresh.model for r in kept[:5])  # CaDiCaL is deterministic: the same model
    assert kept[5].status is Status.UNSAT
    assert all(r.cpu is not None and r.cpu >= 0 and r.peak_memory_mb and r.wall > 0 for r in kept)


def test_time_limit_stops_the_run_and_the_next_run_gets_a_new_child(cnfs: dict[str, Path]) -> None:
    solve_embedded("cadical195", read_cnf(cnfs["q8"]), Limits(10), reuse=True)
    first = _child_pid()
    start = time.monotonic()
    slow = solve_embedded("cadical195", CnfFile(cnfs["hard"], "php"), Limits(0.5), reuse=True)
    assert slow.status is Status.TIMEOUT and "0.5 s wall-clock limit" in (slow.error or "")
    assert time.monotonic() - start < 10
    assert solver_child.current() is None and not _alive(first)  # stopped and reaped, not left solving
    again = solve_embedded("cadical195", read_cnf(cnfs["q8"]), Limits(10), reuse=True)
    assert again.status is Status.SAT and _child_pid() != first


MEMORY_CASE = """
import sys
from cnfgen_queens.cnf.scan import CnfFile, read_cnf
from cnfgen_queens.limits import Limits
from cnfgen_queens.solvers import solver_child
from cnfgen_queens.solvers.embedded import solve_embedded
memory, q60, q8 = int(sys.argv[1]), sys.argv[2], sys.argv[3]
big = CnfFile(q60, "q60")
fresh = solve_embedded("cadical195", big, Limits(10, memory))
kept = solve_embedded("cadical195", big, Limits(10, memory), reuse=True)
gone = solver_child.current() is None
small = solve_embedded("cadical195", read_cnf(q8), Limits(10, memory), reuse=True)
solver_child.close()
print(fresh.status.name, kept.status.name, gone, small.status.name)
"""


@pytest.mark.parametrize("memory", [2, 10])
def test_memory_limit_is_a_fresh_forks(memory: int, cnfs: dict[str, Path]) -> None:
    """In a fresh interpreter, as a batch worker is: a limit on top of a process's address space counts what
    that process has mapped and freed (a test worker may hold hundreds of MB of holes in its heap, room a
    fork can allocate in), so only a process of known size makes this exact."""
    argv = [sys.executable, "-c", MEMORY_CASE, str(memory), str(cnfs["q60"]), str(cnfs["q8"])]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=True).stdout.split()
    # both out of memory; a child that ran out is not used again; 8 queens fit in the same limit, a new child
    assert out == ["MEMOUT", "MEMOUT", "True", "SAT"], out


def test_another_memory_limit_gets_another_child(cnfs: dict[str, Path]) -> None:
    q8 = read_cnf(cnfs["q8"])
    solve_embedded("cadical195", q8, Limits(10, 200), reuse=True)
    first = _child_pid()
    solve_embedded("cadical195", q8, Limits(10, 100), reuse=True)
    assert _child_pid() != first and not _alive(first)
    child = solver_child.current()
    assert child is not None and child.memory_mb == 100


def test_an_error_in_the_child_reads_as_a_fresh_forks(cnfs: dict[str, Path], tmp_path: Path) -> None:
    missing = CnfFile(tmp_path / "gone.cnf", "gone.cnf")
    fresh = solve_embedded("cadical195", missing, Limits(10))
    kept = solve_embedded("cadical195", missing, Limits(10), reuse=True)
    assert fresh.status is kept.status is Status.ERROR
    assert fresh.error == kept.error and "FileNotFoundError" in (kept.error or ""), kept.error
    assert solve_embedded("cadical195", read_cnf(cnfs["q8"]), Limits(10), reuse=True).status is Status.SAT


def test_a_child_killed_while_idle_is_replaced(cnfs: dict[str, Path]) -> None:
    """Killed the moment before a run (no time for it to die first): the run goes to a new child, it is not
    a crash (before: 171 of 200 such runs said 'exit -9')."""
    q8 = read_cnf(cnfs["q8"])
    solve_embedded("cadical195", q8, Limits(10), reuse=True)
    for _ in range(10):
        first = _child_pid()
        os.kill(first, signal.SIGKILL)
        assert solve_embedded("cadical195", q8, Limits(10), reuse=True).status is Status.SAT
        assert _child_pid() != first


def test_a_child_that_dies_after_the_look_and_before_the_run_is_replaced(
    cnfs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deterministic: the child is stopped (alive when the run looks at it), and killed once the request is
    in its pipe, unread: it died before it took the run, so the run goes to a new child.  The killer is a
    thread of this process, with which a run would go to a fresh process (no fork): the kept child is used
    all the same (the killer holds no lock)."""
    monkeypatch.setattr(embedded, "fork_is_safe", lambda: True)
    q8 = read_cnf(cnfs["q8"])
    solve_embedded("cadical195", q8, Limits(10), reuse=True)
    child = solver_child.current()
    assert child is not None
    os.kill(child.pid, signal.SIGSTOP)

    killed = threading.Event()

    def kill_once_asked() -> None:
        waiting = bytearray(4)
        while not int.from_bytes(waiting, sys.byteorder):  # bytes in the request pipe: the run has asked
            time.sleep(0.001)
            fcntl.ioctl(child.requests, termios.FIONREAD, waiting)
        os.kill(child.pid, signal.SIGKILL)
        killed.set()

    killer = threading.Thread(target=kill_once_asked, daemon=True)
    killer.start()
    try:
        assert solve_embedded("cadical195", q8, Limits(10), reuse=True).status is Status.SAT
    finally:
        if not killed.is_set():  # the run never asked: it is stopped still (and not reaped)
            os.kill(child.pid, signal.SIGKILL)
    assert _child_pid() != child.pid


WORKER = """
import sys, time
from cnfgen_queens.cnf.scan import read_cnf
from cnfgen_queens.limits import Limits
from cnfgen_queens.solvers import solver_child
from cnfgen_queens.solvers.embedded import solve_embedded
solve_embedded("cadical195", read_cnf(sys.argv[1]), Limits(10), reuse=True)
print(solver_child.current().pid, flush=True)
if sys.argv[2] == "hang":
    time.sleep(60)
"""


@pytest.mark.parametrize("end", ["exit", "hang"])
def test_the_child_ends_with_its_worker(end: str, cnfs: dict[str, Path]) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", WORKER, str(cnfs["q8"]), end], stdout=subprocess.PIPE, env=env)
    try:
        assert proc.stdout is not None
        child = int(proc.stdout.readline())
        if end == "hang":
            proc.kill()  # SIGKILL: no exit hook runs; the child dies with its parent
        proc.wait(60)
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)


def test_a_forked_process_gets_a_child_of_its_own_and_leaves_its_parents_alone(cnfs: dict[str, Path]) -> None:
    """A process forked while a kept child exists (a batch's pool forked from a process that ran a batch
    before, as the tests' in-process batches do) inherited the parent's child: its run waited on a pid not
    its own (ChildProcessError, the pool's worker died: BrokenProcessPool)."""
    q8 = read_cnf(cnfs["q8"])
    assert solve_embedded("cadical195", q8, Limits(10), reuse=True).status is Status.SAT
    parent_child = _child_pid()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the forked process: its own child, then a clean exit
        code = 1
        try:
            os.close(read)
            run = solve_embedded("cadical195", q8, Limits(10), reuse=True)
            mine = _child_pid()
            solver_child.close()
            os.write(write, f"{run.status.name} {mine}".encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as f:
        said = f.read()
    assert os.waitpid(pid, 0)[1] == 0, said
    status, theirs = said.split()
    assert status == "SAT" and int(theirs) != parent_child
    assert _alive(parent_child) and _child_pid() == parent_child  # the parent's child untouched, still used
    assert solve_embedded("cadical195", q8, Limits(10), reuse=True).status is Status.SAT
    assert _child_pid() == parent_child


MB = 1 << 20
KEPT: list[bytearray] = []  # what a run leaves behind in the child (a cache, fragmentation)


def _alloc(mb: int, keep_mb: int = 0, payload: bytes = b"") -> bytes:
    """Allocate ``mb`` MB for the run (``keep_mb`` more, kept after it)."""
    if keep_mb:
        KEPT.append(bytearray(keep_mb * MB))
    bytearray(mb * MB)
    return b"ok"


@pytest.mark.parametrize("before", ["a run that kept 30 MB", "20 MB of arguments"])
def test_each_run_gets_a_fresh_forks_headroom(before: str) -> None:
    """Near the limit, what a fresh fork can allocate and what it cannot, the kept child can and cannot too,
    whatever an earlier run left behind and however big the arguments (before: the limit was fixed when the
    child was forked, so 85 MB of 100 failed after a run that kept 30 MB, and with 20 MB of arguments, held
    twice, raw and unpickled)."""
    limit, near = 100, 15
    payload = bytes(20 * MB) if before.startswith("20") else b""
    for need, fits in ((limit - near, True), (limit + near, False)):
        fresh = run_forked(lambda: _alloc(need, 0, payload), memory_mb=limit)  # noqa: B023 (called at once)
        solver_child.close()
        if not payload:
            assert solver_child.run(_alloc, (1, 30), memory_mb=limit) is not None
        kept = solver_child.run(_alloc, (need, 0, payload), memory_mb=limit)
        assert kept is not None
        for run in (fresh, kept):
            assert (run.exit_code == 0) is fits, (need, run.exit_code, run.stderr[-200:])
            assert fits or b"MemoryError" in run.stderr, run.stderr[-200:]


class _Unfolds:
    """Arguments that are a few bytes pickled and 60 MB unpickled."""

    def __reduce__(self) -> tuple[type, tuple[int]]:
        return bytearray, (60 * MB,)


def test_a_run_the_child_has_no_room_for_is_declined() -> None:
    """A run whose arguments unpickle far beyond the room the child was forked with cannot get a fresh fork's
    headroom under its hard limit: it is declined (None: the caller forks afresh), and the child stays."""
    assert solver_child.run(_alloc, (1,), memory_mb=100) is not None
    pid = _child_pid()
    assert solver_child.run(_alloc, (1, 0, _Unfolds()), memory_mb=100) is None
    again = solver_child.run(_alloc, (1,), memory_mb=100)
    assert again is not None and again.exit_code == 0 and _child_pid() == pid


@pytest.mark.parametrize("reuse", [False, True], ids=["fresh fork", "kept child"])
def test_the_workers_free_heap_is_no_room_beyond_the_limit(reuse: bool) -> None:
    """Memory the worker freed but its heap kept (glibc keeps a freed block at the top of its heap) counts in
    its address space, on top of which the limit is set: the child could allocate it beyond its limit
    (115 MB under a 100 MB limit after the worker freed 25 MB; the order of the tests decided it)."""
    big = bytearray(30 * MB)  # mapped, then unmapped: glibc raises its threshold for mapping to 30 MB
    del big
    held = bytearray(25 * MB)  # so this one comes from the heap, and stays there when freed
    del held
    run = solver_child.run(_alloc, (115,), memory_mb=100) if reuse else run_forked(lambda: _alloc(115), memory_mb=100)
    assert run is not None and run.exit_code == 1 and b"MemoryError" in run.stderr, run


@pytest.mark.parametrize("reuse", [False, True], ids=["fresh fork", "kept child"])
def test_holes_in_the_workers_heap_are_no_room_beyond_the_limit(reuse: bool) -> None:
    """Blocks freed in the middle of the worker's heap stay mapped (a long-running worker holds many: CI's
    held hundreds of MB): a child allocating into them grew no address space, so 115 MB fitted under a
    100 MB limit.  The child now holds every free block before the limit is set (solvers/heap.py)."""
    big = bytearray(30 * MB)  # mapped, then unmapped: glibc raises its threshold for mapping to 30 MB
    del big
    blocks = [bytearray(20 * MB) for _ in range(10)]  # from the heap
    pin = bytearray(MB)  # above them: the heap cannot shrink below it
    del blocks  # a 200 MB hole in the middle
    try:
        run = (
            solver_child.run(_alloc, (115,), memory_mb=100) if reuse else run_forked(lambda: _alloc(115), memory_mb=100)
        )
        assert run is not None and run.exit_code == 1 and b"MemoryError" in run.stderr, run
        again = (
            solver_child.run(_alloc, (85,), memory_mb=100) if reuse else run_forked(lambda: _alloc(85), memory_mb=100)
        )
        assert again is not None and again.exit_code == 0, again  # and the limit's own room is all there
    finally:
        del pin


def _spin_after(marker: str, seconds: float) -> bytes:
    """Say it started (a file), then spin for ``seconds``."""
    Path(marker).touch()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
    return b"done"


@pytest.mark.forks_beside_threads  # each thread's own kept child (solver_child.run, below the fork check)
@pytest.mark.filterwarnings("ignore:This process .*is multi-threaded:DeprecationWarning")  # on purpose, above
def test_a_thread_that_ends_takes_only_its_own_child(tmp_path: Path) -> None:
    """A child dies with the thread that forked it (PR_SET_PDEATHSIG): a thread that ends while another
    thread's run is under way takes nothing of that run (before: the run was in the ended thread's child, and
    was killed with it: 'exit -9')."""
    ended, started = threading.Event(), tmp_path / "started"
    first: list[int] = []

    def other_thread() -> None:
        run = solver_child.run(_spin_after, (str(tmp_path / "other"), 0.0))  # the same work: the same child
        first.append(run.exit_code if run is not None else -1)
        ended.wait(60)  # until the main thread's run is under way

    thread = threading.Thread(target=other_thread)
    thread.start()
    while not first:
        time.sleep(0.01)

    def end_it() -> None:
        while not started.exists():
            time.sleep(0.01)
        ended.set()
        thread.join()

    ender = threading.Thread(target=end_it)
    ender.start()
    try:
        run = solver_child.run(_spin_after, (str(started), 1.0), timeout=60)
    finally:
        ended.set()
        ender.join()
    assert first == [0]
    assert run is not None and run.exit_code == 0 and run.stdout == b"done", run
    assert solver_child.current() is not None  # the main thread's own child, kept


def test_no_peak_where_it_cannot_be_reset(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where /proc/self/clear_refs cannot be written, a run's peak is unknown (None), not the child's
    lifetime peak (before: ru_maxrss, as large as the largest earlier run)."""
    monkeypatch.setattr(child_loop, "_reset_peak", lambda: False)
    assert solver_child.run(_alloc, (64,)) is not None
    run = solver_child.run(_alloc, (0,))
    assert run is not None and run.exit_code == 0 and run.peak_memory_mb is None, run


def _ignore_sigterm_and_sleep(seconds: float) -> bytes:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(seconds)
    return b"awake"


def test_a_timeout_records_its_signals_as_a_fresh_fork() -> None:
    """SIGTERM at the time limit, SIGKILL a grace later, each with when it was sent (before: none)."""
    records = []
    for run in (lambda: run_forked(lambda: _ignore_sigterm_and_sleep(30), timeout=0.5, grace=0.3),
                lambda: solver_child.run(_ignore_sigterm_and_sleep, (30,), timeout=0.5, grace=0.3)):  # fmt: skip
        start = time.monotonic()
        finished = run()
        assert finished is not None and finished.timed_out, finished
        assert [name for name, _ in finished.signals] == ["SIGTERM", "SIGKILL"], finished.signals
        (_, term), (_, kill) = finished.signals
        assert term >= start + 0.5 and kill - term >= 0.3, (term - start, kill - term)
        records.append(finished)


class _SlowToSend:
    """Arguments that take a second to pickle."""

    def __reduce__(self) -> tuple[type, tuple[()]]:
        time.sleep(1.0)
        return _SlowToSend, ()


def _echo(*args: object) -> bytes:
    return b"ok"


def test_the_time_limit_counts_from_the_call() -> None:
    """Sending the arguments counts, as in a fresh fork every moment from the call does (before: the clock
    started after the arguments were pickled, so a 0.5 s run took 1 s and was no timeout)."""
    start = time.monotonic()
    run = solver_child.run(_echo, (_SlowToSend(),), timeout=0.5, grace=0.2)
    assert run is not None and run.timed_out and run.wall >= 1.0, run
    # the limit passed while the arguments were pickled, before a byte was sent: the child, idle, may end by
    # itself when its pipe closes (no signal then, at a high load); a signal sent is SIGTERM, at the limit or after
    assert not run.signals or (run.signals[0][0] == "SIGTERM" and run.signals[0][1] >= start + 0.5), run.signals


@pytest.mark.forks_beside_threads  # each thread's own kept child (solver_child.run, below the fork check)
@pytest.mark.filterwarnings("ignore:This process .*is multi-threaded:DeprecationWarning")  # on purpose, above
def test_the_time_limit_holds_while_the_request_is_written() -> None:
    """A child that does not read (stopped) cannot hold a run past its time limit (before: the worker
    waited for ever writing the request)."""
    got: list[object] = []
    pid: list[int] = []
    asked = threading.Event()

    def worker() -> None:
        assert solver_child.run(_echo, ()) is not None
        child = solver_child.current()
        assert child is not None
        pid.append(child.pid)
        asked.wait(60)
        got.append(solver_child.run(_echo, (bytes(4 * MB),), timeout=0.5, grace=0.2))
        solver_child.close()

    thread = threading.Thread(target=worker)
    thread.start()
    while not pid and thread.is_alive():
        time.sleep(0.01)
    os.kill(pid[0], signal.SIGSTOP)
    asked.set()
    thread.join(30)
    if thread.is_alive():
        os.kill(pid[0], signal.SIGKILL)  # lets the write fail, so the thread ends
        thread.join()
        pytest.fail("the run waited past its time limit writing its request")
    (run,) = got
    assert run is not None and run.timed_out, run  # type: ignore[attr-defined]


def _fd_after_collection(stale_fd: int) -> bytes:
    """Open files until one gets ``stale_fd``, collect garbage, and say whether that file is still open."""
    files = []
    while not files or files[-1].fileno() < stale_fd:
        files.append(open(os.devnull, "rb"))  # noqa: SIM115 (closed with the child)
    gc.collect()
    try:
        os.fstat(stale_fd)
    except OSError:
        return b"closed"
    return b"open"


def test_a_stale_file_of_the_worker_closes_nothing_in_the_child(tmp_path: Path) -> None:
    """The child closes every file of the worker's; a file object of the worker's that only the garbage
    collector would free (in a cycle) must not close, when freed in the child, the file the run opened with
    the same number (before: closed)."""
    gc.disable()
    try:
        stale = open(tmp_path / "stale", "wb")  # noqa: SIM115 (freed by the collector, which is the point)
        cycle: list[object] = [stale]
        cycle.append(cycle)
        fd = stale.fileno()
        del stale, cycle
        run = solver_child.run(_fd_after_collection, (fd,))
    finally:
        gc.enable()
        gc.collect()
    assert run is not None and run.stdout == b"open", run


def _run_in_forked_worker(send: object) -> None:
    run = solver_child.run(_echo, ())
    child = solver_child.current()
    send.send((run is not None and run.exit_code, child.pid if child else None))  # type: ignore[attr-defined]


def test_a_pool_worker_reaps_its_child_when_it_ends() -> None:
    """A multiprocessing worker forked from a process that had a kept child ends its own child at exit
    (multiprocessing clears its exit hooks in a worker; before, the worker thought its hook still set and
    left the child to be killed by the kernel and reaped by whoever adopted it)."""
    assert solver_child.run(_echo, ()) is not None  # this process has had a child: its exit hook is set
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    with subreaper():  # an orphan of the worker's comes to us
        worker = context.Process(target=_run_in_forked_worker, args=(send,))
        worker.start()
        code, pid = receive.recv()
        worker.join(60)
        assert code == 0 and pid is not None and worker.exitcode == 0
        deadline = time.monotonic() + 30
        adopted = False
        while time.monotonic() < deadline:
            try:
                with open(f"/proc/{pid}/status") as f:
                    ppid = next(int(line.split()[1]) for line in f if line.startswith("PPid:"))
            except OSError:  # gone (reaped by the worker) between two looks: what the test wants
                break
            if ppid == os.getpid():
                adopted = True
                os.waitpid(pid, 0)
                break
            time.sleep(0.01)
    assert not adopted, "the worker's child was left to the kernel (adopted by us)"
    assert not os.path.exists(f"/proc/{pid}")


def test_holding_the_heaps_free_blocks_grows_no_address_space() -> None:
    """What the child holds is the heap's holes, not new memory: its address space stays as it was (before:
    a size tried that no hole held grew the heap's top, whose free space was then held, for good)."""
    from cnfgen_queens.solvers.heap import free_bytes, hold_free_blocks, release
    from cnfgen_queens.solvers.process import held_size, virtual_size

    big = bytearray(30 * MB)
    del big
    blocks = [bytearray(3 * MB) for _ in range(40)]
    pin = bytearray(MB)
    del blocks[::2]  # twenty holes of 3 MB between live blocks
    before, free = held_size(), free_bytes()
    held = hold_free_blocks()
    try:  # the twenty holes at least (a test worker's heap holds many small ones too, below the floor)
        assert free - free_bytes() >= 60 * MB and len(held) >= 20, (free, free_bytes(), len(held))
        assert virtual_size() - before < MB, (virtual_size() - before) / MB
    finally:
        release(held)
        del blocks, pin
