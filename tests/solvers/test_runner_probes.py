"""Everything the runner starts is under the runner: a version probe of a profile's binary runs in its own
process group and is swept when it ends, like the solve itself (issue 24: wrappers left orphans)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from helpers import CLI_ENTRY, marked_processes, need_solver, run_cli

from cnfgen_queens.cli import gen_main

GENEROUS = 60.0  # seconds: ten times and more what each run below takes on a quiet machine (1 to 3 s)
# the CLI with the version probe's own timeout at ten minutes: a run that waited for the probe instead of
# its time limit would run into run_cli's timeout, whatever the machine's load (issue 31)
LONG_PROBE_ENTRY = "import cnfgen_queens.solvers.discovery as d; d.VERSION_TIMEOUT = 600.0\n" + CLI_ENTRY


def test_a_version_probe_leaves_no_process(tmp_path: Path) -> None:
    minisat = need_solver("minisat")
    marker = f"{10_000 + os.getpid() % 50_000}"  # sleep's argument: unique to this test run
    wrapper = tmp_path / "w.sh"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = "--version" ]; then setsid sleep {marker} & sleep {marker} & echo "w 1.2.3"; exit 0; fi\n'
        f'exec {minisat} "$@"\n'
    )
    wrapper.chmod(0o755)
    profiles = tmp_path / "solvers.yaml"
    profiles.write_text(f'solvers:\n  w:\n    command: "{wrapper} {{args}} {{cnf}} {{model}}"\n    output: minisat\n')
    gen_main(["6", "-o", str(tmp_path / "a.cnf")])
    try:
        start = time.monotonic()
        ran = run_cli(
            ["solve", "a.cnf", "--solver", "w", "--solvers-file", "solvers.yaml", "--time-limit", "2"],
            tmp_path,
            timeout=2 * GENEROUS,
        )
        wall = time.monotonic() - start
        assert ran.code == 10, ran
        assert "c solver w 1.2.3" in ran.out and "model verified" in ran.out
        assert wall < GENEROUS
        assert marked_processes(f"sleep\0{marker}") == []
    finally:
        for pid in marked_processes(f"sleep\0{marker}"):
            os.kill(pid, signal.SIGKILL)


def _slow_cadical(folder: Path, delay: str) -> dict[str, str]:
    """A ``cadical`` first on PATH that waits ``delay`` before answering ``--version`` (then is the real one)."""
    cadical = need_solver("cadical")
    (folder / "bin").mkdir()
    wrapper = folder / "bin" / "cadical"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = "--version" ]; then sleep {delay}; echo "cadical 9.9.9"; exit 0; fi\n'
        f'exec {cadical} "$@"\n'
    )
    wrapper.chmod(0o755)
    gen_main(["8", "-o", str(folder / "a.cnf")])
    return {"PATH": f"{folder / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}


def test_the_time_limit_covers_the_version_probe(tmp_path: Path) -> None:
    """`solve --time-limit 1` with a binary slow to say its version: the probe gets what is left of the
    second, and a TIMEOUT is reported when nothing is left (it took 1 + VERSION_TIMEOUT s before)."""
    marker = f"{20_000 + os.getpid() % 50_000}"
    env = _slow_cadical(tmp_path, marker)
    try:
        start = time.monotonic()
        ran = run_cli(
            ["solve", "a.cnf", "--solver", "cadical", "--time-limit", "1"],
            tmp_path,
            timeout=2 * GENEROUS,
            env=env,
            entry=LONG_PROBE_ENTRY,
        )
        wall = time.monotonic() - start
        assert ran.code == 0, ran
        assert "c status TIMEOUT" in ran.out and "s UNKNOWN" in ran.out, ran.out
        assert wall < GENEROUS, wall  # 1 s, its grace and the start-up; before: over the probe's 600 s
        assert marked_processes(f"sleep\0{marker}") == []
    finally:
        for pid in marked_processes(f"sleep\0{marker}"):
            os.kill(pid, signal.SIGKILL)


def test_a_quick_probe_leaves_the_solver_the_rest(tmp_path: Path) -> None:
    env = _slow_cadical(tmp_path, "0.3")
    ran = run_cli(["solve", "a.cnf", "--solver", "cadical", "--time-limit", "5"], tmp_path, timeout=60, env=env)
    assert ran.code == 10, ran
    assert "c solver cadical 9.9.9" in ran.out and "model verified" in ran.out


def test_a_process_that_ends_while_proc_is_listed_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """The look for leftovers itself must not fail on a busy machine: a process listed in /proc may end
    before its command line is read (CI, stop 39: ProcessLookupError from a test's own look)."""
    marker = f"{10_000 + os.getpid() % 50_000}.5"
    proc = subprocess.Popen(["sleep", marker])
    try:
        for _ in range(1200):  # until exec has given it its command line
            if marked_processes(marker) == [proc.pid]:
                break
            time.sleep(0.05)
        assert marked_processes(marker) == [proc.pid]
        real = os.listdir

        def listdir_then_end(path: str) -> list[str]:
            entries = real(path)
            proc.kill()  # ends, and is reaped, between the listing and the read
            proc.wait()
            return entries

        monkeypatch.setattr(os, "listdir", listdir_then_end)
        assert marked_processes(marker) == []
    finally:
        proc.kill()
        proc.wait()
