"""The embedded solver's process of its own: small memory limits, what its time covers, the version it reports.

The CLI runs in a process of its own here: what the solver's process has loaded before its limit (numpy,
pysat) is what these tests are about, and this pytest process has imported everything already.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import ROOT, descendants, pigeonhole, run_cli

from cnfgen_queens.cli import gen_main
from cnfgen_queens.cnf.scan import CnfFile, read_cnf
from cnfgen_queens.limits import Limits
from cnfgen_queens.solvers.discovery import embedded_available, embedded_version
from cnfgen_queens.solvers.embedded import solve_embedded
from cnfgen_queens.solvers.outcome import Status
from cnfgen_queens.solvers.parse import says_out_of_memory

CLI_MEMORY_MB = 1536  # RLIMIT_AS of the CLI process itself (bounded_cli's default)


@pytest.fixture(scope="module")
def cnfs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    d = tmp_path_factory.mktemp("queens")
    paths = {}
    for n in (8, 60):
        paths[n] = d / f"q{n}.cnf"
        assert gen_main([str(n), "-o", str(paths[n])]) == 0
    return paths


@pytest.mark.parametrize("memory", [100, 30, 10])
def test_8_queens_solves_under_a_small_memory_limit(memory: int, cnfs: dict[int, Path], tmp_path: Path) -> None:
    # before: "OpenBLAS error: Memory allocation still failed" (100 MB) / "failed to map segment" (30 MB),
    # numpy loading in the child under RLIMIT_AS; ERROR up to 200 MB
    ran = run_cli(["solve", "-", "-m", str(memory)], tmp_path, stdin=cnfs[8].read_bytes(), memory_mb=CLI_MEMORY_MB)
    assert ran.code == 10, ran.out + ran.err
    assert "s SATISFIABLE" in ran.out and "c model verified" in ran.out


@pytest.mark.parametrize("memory", [2, 10])
def test_tiny_memory_limit_on_a_big_board_is_memout(memory: int, cnfs: dict[int, Path], tmp_path: Path) -> None:
    ran = run_cli(["solve", str(cnfs[60]), "-m", str(memory)], tmp_path, memory_mb=CLI_MEMORY_MB)
    assert ran.code == 0, ran.out + ran.err
    assert "c status MEMOUT" in ran.out and "s UNKNOWN" in ran.out, ran.out
    assert "Traceback" not in ran.err


def test_allocation_failures_read_as_out_of_memory() -> None:
    openblas = "OpenBLAS error: Memory allocation still failed after 10 retries, giving up."
    mapping = "Original error was: libscipy_openblas64_.so: failed to map segment from shared object"
    assert says_out_of_memory(openblas, limited=False) and says_out_of_memory(openblas, limited=True)
    assert says_out_of_memory(mapping, limited=True)
    assert not says_out_of_memory(mapping, limited=False)  # without a limit, a broken library is an error
    assert says_out_of_memory("MemoryError: Unable to allocate 327. KiB", limited=False)
    assert says_out_of_memory("terminate called after throwing an instance of 'std::bad_alloc'", limited=False)
    assert not says_out_of_memory("ValueError: bad literal", limited=True)


TIMES = """
import json, cnfgen_queens as cq
f = cq.queens(3)
runs = [cq.solve(f).outcome for _ in range(7)]
print(json.dumps([[r.wall, r.cpu] for r in runs]))
"""


def test_first_embedded_call_costs_what_later_ones_do(tmp_path: Path) -> None:
    # before: the first call's child imported numpy: CPU 0.066 s against 0.004 s for the later ones
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("CNFGEN_QUEENS_DEBUG", None)
    proc = subprocess.run([sys.executable, "-c", TIMES], cwd=tmp_path, env=env, capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    times = json.loads(proc.stdout)
    first_cpu, later_cpu = times[0][1], statistics.median(t[1] for t in times[1:])
    assert first_cpu <= 5 * later_cpu + 0.01, times  # CPU time: wall is too noisy on a loaded machine


def test_reading_the_file_is_not_the_solvers_time(cnfs: dict[int, Path], tmp_path: Path) -> None:
    """The solver's time is the same whether the clauses come parsed (a batch parses each file up to 1 MB once
    per worker) or the child reads the file (larger ones): reading is timed apart (``read_time``).  Before, a
    file the child read had its parse in the solver's time: 22 MB of comments before the header, 0.33 s of CPU
    against 0.006 s parsed (a step in a batch's time-vs-N plot where the files pass 1 MB)."""
    text = cnfs[8].read_text()
    path = tmp_path / "commented.cnf"
    path.write_text("c a long preamble\n" * 1_200_000 + text)
    parsed = solve_embedded("cadical195", read_cnf(path), Limits(60))
    read = solve_embedded("cadical195", CnfFile(path, path.name), Limits(60))
    assert parsed.status is read.status is Status.SAT
    assert parsed.read_time is not None and read.read_time is not None and read.read_time > 0.1, read
    assert parsed.cpu is not None and read.cpu is not None and read.cpu < 2 * parsed.cpu + 0.1, (read, parsed)


@pytest.mark.parametrize(
    ("name", "backend"), [("cadical195", "CaDiCaL 1.9.5"), ("minisat22", "MiniSat 2.2"), ("glucose4", "Glucose 4.1")]
)
def test_embedded_version_names_the_backend(name: str, backend: str) -> None:
    # the backends and versions of PySAT's own documentation (its solver classes' docstrings)
    import pysat

    assert embedded_available(name)
    assert embedded_version(name) == f"{backend} (python-sat {pysat.__version__})"


def test_version_in_solve_and_listing(cnfs: dict[int, Path], tmp_path: Path) -> None:
    import pysat

    want = f"CaDiCaL 1.9.5 (python-sat {pysat.__version__})"
    ran = run_cli(["solve", str(cnfs[8]), "--json"], tmp_path, memory_mb=CLI_MEMORY_MB)
    assert ran.code == 10 and json.loads(ran.out)["version"] == want
    ran = run_cli(["solvers", "--embedded", "--json"], tmp_path, memory_mb=CLI_MEMORY_MB)
    rows = {r["name"]: r for r in map(json.loads, ran.out.splitlines())}
    assert rows["pysat:cadical195"]["version"] == want


KILLED = """
import sys
from cnfgen_queens.cnf.scan import CnfFile
from cnfgen_queens.limits import Limits
from cnfgen_queens.solvers.embedded import solve_embedded
print("solving", flush=True)
solve_embedded("cadical195", CnfFile(sys.argv[1], "php"), Limits(600))
"""


def test_the_solvers_process_ends_with_the_program_that_asked(tmp_path: Path) -> None:
    """A program killed (SIGKILL: no cleanup of its own) while pysat solves PHP(12, 11) (minutes of work) leaves
    no process: the forkserver ends with it, and the solver's process with the forkserver.  Before, the solver's
    process held the forkserver open (the copy of its lifeline every fork inherits) and solved on, unlimited."""
    php = pigeonhole(tmp_path / "php.cnf", 11)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", KILLED, str(php)], stdout=subprocess.PIPE, env=env)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"solving\n"
        for _ in range(600):  # the forkserver, the solver's process (and the next run's spare)
            if len(under := set(descendants(proc.pid))) >= 3:
                break
            time.sleep(0.05)
        time.sleep(0.5)
        under = set(descendants(proc.pid))
    finally:
        proc.kill()
        proc.wait()  # not its output: what it left holds the pipe open
        if proc.stdout is not None:
            proc.stdout.close()
    assert len(under) >= 2, under
    for _ in range(600):
        if not under & set(descendants(1)):
            break
        time.sleep(0.05)
    assert not under & set(descendants(1)), under & set(descendants(1))
