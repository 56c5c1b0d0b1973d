"""The report compares lines over the same instances, keeps configurations apart, and prints what it
ranks: a missing run is unsolved (2 x the limit), column_alo/group size/shuffling are columns, a
virtual best line, SAT/UNSAT counts, three significant figures, ``--by``/``--where`` on the table's
labels, and an HTML overview whose table is not clipped."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from helpers import row
from test_report_html import _page, browser, chromium  # noqa: F401 (the fixtures)

from cnfgen_queens.cli import main
from cnfgen_queens.experiments import report
from cnfgen_queens.experiments.store import Store

LIMIT = 60.0


def _store(tmp_path: Path, rows: list[Any]) -> Path:
    path = tmp_path / "runs.sqlite"
    with Store(path) as store:
        for r in rows:
            store.add(r)
    return path


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
    db = _store(tmp_path, UNEQUAL)
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
    db = _store(tmp_path, rows)
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
    plain = next(t for t in table if t["column_alo"] == "false" and t["group_size"] == "" and t["solver"] == "kissat"
                 and t["shuffled"] == "false")  # fmt: skip
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


def test_html_overview_table_is_not_clipped(tmp_path: Path, browser: Any) -> None:  # noqa: F811
    args = json.dumps(["--sat", "--seed=12345", "--phase=false", "--restartint=100"])
    rows = [replace(row(f"{s}{n}", s, enc, n, "SAT", 0.5 * n), solver_args=args)
            for s in ("kissat", "cadical") for enc in ("pysat:kmtotalizer", "sequential") for n in (8, 9)]  # fmt: skip
    rows += [replace(rows[0], run_key="x", column_alo=True), replace(rows[1], run_key="y", group_size=2)]
    db = _store(tmp_path, rows)
    out = tmp_path / "html"
    assert main(["report", str(db), "--html", str(out)]) == 0
    page, errors = _page(browser, (out / "index.html").as_uri())
    box = page.eval_on_selector(".summary-box", "b => [b.scrollWidth, b.clientWidth]")
    assert box[0] <= box[1], box  # the whole table shows at 1400 px: nothing to scroll to
    last = page.eval_on_selector("table.summary th:last-child", "t => t.getBoundingClientRect().right")
    assert last <= 1400 and not errors
