"""Files written by an earlier release stay readable, or are refused with a sentence naming the version
that wrote them.  tests/data/release-0.1.0/ holds what 0.1.0 wrote (see its README): a results store of a
4-run batch and the certificate of ``count 6 --certify``; these fixtures never change, whatever the
store's schema or the certificate's format becomes."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from helpers import ROOT, run_cli

from cnfgen_queens import __version__

FIXTURES = ROOT / "tests" / "data" / "release-0.1.0"


def _copy(tmp_path: Path) -> Path:
    """The fixtures copied (reading never changes them; a test that breaks that breaks only its copy)."""
    shutil.copytree(FIXTURES, tmp_path / "release", copy_function=shutil.copy)
    return tmp_path / "release"


def test_fixtures_name_the_release_that_wrote_them() -> None:
    db = sqlite3.connect(f"file:{FIXTURES / 'store.sqlite'}?mode=ro&immutable=1", uri=True)
    try:
        meta = dict(db.execute("SELECT key, value FROM meta"))
    finally:
        db.close()
    assert meta["schema_version"] == "1"
    assert meta["written_by"] == meta["created_by"] == "cnfgen-queens 0.1.0"
    manifest = json.loads((FIXTURES / "certificate" / "manifest.json").read_text())
    assert (manifest["format"], manifest["written_by"]) == ("cnfgen-queens count certificate 1", "cnfgen-queens 0.1.0")


def test_report_reads_the_release_store(tmp_path: Path) -> None:
    """The 0.1.0 store: its 4 runs (N = 4, 5 x pairwise, commander on the embedded CaDiCaL) in the table."""
    copy = _copy(tmp_path)
    run = run_cli(["report", "store.sqlite"], copy)
    assert run.code == 0, run.err
    rows = [line.split("|")[1:-1] for line in run.out.splitlines() if line.startswith("| pysat:cadical195 ")]
    assert sorted(r[1].strip() for r in rows) == ["commander", "pairwise"], run.out
    assert all(r[2].strip() == "2" for r in rows), run.out  # runs: N = 4 and 5
    html = run_cli(["report", "store.sqlite", "--html", str(tmp_path / "page")], copy, timeout=240)
    assert html.code == 0, html.err
    assert "</html>" in (tmp_path / "page" / "index.html").read_text()


def test_library_loads_the_release_store() -> None:
    import cnfgen_queens as cq

    rows = cq.load_results(FIXTURES / "store.sqlite")
    assert sorted((r["n"], r["encoding"]) for r in rows) == [
        (4, "commander"),
        (4, "pairwise"),
        (5, "commander"),
        (5, "pairwise"),
    ]
    assert {(r["status"], r["verified"]) for r in rows} == {("SAT", True)}


def test_check_count_reads_the_release_certificate(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    run = run_cli(["check-count", "certificate", "--checker", "dratify"], copy, timeout=240)
    assert run.code == 0, run.err
    assert run.out.splitlines()[0] == "certified count: 4"  # A000170(6)


def test_a_store_of_another_schema_is_refused_naming_its_writer(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    for path in (copy / "store.sqlite", copy / "old.sqlite"):
        if not path.exists():
            shutil.copy(copy / "store.sqlite", path)
        db = sqlite3.connect(path)
        db.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
        if path.name == "store.sqlite":
            db.execute("UPDATE meta SET value = 'cnfgen-queens 9.1.0' WHERE key = 'written_by'")
        else:
            db.execute("DELETE FROM meta WHERE key IN ('written_by', 'created_by')")
        db.commit()
        db.close()
    run = run_cli(["report", "store.sqlite"], copy)
    run.one_line(
        2,
        "results schema version 2, written by 'cnfgen-queens 9.1.0'",
        f"this is cnfgen-queens {__version__}, which reads schema version 1",
    )
    run = run_cli(["report", "old.sqlite"], copy)
    run.one_line(2, "written by cnfgen-queens 0.1.0 or earlier (its meta names no writer)")


def test_a_certificate_of_another_format_is_refused_naming_its_writer(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    path = copy / "certificate" / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["format"], manifest["written_by"] = "cnfgen-queens count certificate 2", "cnfgen-queens 9.1.0"
    path.write_text(json.dumps(manifest))
    run = run_cli(["check-count", "certificate"], copy)
    run.one_line(
        2,
        "format 'cnfgen-queens count certificate 2', written by 'cnfgen-queens 9.1.0'",
        f"this is cnfgen-queens {__version__}",
    )


def test_what_this_version_writes_names_it(tmp_path: Path) -> None:
    """A new store and a new certificate record this version (created_by stays with the first writer)."""
    from cnfgen_queens.experiments.store import Store

    path = tmp_path / "new.sqlite"
    Store(path).close()
    db = sqlite3.connect(path)
    meta = dict(db.execute("SELECT key, value FROM meta"))
    db.execute("UPDATE meta SET value = 'cnfgen-queens 0.0.9' WHERE key = 'created_by'")
    db.execute("UPDATE meta SET value = 'cnfgen-queens 0.0.9' WHERE key = 'written_by'")
    db.commit()
    db.close()
    assert meta["created_by"] == meta["written_by"] == f"cnfgen-queens {__version__}"
    Store(path).close()  # a writer opens it: written_by moves, created_by stays
    db = sqlite3.connect(path)
    meta = dict(db.execute("SELECT key, value FROM meta"))
    db.close()
    assert (meta["created_by"], meta["written_by"]) == ("cnfgen-queens 0.0.9", f"cnfgen-queens {__version__}")
    run = run_cli(["count", "4", "--certify", "cert"], tmp_path, timeout=240)
    assert run.code == 0, run.err
    manifest = json.loads((tmp_path / "cert" / "manifest.json").read_text())
    assert manifest["written_by"] == f"cnfgen-queens {__version__}"
