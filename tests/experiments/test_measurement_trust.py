"""Measurements a researcher can trust (issue 32's audit): lines of adaptive repeats compared per instance over
what each ran, the batch's counts with adaptive repeats, 95% intervals only where the repeats allow one (scipy's
order-statistic interval of the median), the adaptive rule on the interval's farther side, and break_symmetry as a
stored column that --compare can pair on."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import sqlite3
import statistics
from pathlib import Path

import numpy as np
import pytest
from helpers import in_process, row
from scipy import stats

from cnfgen_queens.experiments import adaptive, report, spread
from cnfgen_queens.experiments.batch import make_row
from cnfgen_queens.experiments.config import ConfigError, load
from cnfgen_queens.experiments.grid import _repeat_keys, iter_runs
from cnfgen_queens.experiments.store import Row, Store
from cnfgen_queens.experiments.tasks import Measurement
from cnfgen_queens.solvers.outcome import Status

LIMIT = 60.0


def _cell(solver: str, n: int, times: list[float]) -> list[Row]:
    return [
        dataclasses.replace(row(f"{solver}-{n}-{k}", solver, "pairwise", n, "SAT", t, limit=LIMIT), repeat=k)
        for k, t in enumerate(times)
    ]


# minisat ran 8 repeats on the noisy N = 7 and 3 elsewhere; cadical stopped at 3 everywhere (adaptive repeats)
MINISAT = {5: [1.0, 1.1, 0.9], 6: [2.0, 2.1, 1.9], 7: [3.0, 9.0, 2.0, 3.2, 2.9, 8.0, 3.1, 2.8]}
CADICAL = {5: [0.05, 0.06, 0.05], 6: [0.06, 0.05, 0.07], 7: [0.07, 0.06, 0.05]}
ADAPTIVE = [
    *(r for n, t in MINISAT.items() for r in _cell("minisat", n, t)),
    *(r for n, t in CADICAL.items() for r in _cell("cadical", n, t)),
]


def _par2(cells: dict[int, list[float]]) -> float:
    """The line's PAR-2 over what it ran: per instance the mean of its repeats, then the mean over instances."""
    return statistics.fmean(statistics.fmean(t) for t in cells.values())


def test_a_line_that_stopped_early_is_not_penalised(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stats_ = {s.solver: s for s in report.summarize(ADAPTIVE)}
    minisat, cadical = stats_["minisat"], stats_["cadical"]
    assert (minisat.missing, cadical.missing) == (0, 0)  # the extra repeats are no instances cadical lacks
    assert (minisat.runs, cadical.runs) == (14, 9)
    assert minisat.par2 == pytest.approx(_par2(MINISAT)) and cadical.par2 == pytest.approx(_par2(CADICAL))
    # the median solved: per instance the median of its repeats, then over the instances (8 repeats weigh no more)
    assert minisat.median == pytest.approx(statistics.median(statistics.median(t) for t in MINISAT.values()))
    vbs = stats_["virtual best"]
    assert (vbs.runs, vbs.solved, vbs.par2) == (3, 3, pytest.approx(_par2(CADICAL)))
    assert report.missing_note(list(stats_.values())) is None
    db = tmp_path / "a.sqlite"
    with Store(db) as store:
        for r in ADAPTIVE:
            store.add(r)
    code, out, err = in_process(["report", str(db), "--html", str(tmp_path / "html")], capsys)
    assert code == 0, err
    assert "lack" not in err and "missing" not in out and f"| {report.seconds(_par2(MINISAT))} |" in out
    page = (tmp_path / "html" / "index.html").read_text()
    assert "missing" not in page and f">{report.seconds(_par2(MINISAT))}</td>" in page  # the HTML table too


def test_the_virtual_best_solves_an_instance_a_line_solved() -> None:
    """Per instance the line that solved most of its repeats there, then the better score: a line fast twice and
    out of time once loses to one that solved every repeat slowly (though it scored better: 6.73 against 8)."""
    fast = _cell("a", 5, [0.1, 0.1, 0.1])
    fast[2] = dataclasses.replace(fast[2], status=Status.TIMEOUT, wall=10.0, verified=None, verdict=None)
    rows = [*fast, *_cell("b", 5, [8.0, 8.0, 8.0]), *_cell("a", 6, [0.2, 0.2, 0.2]), *_cell("b", 6, [9.0, 9.0, 9.0])]
    rows = [dataclasses.replace(r, time_limit=10.0) for r in rows]
    stats_ = {s.solver: s for s in report.summarize(rows)}
    assert stats_["a"].par2 == pytest.approx(statistics.fmean([(0.1 + 0.1 + 20) / 3, 0.2]))
    vbs = stats_["virtual best"]
    assert (vbs.runs, vbs.solved, vbs.sat) == (2, 2, 2)  # b solved N = 5 three times in three
    assert vbs.par2 == pytest.approx(statistics.fmean([8.0, 0.2]))  # b's score on N = 5, a's on N = 6
    assert vbs.median == pytest.approx(statistics.median([8.0, 0.2]))
    assert vbs.largest_n == 6


def _unsolved(runs: list[Row], *at: int) -> list[Row]:
    return [
        dataclasses.replace(r, status=Status.TIMEOUT, wall=LIMIT, verified=None, verdict=None) if k in at else r
        for k, r in enumerate(runs)
    ]


def test_an_unsolved_repeat_is_slower_than_any_solved_one() -> None:
    """Right-censored at the limit: an unsolved repeat counts as +infinity for a cell's median, quartiles and the
    order-statistic interval (not dropped, which biased the median low); an end it reaches has no finite bound."""
    inf = float("inf")
    times = [1.0, 1.1, 0.9, 1.0, 1.2, inf]
    s = spread.spread(times)
    ci = stats.quantile_test(np.asarray(times), q=1.05, p=0.5).confidence_interval(0.95)
    assert (s.median, s.ci_low, s.ci_high) == (pytest.approx(1.05), ci.low, inf) and s.q3 == pytest.approx(1.175)
    assert s.cv is None and s.reach() == inf  # no moment of a censored sample; the interval reaches beyond the limit
    assert spread.spread([1.0, 2.0, inf, inf]).q3 == inf and spread.spread([1.0, 2.0, inf, inf]).q1 == 1.75
    (cell,) = spread.cells(_unsolved(_cell("minisat", 5, [1.0, 1.1, 0.9, 1.0, 1.2, 3.0]), 5))
    assert (cell.runs, cell.solved, cell.spread) == (6, 5, s) and cell.noisy()  # they disagree whether it is solved
    line = next(ln for ln in spread.markdown([cell]).splitlines() if ln.startswith("| solve"))
    assert "| 1.05 | 1.00-1.18 | 0.900-unsolved | n/a (unsolved) | noisy |" in line
    # the table's median: per instance over every repeat, an unsolved one the slowest (none where most are)
    rows = [*_unsolved(_cell("a", 5, [1.0, 2.0, 3.0]), 2), *_unsolved(_cell("a", 6, [1.0, 2.0, 3.0]), 1, 2)]
    (a,) = report.summarize(rows)
    assert a.median == 2.0  # N = 5: median of 1, 2, unsolved; N = 6: unsolved (was 1.5 over 1.5 and 1)
    # the adaptive rule does not stop on an interval with an unsolved end; a cell unsolved every time stops
    assert not adaptive.clear(_unsolved(_cell("a", 5, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]), 5), 0.5)
    assert not adaptive.clear(_unsolved(_cell("a", 5, [1.0, 1.0, 1.0]), 2), 0.5)
    assert adaptive.clear(_unsolved(_cell("a", 5, [1.0, 1.0, 1.0]), 0, 1, 2), 0.5)


def _config(tmp_path: Path, repeats: str, n: str = "[5, 6]") -> Path:
    path = tmp_path / "a.yaml"
    path.write_text(
        f"experiment: a\ninstances:\n  n: {n}\n  encodings: [pairwise]\nsolvers: [pysat:cadical195]\n"
        f"limits: {{time: 60}}\nrepeats: {repeats}\nresults: {tmp_path / 'a.sqlite'}\n"
    )
    return path


def _stored(tmp_path: Path) -> int:
    with Store(tmp_path / "a.sqlite", readonly=True) as store:
        return len(store.rows())


def test_the_batch_counts_what_an_adaptive_grid_holds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--jobs", "1", "--no-progress"]
    code, out, err = in_process(["batch", str(_config(tmp_path, "{min: 3, max: 6, until: 0.000001}")), *argv], capsys)
    assert code == 0, err
    assert _stored(tmp_path) == 12  # no two timings agree that closely: every cell runs to max
    assert "12 runs done (12 solved), 0 already stored, 12 in the grid" in out
    code, out, err = in_process(["batch", str(_config(tmp_path, "{min: 3, max: 7, until: 0.000001}")), *argv], capsys)
    assert code == 0, err
    assert _stored(tmp_path) == 14
    assert "2 runs done (2 solved), 12 already stored, 14 in the grid" in out  # was: 6 already stored, 8 in the grid


def test_no_95_percent_interval_below_six_repeats() -> None:
    """The order-statistic interval of the median (scipy's quantile_test) reaches 95% from six repeats on; fewer
    give none (a percentile bootstrap of three repeats is their range: 75% coverage, not 95%)."""
    assert spread.MIN_REPEATS == 6
    for n in range(2, 12):
        x = np.linspace(1.0, 2.0, n) ** 2
        s = spread.spread(list(x))
        ci = stats.quantile_test(x, q=float(np.median(x)), p=0.5).confidence_interval(0.95)
        if n < 6:
            assert np.isnan(ci.low) and (s.ci_low, s.ci_high, s.reach()) == (None, None, None)
        else:
            assert (s.ci_low, s.ci_high) == pytest.approx((ci.low, ci.high))
    cells = spread.cells(_cell("minisat", 5, [1.0, 1.1, 0.9]))
    table = spread.markdown(cells)
    assert "95% CI" in table and "| n/a (needs 6) |" in table


def test_the_adaptive_rule_waits_for_a_real_interval_and_looks_at_both_sides(tmp_path: Path) -> None:
    c = load(_config(tmp_path, "{min: 3, max: 10, until: 0.15}"), check_solvers=False)
    runs = list(iter_runs(c))
    ok = lambda r, t: make_row(c, r, Measurement(Status.SAT, wall=t, verified=True))
    tight = [ok(r, 1.0 + r.repeat / 1000) for r in runs]  # three repeats within 0.2%: no 95% interval yet
    assert sorted((r.instance.n, r.repeat) for r in adaptive.more(c, tight)) == [
        (n, k) for n in (5, 6) for k in (3, 4, 5)
    ]  # each cell gets the repeats a 95% interval needs, in one round
    first = next(r for r in runs if r.instance.n == 5 and r.repeat == 0)
    keys = _repeat_keys(first, 10)
    # six repeats: the interval is [0.99, 1.2] around the median 1.0: 1% below, 20% above; the mean of the two
    # sides (10.5%) is within 15%, the farther side is not: one more repeat
    times = [0.99, 1.0, 1.0, 1.0, 1.0, 1.2]
    six = [dataclasses.replace(ok(first, t), run_key=keys[k], repeat=k) for k, t in enumerate(times)]
    s = spread.spread(times)
    assert s.reach() == pytest.approx(0.2) and not adaptive.clear(six, 0.15) and adaptive.clear(six, 0.25)
    for bad in ("{min: 3, max: 5, until: 0.05}", "{min: 2, max: 3, until: 0.05}"):
        with pytest.raises(ConfigError, match=r"repeats\.max: .* 6 or more repeats"):
            load(_config(tmp_path, bad), check_solvers=False)


def _symmetry_config(tmp_path: Path) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(
        "experiment: s\ninstances:\n  n: {from: 5, to: 10}\n  encodings: [pairwise]\n  break_symmetry: [false, true]\n"
        f"solvers: [pysat:cadical195]\nlimits: {{time: 60}}\nresults: {tmp_path / 's.sqlite'}\n"
    )
    return path


def test_break_symmetry_is_a_column_compare_pairs_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = in_process(["batch", str(_symmetry_config(tmp_path)), "--jobs", "1", "--no-progress"], capsys)
    assert code == 0, err
    db = tmp_path / "s.sqlite"
    with Store(db, readonly=True) as store:
        rows = store.rows()
    assert sorted((r.n, r.break_symmetry) for r in rows) == [(n, b) for n in range(5, 11) for b in (False, True)]
    code, out, err = in_process(["report", str(db), "--compare", "break_symmetry=true", "break_symmetry=false"], capsys)
    assert code == 0, err
    assert "compare break_symmetry: A = true, B = false" in out and "instances run by both: 6; solved by both: 6" in out
    assert "verdict: " in out
    code, out, _ = in_process(["report", str(db)], capsys)
    table = [line for line in out.splitlines() if line.startswith("| ")]
    assert table[0].startswith("| break_symmetry | solver |") and "missing" not in out  # two lines, same instances
    runs_csv = tmp_path / "runs.csv"
    assert in_process(["report", str(db), "--runs-csv", str(runs_csv)], capsys)[0] == 0
    assert [r.break_symmetry for r in report.load_rows(runs_csv)] == [r.break_symmetry for r in rows]
    assert json.loads(rows[-1].variant or "{}").get("break_symmetry") is True  # the variant keeps it, as before
    # a runs CSV and a store written before the column: the variant says which runs had the lex-leader clauses
    cells = list(csv.reader(io.StringIO(runs_csv.read_text())))
    at = cells[0].index("break_symmetry")
    old_csv = tmp_path / "old-runs.csv"
    with old_csv.open("w", newline="") as f:
        csv.writer(f).writerows([c for k, c in enumerate(line) if k != at] for line in cells)
    assert [(r.n, r.break_symmetry) for r in report.load_rows(old_csv)] == [(r.n, r.break_symmetry) for r in rows]
    old = sqlite3.connect(db)
    old.executescript("ALTER TABLE runs DROP COLUMN break_symmetry;")
    old.close()
    with Store(db, readonly=True) as store:
        assert sorted((r.n, r.break_symmetry) for r in store.rows()) == sorted((r.n, r.break_symmetry) for r in rows)
    for side in ("false", "true"):  # six runs each, not twelve plain ones
        code, out, err = in_process(["report", str(db), "--where", f"break_symmetry={side}"], capsys)
        assert code == 0 and "| 6 |" in out and "| 12 |" not in out, err
    code, out, err = in_process(["report", str(db), "--compare", "break_symmetry=true", "break_symmetry=false"], capsys)
    assert code == 0 and "instances run by both: 6; solved by both: 6" in out, err
