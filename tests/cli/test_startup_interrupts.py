"""Ctrl-C during the console scripts' start-up (issue 11 leftover): quiet from the package's first statement.

A SIGINT is raised at fixed moments of start-up: when each module of the import chain is looked
for, from the package itself to the subcommand's module.  From the package's first statement on,
the answer is one line and exit 130; before it (Python's own start-up, the wrapper's imports,
the search for the package) no code of ours runs, which the first case shows.  The same limit
covers the package's own statements before the one that sets the SIGINT handler (Python runs a
pending handler at a module's first instruction): a traceback may point there, nowhere else of ours.
"""

from __future__ import annotations

import ast
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import default_signals

import cnfgen_queens

BIN = Path(sys.executable).parent
COMMANDS = {"gen-queens 4": ("gen-queens", "gen_entry"), "cnfgen-queens --version": ("cnfgen-queens", "entry")}
# modules looked for during start-up, in order (cnfgen_queens.cli.gen only for gen-queens)
MOMENTS = ("cnfgen_queens.cli", "argparse", "cnfgen_queens.errors", "cnfgen_queens.cli.common", "shlex")

HARNESS = """
import os, sys
sys.argv = [os.path.join({bin!r}, {script!r}), *{args!r}]
class Interrupt:  # a Ctrl-C at the moment {moment!r} is looked for
    def find_spec(self, name, path=None, target=None):
        if name == {moment!r}:
            os.kill(os.getpid(), 2)
            for _ in range(100): pass  # Python runs the handler at the next bytecode
        return None
sys.meta_path.insert(0, Interrupt())
from cnfgen_queens.cli import {entry}
{entry}()
"""


PACKAGE = Path(cnfgen_queens.__file__)
OUR_FRAME = re.compile(r'^\s*File "(?P<file>[^"]*/cnfgen_queens/[^"]*)", line (?P<line>\d+), in (?P<name>\S+)', re.M)


def handler_line(source: str) -> int:
    """The line of the package's ``_signal.signal(..., quiet_exit)``: the last that a SIGINT can land on
    before its handler is set (``signal.signal`` runs a pending handler first)."""
    calls = [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and ast.unparse(node.func) == "_signal.signal"
        and [ast.unparse(a) for a in node.args][1:] == ["quiet_exit"]
    ]
    assert len(calls) == 1, calls
    return calls[0]


LIMIT = handler_line(PACKAGE.read_text())


def frames_of_ours(err: str, limit: int = LIMIT) -> list[str]:
    """The frames of cnfgen_queens in ``err`` beyond the limit: any but the package's own first
    statements (its module code at lines up to ``limit``)."""
    return [
        m.group(0).strip()
        for m in OUR_FRAME.finditer(err)
        if not (
            m["file"].endswith("/cnfgen_queens/__init__.py") and m["name"] == "<module>" and int(m["line"]) <= limit
        )
    ]


def _interrupted_at(command: str, moment: str) -> subprocess.CompletedProcess[str]:
    script, entry = COMMANDS[command]
    code = HARNESS.format(bin=str(BIN), script=script, args=command.split()[1:], moment=moment, entry=entry)
    # cwd: not the source tree, whose package a "-c" script would import before the installed one
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=BIN, preexec_fn=default_signals
    )


@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_ctrl_c_at_each_moment_of_start_up_is_quiet(command: str, moment: str) -> None:
    proc = _interrupted_at(command, moment)
    assert "Traceback" not in proc.stderr, proc.stderr
    name = command.split()[0]
    if proc.returncode != 0:  # 0: the moment did not come (a module already loaded); the command ran
        assert (proc.returncode, proc.stderr) == (130, f"{name}: interrupted\n")


def test_some_moments_do_come() -> None:
    """The harness does interrupt: at least the first moment comes for both commands."""
    for command in COMMANDS:
        assert _interrupted_at(command, MOMENTS[0]).returncode == 130


def test_before_the_package_nothing_of_ours_runs() -> None:
    """The limit: a Ctrl-C while Python looks for the package itself gets Python's traceback."""
    proc = _interrupted_at("gen-queens 4", "cnfgen_queens")
    assert proc.returncode == -signal.SIGINT and "Traceback" in proc.stderr and "KeyboardInterrupt" in proc.stderr


def test_real_sigint_during_start_up_never_shows_our_frames() -> None:
    """Real processes, SIGINT after 0..40 ms: any traceback comes from before the package's handler is set
    (no frame of ours but the package's first statements; the planted cases below show what fails)."""
    for command in COMMANDS:
        script, _ = COMMANDS[command]
        for ms in range(0, 41, 5):
            proc = subprocess.Popen(
                [str(BIN / script), *command.split()[1:]],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                preexec_fn=default_signals,
            )
            time.sleep(ms / 1000)
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=120)
            assert not frames_of_ours(err), (command, ms, err)
            # 1: Python's "Fatal Python error: init_import_site" when the signal lands in its own start-up
            assert proc.returncode in (0, 1, 130, -signal.SIGINT), (command, ms, proc.returncode, err)


# a SIGINT planted at one line of the package's module code (a line-trace hook sends it there)
PLANTED = """
import os, sys
sys.argv = [{argv0!r}, "4"]
def trace(frame, event, arg):
    if frame.f_code.co_filename == {package!r} and frame.f_code.co_name == "<module>":
        if event == "line" and frame.f_lineno == {line}:
            sys.settrace(None)
            os.kill(os.getpid(), 2)
        return trace
    return None
sys.settrace(trace)
import cnfgen_queens
"""


def _planted(line: int, argv0: str) -> str:
    code = PLANTED.format(argv0=argv0, package=str(PACKAGE), line=line)
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=BIN, preexec_fn=default_signals
    )
    assert proc.returncode == -signal.SIGINT and proc.stderr.rstrip().endswith("KeyboardInterrupt"), proc.stderr
    return proc.stderr


def test_the_limit_is_exact_on_planted_interrupts() -> None:
    """Real tracebacks, SIGINT planted by line: at the package's first statement and at the handler's own
    line it is the limit; at the next statement (reached only as a library import, which sets no
    handler) it is a frame of ours, and so is any other file of ours or a function of __init__."""
    body = ast.parse(PACKAGE.read_text()).body
    first = body[1].lineno  # after the docstring
    after = next(node.lineno for node in body if node.lineno > LIMIT)  # the statement after the handler's
    script = str(BIN / "gen-queens")
    for line in (first, LIMIT):
        err = _planted(line, script)
        assert f'{PACKAGE}", line {line}, in <module>' in err and frames_of_ours(err) == [], err
    later = _planted(after, "python")
    assert OUR_FRAME.search(later) and frames_of_ours(later), later
    assert frames_of_ours(later, limit=after) == []
    elsewhere = '  File "/x/cnfgen_queens/cli/__init__.py", line 3, in <module>\n'
    handler = '  File "/x/cnfgen_queens/__init__.py", line 31, in quiet_exit\n'
    assert frames_of_ours(elsewhere) and frames_of_ours(handler)


# a SIGINT planted at one line of the console entry point (cli._console, or cli._quiet that it calls)
PLANTED_IN_ENTRY = """
import os, sys
sys.argv = [{argv0!r}, "4"]
from cnfgen_queens import cli
target = getattr(cli, {function!r}).__code__
def trace(frame, event, arg):
    if frame.f_code is target:
        if event == "line" and frame.f_lineno == {line}:
            sys.settrace(None)
            os.kill(os.getpid(), 2)
        return trace
    return trace if event == "call" else None
sys.settrace(trace)
cli.gen_entry()
"""


@pytest.mark.parametrize("function", ["_console", "_quiet"])
def test_ctrl_c_at_any_line_of_the_entry_point_is_one_line(function: str) -> None:
    """The whole entry point is inside its ``try``: a Ctrl-C landing at any of its lines (after the command
    has run too, while the quiet handlers are set back) is one line and exit 130, never a traceback."""
    import dis

    from cnfgen_queens import cli

    code = getattr(cli, function).__code__
    lines = sorted({line for _, line in dis.findlinestarts(code) if line and line > code.co_firstlineno})
    came = 0
    for line in lines:
        script = PLANTED_IN_ENTRY.format(argv0=str(BIN / "gen-queens"), function=function, line=line)
        proc = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=BIN,
            preexec_fn=default_signals,
        )
        assert "Traceback" not in proc.stderr, (line, proc.stderr)
        assert (proc.returncode, proc.stderr) in ((0, ""), (130, "gen-queens: interrupted\n")), (line, proc.stderr)
        came += proc.returncode == 130
    assert came >= len(lines) // 2, (came, lines)  # the except branch's lines are not reached without a signal
