"""report --html: the files it writes, what it refuses, and the page in a real headless Chromium (Playwright)."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from helpers import HAND, marked_processes, need_module, need_solver, need_tool, row, write_store

from cnfgen_queens.cli import main
from cnfgen_queens.experiments.store import OUTPUT_DIR, Store

CHROMIUM = "/usr/bin/chromium"  # Debian's package (scripts/install-browser.sh); Playwright's own download is not used
BROWSER_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def runs_of(directory: Path) -> dict[str, Any]:
    text = (directory / "runs.js").read_text()
    assert text.startswith("cnfgenRuns(") and text.endswith(");\n")
    data: dict[str, Any] = json.loads(text[len("cnfgenRuns(") : -len(");\n")])
    return data


def test_html_report_writes_the_page_the_runs_and_the_plots(db: Path, tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "html"
    (db.parent / OUTPUT_DIR).mkdir()
    (db.parent / OUTPUT_DIR / "a1.log").write_text("c kissat says hello\ns SATISFIABLE\n")
    assert main(["report", str(db), "--html", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"wrote {out}/index.html: {len(HAND)} runs, plots cactus.svg, time-vs-n.svg, scatter.svg, " in err
    assert "1 linked to their output" in err
    names = sorted(p.name for p in out.iterdir())
    assert names == ["cactus.svg", "index.html", "runs.js", "scatter.svg", "time-vs-n.svg"]
    page = (out / "index.html").read_text()
    assert "<script src=" not in page and "http" not in page.replace("http://www.w3.org", "")  # nothing fetched
    assert (
        "| kissat | pairwise |" not in page
        and '<td>kissat</td><td>pairwise</td><td class="num">3</td><td class="num">5</td>' in page
    )
    data = runs_of(out)
    assert len(data["rows"]) == len(HAND)
    by_key = {r[data["columns"].index("run_key")]: dict(zip(data["columns"], r, strict=True)) for r in data["rows"]}
    assert by_key["a1"]["output"] == f"../{OUTPUT_DIR}/a1.log"  # relative: the directory can move with its inputs
    assert (out / by_key["a1"]["output"]).read_text().startswith("c kissat")
    assert [k for k, r in by_key.items() if r["output"] is not None] == ["a1"]
    assert (by_key["c1"]["status"], by_key["c1"]["verdict"], by_key["c1"]["n"]) == ("UNSAT", "wrong", 5)
    assert by_key["a2"]["instance"] == "queens-5 pairwise" and by_key["a2"]["wall"] == 3.0
    first = {p.name: p.read_bytes() for p in out.iterdir()}
    assert main(["report", str(db), "--html", str(out)]) == 0  # an earlier report is replaced
    assert {p.name: p.read_bytes() for p in out.iterdir()} == first  # same database, same bytes
    left = sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("hand.sqlite"))  # -wal, -shm
    assert left == ["html", OUTPUT_DIR]  # no temporary directory left


@pytest.mark.parametrize(
    ("target", "message"),
    [
        (".", "is an input of the report"),  # the database's own directory: it holds the input
        ("hand.sqlite", "is an input of the report"),
        (OUTPUT_DIR, "is an input of the report"),
        ("mine", "a directory that is not a report of ours; left untouched"),
        ("file.txt", "exists and is not a directory"),
        ("no/such/dir", "does not exist"),
    ],
)
def test_html_report_refuses_a_target_it_would_damage(
    db: Path, target: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (db.parent / OUTPUT_DIR).mkdir()
    (db.parent / "mine").mkdir()
    (db.parent / "mine" / "notes.txt").write_text("keep me")
    (db.parent / "file.txt").write_text("keep me too")
    before = sorted(str(p.relative_to(db.parent)) for p in db.parent.rglob("*"))
    assert main(["report", str(db), "--html", str(db.parent / target)]) == 2
    assert message in capsys.readouterr().err
    assert sorted(str(p.relative_to(db.parent)) for p in db.parent.rglob("*")) == before
    assert (db.parent / "mine" / "notes.txt").read_text() == "keep me"


def test_html_report_is_refused_before_any_work_when_a_markdown_output_is_inside(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "html"
    out.mkdir()  # empty: a report may go there, but not with the table inside it, which the report would replace
    assert main(["report", str(db), "--html", str(out), "--markdown", str(out / "t.md")]) == 2
    assert not any(out.iterdir())


# ---- in a real browser ----


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """A headless Chromium (Debian's) driven by Playwright, one for this file's tests (a launch costs 1 s of
    CPU); checked gone afterwards, even when a test fails."""
    need_module("playwright")
    if not Path(CHROMIUM).is_file():
        need_tool(f"{CHROMIUM} not installed (scripts/install-browser.sh installs Debian's chromium)")
    from playwright.sync_api import sync_playwright

    marker = f"--cnfgen-queens-test={uuid.uuid4().hex}"  # an unknown switch, ignored by Chromium, found in /proc
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=CHROMIUM, args=[*BROWSER_ARGS, marker], timeout=60_000)
            try:
                yield b
            finally:
                b.close()
    finally:
        left = marked_processes(marker)
        for pid in left:
            os.kill(pid, 9)
        assert not left, f"the browser left processes running: {left}"


@pytest.fixture
def browser(chromium: Any) -> Iterator[Any]:
    """The shared Chromium; the pages a test opened (each in a context of its own) are closed after it."""
    yield chromium
    for context in chromium.contexts:
        context.close()


# the runs table's headings, as the report's columns name them (output and the pinned cores: where any run has one)
RUNS_HEADINGS = [
    "instance",
    "encoding",
    "N",
    "variant",
    "solver",
    "status",
    "verdict",
    "wall (s)",
    "CPU (s)",
    "peak (MB)",
    "measured by",
    "GBD hash",
    "family",
]


def _page(browser: Any, url: str) -> tuple[Any, list[str]]:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    return page, errors


def _column(page: Any, table: str, name: str) -> list[str]:
    index = page.eval_on_selector_all(f"{table} thead tr:first-child th", "ths => ths.map(t => t.dataset.col)")
    i = index.index(name) + 1
    texts: list[str] = page.eval_on_selector_all(
        f"{table} tbody tr td:nth-child({i})", "tds => tds.map(t => t.textContent)"
    )
    return texts


def test_page_sorts_filters_compares_in_headless_chromium(db: Path, tmp_path: Path, browser: Any) -> None:
    out = tmp_path / "html"
    assert main(["report", str(db), "--html", str(out)]) == 0
    page, errors = _page(browser, (out / "index.html").as_uri())
    # the overview: summary and plots, shown at once (the runs are not loaded yet)
    assert page.is_visible("#overview table.summary")
    assert (
        page.eval_on_selector_all("figure img", "imgs => imgs.map(i => i.complete && i.naturalWidth > 0)") == [True] * 3
    )
    assert page.evaluate("typeof window.cnfgenRuns") == "function"
    assert not page.evaluate("[...document.scripts].some(s => s.src.endsWith('runs.js'))")
    shot = tmp_path / "overview.png"
    page.screenshot(path=str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000

    # the runs: loaded on demand, every row (fewer than a page), sorted by a click, filtered by typing
    page.click("nav button[data-tab=runs]")
    page.wait_for_selector("#runs-table tbody tr")
    assert page.is_hidden("#overview")
    assert len(_column(page, "#runs-table", "instance")) == len(HAND)
    headings = page.eval_on_selector_all("#runs-table thead tr:first-child th", "ths => ths.map(t => t.textContent)")
    assert headings == RUNS_HEADINGS  # no kept output nor pinned cores: their columns are not shown
    page.click("#runs-table th[data-col=wall]")
    walls = sorted(r.wall for r in HAND if r.wall is not None)
    assert _column(page, "#runs-table", "wall") == [f"{w:.3f}" for w in walls] + [""]  # empty cells last
    page.click("#runs-table th[data-col=wall]")  # again: descending
    assert _column(page, "#runs-table", "wall") == [f"{w:.3f}" for w in reversed(walls)] + [""]
    page.fill("#runs-table input[data-col=solver]", "minisat")
    assert _column(page, "#runs-table", "solver") == ["minisat"] * 4
    page.fill("#runs-table input[data-col=wall]", ">0.15")
    assert _column(page, "#runs-table", "wall") == ["1.000", "0.200"]
    assert "rows 1–2 of 2 (filtered from 11)" in page.inner_text("#runs .page-info")
    page.fill("#runs-table input[data-col=solver]", "")
    page.fill("#runs-table input[data-col=wall]", "")
    page.fill("#filter-all", "wrong")  # every column: the verdict of minisat's UNSAT for N = 5
    assert _column(page, "#runs-table", "instance") == ["queens-5 pairwise"]
    page.screenshot(path=str(tmp_path / "runs.png"))

    # the comparison: kissat against minisat per instance, the speed-up and the disagreements
    page.click("nav button[data-tab=compare]")
    page.wait_for_selector("#cmp-table tbody tr")
    page.select_option("#cmp-a", "kissat")
    page.select_option("#cmp-b", "minisat")
    assert _column(page, "#cmp-table", "instance") == ["queens-5 pairwise", "queens-6 pairwise"]
    assert _column(page, "#cmp-table", "disagree") == ["SAT vs UNSAT", ""]
    summary = page.inner_text("#compare .cmp-summary")
    assert "2 runs of each side paired on 2 instances" in summary and "answers in conflict: 1" in summary
    page.select_option("#cmp-dim", "encoding")  # no solver ran pairwise and sequential on the same N
    page.select_option("#cmp-a", "pairwise")
    page.select_option("#cmp-b", "sequential")
    assert "0 runs of each side paired on 0 instances" in page.inner_text("#compare .cmp-summary")
    page.screenshot(path=str(tmp_path / "compare.png"))
    assert errors == []


def test_comparison_shows_the_speed_up_and_the_table_pages(tmp_path: Path, browser: Any) -> None:
    """5,000 runs of two solvers on 2,500 instances: the page shows 100 rows at a time, the speed-ups per instance."""
    db = tmp_path / "big.sqlite"
    with Store(db) as store:
        for i in range(2500):
            n = 4 + i % 20
            base = replace(row(f"k{i}", "kissat", "pairwise", n, "SAT", 0.5), repeat=i)
            store.add(base)
            store.add(replace(base, run_key=f"m{i}", solver="minisat", wall=0.25, cpu=0.25))
    out = tmp_path / "html"
    assert main(["report", str(db), "--html", str(out)]) == 0
    page, errors = _page(browser, (out / "index.html").as_uri())
    page.click("nav button[data-tab=runs]")
    page.wait_for_selector("#runs-table tbody tr")
    assert len(_column(page, "#runs-table", "instance")) == 100
    assert "rows 1–100 of 5,000 · page 1/50" in page.inner_text("#runs .page-info")
    page.click("#runs .next")
    assert "rows 101–200 of 5,000 · page 2/50" in page.inner_text("#runs .page-info")
    page.click("nav button[data-tab=compare]")
    page.wait_for_selector("#cmp-table tbody tr")
    assert set(_column(page, "#cmp-table", "speedup")) == {"×2.00"}  # kissat 0.5 s, minisat 0.25 s
    summary = page.inner_text("#compare .cmp-summary")
    assert "2,500 runs of each side paired on 20 instances" in summary and "×" not in summary
    verdict = page.inner_text("#compare .cmp-verdict")  # the one geometric mean: per instance, the repeats' median
    assert "Paired over 20 instances both solved" in verdict and "time A / B ×2.00" in verdict
    page.screenshot(path=str(tmp_path / "big.png"))
    assert errors == []


def test_batch_keeps_the_solver_output_and_the_page_links_it(tmp_path: Path, browser: Any) -> None:
    """keep_output: a real kissat's output per run in run-output/, linked from the runs table; none for the
    embedded solver (it prints nothing) and none without keep_output."""
    need_solver("kissat")
    results = tmp_path / "res" / "r.sqlite"
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "experiment: kept\ninstances:\n  n: [3, 5]\n  encodings: [pairwise]\n"
        f"solvers: [kissat, pysat:cadical195]\nlimits: {{time: 30}}\nresults: {results}\nkeep_output: true\n"
    )
    assert main(["batch", str(cfg), "--jobs", "1", "--no-progress"]) == 0
    rows = {(r.solver, r.n): r for r in Store(results, readonly=True).rows()}
    logs = sorted(p.name for p in (results.parent / OUTPUT_DIR).iterdir())
    assert logs == sorted(f"{rows['kissat', n].run_key}.log" for n in (3, 5))
    assert "s UNSATISFIABLE" in (results.parent / OUTPUT_DIR / f"{rows['kissat', 3].run_key}.log").read_text()
    out = tmp_path / "html"
    assert main(["report", str(results), "--html", str(out)]) == 0
    page, errors = _page(browser, (out / "index.html").as_uri())
    page.click("nav button[data-tab=runs]")
    page.wait_for_selector("#runs-table tbody tr")
    page.fill("#runs-table input[data-col=n]", "=5")
    page.fill("#runs-table input[data-col=solver]", "kissat")
    assert _column(page, "#runs-table", "output") == ["log"]
    page.click("#runs-table a")
    page.wait_for_load_state()
    assert page.url.endswith(f"/res/{OUTPUT_DIR}/{rows['kissat', 5].run_key}.log")
    assert "s SATISFIABLE" in page.inner_text("body")
    assert errors == []


def test_html_overview_table_is_not_clipped(tmp_path: Path, browser: Any) -> None:
    args = json.dumps(["--sat", "--seed=12345", "--phase=false", "--restartint=100"])
    rows = [
        replace(row(f"{s}{n}", s, enc, n, "SAT", 0.5 * n), solver_args=args)
        for s in ("kissat", "cadical")
        for enc in ("pysat:kmtotalizer", "sequential")
        for n in (8, 9)
    ]
    rows += [replace(rows[0], run_key="x", column_alo=True), replace(rows[1], run_key="y", group_size=2)]
    db = write_store(tmp_path / "runs.sqlite", rows)
    out = tmp_path / "html"
    assert main(["report", str(db), "--html", str(out)]) == 0
    page, errors = _page(browser, (out / "index.html").as_uri())
    box = page.eval_on_selector(".summary-box", "b => [b.scrollWidth, b.clientWidth]")
    assert box[0] <= box[1], box  # the whole table shows at 1400 px: nothing to scroll to
    last = page.eval_on_selector("table.summary th:last-child", "t => t.getBoundingClientRect().right")
    assert last <= 1400 and not errors
