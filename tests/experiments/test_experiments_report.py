"""Report: solved counts, PAR-2 and medians on a hand-made database; CSV/JSON/Markdown; plots; CLI errors.

Lines are compared over the same instances and configurations kept apart: a missing run is unsolved (2 x the
limit), column_alo/group size/shuffling are columns, a virtual best line, SAT/UNSAT counts, three significant
figures, ``--by``/``--where`` on the table's labels."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import HAND, row, write_store

from cnfgen_queens.cli import main
from cnfgen_queens.experiments import report
from cnfgen_queens.experiments.store import Store


def test_par2_solved_and_median_by_hand(db: Path) -> None:
    with Store(db, readonly=True) as store:
        rows = store.rows()
    assert sorted(rows, key=lambda r: r.run_key) == HAND  # the store gives back what went in
    stats = {(s.solver, s.encoding): s for s in report.summarize(rows)}
    # every line is scored over the same 8 instances (N = 3..10): a missing run is unsolved, 2 x 10 s
    a = stats["kissat", "pairwise"]
    assert (a.runs, a.missing, a.solved, a.sat, a.unsat, a.wrong) == (3, 5, 2, 2, 0, 0)
    assert a.par2 == pytest.approx((1.0 + 3.0 + 2 * 10.0 + 5 * 20.0) / 8)  # = 15.5
    assert a.median == pytest.approx(2.0) and a.largest_n == 5
    b = stats["kissat", "sequential"]
    assert (b.runs, b.missing, b.solved, b.sat, b.unsat, b.wrong) == (4, 4, 4, 3, 1, 0)
    assert b.par2 == pytest.approx((0.5 + 2.0 + 4.0 + 7.0 + 4 * 20.0) / 8)  # = 11.6875
    assert b.median == pytest.approx((2.0 + 4.0) / 2) and b.largest_n == 10
    c = stats["minisat", "pairwise"]
    assert (c.runs, c.missing, c.solved, c.wrong) == (4, 4, 0, 1)
    assert c.par2 == pytest.approx(20.0) and c.median is None and c.largest_n is None
    vbs = stats[report.VBS, "(best line per instance)"]  # the best line per instance: 6 of 8 solved
    assert (vbs.runs, vbs.missing, vbs.solved, vbs.sat, vbs.unsat) == (8, 0, 6, 5, 1)
    assert vbs.par2 == pytest.approx((0.5 + 1.0 + 3.0 + 20.0 + 20.0 + 2.0 + 4.0 + 7.0) / 8)
    assert [(s.solver, s.encoding) for s in report.summarize(rows)][:3] == [
        ("kissat", "sequential"),
        ("kissat", "pairwise"),
        ("minisat", "pairwise"),
    ]  # best PAR-2 first, the virtual best line last


def test_par2_without_time_limit_is_undefined() -> None:
    assert report.par2([row("x", "s", "e", 4, "TIMEOUT", 5.0, limit=None)]) is None
    assert report.par2([row("x", "s", "e", 4, "SAT", 5.0, limit=None)]) == 5.0


def test_a_model_that_is_no_placement_is_wrong() -> None:
    from dataclasses import replace

    from cnfgen_queens.experiments.verdict import NOT_A_SOLUTION

    r = replace(row("w", "s", "e", 8, "SAT", 1.0, verified=False), error=f"{NOT_A_SOLUTION}: queens attack")
    assert report.is_wrong(r) and not report.is_solved(r)


def test_an_answer_after_the_limit_is_not_solved() -> None:
    """A count's limit is per solver call, so a whole count can end past it: not solved, scored 2 x limit."""
    late = row("l", "s", "e", 9, "UNSAT", 12.5, task="count", count=352)
    on_time = row("m", "s", "e", 9, "UNSAT", 9.5, task="count", count=352)
    assert not report.is_solved(late) and report.is_solved(on_time)
    assert report.par2([late, on_time]) == pytest.approx((2 * 10.0 + 9.5) / 2)


def test_wrong_counts_use_oeis() -> None:
    good = row("k", "s", "e", 8, "UNSAT", 1.0, task="count", count=92)
    bad = row("k", "s", "e", 8, "UNSAT", 1.0, task="count", count=91)
    assert report.is_solved(good) and not report.is_wrong(good)
    assert report.is_wrong(bad) and not report.is_solved(bad)


def test_cli_outputs(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = {k: tmp_path / f"{k}" for k in ("t.md", "t.csv", "t.json", "runs.csv", "cactus.png", "time_vs_n.svg")}
    argv = [
        "report",
        str(db),
        "--markdown",
        str(out["t.md"]),
        "--csv",
        str(out["t.csv"]),
        "--json",
        str(out["t.json"]),
        "--runs-csv",
        str(out["runs.csv"]),
        "--cactus",
        str(out["cactus.png"]),
        "--time-vs-n",
        str(out["time_vs_n.svg"]),
    ]
    assert main(argv) == 0
    table = capsys.readouterr().out
    assert table == out["t.md"].read_text()
    assert "| kissat | pairwise | 3 | 5 | 2 | 2 | 0 | 0 | 15.5 | 2.00 | 5 |" in table
    rows = list(csv.DictReader(io.StringIO(out["t.csv"].read_text())))
    assert rows[0]["solver"] == "kissat" and rows[0]["encoding"] == "sequential" and float(rows[0]["par2"]) == 11.6875
    doc = json.loads(out["t.json"].read_text())
    assert doc["time_limits"] == [10.0] and len(doc["groups"]) == 4
    assert len(list(csv.DictReader(io.StringIO(out["runs.csv"].read_text())))) == len(HAND)
    assert out["cactus.png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in out["time_vs_n.svg"].read_bytes()[:1000]
    first = {k: p.read_bytes() for k, p in out.items()}
    assert main(argv) == 0
    assert {k: p.read_bytes() for k, p in out.items()} == first  # same command, same bytes


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--plot", "summary.png"], "--plot is replaced by one flag per kind"),
        (["--cactus", "cactus.gif"], "unsupported plot format"),
        (["--scatter", "kissat", "glucose", "s.png"], "no runs of solver 'glucose'"),
        (["--csv", "/nonexistent-dir/x.csv"], "cannot write"),
    ],
)
def test_cli_usage_errors(db: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(db), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_cli_bad_databases(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "none.sqlite")]) == 2
    assert "no such results file" in capsys.readouterr().err
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database at all" * 100)
    assert main(["report", str(junk)]) == 2
    assert "not a usable results database" in capsys.readouterr().err
    Store(tmp_path / "empty.sqlite").close()
    assert main(["report", str(tmp_path / "empty.sqlite")]) == 1
    assert "no runs stored yet" in capsys.readouterr().err


def test_by_n_and_column_alo_and_cpu_time_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--by n --by column_alo --time cpu``: one line per (N, column_alo, solver, encoding), CPU seconds."""
    from dataclasses import replace

    rows = [
        replace(row("p1", "kissat", "product", 500, "SAT", 9.0), cpu=3.0),
        replace(row("p2", "kissat", "product", 500, "SAT", 8.0), cpu=5.0),
        replace(row("p3", "kissat", "product", 1000, "TIMEOUT", 10.3), cpu=4.0),
        replace(row("p4", "kissat", "product", 1000, "SAT", 2.0), cpu=1.5, column_alo=True),
    ]
    stats = report.summarize(rows, by=("n", "column_alo"), time="cpu")
    got = [(s.key("n"), s.key("column_alo"), s.runs, s.solved, s.par2, s.median) for s in stats]
    assert got == [(500, False, 2, 2, 4.0, 4.0), (1000, False, 1, 0, 20.0, None), (1000, True, 1, 1, 1.5, 1.5)]
    wall = report.summarize(rows, by=("n",))  # column_alo varies: a column of its own, lines not merged
    assert [(s.key("n"), s.solver, s.key("column_alo"), s.par2) for s in wall] == [
        (500, "kissat", False, 8.5),
        (1000, "kissat", True, 2.0),
        (1000, "kissat", False, 20.0),
        (1000, report.VBS, None, 2.0),
    ]
    assert report.summarize(rows)[0].key("n") is None  # not split: no N column
    table = report.markdown(stats, "cpu")
    assert table.splitlines()[0].startswith("| N | column_alo | solver | encoding |") and "(CPU s)" in table
    assert "| 1000 | true | kissat | product | 1 | 1 | 1 | 0 | 0 | 1.50 | 1.50 | 1000 |" in table
    assert report.to_csv(stats).splitlines()[0].endswith("largest_n,n,column_alo")
    assert report.to_csv(report.summarize(rows)).splitlines()[0].endswith(",largest_n,column_alo")
    with pytest.raises(ValueError, match="cannot group or time by"):
        report.summarize(rows, by=("solver_version",))
    db = tmp_path / "by.sqlite"
    with Store(db) as store:
        for r in rows:
            store.add(r)
    out = tmp_path / "tvn.png"
    assert main(["report", str(db), "--by", "n", "--time", "cpu", "--time-vs-n", str(out)]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("| N | column_alo | solver |") and out.stat().st_size > 0
    assert main(["report", str(db), "--by", "solver_version"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_where_keeps_the_matching_runs(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--where FIELD=VALUE`` filters by column text (case-insensitive); an unknown field is a usage error."""
    assert [r.run_key for r in report.where(HAND, ["solver=minisat", "status=sat"])] == ["c2"]
    assert [r.run_key for r in report.where(HAND, ["n=5"])] == ["a2", "c1"]
    assert report.where(HAND, ["column_alo=true"]) == []
    with pytest.raises(ValueError, match="expected FIELD=VALUE"):
        report.where(HAND, ["colour=blue"])
    assert main(["report", str(db), "--where", "encoding=sequential"]) == 0
    out = capsys.readouterr().out
    assert "| kissat | sequential | 4 | 4 |" in out and "pairwise" not in out
    assert main(["report", str(db), "--where", "n=99"]) == 1
    assert "no run matches --where" in capsys.readouterr().err
    assert main(["report", str(db), "--where", "nope"]) == 2
    assert "expected FIELD=VALUE" in capsys.readouterr().err


LIMIT = 60.0


def _table(text: str) -> list[dict[str, str]]:
    head, _, *lines = (line.strip("|").split("|") for line in text.splitlines())
    return [dict(zip((h.strip() for h in head), (c.strip() for c in line), strict=True)) for line in lines]


# pairwise: fast on N = 8..128, but max_clauses left N = 200 out; product: slower, and ran N = 200 too
NS = (8, 16, 32, 64, 128)
UNEQUAL = [
    *(row(f"p{n}", "cadical", "pairwise", n, "SAT", 0.05, limit=LIMIT) for n in NS),
    *(row(f"q{n}", "cadical", "product", n, "SAT", 0.5, limit=LIMIT) for n in (*NS, 200)),
]


def test_lines_are_ranked_over_the_same_instances(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = write_store(tmp_path / "runs.sqlite", UNEQUAL)
    assert main(["report", str(db)]) == 0
    out, err = capsys.readouterr()
    table = _table(out)
    assert [t["encoding"] for t in table] == ["product", "pairwise", "(best line per instance)"]
    product, pairwise, vbs = table
    assert (pairwise["runs"], pairwise["missing"], pairwise["solved"]) == ("5", "1", "5")
    assert pairwise["PAR-2 (s)"] == "20.0"  # (5 x 0.05 + 2 x 60) / 6 = 20.04
    assert (product["runs"], product["missing"], product["PAR-2 (s)"]) == ("6", "0", "0.500")
    assert (vbs["solver"], vbs["solved"], vbs["PAR-2 (s)"], vbs["largest N solved"]) == (
        "virtual best",
        "6",
        "0.125",
        "200",
    )
    assert "1 line(s) lack 1 run(s)" in err and "2 x the time limit" in err


def test_configurations_are_not_merged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        row("a", "kissat", "commander", 8, "SAT", 0.004),
        replace(row("b", "kissat", "commander", 8, "SAT", 0.25), column_alo=True),
        replace(row("c", "kissat", "commander", 8, "SAT", 1.5), group_size=3),
        replace(row("d", "kissat", "commander", 8, "SAT", 8.345), shuffle_seed=1),
        replace(row("e", "kissat", "commander", 3, "UNSAT", 0.5), shuffle_seed=1),
        replace(row("f", "kissat", "commander", 8, "SAT", 0.002), solver_args='["--sat"]'),
    ]
    db = write_store(tmp_path / "runs.sqlite", rows)
    assert main(["report", str(db)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("| group_size | column_alo | shuffled | solver | encoding | runs |")
    table = _table(out)
    assert len(table) == 6  # five configurations and the virtual best line
    shuffled = next(t for t in table if t["shuffled"] == "true")
    assert (shuffled["runs"], shuffled["solved"], shuffled["SAT"], shuffled["UNSAT"]) == ("2", "2", "1", "1")
    assert shuffled["median solved (s)"] == "4.42"  # three significant figures, as PAR-2
    assert table[0] == shuffled and shuffled["PAR-2 (s)"] == "4.42"  # the only line that ran N = 3 too
    fastest = table[1]  # the others miss N = 3: (t + 2 x 10 s) / 2
    assert (fastest["solver"], fastest["PAR-2 (s)"], fastest["median solved (s)"]) == ("kissat --sat", "10.0", "0.002")
    plain = next(
        t
        for t in table
        if t["column_alo"] == "false" and t["group_size"] == "" and t["solver"] == "kissat" and t["shuffled"] == "false"
    )
    assert plain["median solved (s)"] == "0.004" and plain["missing"] == "1"  # N = 3 ran shuffled only
    # --where matches what the table prints; booleans in any case
    assert [r.run_key for r in report.where(rows, ["solver=kissat --sat"])] == ["f"]
    assert [r.run_key for r in report.where(rows, ["column_alo=True"])] == ["b"]
    assert [r.run_key for r in report.where(rows, ["group_size=3"])] == ["c"]
    assert len(report.where(rows, ["solver=KISSAT"])) == 6 and len(report.where(rows, ["time_limit=10"])) == 6
    assert main(["report", str(db), "--where", "solver=kissat --sat", "--json", str(tmp_path / "t.json")]) == 0
    groups = json.loads((tmp_path / "t.json").read_text())["groups"]
    assert [(g["solver"], g["median"]) for g in groups] == [("kissat --sat", 0.002)]  # raw values in JSON
    capsys.readouterr()
    for key in ("encoding", "solver", "shuffle_seed", "group_size", "variant", "repeat"):
        assert main(["report", str(db), "--by", key]) == 0, key
        assert _table(capsys.readouterr().out)[0], key
