"""Ctrl-C during the console scripts' start-up (issue 11 leftover): quiet from the package's first statement.

A SIGINT is raised at fixed moments of start-up: when each module of the import chain is looked
for, from the package itself to the subcommand's module.  From the package's first statement on,
the answer is one line and exit 130; before it (Python's own start-up, the wrapper's imports,
the search for the package) no code of ours runs, which the first case shows.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import default_signals

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


def _interrupted_at(command: str, moment: str) -> subprocess.CompletedProcess[str]:
    script, entry = COMMANDS[command]
    code = HARNESS.format(bin=str(BIN), script=script, args=command.split()[1:], moment=moment, entry=entry)
    # cwd: not the source tree, whose package a "-c" script would import before the installed one
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=BIN,
                          preexec_fn=default_signals)  # fmt: skip


@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_ctrl_c_at_each_moment_of_start_up_is_quiet(command: str, moment: str) -> None:
    proc = _interrupted_at(command, moment)
    assert "Traceback" not in proc.stderr, proc.stderr
    name = command.split()[0]
    if proc.returncode != 0:  # 0: the moment did not come (a module already loaded); the command ran
        # one line, or nothing where the interrupt lands between the handlers (cli._exit)
        assert proc.returncode == 130 and proc.stderr in (f"{name}: interrupted\n", ""), proc.stderr


def test_some_moments_do_come() -> None:
    """The harness does interrupt: at least the first moment comes for both commands."""
    for command in COMMANDS:
        assert _interrupted_at(command, MOMENTS[0]).returncode == 130


def test_before_the_package_nothing_of_ours_runs() -> None:
    """The limit: a Ctrl-C while Python looks for the package itself gets Python's traceback."""
    proc = _interrupted_at("gen-queens 4", "cnfgen_queens")
    assert proc.returncode == -signal.SIGINT and "Traceback" in proc.stderr and "KeyboardInterrupt" in proc.stderr


def test_real_sigint_during_start_up_never_shows_our_frames() -> None:
    """Real processes, SIGINT after 0..40 ms: any traceback comes from before the package (no frame of ours)."""
    for command in COMMANDS:
        script, _ = COMMANDS[command]
        for ms in range(0, 41, 5):
            proc = subprocess.Popen([str(BIN / script), *command.split()[1:]], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, text=True, preexec_fn=default_signals)  # fmt: skip
            time.sleep(ms / 1000)
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=120)
            ours = [
                line for line in err.splitlines() if line.lstrip().startswith("File ") and "/cnfgen_queens/" in line
            ]
            assert not ours, (command, ms, err)
            # 1: Python's "Fatal Python error: init_import_site" when the signal lands in its own start-up
            assert proc.returncode in (0, 1, 130, -signal.SIGINT), (command, ms, proc.returncode, err)
