"""Two checkouts, two clusters (issue 31, item 3): ``scripts/slurm-local.sh`` keeps its state in a folder of the
checkout's own and finds free ports at start, so two checkouts start, use and stop their clusters at the
same time, and one's ``stop`` leaves the other's daemons and jobs alone.

The script is copied into two temporary "checkouts" and run there as it would be from each; the cluster
of the checkout running the tests (if any) is never touched: its folder and ports are another's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

import pytest
from helpers import ROOT
from test_slurm import _fail_or_skip, _stepd_of, squeue_states, wait_until

SCRIPT = ROOT / "scripts" / "slurm-local.sh"


def _run(checkout: Path, verb: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CNFGEN_QUEENS_SLURM_", "SLURM_"))}
    return subprocess.run(
        ["bash", str(checkout / "scripts" / "slurm-local.sh"), verb],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _conf(checkout: Path) -> Path:
    line = _run(checkout, "env").stdout.strip()
    assert line.startswith("export SLURM_CONF="), line
    return Path(line.removeprefix("export SLURM_CONF="))


def _ports(conf: Path) -> tuple[str, str]:
    keys = dict(line.split("=", 1) for line in conf.read_text().splitlines() if line.startswith("Slurm"))
    return keys["SlurmctldPort"], keys["SlurmdPort"]


@pytest.fixture
def checkouts(tmp_path: Path) -> Iterator[list[Path]]:
    """Two checkouts holding the script; whatever their clusters left running is stopped after the test."""
    if os.geteuid() != 0 or not shutil.which("slurmctld"):
        _fail_or_skip("scripts/slurm-local.sh needs root and slurm-wlm")
    pair = [tmp_path / "one", tmp_path / "two"]
    for checkout in pair:
        (checkout / "scripts").mkdir(parents=True)
        shutil.copy(SCRIPT, checkout / "scripts" / "slurm-local.sh")
    try:
        yield pair
    finally:
        for checkout in pair:
            _run(checkout, "stop")
            shutil.rmtree(_conf(checkout).parent, ignore_errors=True)


def test_the_state_folder_is_the_checkouts_own() -> None:
    """Without CNFGEN_QUEENS_SLURM_DIR: a folder named for the checkout's path, short enough for munge's socket."""
    conf = _conf(ROOT)
    assert conf.parent.name.startswith("cnfgen-queens-slurm-") and conf.name == "slurm.conf"
    assert len(str(conf.parent / "munge" / "munge.socket")) < 100  # sun_path holds 108 bytes
    assert _conf(ROOT) == conf  # the same every time


@pytest.mark.slow  # about a minute: two clusters started and stopped
@pytest.mark.slurm
def test_two_checkouts_run_their_clusters_at_once_and_stop_only_their_own(checkouts: list[Path]) -> None:
    one, two = checkouts
    confs = [_conf(one), _conf(two)]
    assert confs[0].parent != confs[1].parent and ROOT not in confs[0].parents
    with ThreadPoolExecutor(2) as pool:  # both start at the same time
        ups = list(pool.map(lambda c: _run(c, "start"), checkouts))
    for up in ups:
        assert up.returncode == 0 and "idle" in up.stderr, up.stderr
    ports = [_ports(c) for c in confs]
    assert len({*ports[0], *ports[1]}) == 4, ports  # four ports, none shared
    envs = [{**os.environ, "SLURM_CONF": str(c)} for c in confs]
    for env in envs:  # a job on each cluster
        job = subprocess.run(
            ["sbatch", "--parsable", "--mem=50", "-t", "2", "-o", "/dev/null", "--wrap", "sleep 300"],
            env=env,
            cwd=confs[0].parent,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert job.returncode == 0, job.stderr
    for env in envs:
        wait_until(partial(_running, env), 120, "the job running")
    daemons = {c: [int(p.read_text()) for p in _pidfiles(c.parent)] for c in confs}

    down = _run(one, "stop")
    assert down.returncode == 0, down.stderr
    assert not [pid for pid in daemons[confs[0]] if Path(f"/proc/{pid}").exists()], "one's daemons left"
    assert [pid for pid in daemons[confs[1]] if Path(f"/proc/{pid}").exists()] == daemons[confs[1]], "two's stopped"
    assert _run(two, "status").returncode == 0
    assert squeue_states(envs[1]) == ["RUNNING"]  # two's job untouched by one's stop
    assert not [p for p in Path("/proc").glob("[0-9]*/environ") if _stepd_of(p, str(confs[0]))]

    down = _run(two, "stop")
    assert down.returncode == 0, down.stderr
    assert not [pid for pid in daemons[confs[1]] if Path(f"/proc/{pid}").exists()], "two's daemons left"
    assert not [p for p in Path("/proc").glob("[0-9]*/environ") if _stepd_of(p, str(confs[1]))]


def _running(env: dict[str, str]) -> bool:
    return "RUNNING" in squeue_states(env)


def _pidfiles(folder: Path) -> list[Path]:
    return [folder / "run" / "slurmctld.pid", folder / "run" / "slurmd.pid", folder / "munge" / "munged.pid"]
