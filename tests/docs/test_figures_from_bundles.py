"""Every figure quoted in README.md and docs/ comes from a committed bundle: each block between
``<!-- bundle: PATH -->`` and ``<!-- /bundle -->`` names a bundle (checked against its MANIFEST), and each decimal
figure inside the block is printed by that bundle's report (a figure of ``report/report.md`` or another text
member).  A results page (docs/results/*.md, README's results section) quotes no decimal figure outside such a
block, but for the exemptions below, each with its reason.  The bundles a page names are found from its markers:
a new page with markers is checked without a change here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import ROOT, in_process

from cnfgen_queens.experiments.bundle import verified

# a marker quoted in code (`<!-- bundle: PATH -->`, a page telling of them) is not one
BLOCK = re.compile(r"(?<!`)<!-- bundle: (\S+) -->(.*?)(?<!`)<!-- /bundle -->", re.S)
OPEN, CLOSE = re.compile(r"(?<!`)<!-- bundle:"), re.compile(r"(?<!`)<!-- /bundle -->")
FIGURE = re.compile(r"(?<![\d.])\d+\.\d+(?!\.?\d)")  # 0.25, 16.6, x1.07; not a version (1.5.3)
SECONDS = re.compile(r"(?<![\d.,])\d+(?= s\b)")  # a whole number of seconds (112 s), checked inside a block
NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?!\.?\d)")  # what a report prints: 112, 0.249
TEXT_MEMBERS = (".md", ".html", ".json", ".csv", ".txt")  # not plots (.svg) nor runs.js: raw values, coordinates
README_RESULTS = "## Which encoding for which N"  # README's results section, up to the next heading

# Figures a results page quotes outside a bundle block, and why (page -> figure -> reason).
EXEMPT = {
    "README.md": {
        "2.5": "count 14's time, docs/counting.md (a command's timing, not a batch study)",
        "1.1": "count 17 --torus's time, docs/counting.md (a command's timing, not a batch study)",
    },
    "docs/results/encodings.md": {
        "3.5": "an instance's size (3.5M clauses: gen-queens --list-encodings), not a measurement",
        "13.3": "an instance's size (13.3M clauses)",
        "14.4": "an instance's size (14.4M clauses)",
        "9.3": "an instance's size (9.3M clauses)",
    },
    "docs/results/completion.md": {
        "1.6": "an instance's size (1.6M clauses at N = 100), not a measurement",
    },
    "docs/results/large-n.md": {
        "8.9": "an instance's size (8.9M clauses: gen-queens --list-encodings), not a measurement",
        "34.4": "an instance's size (34.4M clauses)",
        "0.7": "a file's size (0.7 GB)",
        "0.6": "a difference of figures of large-n-200's report (with and without --column-alo), not printed",
        "1.8": "a ratio of figures of large-n-500's report (minisat against the best per encoding), not printed",
        "4.5": "a difference of figures of large-n-500's report (kissat default against --sat), not printed",
    },
}


RESULTS = ROOT / "docs" / "results"


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(RESULTS.glob("*.md"))]


def name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def figures(text: str) -> list[str]:
    return FIGURE.findall(text)


def quoted(block: str) -> list[str]:
    """The figures a block quotes: its decimal numbers and its whole numbers of seconds."""
    return figures(block) + SECONDS.findall(block)


def printed(bundle: Path) -> set[str]:
    """The numbers the bundle's text members print (the bundle checked against its MANIFEST first)."""
    members = verified(bundle)
    assert "report/report.md" in members, f"{bundle}: no report/report.md"
    text = "\n".join(data.decode("utf-8") for n, data in members.items() if n.endswith(TEXT_MEMBERS))
    return set(NUMBER.findall(text))


def blocks() -> list[tuple[str, str, str]]:
    """(page, bundle path, the block's text) of every marked block."""
    return [(name(p), m[1], m[2]) for p in pages() for m in BLOCK.finditer(p.read_text(encoding="utf-8"))]


def results_text(page: Path) -> str:
    """What the rule applies to: a docs/results page whole, README's results section."""
    text = page.read_text(encoding="utf-8")
    if page.name == "README.md":
        start = text.index(README_RESULTS)
        end = text.find("\n## ", start + len(README_RESULTS))
        text = text[start : end if end >= 0 else None]
    return text


def test_markers_are_paired_and_name_a_committed_bundle() -> None:
    for page in pages():
        text = page.read_text(encoding="utf-8")
        opened, closed = len(OPEN.findall(text)), len(CLOSE.findall(text))
        assert opened == closed == len(BLOCK.findall(text)), f"{name(page)}: unpaired bundle markers"
        for m in BLOCK.finditer(text):
            assert OPEN.search(m[2]) is None, f"{name(page)}: a bundle block inside another"
            assert (ROOT / m[1]).is_file(), f"{name(page)}: {m[1]}: no such committed bundle"


def test_every_figure_in_a_block_is_printed_by_its_bundle() -> None:
    found = blocks()
    assert {b for _, b, _ in found} >= {
        "data/results/bundles/encodings.tar.gz",
        "data/results/bundles/large-n-1000.tar.gz",
        "data/results/bundles/large-n-2000.tar.gz",
        "data/results/bundles/completion.tar.gz",
        "data/results/bundles/completion-100.tar.gz",
        "data/results/bundles/symmetry.tar.gz",
        "data/results/bundles/symmetry-torus.tar.gz",
        *(f"data/results/bundles/symmetry-unsat-n{n}.tar.gz" for n in (20, 30, 40, 50, 60)),
    }
    cache: dict[str, set[str]] = {}
    for page, bundle, text in found:
        if bundle not in cache:
            cache[bundle] = printed(ROOT / bundle)
        said = quoted(text)
        assert said, f"{page}: a block of {bundle} quotes no figure"
        missing = [f for f in said if f not in cache[bundle]]
        assert not missing, f"{page}: {missing} not printed by {bundle}'s report, in: {' '.join(text.split())[:300]}"


@pytest.mark.parametrize(
    "page",
    [ROOT / "README.md", *sorted(RESULTS.glob("*.md"))],
    ids=name,
)
def test_a_results_page_quotes_no_figure_outside_a_block(page: Path) -> None:
    outside = BLOCK.sub("", results_text(page))
    allowed = EXEMPT.get(name(page), {})
    loose = [f for f in figures(outside) if f not in allowed]
    assert not loose, f"{name(page)}: figures outside any bundle block: {loose}"


def test_a_figure_not_printed_by_its_bundle_is_found(tmp_path: Path) -> None:
    """The check itself: a quoted figure the report does not print, and one outside any block, are caught."""
    text = "<!-- bundle: data/results/bundles/large-n-1000.tar.gz -->16.6, 16.7 and 999 s<!-- /bundle --> and 3.5 s"
    ((_, bundle, inside),) = [("x", m[1], m[2]) for m in BLOCK.finditer(text)]
    assert [f for f in quoted(inside) if f not in printed(ROOT / bundle)] == ["16.7", "999"]
    assert figures(BLOCK.sub("", text)) == ["3.5"]
    assert figures("CaDiCaL 1.5.3, kissat 4.0.4: 0.25-0.36 s, x1.07.") == ["0.25", "0.36", "1.07"]


def test_a_page_command_rebuilds_its_bundles_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command named beside the N = 2000 figure, run again, writes the committed bundle's report."""
    monkeypatch.chdir(ROOT)  # the page's paths are the checkout's
    text = (ROOT / "docs" / "results" / "large-n.md").read_text(encoding="utf-8")
    command = re.search(r"cnfgen-queens (bundle \S+ --config configs/large-n-2000\.yaml[^\n`]*) -o (\S+)", text)
    assert command is not None
    out = tmp_path / "again.tar.gz"
    code, _, err = in_process([*command[1].split(), "-o", str(out)], capsys)
    assert code == 0, err
    again, committed = verified(out), verified(ROOT / command[2])
    assert again["report/report.md"] == committed["report/report.md"]
    assert again["store.sqlite"] == committed["store.sqlite"]


def rebuilt_on_its_store(
    page: str, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """The bundle command ``page`` names for ``results/NAME.sqlite``, run (from the checkout) on the store the
    committed bundle holds, with ``configs/NAME.yaml`` (the bundle's store names its own config.yaml): the new
    bundle's members and the committed one's."""
    text = (RESULTS / page).read_text(encoding="utf-8").replace("\\\n", " ")
    command = re.search(rf"cnfgen-queens bundle (results/{re.escape(name)}\.sqlite) ([^\n`]*) -o (\S+)", text)
    assert command is not None
    committed = verified(ROOT / command[3])
    copy = tmp_path / f"{name}.sqlite"
    copy.write_bytes(committed["store.sqlite"])
    out = tmp_path / "again.tar.gz"
    argv = ["bundle", str(copy), "--config", f"configs/{name}.yaml", *command[2].split(), "-o", str(out)]
    code, _, err = in_process(argv, capsys)
    assert code == 0, err
    return verified(out), committed


def test_the_symmetry_page_command_rebuilds_its_bundles_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command the symmetry page names for the tori's bundle, run on the store that bundle holds, writes the
    committed bundle's report (with its comparison and the machine's load; its HTML page but for the page's script)
    and attaches the same Ganak table."""
    monkeypatch.chdir(ROOT)  # the page's paths are the checkout's
    again, committed = rebuilt_on_its_store("symmetry.md", "symmetry-torus", tmp_path, capsys)
    assert again["report/report.md"] == committed["report/report.md"]
    assert "verdict: false faster" in again["report/report.md"].decode()
    assert again["attached/ganak-torus.md"] == committed["attached/ganak-torus.md"]
    assert again["report/html/runs.js"] == committed["report/html/runs.js"]  # the page's runs, as committed
    page, before = (unscripted(b["report/html/index.html"]) for b in (again, committed))
    assert page == before  # and the page as committed but for its script and the columns it reads


SCRIPTS = re.compile(rb'<script>\n.*?</script>\n|<script type="application/json" id="run-columns">.*?</script>\n', re.S)


def unscripted(page: bytes) -> bytes:
    """An HTML report's page without its script and the runs' columns the script reads (:mod:`.html_report`)."""
    return SCRIPTS.sub(b"", page)


def test_the_completion_page_command_rebuilds_the_n100_bundles_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command the completion page names for the N = 100 bundle, run on the store that bundle holds, writes
    the committed bundle's report (by N, with the machine's load) and attaches the study's committed tables."""
    monkeypatch.chdir(ROOT)  # the page's paths are the checkout's
    again, committed = rebuilt_on_its_store("completion.md", "completion-100", tmp_path, capsys)
    assert again["report/report.md"] == committed["report/report.md"]
    assert "N = 100: half satisfiable at K/N = 0.76" in again["attached/completion.md"].decode()
    for table in ("attached/completion.md", "attached/completion.csv"):
        assert again[table] == committed[table]


MACHINE_ROW = re.compile(rb"^\| [0-9a-f]{16} \| \d+ \| ([^|]*) \|", re.M)  # report --machines: machine, runs, hosts


def test_no_committed_bundle_names_a_host() -> None:
    """A bundle carries no host name unless asked (`bundle --with-host`): the hosts column of every machines
    table in its members, the attached reports too, says `?`."""
    for bundle in sorted((ROOT / "data" / "results" / "bundles").glob("*.tar.gz")):
        for member, data in verified(bundle).items():
            if member.endswith(".md"):
                hosts = {h.strip() for h in MACHINE_ROW.findall(data)}
                assert hosts <= {b"?"}, f"{bundle.name}: {member} names hosts {sorted(hosts)}"
