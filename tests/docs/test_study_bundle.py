"""The committed study (docs/results/study.md) and its bundle data/results/bundles/study.tar.gz: the bundle passes
its MANIFEST and carries the study's tables, and each verdict the page quotes between neighbours is what
``report --compare`` says on the bundle's store today (the Ganak verdicts: what the study's script computes from
the bundle's ``attached/ganak.csv``). That every figure quoted is printed by the bundle is checked for every page
by tests/docs/test_figures_from_bundles.py."""

from __future__ import annotations

import csv
import importlib.util
import io
import re
from typing import Any

import pytest
from helpers import ROOT

from cnfgen_queens.experiments import machine
from cnfgen_queens.experiments.bundle import store_of, verified
from cnfgen_queens.experiments.compare import compare
from cnfgen_queens.experiments.report import load_rows, shown_rows

PAGE = ROOT / "docs" / "results" / "study.md"
BUNDLE = "data/results/bundles/study.tar.gz"
QUOTED = re.compile(r"<!-- bundle: (\S+) -->(.*?)<!-- /bundle -->", re.S)
NEIGHBOURS = re.compile(r"^\| (\S+) \| (\S+) \| (\d+) \| (x[^|]*) \| ([^|]*) \| ([^|]*(?:faster|difference)[^|]*) \|$")


def _script(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bundle() -> dict[str, bytes]:
    """The members of the committed bundle, each checked against its MANIFEST."""
    return verified(ROOT / BUNDLE)


def quoted() -> str:
    """The page's text between its bundle markers (every one names the study's bundle)."""
    found = QUOTED.findall(PAGE.read_text(encoding="utf-8"))
    assert found and {name for name, _ in found} == {BUNDLE}
    return "\n".join(text for _, text in found)


def test_the_study_bundle_passes_its_manifest_and_carries_its_tables(bundle: dict[str, bytes]) -> None:
    wanted = ["store.sqlite", "config.yaml", "report/report.md", "attached/ganak.csv", "attached/ganak.md"]
    wanted += ["attached/neighbours.md", "attached/medians.md", "attached/check-encoding.txt"]
    assert set(wanted) <= set(bundle), set(wanted) - set(bundle)


def test_the_quoted_verdicts_are_the_stores(bundle: dict[str, bytes]) -> None:
    """Each neighbours row quoted (A, B, pairs, ratio and interval, p, verdict) is recomputed from the store."""
    listing = bundle["attached/neighbours.md"].decode("utf-8").splitlines()
    rows = [NEIGHBOURS.match(line.strip()) for line in quoted().splitlines()]
    rows = [m for m in rows if m is not None]
    assert len(rows) >= 4
    with store_of(ROOT / BUNDLE) as db:
        runs = shown_rows(load_rows(db))
        platforms = machine.platform_names(machine.stored(db))
    for m in rows:
        line = m[0].strip()
        assert line in listing, line
        heading = next(x for x in reversed(listing[: listing.index(line)]) if x.startswith("task "))
        task, time = heading.split()[1].rstrip(":"), heading.partition("PAR-2 (")[2].split()[0]
        c = compare([r for r in runs if r.task == task], m[1], m[2], time=time, platforms=platforms)
        ratio = f"x{c.geomean:.3g}" + ("" if c.ci_low is None else f" (x{c.ci_low:.3g} to x{c.ci_high:.3g})")
        p = "" if c.p_value is None else f"{c.p_value:.3g}"
        assert (str(c.pairs), ratio, p, c.verdict) == (m[3], m[4].strip(), m[5].strip(), m[6].strip()), line


def test_the_quoted_ganak_verdict_is_its_csv(bundle: dict[str, bytes]) -> None:
    """The Ganak tables and comparisons (with / without --break-symmetry), recomputed from the bundle's ganak.csv
    by the study's script, are the bundle's ganak.md; the lines the page quotes are among them."""
    rows = list(csv.DictReader(io.StringIO(bundle["attached/ganak.csv"].decode("utf-8"))))
    text = _script("study_ganak").markdown(rows)
    assert text == bundle["attached/ganak.md"].decode("utf-8")
    for line in quoted().splitlines():
        if line.startswith(("time A / B", "Wilcoxon", "verdict:")):
            assert line in text.splitlines(), line
