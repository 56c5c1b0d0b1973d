"""The noise guard (issue 32, item 6) and the machine's cgroups (item 7): the batch's note when the load leaves its
runs fewer idle cores than they need (on stdout, stored in the batches table), ``pin: true`` (each parallel run on
cores of its own through BenchExec's core assignment, stored per run), and the machine record's ``cgroups`` as the
runner decides it."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import in_process, need_solver

from cnfgen_queens.experiments.machine import this_machine
from cnfgen_queens.experiments.store import Store
from cnfgen_queens.solvers.cgroup import choose


def _config(tmp_path: Path, solver: str = "minisat", n: str = "[8, 9]", extra: str = "") -> Path:
    path = tmp_path / "g.yaml"
    path.write_text(
        f"experiment: g\ninstances:\n  n: {n}\n  encodings: [pairwise]\nsolvers: [{solver}]\n"
        f"limits: {{time: 60, memory: 1024}}\nresults: {tmp_path / 'g.sqlite'}\n{extra}"
    )
    return path


def test_the_machine_says_cgroups_where_the_runner_uses_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """cgroups v1 (this machine, as root) measured every run while the record said false: it looked for v2 only."""
    need_solver("minisat")
    assert this_machine().cgroups == (choose("auto") == "cgroup")
    code, _, err = in_process(["batch", str(_config(tmp_path)), "--jobs", "1", "--no-progress"], capsys)
    assert code == 0, err
    with Store(tmp_path / "g.sqlite", readonly=True) as store:
        rows = store.rows()
    assert {r.measured_by for r in rows} == {"cgroup" if this_machine().cgroups else "rusage"}
