"""What the tests share: real solver binaries and tools (skip where absent, fail under CI), the CLI entry."""

from __future__ import annotations

import os
import resource
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

import pytest

from cnfgen_queens.experiments.store import MEASURED, Row, Store
from cnfgen_queens.solvers.outcome import Status

IN_CI = bool(os.environ.get("CI"))
ROOT = Path(__file__).resolve().parent.parent
PLUGIN_EXAMPLE = ROOT / "examples" / "queens-plugin-example" / "queens_plugin_example.py"


def find_binary(name: str) -> str | None:
    """A solver binary on PATH, or kissat inside the passagemath-kissat wheel (the runner's own discovery)."""
    from cnfgen_queens.solvers.discovery import find_binary as discover

    return discover(name)


# python -c: the CLI in a process of its own (a crash is a signal, not an exception; no pytest faulthandler).
# It sets the signal handlers the tests rely on, whatever the caller ignores (nohup, a script's background job).
CLI_ENTRY = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "[signal.signal(s, signal.SIG_DFL) for s in (signal.SIGTERM, signal.SIGHUP)]; "
    "from cnfgen_queens.cli import main; sys.exit(main(sys.argv[1:]))"
)


def default_signals() -> None:
    """``preexec_fn`` for a process a test will signal: SIGINT, SIGTERM and SIGHUP to their default
    action and unblocked before the exec (both survive it), so a caller that ignores them (``nohup``, a
    background job) or blocks them (some CI runners) changes nothing."""
    import signal

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})


def marked_processes(marker: str) -> list[int]:
    """Pids of the living processes whose command line holds ``marker``.  A process may end between the
    listing of /proc and the reading of its file (ENOENT or ESRCH): that one is skipped, not an error."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if marker.encode() in f.read():
                        found.append(int(entry))
            except OSError:
                continue
    return found


def timed_console(argv: list[str], cwd: Path, stdin: int | None = None) -> tuple[int, float, str, str]:
    """(exit code, wall seconds from the start to the exit, stdout, stderr) of the console script
    ``cnfgen-queens ARGV`` beside this Python: start-up included, as a user's clock counts it."""
    import subprocess
    import sys
    import time

    start = time.monotonic()
    command = [str(Path(sys.executable).parent / "cnfgen-queens"), *argv]
    proc = subprocess.run(command, cwd=cwd, stdin=stdin, capture_output=True, timeout=120, preexec_fn=default_signals)
    return proc.returncode, time.monotonic() - start, proc.stdout.decode(), proc.stderr.decode()


def pigeonhole(path: Path, holes: int) -> Path:
    """Write the pigeonhole formula PHP(holes + 1, holes) to ``path``: unsatisfiable, exponential for
    resolution (Haken 1985), so minutes of work for a CDCL solver from about 11 holes."""
    pigeons = holes + 1
    var = lambda p, h: p * holes + h + 1
    clauses = [[var(p, h) for h in range(holes)] for p in range(pigeons)]
    clauses += [[-var(p, h), -var(q, h)] for h in range(holes) for p in range(pigeons) for q in range(p + 1, pigeons)]
    body = "".join(" ".join(map(str, c)) + " 0\n" for c in clauses)
    path.write_text(f"p cnf {pigeons * holes} {len(clauses)}\n{body}")
    return path


def need_solver(name: str) -> str:
    """Path of a real solver; skip with a reason when absent, but fail under CI (CI has them all)."""
    path = find_binary(name)
    if path is None:
        msg = f"solver {name!r} not installed (scripts/install-solvers.sh installs it)"
        if IN_CI:
            pytest.fail(msg + "; CI must have every solver")
        pytest.skip(msg)
    return path


def need_tool(reason: str) -> None:
    """Skip for a missing tool with ``reason``, but fail under CI (CI installs every tool)."""
    if IN_CI:
        pytest.fail(reason + "; CI must have it")
    pytest.skip(reason)


def need_module(name: str) -> None:
    """Skip when a Python package of the test extra is missing, but fail under CI."""
    import importlib.util

    try:
        found = importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        found = False
    if not found:
        need_tool(f"python package {name!r} not installed (pip install -e '.[test]')")


def in_process(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``cnfgen-queens ARGV`` run in this process: (exit status, stdout, stderr)."""
    from cnfgen_queens.cli import main

    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def gen_in_process(argv: list[str], capfdbinary: pytest.CaptureFixture[bytes]) -> tuple[int, bytes, str]:
    """``gen-queens ARGV`` run in this process: (exit status, the bytes on stdout, stderr), both read at the file
    descriptors, so that the DIMACS bytes are compared as written."""
    from cnfgen_queens.cli import gen_main

    capfdbinary.readouterr()
    code = gen_main(argv)
    out, err = capfdbinary.readouterr()
    return code, out, err.decode()


def exit_status(proc: subprocess.Popen[Any], timeout: float = 300) -> int | None:
    """``proc.wait(timeout)``; past it, an AssertionError that says what the process was doing (its state,
    what it waits in, its signal masks: pending, blocked, ignored, caught), so that a hang seen once on a
    busy machine can be understood from the log.  The timeout is a hang guard, not a speed check."""
    import subprocess

    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        facts = []
        for name in ("status", "wchan"):
            try:
                text = Path(f"/proc/{proc.pid}/{name}").read_text()
            except OSError as e:
                text = str(e)
            if name == "status":
                keep = ("State", "SigQ", "SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt", "Threads")
                text = " ".join(line.replace("\t", " ") for line in text.splitlines() if line.startswith(keep))
            facts.append(f"{name}: {text}")
        raise AssertionError(f"pid {proc.pid} still running after {timeout} s: {'; '.join(facts)}") from None


def option_help(parser: argparse.ArgumentParser, option: str) -> str:
    """What ``parser``'s help says of ``option`` (``"--output"``), on one line: its own text, whatever layout
    the Python version gives argparse's help (3.13 prints ``-o, --output FILE`` where 3.11 printed
    ``-o FILE, --output FILE``)."""
    found = [action for action in parser._actions if option in action.option_strings]
    assert len(found) == 1, f"{option} is not one option of {parser.prog}"
    return " ".join(parser._get_formatter()._expand_help(found[0]).split())


def one_line(err: str, *words: str) -> str:
    """The error on stderr, checked to be one line (a sentence and its newline, nothing else: no traceback,
    no catch-all asking for CNFGEN_QUEENS_DEBUG, no MemoryError) naming each of ``words``; that line."""
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "Traceback" not in err and "CNFGEN_QUEENS_DEBUG" not in err and "MemoryError" not in err, err
    assert all(w in err for w in words), err
    return err[:-1]


def is_solution(line: str, n: int) -> bool:
    """Whether ``line`` (1-based columns, the queen of each row: decode's output, a line of a solutions file)
    places ``n`` queens no two of which attack, checked here, not with the package's board code."""
    cols = [int(t) for t in line.split()]
    distinct_columns = sorted(cols) == list(range(1, n + 1))
    return distinct_columns and all(abs(cols[i] - cols[j]) != j - i for i in range(n) for j in range(i + 1, n))


def board_line(model: Iterable[int], n: int) -> str:
    """The board that the true cell variables x(r, c) = r*n + c + 1 of ``model`` place, as :func:`is_solution`
    reads it (the column of each row's queen); "" unless each row holds one queen."""
    cells = sorted(divmod(v - 1, n) for v in model if 0 < v <= n * n)
    if [r for r, _ in cells] != list(range(n)):
        return ""
    return " ".join(str(c + 1) for _, c in cells)


# -- the CLI in a process of its own under an address-space limit and a timeout: a runaway allocation is a
# one-line error or a refusal, never the kernel's kill; the process is gone when the call returns

GEN_ENTRY = "import sys; from cnfgen_queens.cli import gen_main; sys.exit(gen_main(sys.argv[1:]))"
MEMORY_MB = 1536  # RLIMIT_AS of the child: numpy and networkx need about 0.6 GB of address space to start


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str
    wall: float  # seconds from the start to the exit, start-up included

    @property
    def lines(self) -> list[str]:
        """The non-empty lines on stderr."""
        return [line for line in self.err.splitlines() if line.strip()]

    def one_line(self, code: int, *words: str) -> str:
        """Exit ``code`` and :func:`one_line`'s error on stderr, naming each of ``words``; that line."""
        assert self.code == code, self
        return one_line(self.err, *words)


def run_cli(
    argv: list[str],
    cwd: Path,
    *,
    gen: bool = False,
    memory_mb: int = MEMORY_MB,
    timeout: float = 60,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
    entry: str | None = None,
) -> Ran:
    """``cnfgen-queens ARGV`` (``gen-queens`` with ``gen``) under RLIMIT_AS and a timeout, SIGINT as default;
    ``env``: variables set (or replaced) in the child's environment, a PYTHONPATH of it after this checkout's;
    ``entry``: the child's ``-c`` code instead of the console script's."""
    limit = memory_mb << 20

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        os.setsid()  # its own group: killed whole on timeout

    extra = (env or {}).get("PYTHONPATH")
    env = {**os.environ, **(env or {}), "PYTHONPATH": str(ROOT) + (os.pathsep + extra if extra else "")}
    env.pop("CNFGEN_QUEENS_DEBUG", None)
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-c", entry or (GEN_ENTRY if gen else CLI_ENTRY), *argv],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=limits,
    )
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        raise AssertionError(f"{argv} still running after {timeout} s") from None
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 9)
            proc.wait()
    return Ran(proc.returncode, out.decode(errors="replace"), err.decode(errors="replace"), time.monotonic() - start)


# -- processes: what runs below a process ------------------------------------------------------------------


def _proc_stats() -> Iterator[tuple[int, list[bytes]]]:
    """(pid, the fields of /proc/PID/stat after the command name: state, ppid, pgrp, session, ...) of every
    process now."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_bytes()
        except OSError:
            continue
        yield int(stat.parent.name), text[text.rfind(b")") + 2 :].split()


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (from /proc: children of any thread, then theirs)."""
    parents: dict[int, list[int]] = {}
    for child, fields in _proc_stats():
        if fields[0] != b"Z":
            parents.setdefault(int(fields[1]), []).append(child)
    out, todo = [], [pid]
    while todo:
        kids = parents.get(todo.pop(), [])
        out += kids
        todo += kids
    return out


def living_in_group(group: int) -> list[int]:
    """The processes of process group ``group`` that have not exited (a zombie has: it waits for its parent, or
    for init once its parent is gone, to be reaped)."""
    return [pid for pid, fields in _proc_stats() if int(fields[2]) == group and fields[0] not in (b"Z", b"X")]


def living_in_session(session: int) -> list[int]:
    """The processes of session ``session`` that have not exited."""
    return [pid for pid, fields in _proc_stats() if int(fields[3]) == session and fields[0] not in (b"Z", b"X")]


def alive(pids: list[int]) -> list[int]:
    left = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if state != b"Z":
            left.append(pid)
    return left


def all_gone(pids: list[int], timeout: float = 60) -> list[int]:
    end = time.monotonic() + timeout
    while alive(pids) and time.monotonic() < end:
        time.sleep(0.1)
    return alive(pids)


# -- results stores: the rows a batch stored, and a hand-made store ---------------------------------------------


def stored(path: Path) -> list[Row]:
    with Store(path, readonly=True) as store:
        return store.rows()


def write_store(path: Path, rows: list[Row]) -> Path:
    """A results store at ``path`` holding ``rows``."""
    with Store(path) as store:
        for r in rows:
            store.add(r)
    return path


def comparable(rows: list[Row]) -> list[tuple[object, ...]]:
    """A row without what differs between two runs of the same thing (times, host)."""
    return [tuple(v for k, v in r.as_dict().items() if k not in MEASURED) for r in rows]


def row(
    key: str,
    solver: str,
    encoding: str,
    n: int,
    status: str,
    wall: float | None,
    *,
    verified: bool = True,
    limit: float | None = 10.0,
    task: str = "solve",
    count: int | None = None,
) -> Row:
    return Row(
        run_key=key,
        config_hash="cfg",
        experiment="hand",
        task=task,
        n=n,
        encoding=encoding,
        group_size=None,
        column_alo=False,
        shuffle_seed=None,
        repeat=0,
        variables=n * n,
        clauses=10 * n,
        solver=solver,
        solver_args="[]",
        solver_version="1.0",
        time_limit=limit,
        memory_limit=None,
        status=Status(status),
        wall=wall,
        cpu=wall,
        peak_memory_mb=1.0,
        count=count,
        fundamental=None,
        verified=verified if status == "SAT" else None,
        host="h",
        started="t0",
        finished="t1",
        error=None,
    )


HAND = [
    # kissat / pairwise: solved in 1 s and 3 s, one timeout (limit 10 s)
    row("a1", "kissat", "pairwise", 4, "SAT", 1.0),
    row("a2", "kissat", "pairwise", 5, "SAT", 3.0),
    row("a3", "kissat", "pairwise", 6, "TIMEOUT", 10.2),
    # kissat / sequential: n=3 UNSAT is right (0.5 s), n=8 SAT (2 s), n=9 SAT (4 s), n=10 SAT (7 s)
    row("b1", "kissat", "sequential", 3, "UNSAT", 0.5),
    row("b2", "kissat", "sequential", 8, "SAT", 2.0),
    row("b3", "kissat", "sequential", 9, "SAT", 4.0),
    row("b4", "kissat", "sequential", 10, "SAT", 7.0),
    # minisat / pairwise: UNSAT for n=5 is wrong, an unverified model, a memory-out, an error
    row("c1", "minisat", "pairwise", 5, "UNSAT", 0.1),
    row("c2", "minisat", "pairwise", 6, "SAT", 0.2, verified=False),
    row("c3", "minisat", "pairwise", 7, "MEMOUT", 1.0),
    row("c4", "minisat", "pairwise", 8, "ERROR", None),
]


# -- a batch with the example plugin (docs/plugins.md) --------------------------------------------------------


def plugin_grid(tmp_path: Path, executor: str, task: str = "count") -> Path:
    sub = tmp_path / "grid"
    sub.mkdir(exist_ok=True)
    (sub / "twolevel.py").write_bytes(PLUGIN_EXAMPLE.read_bytes())
    cfg = sub / f"{executor}.yaml"
    cfg.write_text(
        "plugins: [twolevel.py]\n"  # relative to the config's directory, not to the working one
        "instances: {n: [6, 8], encodings: [twolevel, commander]}\n"
        f"solvers: [pysat:minisat22]\ntask: {task}\nlimits: {{time: 60}}\n"
        f"results: {tmp_path / executor / 'r.sqlite'}\nexecutor: {executor}\n"
    )
    return cfg


def stored_counts(db: Path) -> dict[tuple[str, int], int]:
    with sqlite3.connect(db) as con:
        return {(e, n): c for e, n, c in con.execute("SELECT encoding, n, count FROM runs")}


PLUGIN_GRID_COUNTS = {
    ("twolevel", 6): 4,
    ("twolevel", 8): 92,
    ("commander", 6): 4,
    ("commander", 8): 92,
}  # OEIS A000170


def batch_config(tmp_path: Path, name: str, *, n: str, encodings: str, solvers: str, time_limit: int = 30) -> Path:
    """A batch config ``name``.yaml in ``tmp_path``: the grid given, its results in ``tmp_path/name``."""
    path = tmp_path / f"{name}.yaml"
    path.write_text(
        f"experiment: {name}\n"
        f"instances:\n  n: {n}\n  encodings: {encodings}\n"
        f"solvers: {solvers}\n"
        f"limits: {{time: {time_limit}, memory: 2048}}\n"
        f"results: {tmp_path / name / 'results.sqlite'}\n"
    )
    return path


def kill_test_config(tmp_path: Path) -> Path:
    """The grid of the tests that stop a batch midway (18 runs)."""
    need_solver("minisat")
    # small boards first, then one that takes seconds, so the signal always lands mid-batch
    n = "[4, 5, 6, 7, 8, 9, 10, 11, 90]"
    # every run must end SAT: a limit ten times what N = 90 takes quiet and more (at a load of 38 one ran past 30 s)
    solvers = "[minisat, pysat:cadical195]"
    return batch_config(tmp_path, "kill", n=n, encodings="[pairwise]", solvers=solvers, time_limit=300)
