"""The noise guard (issue 32, item 6) and the machine's cgroups (item 7): the batch's note when the load leaves its
runs fewer idle cores than they need (on stdout, stored in the batches table), ``pin: true`` (each parallel run on
cores of its own through BenchExec's core assignment, stored per run), and the machine record's ``cgroups`` as the
runner decides it."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path

import pytest
from helpers import in_process, need_solver

from cnfgen_queens.experiments import machine, noise
from cnfgen_queens.experiments.machine import this_machine
from cnfgen_queens.experiments.store import Store
from cnfgen_queens.solvers.cgroup import IsolationUnavailable, choose, core_assignment, usable_cores


def _config(tmp_path: Path, solver: str = "minisat", n: str = "[8, 9]", extra: str = "", name: str = "g") -> Path:
    path = tmp_path / f"{name}.yaml"
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


def test_busy_note_is_about_the_idle_cores_the_runs_need() -> None:
    assert noise.busy_note(None, 2, 2) is None and noise.busy_note(0.5, 2, 2) is None
    assert noise.busy_note(2.9, 4, 2) is None  # 1.1 idle cores beyond the other processes' 2.9: less than a core short
    note = noise.busy_note(3.0, 4, 2)
    assert note is not None and note.startswith("note: load average 3 on 4 cores (1 idle) as the batch starts 2 run(s)")
    assert noise.busy_note(1.0, 2, 2) is not None and noise.busy_note(1.0, 4, 1) is None
    assert "\n" not in note


def test_a_busy_batch_says_so_on_stdout_and_stores_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = _config(tmp_path, solver="pysat:cadical195", n="[5, 6, 7]")
    monkeypatch.setattr(machine, "load_average", lambda: 99.0)
    code, out, err = in_process(["batch", str(cfg), "--jobs", "1", "--no-progress"], capsys)
    assert code == 0 and err == "", err  # stderr is for errors, one line each: the note is no error
    first, summary = out.splitlines()
    assert first.startswith(f"note: load average 99 on {usable_cores()} cores (0 idle) as the batch starts 1 ")
    assert summary.startswith("3 runs done (3 solved)")
    monkeypatch.setattr(machine, "load_average", lambda: 0.0)
    code, out, err = in_process(["batch", str(cfg), "--jobs", "1", "--no-progress"], capsys)
    assert code == 0 and out.startswith("0 runs done") and err == ""  # nothing to run: no start to note
    (tmp_path / "g.sqlite").unlink()
    code, out, err = in_process(["batch", str(cfg), "--jobs", "1", "--no-progress"], capsys)
    assert code == 0 and out.startswith("3 runs done") and "note" not in out  # quiet: nothing said, a start stored
    starts = noise.stored(tmp_path / "g.sqlite")
    assert [(b.jobs, b.load_avg, b.note, b.pinned) for b in starts] == [(1, 0.0, None, False)]
    with Store(tmp_path / "g.sqlite") as store:  # as if the first start had been stored here too
        noise.record(store, dataclasses.replace(starts[0], load_avg=99.0, note=first))
    code, out, _ = in_process(["report", str(tmp_path / "g.sqlite"), "--machines"], capsys)
    assert "1 of 2 batch starts had the load average above the idle cores their runs needed (the worst: load 99" in out


def _wrapper(tmp_path: Path) -> Path:
    """cadical behind a script that prints the CPUs the kernel lets it run on (kept with keep_output)."""
    script = tmp_path / "cpus-cadical"
    script.write_text(
        f'#!/bin/sh\necho "c $(grep Cpus_allowed_list /proc/self/status)"\nexec {need_solver("cadical")} "$@"\n'
    )
    script.chmod(0o755)
    return script


def _cpu_list(text: str) -> set[int]:
    """The CPUs of a kernel list (``0-2,5``)."""
    out: set[int] = set()
    for part in text.strip().split(","):
        low, _, high = part.partition("-")
        out |= set(range(int(low), int(high or low) + 1))
    return out


def test_pinned_runs_each_get_cores_of_their_own(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cores = usable_cores()
    try:
        sets = core_assignment(min(cores, 2))
    except IsolationUnavailable as e:
        pytest.skip(f"this machine cannot pin runs: {e}")
    if cores < 2:
        pytest.skip("one core: nothing to pin apart")
    solver = _wrapper(tmp_path)
    cfg = _config(tmp_path, solver=str(solver), n="{from: 20, to: 27}", extra="pin: true\nkeep_output: true\n")
    code, out, err = in_process(["batch", str(cfg), "--jobs", "2", "--no-progress"], capsys)
    assert code == 0, err
    with Store(tmp_path / "g.sqlite", readonly=True) as store:
        rows = store.rows()
    assert len(rows) == 8 and all(r.measured_by == "cgroup" and r.cores is not None for r in rows)
    assert {r.cores for r in rows} <= {",".join(map(str, s)) for s in sets}
    assert not set.intersection(*(_cpu_list(s) for s in {r.cores or "" for r in rows}))  # the two sets disjoint
    for r in rows:  # the kernel's word: the solver could run on its cores and no other
        log = (tmp_path / "run-output" / f"{r.run_key}.log").read_text()
        allowed = next(line for line in log.splitlines() if "Cpus_allowed_list" in line).split(":")[1]
        assert _cpu_list(allowed) == _cpu_list(r.cores or ""), (r.n, allowed, r.cores)
    for a, b in itertools.combinations(rows, 2):  # runs at the same time had different cores
        if (a.started or "") < (b.finished or "") and (b.started or "") < (a.finished or ""):
            assert a.cores != b.cores, (a.n, b.n)
    assert [b.pinned for b in noise.stored(tmp_path / "g.sqlite")] == [True]
    code, out, _ = in_process(["report", str(tmp_path / "g.sqlite"), "--machines"], capsys)
    assert "8 of 8 runs were pinned to cores of their own" in out
    assert in_process(["report", str(tmp_path / "g.sqlite"), "--html", str(tmp_path / "html")], capsys)[0] == 0
    assert "8 of 8 runs were pinned to cores of their own" in (tmp_path / "html" / "index.html").read_text()


def test_pin_is_refused_in_one_line_where_it_cannot_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_solver("minisat")
    cores = usable_cores()
    cases = [
        (_config(tmp_path, extra="pin: true\n", name="a"), ["--jobs", str(cores + 1)], f"{cores + 1} runs at once"),
        (_config(tmp_path, solver="pysat:cadical195", extra="pin: true\n", name="b"), ["--jobs", "1"], "inside the"),
        (_config(tmp_path, extra="pin: yes-please\n", name="c"), ["--jobs", "1"], "pin: expected true or false"),
    ]
    for cfg, argv, message in cases:
        code, out, err = in_process(["batch", str(cfg), *argv, "--no-progress"], capsys)
        if "runs at once" in message and choose("auto") != "cgroup":
            message = "pin: true is not possible here"
        assert code == 2 and out == "" and message in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "g.sqlite").exists() or noise.stored(tmp_path / "g.sqlite") == []
