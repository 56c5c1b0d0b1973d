"""report's plot flags: cactus, time-vs-N and the solver-vs-solver scatter; runs CSV as input; what it wrote."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from helpers import HAND, row

from cnfgen_queens.cli import main
from cnfgen_queens.experiments import plots, report
from cnfgen_queens.experiments.store import Store

PNG = b"\x89PNG\r\n\x1a\n"
ROOT = Path(__file__).resolve().parents[2]


def test_scatter_pairs_match_instances_by_hand() -> None:
    # common instances of kissat and minisat: pairwise N = 5 (3.0 s / a wrong UNSAT) and N = 6 (timeout /
    # an unverified model): unsolved runs are None, whatever their status
    assert plots.scatter_pairs(HAND, "kissat", "minisat") == [("pairwise", 3.0, None), ("pairwise", None, None)]
    assert plots.scatter_pairs(HAND, "minisat", "kissat") == [("pairwise", None, 3.0), ("pairwise", None, None)]
    with pytest.raises(ValueError, match="no runs of solver 'cadical'"):
        plots.scatter_pairs(HAND, "kissat", "cadical")
    only_seq = [r for r in HAND if r.encoding == "sequential" or r.solver == "minisat"]
    with pytest.raises(ValueError, match="never ran the same instance"):
        plots.scatter_pairs(only_seq, "kissat", "minisat")


def test_sixteen_encodings_get_distinct_colour_and_marker() -> None:
    names = [f"enc{i:02d}" for i in range(16)]
    styles = plots._styles(names)
    colours = {tuple(s["color"]) for s in styles.values()}
    markers = {s["marker"] for s in styles.values()}
    assert len(colours) == 16 and len(markers) == 16


def test_db_is_a_fixed_positional_and_report_says_what_it_wrote(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = {k: tmp_path / k for k in ("c.png", "t.pdf", "s.svg", "runs.csv")}
    argv = [
        "report",
        "--cactus",
        str(out["c.png"]),
        "--time-vs-n",
        str(out["t.pdf"]),
        "--scatter",
        "kissat",
        "minisat",
        str(out["s.svg"]),
        "--runs-csv",
        str(out["runs.csv"]),
        str(db),
    ]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "| kissat | pairwise | 3 | 5 | 2 | 2 | 0 | 0 | 15.5 | 2.00 | 5 |" in captured.out
    assert f"wrote {out['c.png']}: cactus plot\n" in captured.err
    assert f"wrote {out['t.pdf']}: time-vs-n plot\n" in captured.err
    assert f"wrote {out['s.svg']}: scatter plot kissat vs minisat\n" in captured.err
    assert f"wrote {out['runs.csv']}: {len(HAND)} runs (CSV)\n" in captured.err
    assert out["c.png"].read_bytes()[:8] == PNG
    assert out["t.pdf"].read_bytes()[:5] == b"%PDF-"
    svg = out["s.svg"].read_text()
    assert "<svg" in svg and "kissat: wall time" in svg and "minisat: wall time" in svg
    first = {k: p.read_bytes() for k, p in out.items()}
    assert main(argv) == 0
    assert {k: p.read_bytes() for k, p in out.items()} == first  # same command, same bytes


def test_runs_csv_is_a_database_too(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "runs.csv"
    assert main(["report", str(db), "--runs-csv", str(runs)]) == 0
    from_db = capsys.readouterr().out
    assert main(["report", str(runs), "--cactus", str(tmp_path / "c.png")]) == 0
    assert capsys.readouterr().out == from_db
    with Store(db, readonly=True) as store:
        assert sorted(report.rows_from_runs_csv(runs.read_text()), key=lambda r: r.run_key) == sorted(
            store.rows(), key=lambda r: r.run_key
        )
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    assert main(["report", str(bad)]) == 2
    assert "not a runs CSV" in capsys.readouterr().err


def test_committed_runs_csv_reads_back_unchanged() -> None:
    text = (ROOT / "data/results/encodings-runs.csv").read_text()
    rows = report.rows_from_runs_csv(text)
    assert len(rows) == 276 and report.runs_csv(rows) == text


def test_scatter_draws_unsolved_on_the_limit(tmp_path: Path) -> None:
    rows = [row("x1", "a", "e", 8, "SAT", 0.5), row("x2", "b", "e", 8, "TIMEOUT", 10.5)]
    fig = plots.scatter(rows, "a", "b", "t")
    ax = fig.axes[0]
    points = [line for line in ax.get_lines() if line.get_linestyle() == "None"]
    assert [(list(p.get_xdata()), list(p.get_ydata())) for p in points] == [([0.5], [10.0])]


def test_old_plot_flag_no_longer_swallows_the_database(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's reproducer, `report --plot cactus.png results/smoke.sqlite`: a clear error, not 'no DB'."""
    assert main(["report", "--plot", "cactus.png", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--cactus FILE, --time-vs-n FILE, --scatter A B FILE" in err


@pytest.mark.parametrize("kind", plots.KINDS)
def test_a_solver_named_by_its_long_path_is_wrapped_not_a_collapsed_plot(kind: str, tmp_path: Path) -> None:
    """A solver given by its path (``solvers: [/.../cpus-cadical]``) made the time-vs-N legend wider than the
    figure: matplotlib warned "axes sizes collapsed to zero" on the report's stderr and drew an empty plot.
    Its name is wrapped at its ``/`` instead, on lines of at most ``plots.LINE`` characters, every part kept."""
    long = "/tmp/pytest-of-root/pytest-756/popen-gw0/test_pinned_runs_each_get_cor0/cpus-cadical"
    rows = [
        row(f"{s[-1]}{n}", s, "pairwise", n, "SAT", 0.05 * (n - 19)) for s in (long, "kissat") for n in range(20, 28)
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # matplotlib's word on a collapsed layout
        plots.draw(rows, kind, tmp_path / "p.svg", "g", solvers=(long, "kissat"))
    wrapped = plots._wrapped(long).splitlines()
    assert "".join(wrapped) == long and max(map(len, wrapped)) <= plots.LINE and len(wrapped) == 4
    svg = (tmp_path / "p.svg").read_text()
    assert long not in svg and all(f">{line}" in svg for line in wrapped)  # each line begins a text
