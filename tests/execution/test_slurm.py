"""executor slurm on a real one-node SLURM (``scripts/slurm-local.sh start``; ``scripts/test.sh`` starts it).

A real grid is submitted, a job cancelled, the coordinator killed with SIGKILL, the batch resumed while
the node goes down and comes back: every run ends up stored exactly once, the runs stored before the
kill are not run again, and the rows are those of a local run of the same grid.  Without a cluster the
tests skip, and fail under CI=true.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers import (
    CLI_ENTRY,
    IN_CI,
    PLUGIN_GRID_COUNTS,
    ROOT,
    comparable,
    default_signals,
    need_module,
    need_solver,
    plugin_grid,
    stored,
    stored_counts,
)

from cnfgen_queens.cli import main

pytestmark = [pytest.mark.slow, pytest.mark.slurm]

JOB_PREFIX = "cnfgen-queens-"  # execution.slurm names each batch's jobs cnfgen-queens-<hex>
REPEATS = 24
TOTAL = 5 * 3 * 2 * REPEATS  # N 4..8, three encodings, two embedded solvers


def _fail_or_skip(reason: str) -> None:
    if IN_CI:
        pytest.fail(reason + "; CI must run the SLURM tests (scripts/test.sh starts scripts/slurm-local.sh)")
    pytest.skip(reason)


def this_checkouts_conf() -> str:
    """The config of this checkout's own cluster: what ``scripts/slurm-local.sh env`` names (a folder of
    the checkout's own, or $CNFGEN_QUEENS_SLURM_DIR)."""
    script = ROOT / "scripts" / "slurm-local.sh"
    line = subprocess.run(["bash", str(script), "env"], capture_output=True, text=True, timeout=60).stdout.strip()
    return line.removeprefix("export SLURM_CONF=")


@pytest.fixture(scope="module")
def slurm() -> dict[str, str]:
    """The environment of a SLURM client talking to the local cluster, once its node answers idle."""
    need_module("dask_jobqueue")
    conf = os.environ.get("SLURM_CONF") or this_checkouts_conf()
    if not Path(conf).is_file():  # sinfo would look for a cluster in DNS for half a minute
        _fail_or_skip(f"no SLURM config {conf}: scripts/slurm-local.sh start")
    env = {**os.environ, "SLURM_CONF": conf}
    try:
        out = subprocess.run(["sinfo", "-h", "-N", "-o", "%N %T"], env=env, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        _fail_or_skip(f"no SLURM here ({e}): scripts/slurm-local.sh start")
    if out.returncode != 0 or not out.stdout.split():
        _fail_or_skip(f"sinfo does not answer ({' '.join(out.stderr.split())}): scripts/slurm-local.sh start")
    node, state = out.stdout.split()[:2]
    if state.rstrip("*~#") not in ("idle", "mixed", "allocated"):  # left down by an interrupted test
        subprocess.run(["scontrol", "update", f"nodename={node}", "state=resume"], env=env, timeout=30)
    env["TEST_SLURM_NODE"] = node
    return env


def our_jobs(env: dict[str, str]) -> dict[str, str]:
    """job id -> state of every batch's jobs."""
    out = subprocess.run(["squeue", "-h", "-o", "%i %j %T"], env=env, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    rows = [line.split() for line in out.stdout.splitlines()]
    return {r[0]: r[2] for r in rows if len(r) == 3 and r[1].startswith(JOB_PREFIX)}


def wait_until(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(0.2)


def started(db: Path) -> dict[str, str]:
    """run key -> start time of every stored run (nothing before the file exists)."""
    try:
        with sqlite3.connect(db, timeout=30) as con:
            return dict(con.execute("SELECT run_key, started FROM runs"))
    except sqlite3.Error:
        return {}


def write_config(tmp_path: Path, name: str, executor: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(
        f"experiment: slurm-test\n"
        "instances: {n: {from: 4, to: 8}, encodings: [pairwise, sequential, commander]}\n"
        "solvers: [pysat:cadical195, pysat:minisat22]\n"
        f"limits: {{time: 20, memory: 1024}}\nrepeats: {REPEATS}\n"
        f"results: {tmp_path / name / 'results.sqlite'}\n"
        f"executor: {executor}\n" + ("slurm: {jobs: 2}\n" if executor == "slurm" else "")
    )
    return path


@pytest.fixture
def cleanup(slurm: dict[str, str]) -> Iterator[list[subprocess.Popen[str]]]:
    """Coordinators the test starts; killed if still there, the node resumed and our jobs cancelled."""
    procs: list[subprocess.Popen[str]] = []
    yield procs
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait(30)
    node = slurm["TEST_SLURM_NODE"]
    subprocess.run(["scontrol", "update", f"nodename={node}", "state=resume"], env=slurm, capture_output=True)
    left = our_jobs(slurm)
    if left:
        subprocess.run(["scancel", *left], env=slurm, timeout=30)
        wait_until(lambda: not our_jobs(slurm), 60, f"jobs {sorted(left)} cancelled")
    assert not left, f"jobs left running after the test: {left}"


def coordinator(cfg: Path, env: dict[str, str], log: Path) -> subprocess.Popen[str]:
    with log.open("w") as out:
        return subprocess.Popen(
            [sys.executable, "-c", CLI_ENTRY, "batch", str(cfg), "--no-progress"],
            env=env,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            preexec_fn=default_signals,
        )


@pytest.mark.timeout(1200)  # passed 300 s at a load of 30: a loaded machine, not a hang
def test_cancel_kill_node_down_resume_gives_the_local_rows(
    slurm: dict[str, str], cleanup: list[subprocess.Popen[str]], tmp_path: Path
) -> None:
    assert main(["batch", str(write_config(tmp_path, "local", "local")), "--jobs", "2", "--no-progress"]) == 0
    local = stored(tmp_path / "local" / "results.sqlite")
    assert len(local) == TOTAL
    cfg = write_config(tmp_path, "slurm", "slurm")
    db = tmp_path / "slurm" / "results.sqlite"

    first = coordinator(cfg, slurm, tmp_path / "first.log")
    cleanup.append(first)
    wait_until(lambda: len(started(db)) >= 30, 180, "30 runs stored by the SLURM workers")
    jobs = our_jobs(slurm)
    assert len(jobs) == 2, jobs
    cancelled = min(jobs)
    subprocess.run(["scancel", cancelled], env=slurm, check=True, timeout=30)
    at_cancel = len(started(db))
    wait_until(lambda: set(our_jobs(slurm)) - set(jobs), 60, "a job submitted in place of the cancelled one")
    wait_until(lambda: len(started(db)) >= at_cancel + 30, 120, "30 more runs stored after scancel")
    orphans = set(our_jobs(slurm))  # the killed batch's workers: they end themselves (DEATH_TIMEOUT)
    first.send_signal(signal.SIGKILL)
    assert first.wait(30) == -signal.SIGKILL
    before = started(db)
    assert 0 < len(before) < TOTAL, "the batch ended before it was killed: a larger grid is needed"
    wait_until(lambda: not orphans & set(our_jobs(slurm)), 60, f"the killed batch's jobs {orphans} ended")

    second = coordinator(cfg, slurm, tmp_path / "second.log")
    cleanup.append(second)
    wait_until(lambda: len(started(db)) >= len(before) + 20, 180, "20 runs stored after the resume")
    node = slurm["TEST_SLURM_NODE"]
    subprocess.run(["scontrol", "update", f"nodename={node}", "state=down", "reason=test"], env=slurm, check=True)
    wait_until(lambda: "RUNNING" not in our_jobs(slurm).values(), 60, "no job running on the node that is down")
    at_down = len(started(db))
    time.sleep(3)
    assert len(started(db)) <= at_down + 2  # nothing runs while the node is down (a result or two in flight)
    assert len(started(db)) < TOTAL, "the batch ended before the node went down: a larger grid is needed"
    # the jobs that ended with the node are submitted again, and wait for it
    wait_until(lambda: "PENDING" in our_jobs(slurm).values(), 30, "jobs submitted in place of those on the node")
    subprocess.run(["scontrol", "update", f"nodename={node}", "state=resume"], env=slurm, check=True)
    code = second.wait(240)
    log = (tmp_path / "second.log").read_text()
    tail = "\n".join(line for line in log.splitlines() if not line.startswith("20"))[-3000:]  # not Dask's log
    assert code == 0, tail
    assert f"{TOTAL - len(before)} runs done ({TOTAL - len(before)} solved), {len(before)} already stored" in log, tail

    rows = stored(db)
    assert len(rows) == len({r.run_key for r in rows}) == TOTAL  # none lost, none twice
    after = {r.run_key: r.started for r in rows}
    assert {k: after[k] for k in before} == before  # the runs stored before the kill were not run again
    assert comparable(rows) == comparable(local)  # the same rows as the local run, but times and host
    assert {r.measured_by for r in rows} == {r.measured_by for r in local}
    wait_until(lambda: not our_jobs(slurm), 60, "every job ended with the batch")


@pytest.mark.parametrize(
    ("sig", "code", "what"), [(signal.SIGTERM, 143, "terminated (SIGTERM)"), (signal.SIGINT, 130, "interrupted")]
)
def test_sigterm_or_ctrl_c_stops_the_batch_and_cancels_its_jobs(
    slurm: dict[str, str], cleanup: list[subprocess.Popen[str]], tmp_path: Path, sig: int, code: int, what: str
) -> None:
    cfg = write_config(tmp_path, "slurm", "slurm")
    db = tmp_path / "slurm" / "results.sqlite"
    p = coordinator(cfg, slurm, tmp_path / "batch.log")
    cleanup.append(p)
    wait_until(lambda: len(started(db)) >= 10, 180, "10 runs stored")
    p.send_signal(sig)
    assert p.wait(60) == code, (tmp_path / "batch.log").read_text()[-3000:]
    done = len(started(db))
    assert f"batch: {what}; workers stopped, {done} finished runs saved" in (tmp_path / "batch.log").read_text()
    wait_until(lambda: not our_jobs(slurm), 30, "the batch's jobs cancelled as it stopped")


def test_an_external_solver_in_a_job_is_measured_as_locally(
    slurm: dict[str, str], cleanup: list[subprocess.Popen[str]], tmp_path: Path
) -> None:
    """kissat in a SLURM job: the runner's own limits and measurement (BenchExec cgroups where the node
    allows them, as here) give the rows of a local run, measured_by included."""
    need_solver("kissat")
    rows = {}
    for executor in ("local", "slurm"):
        cfg = tmp_path / f"{executor}.yaml"
        cfg.write_text(
            "experiment: kissat\ninstances: {n: {from: 6, to: 9}, encodings: [pairwise, commander]}\n"
            "solvers: [kissat]\n"
            f"limits: {{time: 20, memory: 1024}}\nresults: {tmp_path / executor / 'r.sqlite'}\n"
            f"executor: {executor}\nslurm: {{jobs: 2}}\n"
        )
        run = subprocess.run(
            [sys.executable, "-c", CLI_ENTRY, "batch", str(cfg), "--jobs", "2", "--no-progress"],
            env=slurm,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=240,
        )
        assert run.returncode == 0, run.stderr[-3000:]
        rows[executor] = stored(tmp_path / executor / "r.sqlite")
    assert len(rows["slurm"]) == 8 and comparable(rows["slurm"]) == comparable(rows["local"])
    assert all(r.measured_by in ("cgroup", "rusage") and r.peak_memory_mb for r in rows["slurm"])
    wait_until(lambda: not our_jobs(slurm), 60, "every job ended with the batch")


def test_count_on_slurm_workers_is_oeis(
    slurm: dict[str, str], cleanup: list[subprocess.Popen[str]], tmp_path: Path
) -> None:
    out = subprocess.run(
        [sys.executable, "-c", CLI_ENTRY, "count", "10", "--executor", "slurm", "--jobs", "2", "--quiet"],
        env=slurm,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.splitlines()[-1] == "count: 724 (published-count)"  # OEIS A000170
    wait_until(lambda: not our_jobs(slurm), 60, "every job ended with the count")


def test_a_plugins_encoding_on_slurm_workers(
    slurm: dict[str, str], cleanup: list[subprocess.Popen[str]], tmp_path: Path
) -> None:
    """A batch's ``plugins:`` reach the jobs' workers (the file's source travels with each task): the counts
    of the plugin's encoding are OEIS's, as the built-in's beside it."""

    cfg = plugin_grid(tmp_path, "slurm")
    cfg.write_text(cfg.read_text() + "slurm: {jobs: 2}\n")
    argv = [sys.executable, "-c", CLI_ENTRY, "batch", str(cfg), "--no-progress"]
    run = subprocess.run(argv, env=slurm, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert stored_counts(tmp_path / "slurm" / "r.sqlite") == PLUGIN_GRID_COUNTS
    wait_until(lambda: not our_jobs(slurm), 60, "every job ended with the batch")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_slurm_local_script_starts_twice_and_leaves_no_daemon(tmp_path: Path) -> None:
    """A second cluster of its own (directory, ports): start is idempotent, stop cancels the jobs and
    leaves none of its daemons or job steps."""
    if os.geteuid() != 0 or not shutil.which("slurmctld"):
        _fail_or_skip("scripts/slurm-local.sh needs root and slurm-wlm")
    home = tmp_path / "slurm"
    ports = {"CNFGEN_QUEENS_SLURM_CTLD_PORT": str(free_port()), "CNFGEN_QUEENS_SLURM_SLURMD_PORT": str(free_port())}
    env = {**os.environ, **ports, "CNFGEN_QUEENS_SLURM_DIR": str(home), "SLURM_CONF": str(home / "slurm.conf")}
    script = [str(ROOT / "scripts" / "slurm-local.sh")]
    pidfiles = [home / "run" / "slurmctld.pid", home / "run" / "slurmd.pid", home / "munge" / "munged.pid"]
    try:
        for _ in range(2):
            up = subprocess.run([*script, "start"], env=env, capture_output=True, text=True, timeout=120)
            assert up.returncode == 0 and "idle" in up.stderr, up.stderr
        pids = [int(p.read_text()) for p in pidfiles]
        job = subprocess.run(
            ["sbatch", "--parsable", "--mem=50", "-t", "2", "-o", "/dev/null", "--wrap", "sleep 100"],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert job.returncode == 0, job.stderr
        wait_until(lambda: "RUNNING" in squeue_states(env), 60, "the job running")
    finally:
        down = subprocess.run([*script, "stop"], env=env, capture_output=True, text=True, timeout=120)
    assert down.returncode == 0, down.stderr
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists(), f"daemon {pid} left running"
    assert not [p for p in pidfiles if p.exists()]
    steps = [p for p in Path("/proc").glob("[0-9]*/environ") if _stepd_of(p, env["SLURM_CONF"])]
    assert steps == [], f"job steps left: {steps}"
    again = subprocess.run([*script, "stop"], env=env, capture_output=True, text=True, timeout=60)
    assert again.returncode == 0, again.stderr  # stopping a stopped cluster does nothing


def squeue_states(env: dict[str, str]) -> list[str]:
    out = subprocess.run(["squeue", "-h", "-o", "%T"], env=env, capture_output=True, text=True, timeout=30)
    return out.stdout.split()


def _stepd_of(environ: Path, conf: str) -> bool:
    try:
        cmdline = (environ.parent / "cmdline").read_bytes()
        return cmdline.startswith(b"slurmstepd") and f"SLURM_CONF={conf}".encode() in environ.read_bytes().split(b"\0")
    except OSError:
        return False
