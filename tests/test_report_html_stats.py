"""The HTML report's measurement parts (issue 32): the machines of the overview, and the comparison view's
interval, test and verdict (computed by the report, shown for the pair picked) in headless Chromium."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from test_report_html import _page, browser, chromium  # noqa: F401 - the shared Chromium fixtures
from test_report_stats import A_TIMES, B_TIMES, _runs

from cnfgen_queens.cli import main
from cnfgen_queens.experiments import html_stats
from cnfgen_queens.experiments.machine import this_machine
from cnfgen_queens.experiments.store import Store


def _store(path: Path, *, second_machine: bool = False) -> Path:
    """A and B on ten instances (B about twice as fast), on this machine; B on another with ``second_machine``."""
    me = this_machine()
    other = dataclasses.replace(me, cpu_model="Fake CPU 9000")
    with Store(path) as store:
        store.record_machine(me.fingerprint, me.as_dict())
        store.record_machine(other.fingerprint, other.as_dict())
        for r in [*_runs("A", A_TIMES, machine=me.fingerprint), *_runs("B", B_TIMES, machine=me.fingerprint)]:
            store.add(dataclasses.replace(r, machine=other.fingerprint) if second_machine and r.solver == "B" else r)
    return path


def test_every_pair_gets_its_statistics_both_ways(tmp_path: Path) -> None:
    from cnfgen_queens.experiments.report import load_rows

    rows = load_rows(_store(tmp_path / "s.sqlite"))
    found = html_stats.comparisons(rows)
    ab, ba = found["solver"]["A"]["B"], found["solver"]["B"]["A"]
    assert (ab["verdict"], ba["verdict"], ab["pairs"]) == ("B", "A", 10)
    assert ab["gm"] * ba["gm"] == pytest.approx(1, rel=1e-5) and ab["low"] * ba["high"] == pytest.approx(1, rel=1e-5)
    assert found["encoding"] == {}  # one encoding: nothing to pair
    split = load_rows(_store(tmp_path / "two.sqlite", second_machine=True))
    assert "2 machines" in html_stats.comparisons(split)["solver"]["A"]["B"]["refused"]
    assert html_stats.comparisons(split, across_machines=True)["solver"]["A"]["B"]["machines"] == 2


def test_the_page_shows_machines_and_the_verdict(tmp_path: Path, browser: Any) -> None:  # noqa: F811
    db = _store(tmp_path / "s.sqlite")
    out = tmp_path / "html"
    assert main(["report", str(db), "--html", str(out)]) == 0
    page, errors = _page(browser, (out / "index.html").as_uri())
    machines = page.inner_text("#overview .machines-box")
    assert "Machines (1)" in machines and this_machine().describe() in machines
    page.click("nav button[data-tab=compare]")
    page.wait_for_selector("#cmp-table tbody tr")
    page.select_option("#cmp-a", "A")
    page.select_option("#cmp-b", "B")
    text = page.inner_text("#compare .cmp-verdict")
    assert "Paired over 10 instances both solved" in text and "95% CI" in text and "verdict: B faster" in text
    page.select_option("#cmp-a", "B")
    page.select_option("#cmp-b", "A")
    assert "verdict: B faster" in page.inner_text("#compare .cmp-verdict")  # the names, not the sides
    assert errors == []


def test_the_page_refuses_a_pair_across_machines_unless_asked(tmp_path: Path, browser: Any) -> None:  # noqa: F811
    db = _store(tmp_path / "s.sqlite", second_machine=True)
    for extra, expected in (([], "No verdict: the runs come from 2 machines"), (["--across-machines"], "(across 2")):
        out = tmp_path / f"html{len(extra)}"
        assert main(["report", str(db), "--html", str(out), *extra]) == 0
        page, errors = _page(browser, (out / "index.html").as_uri())
        assert "Machines (2)" in page.inner_text("#overview .machines-box")
        page.click("nav button[data-tab=compare]")
        page.wait_for_selector("#cmp-table tbody tr")
        page.select_option("#cmp-a", "A")
        page.select_option("#cmp-b", "B")
        assert expected in page.inner_text("#compare .cmp-verdict")
        assert errors == []
