"""What the tests share: real solver binaries and tools (skip where absent, fail under CI), the CLI entry."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse
    import subprocess

import pytest

IN_CI = bool(os.environ.get("CI"))
ROOT = Path(__file__).resolve().parent.parent


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


def descendants(pid: int) -> set[int]:
    """Pids of the living descendants of ``pid`` (its children, theirs, ...), from /proc (zombies left out)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if fields[0] not in (b"Z", b"X"):
                parents[int(entry)] = int(fields[1])
    found: set[int] = set()
    new = {pid}
    while new:
        new = {child for child, parent in parents.items() if parent in new} - found
        found |= new
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
