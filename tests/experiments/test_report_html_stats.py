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


def test_the_address_keeps_the_view_and_a_link_opens_it(tmp_path: Path, browser: Any) -> None:  # noqa: F811
    """Tab, filters, sort and the compared pair go into the fragment; the same address in a new page opens
    the same view (issue 32, item 7)."""
    db = _store(tmp_path / "s.sqlite")
    out = tmp_path / "html"
    assert main(["report", str(db), "--html", str(out)]) == 0
    url = (out / "index.html").as_uri()
    page, errors = _page(browser, url)
    assert page.evaluate("location.hash") == ""  # the overview as opened: the address untouched
    page.click("nav button[data-tab=runs]")
    page.wait_for_selector("#runs-table tbody tr")
    page.fill("#runs-table input[data-col=solver]", "B")
    page.click("#runs-table th[data-col=wall]")
    page.click("#runs-table th[data-col=wall]")  # descending
    walls = page.eval_on_selector_all("#runs-table tbody tr td:nth-child(8)", "tds => tds.map(t => t.textContent)")
    assert len(walls) == 10 and walls[0] == f"{max(B_TIMES):.3f}"
    runs_link = page.evaluate("location.href")
    assert "tab=runs" in runs_link and "sort=wall" in runs_link and "desc=1" in runs_link and "f.solver=B" in runs_link
    page.click("nav button[data-tab=compare]")
    page.wait_for_selector("#cmp-table tbody tr")
    page.select_option("#cmp-a", "B")
    page.select_option("#cmp-b", "A")
    page.click("#cmp-table th[data-col=speedup]")
    cmp_link = page.evaluate("location.href")
    assert "tab=compare" in cmp_link and "a=B" in cmp_link and "b=A" in cmp_link and "csort=speedup" in cmp_link
    assert "f.solver=B" in cmp_link  # the runs view's state is kept beside the comparison's
    seen = page.inner_text("#compare .cmp-verdict")
    # a colleague opens the links
    other, other_errors = _page(browser, cmp_link)
    other.wait_for_selector("#cmp-table tbody tr")
    assert other.is_visible("#compare") and other.is_hidden("#overview")
    assert (other.input_value("#cmp-a"), other.input_value("#cmp-b")) == ("B", "A")
    assert other.inner_text("#compare .cmp-verdict") == seen
    assert other.get_attribute("#cmp-table th[data-col=speedup]", "class") == "sorted-asc"
    third, third_errors = _page(browser, runs_link)
    third.wait_for_selector("#runs-table tbody tr")
    assert third.input_value("#runs-table input[data-col=solver]") == "B"
    assert (
        third.eval_on_selector_all("#runs-table tbody tr td:nth-child(8)", "tds => tds.map(t => t.textContent)")
        == walls
    )
    assert third.get_attribute("#runs-table th[data-col=wall]", "class") == "sorted-desc"
    assert errors == other_errors == third_errors == []


def test_the_comparison_view_shows_one_geometric_mean_the_terminals(
    tmp_path: Path,
    browser: Any,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Six instances, three repeats each: the view pairs the 18 runs of each side in its table, and gives one
    geometric mean, over the per-instance medians, as ``report --compare`` prints it (it gave a second one,
    over single repeats, as if they were 18 instances)."""
    from helpers import in_process

    db = tmp_path / "r.sqlite"
    with Store(db) as store:
        for k, f in enumerate((1.0, 1.3, 0.8)):
            for r in [
                *_runs("A", [t * f for t in A_TIMES[:6]], repeat=k),
                *_runs("B", [t * f for t in B_TIMES[:6]], repeat=k),
            ]:
                store.add(r)
    code, out, err = in_process(["report", str(db), "--compare", "A", "B"], capsys)
    assert code == 0, err
    terminal = next(line for line in out.splitlines() if line.startswith("time A / B, geometric mean over 6: x"))
    gm = float(terminal.split(": x", 1)[1].split()[0])
    html_dir = tmp_path / "html"
    assert main(["report", str(db), "--html", str(html_dir)]) == 0
    page, errors = _page(browser, (html_dir / "index.html").as_uri() + "#tab=compare&dim=solver&a=A&b=B")
    page.wait_for_selector("#cmp-table tbody tr")
    summary, verdict = page.inner_text("#compare .cmp-summary"), page.inner_text("#compare .cmp-verdict")
    assert "18 runs of each side paired on 6 instances" in summary and "×" not in summary, summary
    assert "Paired over 6 instances both solved" in verdict and verdict.count("time A / B ×") == 1, verdict
    shown = float(verdict.split("time A / B ×", 1)[1].split()[0])
    assert shown == pytest.approx(gm, rel=1e-3)  # the terminal's figure, to its three digits
    assert page.eval_on_selector_all("#cmp-table tbody tr", "trs => trs.length") == 18 and errors == []
