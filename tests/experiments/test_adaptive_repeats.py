"""Repeats until the answer is clear (issue 32, item 5): ``repeats: {min, max, until}`` parsed and checked,
the next repeat only for a cell whose interval is wide, what is stored decides (resumable), --dry-run's bound."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import in_process

from cnfgen_queens.experiments import adaptive
from cnfgen_queens.experiments.batch import make_row
from cnfgen_queens.experiments.config import ConfigError, load
from cnfgen_queens.experiments.grid import iter_runs
from cnfgen_queens.experiments.store import Store
from cnfgen_queens.experiments.tasks import Measurement
from cnfgen_queens.solvers.outcome import Status


def _config(tmp_path: Path, repeats: str, n: str = "[5, 6]") -> Path:
    path = tmp_path / "a.yaml"
    path.write_text(
        f"experiment: a\ninstances:\n  n: {n}\n  encodings: [pairwise]\nsolvers: [pysat:cadical195]\n"
        f"limits: {{time: 60}}\nrepeats: {repeats}\nresults: {tmp_path / 'a.sqlite'}\n"
    )
    return path


def test_adaptive_repeats_are_parsed_and_checked(tmp_path: Path) -> None:
    plain = load(_config(tmp_path, "3"), check_solvers=False)
    assert (plain.repeats, plain.adaptive, plain.normalized()["repeats"]) == (3, False, 3)  # old hashes hold
    c = load(_config(tmp_path, "{min: 3, max: 20, until: 0.05}"), check_solvers=False)
    assert (c.repeats, c.repeats_max, c.repeats_until, c.adaptive) == (3, 20, 0.05, True)
    assert c.normalized()["repeats"] == {"min": 3, "max": 20, "until": 0.05} and c.hash != plain.hash
    for bad, message in [
        ("{min: 3, max: 20}", "repeats.until: missing"),
        ("{min: 1, max: 20, until: 0.05}", "repeats.min: expected an integer >= 2"),
        ("{min: 5, max: 4, until: 0.05}", "repeats.max: expected an integer >= 5"),
        ("{min: 3, max: 20, until: 1.5}", "repeats.until: 1.5: how far the interval may reach"),
        ("{min: 2, max: 5, until: 0.05}", "repeats.max: 5: a 95% confidence interval of the median needs 6"),
        ("{min: 3, max: 20, until: 0.05, often: 2}", "unknown key 'often'"),
    ]:
        with pytest.raises(ConfigError, match=message):
            load(_config(tmp_path, bad), check_solvers=False)


def test_only_a_wide_cell_gets_its_next_repeat(tmp_path: Path) -> None:
    c = load(_config(tmp_path, "{min: 3, max: 8, until: 0.05}"), check_solvers=False)
    runs = list(iter_runs(c))
    assert len(runs) == 2 * 3
    times = {5: [1.0, 1.0, 1.01, 1.0, 1.01, 1.0], 6: [1.0, 2.0, 0.5, 1.5, 0.7, 1.2]}  # N = 5 is clear, N = 6 is not
    ok = lambda run: make_row(c, run, Measurement(Status.SAT, wall=times[run.instance.n][run.repeat], verified=True))
    rows = [ok(r) for r in runs]
    nxt = adaptive.more(c, rows)  # three repeats: no 95% interval yet; each cell gets the three it lacks
    assert sorted((r.instance.n, r.repeat) for r in nxt) == [(n, k) for n in (5, 6) for k in (3, 4, 5)]
    assert not {r.key for r in nxt} & {r.run_key for r in rows}
    rows += [ok(r) for r in nxt]
    (wide,) = adaptive.more(c, rows)
    assert (wide.instance.n, wide.repeat) == (6, 6)
    rows.append(make_row(c, wide, Measurement(Status.SAT, wall=1.5, verified=True)))
    assert [(r.instance.n, r.repeat) for r in adaptive.more(c, rows)] == [(6, 7)]
    rows.append(make_row(c, adaptive.more(c, rows)[0], Measurement(Status.SAT, wall=0.7, verified=True)))
    assert adaptive.more(c, rows) == []  # max reached
    first_six = rows[:5]  # N = 5's three repeats, N = 6 with 2 of its 3 minimum repeats: the plain grid's to run
    assert {r.instance.n for r in adaptive.more(c, first_six)} == {5}
    timeout = make_row(c, runs[5], Measurement(Status.TIMEOUT, wall=60.0))
    assert {r.instance.n for r in adaptive.more(c, [*first_six, timeout])} == {5, 6}  # an unsolved repeat: no stop
    out = [make_row(c, r, Measurement(Status.TIMEOUT, wall=60.0)) for r in runs if r.instance.n == 6]
    assert {r.instance.n for r in adaptive.more(c, [*rows[:3], *out])} == {5}  # unsolved every time: no clearer


def test_a_batch_repeats_until_clear_and_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = in_process(["batch", str(_config(tmp_path, "2")), "--jobs", "1", "--no-progress"], capsys)
    assert code == 0, err
    cfg = _config(tmp_path, "{min: 2, max: 6, until: 0.000001}")  # no two timings agree that closely
    code, out, _ = in_process(["batch", str(cfg), "--dry-run"], capsys)
    assert code == 0
    assert (
        "repeats: 2 to 6 per cell, until the 95% interval of the median is within 0% of it on either side: "
        "4 to 12 runs" in out
    )
    code, out, err = in_process(["batch", str(cfg), "--jobs", "1", "--no-progress"], capsys)
    assert code == 0, err
    # the stored repeats decide: each cell gets the four a 95% interval needs, and is at max
    assert "8 runs done (8 solved), 4 already stored, 12 in the grid" in out
    with Store(tmp_path / "a.sqlite", readonly=True) as store:
        assert sorted((r.n, r.repeat) for r in store.rows()) == [(n, k) for n in (5, 6) for k in range(6)]
    code, out, _ = in_process(["batch", str(cfg), "--jobs", "1", "--no-progress"], capsys)
    assert code == 0 and "0 runs done (0 solved), 12 already stored, 12 in the grid" in out  # max reached
