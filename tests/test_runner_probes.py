"""Everything the runner starts is under the runner: a version probe of a profile's binary runs in its own
process group and is swept when it ends, like the solve itself (issue 24: wrappers left orphans)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from bounded_cli import run_cli
from helpers import CLI_ENTRY, need_solver

from cnfgen_queens.cli import gen_main

GENEROUS = 60.0  # seconds: ten times and more what each run below takes on a quiet machine (1 to 3 s)
# the CLI with the version probe's own timeout at ten minutes: a run that waited for the probe instead of
# its time limit would run into run_cli's timeout, whatever the machine's load (issue 31)
LONG_PROBE_ENTRY = "import cnfgen_queens.solvers.discovery as d; d.VERSION_TIMEOUT = 600.0\n" + CLI_ENTRY


def _with_marker(marker: str) -> list[int]:
    """Processes whose command line holds ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(entry))
    return found


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
        ran = run_cli(["solve", "a.cnf", "--solver", "w", "--solvers-file", "solvers.yaml", "--time-limit", "2"],
                      tmp_path, timeout=2 * GENEROUS)  # fmt: skip
        wall = time.monotonic() - start
        assert ran.code == 10, ran
        assert "c solver w 1.2.3" in ran.out and "model verified" in ran.out
        assert wall < GENEROUS
        assert _with_marker(f"sleep\0{marker}") == []
    finally:
        for pid in _with_marker(f"sleep\0{marker}"):
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
        ran = run_cli(["solve", "a.cnf", "--solver", "cadical", "--time-limit", "1"], tmp_path, timeout=2 * GENEROUS,
                      env=env, entry=LONG_PROBE_ENTRY)  # fmt: skip
        wall = time.monotonic() - start
        assert ran.code == 0, ran
        assert "c status TIMEOUT" in ran.out and "s UNKNOWN" in ran.out, ran.out
        assert wall < GENEROUS, wall  # 1 s, its grace and the start-up; before: over the probe's 600 s
        assert _with_marker(f"sleep\0{marker}") == []
    finally:
        for pid in _with_marker(f"sleep\0{marker}"):
            os.kill(pid, signal.SIGKILL)


def test_a_quick_probe_leaves_the_solver_the_rest(tmp_path: Path) -> None:
    env = _slow_cadical(tmp_path, "0.3")
    ran = run_cli(["solve", "a.cnf", "--solver", "cadical", "--time-limit", "5"], tmp_path, timeout=60, env=env)
    assert ran.code == 10, ran
    assert "c solver cadical 9.9.9" in ran.out and "model verified" in ran.out
