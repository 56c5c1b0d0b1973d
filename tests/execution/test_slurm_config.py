"""executor slurm without a cluster: the YAML's executor and slurm keys, the jobs' limits and margins."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import need_module

from cnfgen_queens.cli import main
from cnfgen_queens.errors import UsageError
from cnfgen_queens.execution.slurm import MEMORY_MARGIN, MIN_JOB_TIME, SlurmSettings, job_limits, needed, slurm_time
from cnfgen_queens.experiments.config import ConfigError, load

GRID = """\
experiment: s
instances: {n: [4, 5], encodings: [pairwise]}
solvers: [pysat:cadical195]
limits: {time: 100, memory: 2000}
results: RESULTS
"""


def write(tmp_path: Path, extra: str) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(GRID.replace("RESULTS", str(tmp_path / "r" / "x.sqlite")) + extra)
    return path


def test_slurm_section_is_read_and_not_in_the_hash(tmp_path: Path) -> None:
    plain = load(write(tmp_path, ""))
    assert (plain.executor, plain.slurm) == ("local", None)
    c = load(
        write(
            tmp_path,
            "executor: slurm\nslurm: {partition: short, account: lab, jobs: 16, time: 7200, "
            "memory: 4096, sbatch: [--qos=normal]}\n",
        )
    )
    assert c.executor == "slurm"
    logs = str(tmp_path / "r" / "slurm-logs")  # the default: beside the results file
    assert c.slurm == SlurmSettings(16, "short", "lab", 7200.0, 4096, ("--qos=normal",), logs)
    assert c.hash == plain.hash  # where the runs execute does not change their results


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("executor: pbs\n", "c.yaml:6: executor: expected local or dask or slurm, got 'pbs'"),
        ("slurm: {jobz: 2}\n", "c.yaml:6: slurm.jobz: unknown key 'jobz'; valid: partition, account, jobs"),
        ("slurm: {jobs: 0}\n", "slurm.jobs: expected a positive integer, got 0"),
        (
            "slurm: {time: 100}\n",
            "slurm.time: 100 s per job cannot hold one run of limits.time 100 s (with the margin: 170 s)",
        ),
        (
            "slurm: {memory: 2100}\n",
            "slurm.memory: 2100 MB per job cannot hold one run of limits.memory 2000 MB (with the margin: 2512 MB)",
        ),
        ("slurm: {sbatch: [qos=x]}\n", "slurm.sbatch: expected a list of sbatch options (strings starting with -)"),
        ('slurm: {sbatch: ["--a\\n#SBATCH --b"]}\n', "slurm.sbatch[0]: one option per entry, no line break"),
    ],
)
def test_bad_slurm_settings_name_the_key(tmp_path: Path, extra: str, message: str) -> None:
    with pytest.raises(ConfigError) as e:
        load(write(tmp_path, extra))
    assert message in str(e.value)


def test_job_limits_are_one_run_and_a_margin() -> None:
    assert needed(100, 2000) == (170, 2000 + MEMORY_MARGIN)  # 10 % and 60 s of time
    assert job_limits(SlurmSettings(), 100, 2000) == (MIN_JOB_TIME, 2512)  # a job holds many runs: an hour
    assert job_limits(SlurmSettings(), 5000, None) == (5560, 1024 + MEMORY_MARGIN)
    assert job_limits(SlurmSettings(time=200, memory=3000), 100, 2000) == (200, 3000)
    with pytest.raises(UsageError, match="cannot hold one run"):
        job_limits(SlurmSettings(time=100), 100, 2000)
    assert slurm_time(3600) == "0-01:00:00" and slurm_time(90061) == "1-01:01:01"


def test_dry_run_shows_what_the_jobs_ask(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = write(tmp_path, "executor: slurm\nslurm: {partition: short, jobs: 3, sbatch: [--qos=normal]}\n")
    assert main(["batch", str(cfg), "--dry-run"]) == 0
    assert (
        "executor slurm: 3 jobs at once -p short, each 1 core, 0-01:00:00 and 2512 MB (one run's limits and the "
        f"margin) --qos=normal; logs in {tmp_path / 'r' / 'slurm-logs'}"
    ) in capsys.readouterr().out
    assert main(["batch", str(cfg), "--dry-run", "--executor", "local"]) == 0
    assert "executor slurm" not in capsys.readouterr().out


def test_a_worker_refuses_a_cnf_that_is_not_the_one_generated(tmp_path: Path) -> None:
    """On a cluster the worker hashes the cached file before solving: a changed (or stale) copy is an ERROR."""
    from cnfgen_queens.experiments.grid import build
    from cnfgen_queens.experiments.tasks import execute, generate
    from cnfgen_queens.solvers.outcome import Status

    run = build(load(write(tmp_path, "")))[0]
    path, gbd = generate(run.instance, str(tmp_path / "cache"))
    assert execute(run, path, gbd).status is Status.SAT
    text = Path(path).read_text()
    Path(path).write_text(text + "1 0\n")  # one more clause: another CNF
    m = execute(run, path, gbd)
    assert m.status is Status.ERROR and m.error is not None
    assert f"not {gbd} as generated" in m.error and "not solved" in m.error
    assert execute(run, path, None).status is not Status.ERROR  # local runs: the file was checked when generated


def test_without_dask_jobqueue_or_sbatch_one_line_and_nothing_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = write(tmp_path, "executor: slurm\n")
    assert main(["batch", str(cfg), "--executor", "local", "--no-progress"]) == 0
    db = tmp_path / "r" / "x.sqlite"
    kept = db.read_bytes()
    capsys.readouterr()
    monkeypatch.setitem(sys.modules, "dask_jobqueue", None)  # import fails
    assert main(["batch", str(cfg), "--fresh"]) == 2
    assert main(["count", "6", "--executor", "slurm", "--jobs", "2"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"cnfgen-queens {c}: error: executor slurm needs dask-jobqueue: pip install 'cnfgen-queens[slurm]'"
        for c in ("batch", "count")
    ]
    monkeypatch.delitem(sys.modules, "dask_jobqueue")
    need_module("dask_jobqueue")
    monkeypatch.setenv("PATH", str(tmp_path))  # no sbatch
    assert main(["batch", str(cfg), "--fresh"]) == 2
    assert "executor slurm: sbatch not found" in capsys.readouterr().err
    assert db.read_bytes() == kept  # --fresh deleted nothing: the executor is made first


def test_the_executor_is_the_callers_else_the_configs(tmp_path: Path) -> None:
    """One rule for the CLI and the Python API (experiments.batch.executor_of)."""
    from cnfgen_queens.experiments.batch import executor_of

    c = load(write(tmp_path, "executor: slurm\nslurm: {jobs: 5, partition: short}\n"))
    assert executor_of(c, None, None) == ("slurm", 5, c.slurm)
    executor, jobs, slurm = executor_of(c, None, 3)  # --jobs: jobs at once
    assert (executor, jobs, slurm and slurm.jobs, slurm and slurm.partition) == ("slurm", 3, 3, "short")
    assert executor_of(c, "local", 2) == ("local", 2, None)
    plain = load(write(tmp_path, ""))
    assert executor_of(plain, "slurm", None)[1:] == (1, SlurmSettings(log_dir=str(tmp_path / "r" / "slurm-logs")))
