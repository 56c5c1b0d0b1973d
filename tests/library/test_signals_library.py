"""One Terminated for the CLI and the library (errors.signals_raise, errors.signals_unwind).

Real processes, real signals, each bounded and checked gone: a SIGTERM or SIGHUP during an atomic
write is the CLI's Terminated in a command (one line, exit 128 + the signal), and in a library
process with the default handlers it removes the temporary file and exits 128 + the signal with no
traceback; an ignored signal stays ignored; a forked child dies by the default action, leaving its
parent's file alone.  In-process: nesting puts back exactly the handlers it found, also when a
signal lands while they are set or put back (planted with a profile hook at that very call).
"""

from __future__ import annotations

import _signal
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import CLI_ENTRY, default_signals, exit_status

from cnfgen_queens.errors import Terminated, raise_terminated, restore_handlers, signals_raise, signals_unwind
from cnfgen_queens.experiments.batch import _signals_held

TERMINATING = (signal.SIGTERM, signal.SIGHUP)

# a library program: an atomic write that waits (for a line on stdin) with the temporary file open
WRITER = """
import os, signal, sys
from pathlib import Path
from cnfgen_queens.cnf.atomic import atomic_output
{setup}
with atomic_output(Path("out.bin")) as f:
    f.write(b"partial")
    print("writing", flush=True)
    sys.stdin.readline()
print("done", signal.getsignal(signal.SIGHUP) == signal.SIG_IGN, flush=True)
"""


def _start(argv: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(argv, cwd=cwd, text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=default_signals)  # fmt: skip


def _writer(tmp_path: Path, setup: str = "") -> subprocess.Popen[str]:
    proc = _start([sys.executable, "-c", WRITER.format(setup=setup)], tmp_path)
    assert proc.stdout is not None and proc.stdout.readline() == "writing\n", proc.communicate(timeout=60)
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # the write is under way
    return proc


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[str]]]:
    """The processes a test starts; killed and reaped when it ends, whatever happened."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)


@pytest.mark.parametrize("sig", TERMINATING)
def test_a_library_process_ends_with_128_plus_the_signal_and_no_temporary_file(
    tmp_path: Path, sig: int, processes: list[subprocess.Popen[str]]
) -> None:
    """Default handlers: the write unwinds (temporary removed), then the process exits as the signal's
    default would have, 128 + the signal, with nothing on stderr (not a KeyboardInterrupt traceback)."""
    proc = _writer(tmp_path)
    processes.append(proc)
    proc.send_signal(sig)
    assert exit_status(proc) == 128 + sig
    out, err = proc.communicate(timeout=60)
    assert (out, err) == ("", "")
    assert sorted(tmp_path.iterdir()) == []


CALLER = """
import sys
from pathlib import Path
from cnfgen_queens.cnf.atomic import atomic_output
try:
    with atomic_output(Path("out.bin")) as f:
        print("writing", flush=True)
        sys.stdin.readline()
except Exception:
    print("swallowed")
except SystemExit as e:
    print("exit", e.code, flush=True)
    raise
"""


def test_a_library_caller_sees_the_exit_status_it_would_have_had(
    tmp_path: Path, processes: list[subprocess.Popen[str]]
) -> None:
    """What leaves the write is ``SystemExit(143)``: a caller's ``except Exception`` does not swallow it."""
    proc = _start([sys.executable, "-c", CALLER], tmp_path)
    processes.append(proc)
    assert proc.stdout is not None and proc.stdout.readline() == "writing\n", proc.communicate(timeout=60)
    proc.send_signal(signal.SIGTERM)
    assert exit_status(proc) == 143
    assert proc.communicate(timeout=60) == ("exit 143\n", "")
    assert sorted(tmp_path.iterdir()) == []


def test_an_ignored_signal_stays_ignored_during_a_library_write(
    tmp_path: Path, processes: list[subprocess.Popen[str]]
) -> None:
    proc = _writer(tmp_path, setup="signal.signal(signal.SIGHUP, signal.SIG_IGN)")
    processes.append(proc)
    proc.send_signal(signal.SIGHUP)
    time.sleep(0.2)  # time for a handler, if one ran, to end the process
    out, err = proc.communicate("go\n", timeout=60)
    assert (proc.returncode, out, err) == (0, "done True\n", "")
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"] and (tmp_path / "out.bin").read_bytes() == b"partial"


def test_a_handler_the_caller_set_runs_and_the_write_completes(
    tmp_path: Path, processes: list[subprocess.Popen[str]]
) -> None:
    """A library caller's own SIGTERM handler is not replaced during the write: it runs (here it notes the
    signal and carries on), and the write completes as the caller chose."""
    setup = "signal.signal(signal.SIGTERM, lambda s, f: print('noted', flush=True))"
    proc = _writer(tmp_path, setup=setup)
    processes.append(proc)
    assert proc.stdout is not None
    proc.send_signal(signal.SIGTERM)
    assert proc.stdout.readline() == "noted\n"
    out, err = proc.communicate("go\n", timeout=60)
    assert (proc.returncode, out, err) == (0, "done False\n", "")
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"] and (tmp_path / "out.bin").read_bytes() == b"partial"


FORKED = """
import os, signal, sys, time
from pathlib import Path
from cnfgen_queens.cnf.atomic import atomic_output
with atomic_output(Path("out.bin")) as f:
    f.write(b"partial")
    pid = os.fork()
    if pid == 0:  # inherits the write's handler; stopped until the test has sent it SIGTERM
        os.kill(os.getpid(), signal.SIGSTOP)
        time.sleep(60)
        os._exit(0)
    os.waitpid(pid, os.WUNTRACED)
    print(pid, flush=True)
    sys.stdin.readline()
    _, status = os.waitpid(pid, 0)
    killed = os.WIFSIGNALED(status) and signal.Signals(os.WTERMSIG(status)).name
    print(killed, any(p.name.endswith(".tmp") for p in Path().iterdir()), flush=True)
print("done", flush=True)
"""


def test_a_forked_child_dies_by_the_default_action_and_leaves_the_parents_file(
    tmp_path: Path, processes: list[subprocess.Popen[str]]
) -> None:
    proc = _start([sys.executable, "-c", FORKED], tmp_path)
    processes.append(proc)
    assert proc.stdout is not None
    child = int(proc.stdout.readline() or proc.communicate(timeout=60)[1])
    try:
        os.kill(child, signal.SIGTERM)
        os.kill(child, signal.SIGCONT)
        out, err = proc.communicate("go\n", timeout=60)  # the parent reaps the child
    finally:
        try:
            if b") Z" not in Path(f"/proc/{child}/stat").read_bytes():  # still there: the test failed
                os.kill(child, signal.SIGKILL)
        except OSError:
            pass
    assert (proc.returncode, out, err) == (0, "SIGTERM True\ndone\n", "")
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]


@pytest.mark.parametrize("sig", TERMINATING)
def test_inside_the_cli_a_signal_mid_write_is_the_commands_terminated(
    tmp_path: Path, sig: int, processes: list[subprocess.Popen[str]]
) -> None:
    """``gen -o``: the CLI's one line and exit 128 + the signal; no temporary file, no output file."""
    proc = subprocess.Popen([sys.executable, "-c", CLI_ENTRY, "gen", "400", "-e", "sequential", "-o", "q.cnf"],
                            cwd=tmp_path, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=default_signals)  # fmt: skip
    processes.append(proc)
    end = time.monotonic() + 120
    while not list(tmp_path.glob(".q.cnf.*.tmp")):
        assert proc.poll() is None and time.monotonic() < end, proc.communicate(timeout=60)
        time.sleep(0.02)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig and err == f"cnfgen-queens gen: terminated ({signal.Signals(sig).name})\n"
    assert sorted(tmp_path.iterdir()) == []


def _record(signum: int, frame: object) -> None:
    raise AssertionError(f"the test's own handler ran for {signum}")


@pytest.fixture
def own_handlers() -> Iterator[dict[int, Any]]:
    """SIGTERM to a handler of the test's, SIGHUP ignored, the signals unblocked (whatever pytest's caller
    set: a runner may block them); put back after."""
    saved = {sig: signal.getsignal(sig) for sig in TERMINATING}
    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, set(TERMINATING))
    signal.signal(signal.SIGTERM, _record)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        yield {signal.SIGTERM: _record, signal.SIGHUP: signal.SIG_IGN}
    finally:
        sys.setprofile(None)
        for sig, handler in saved.items():
            signal.signal(sig, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _handlers() -> dict[int, Any]:
    return {sig: signal.getsignal(sig) for sig in TERMINATING}


def test_nested_blocks_put_back_exactly_what_they_found(own_handlers: dict[int, Any]) -> None:
    """Under a signals_raise (the CLI) a signal in a library block is that Terminated, not a SystemExit;
    alone, the outermost library block turns it into ``SystemExit(128 + signal)``; a handler the caller set
    stays, in nested blocks too (a batch worker's, whose run went on when an inner block replaced it)."""
    inside = {signal.SIGTERM: raise_terminated, signal.SIGHUP: signal.SIG_IGN}
    with signals_raise():
        with signals_unwind():
            assert _handlers() == inside
            with signals_unwind(), pytest.raises(Terminated) as caught:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(5)
            assert caught.value.exit_code == 143 and _handlers() == inside
        assert _handlers() == inside
    assert _handlers() == own_handlers
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    with pytest.raises(SystemExit) as exited, signals_unwind(), signals_unwind():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
    assert exited.value.code == 143
    assert _handlers() == {**own_handlers, signal.SIGTERM: signal.SIG_DFL}
    came: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, frame: came.append(signum))
    with signals_unwind(), signals_unwind():
        os.kill(os.getpid(), signal.SIGTERM)
        end = time.monotonic() + 5
        while not came and time.monotonic() < end:
            time.sleep(0.01)
    assert came == [signal.SIGTERM]


def _land_at(call: int, sig: int) -> Callable[[Any, str, Any], None]:
    """A profile hook that sends ``sig`` to this process as the ``call``-th call of signal.signal begins (the
    Python function of signal.py, or _signal's, which cnfgen_queens.errors calls: both run a pending handler
    before they change one)."""
    seen = 0

    def hook(frame: Any, event: str, arg: Any) -> None:
        nonlocal seen
        if (event == "call" and frame.f_code is signal.signal.__code__) or (
            event == "c_call" and arg is _signal.signal
        ):
            seen += 1
            if seen == call:
                sys.setprofile(None)
                os.kill(os.getpid(), sig)

    return hook


@pytest.mark.parametrize("when", ["setting", "putting back"])
def test_a_signal_landing_while_the_handlers_change_puts_them_all_back(own_handlers: dict[int, Any], when: str) -> None:
    """Fails before the handlers were set and put back under the block's ``finally``: a SIGTERM landing
    as SIGHUP's handler was being set left SIGTERM's raising Terminated after the block (setting), and
    one landing as SIGTERM's was being put back left SIGHUP's (putting back)."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)  # both handled inside, so the second one is a real change
    before = _handlers()
    with pytest.raises(Terminated) as caught:
        if when == "setting":  # the first call sets SIGTERM's, the second SIGHUP's
            sys.setprofile(_land_at(2, signal.SIGTERM))
            with signals_raise():
                time.sleep(5)
        else:
            with signals_raise():
                sys.setprofile(_land_at(1, signal.SIGHUP))
    assert caught.value.signum == (signal.SIGTERM if when == "setting" else signal.SIGHUP)
    assert _handlers() == before


def test_the_batch_holding_its_signals_puts_every_handler_back(own_handlers: dict[int, Any]) -> None:
    """batch's ``_signals_held`` (signals ignored while workers stop): a SIGTERM landing as SIGTERM's own
    handler is being set to SIG_IGN (the second call; SIGINT's was set first) ends the block with SIGINT's
    handler put back (before: SIGINT stayed ignored for the rest of the process)."""
    saved_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, raise_terminated)
    try:
        with signals_raise(), pytest.raises(Terminated):
            sys.setprofile(_land_at(2, signal.SIGTERM))
            with _signals_held():
                time.sleep(5)
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        sys.setprofile(None)
        signal.signal(signal.SIGINT, saved_int)


def test_handlers_as_signal_s_enums_are_put_back(own_handlers: dict[int, Any]) -> None:
    """restore_handlers puts back what signal.py's getsignal gives (SIG_DFL and SIG_IGN as enums: batch's
    _signals_held) as well as _signal's ints (errors.py sets handlers through _signal, which takes ints only)."""
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    restore_handlers({signal.SIGTERM: signal.Handlers.SIG_IGN, signal.SIGHUP: signal.Handlers.SIG_DFL})
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)) == (signal.SIG_IGN, signal.SIG_DFL)
    restore_handlers({signal.SIGTERM: _signal.SIG_DFL, signal.SIGHUP: None})
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)) == (signal.SIG_DFL, signal.SIG_DFL)
