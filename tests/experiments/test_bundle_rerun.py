"""bundle, rerun and report --against with real solvers: a round trip that reproduces, the same bytes from the
same store, a tampered member refused, an instance whose GBD hash differs refused, a changed solver binary and
a changed tool version stated, a lying solver shown as a changed answer."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import shutil
import sqlite3
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest
from helpers import CLI_ENTRY, ROOT, in_process, need_module, need_solver, pigeonhole
from test_report_html import _page as open_page
from test_report_html import browser, chromium  # noqa: F401 (fixtures: the one headless Chromium)

from cnfgen_queens.experiments.bundle import store_of
from cnfgen_queens.experiments.config import load
from cnfgen_queens.experiments.grid import build
from cnfgen_queens.experiments.rerun import cell_of, sample


def write_config(folder: Path, name: str, body: str) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(f"experiment: {name}\n{body}limits: {{time: 30}}\nresults: {folder / name / 'results.sqlite'}\n")
    return path


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(results, bundle) of N 4..6, two encodings, the embedded CaDiCaL and MiniSat."""
    need_solver("minisat")
    folder = tmp_path_factory.mktemp("tiny")
    cfg = write_config(
        folder,
        "tiny",
        "instances: {n: {from: 4, to: 6}, encodings: [pairwise, sequential]}\nsolvers: [pysat:cadical195, minisat]\n",
    )
    from cnfgen_queens.cli import main

    bundle = folder / "tiny.tar.gz"
    assert main(["batch", str(cfg), "-j", "2", "--no-progress", "--bundle", str(bundle)]) == 0
    return folder / "tiny" / "results.sqlite", bundle


def members(path: Path) -> dict[str, bytes]:
    with tarfile.open(path, "r:gz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar}  # type: ignore[union-attr]


def rewrite(path: Path, target: Path, changed: dict[str, bytes], *, fix_manifest: bool) -> Path:
    """A copy of the bundle ``path`` at ``target`` with members replaced; its MANIFEST made to agree or left."""
    files = members(path) | changed
    if fix_manifest:
        names = sorted(n for n in files if n != "MANIFEST")
        files["MANIFEST"] = "".join(f"{hashlib.sha256(files[n]).hexdigest()}  {n}\n" for n in names).encode()
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, data in sorted(files.items()):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    target.write_bytes(gzip.compress(raw.getvalue()))
    return target


def test_round_trip_reproduced(tiny: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, bundle = tiny
    new = tmp_path / "new.sqlite"
    code, out, err = in_process(["rerun", str(bundle), "--results", str(new), "-j", "2", "--no-progress"], capsys)
    assert code == 0, err
    assert "6 instances regenerated, each with the bundle's GBD hash" in err
    assert "every solver as in the bundle" in err
    assert "12 runs done (12 solved)" in out
    code, out, err = in_process(["report", str(new), "--against", str(bundle)], capsys)
    assert code == 0, err
    assert out.splitlines()[0] == "reproduced: all 12 paired runs gave the same answers"
    assert "| minisat pairwise | 3 |" in out
    code, out, _ = in_process(["rerun", str(bundle), "--results", str(new), "--no-progress"], capsys)
    assert code == 0 and "0 runs done (0 solved), 12 already stored" in out  # resumable: nothing left


def test_same_store_same_bytes_without_host(tiny: tuple[Path, Path], tmp_path: Path) -> None:
    from cnfgen_queens.cli import main

    results, bundle = tiny
    again = tmp_path / "other-name.tar.gz"
    assert main(["bundle", str(results), "-o", str(again)]) == 0
    assert again.read_bytes() == bundle.read_bytes()
    found = members(bundle)
    assert sorted(found)[:5] == ["MANIFEST", "README.md", "bundle.json", "config.yaml", "report/html/cactus.svg"]
    copy = tmp_path / "store.sqlite"
    copy.write_bytes(found["store.sqlite"])
    with sqlite3.connect(copy) as db:
        assert db.execute("SELECT COUNT(*) FROM runs WHERE host IS NOT NULL").fetchone() == (0,)
        assert db.execute("SELECT DISTINCT host, pid FROM batches").fetchall() == [("", 0)]
    for name, data in found.items():
        assert str(Path.home()).encode() not in data and str(tmp_path.parent).encode() not in data, name
    info = json.loads(found["bundle.json"])
    assert {i["command"] for i in info["instances"]} >= {"gen-queens 4 --encoding pairwise"}
    assert all(len(s["binary_sha256"] or "") in (0, 64) for s in info["solvers"])


def test_tampered_member_refused(tiny: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results, bundle = tiny
    report = members(bundle)["report/report.md"].replace(b"pairwise", b"PAIRWISE")
    bad = rewrite(bundle, tmp_path / "bad.tar.gz", {"report/report.md": report}, fix_manifest=False)
    for argv in (
        ["rerun", str(bad), "--results", str(tmp_path / "n.sqlite")],
        ["report", str(results), "--against", str(bad)],
    ):
        code, out, err = in_process(argv, capsys)
        assert code == 2 and out == ""
        assert err.strip().endswith("member report/report.md does not match its SHA-256 in the MANIFEST: refused")
        assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "n.sqlite").exists()


def test_instance_of_another_hash_refused(
    tiny: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bundle made to agree with its MANIFEST but naming another GBD hash: the regenerated instance is refused."""
    _, bundle = tiny
    info = json.loads(members(bundle)["bundle.json"])
    info["instances"][0]["gbd_hash"] = "0" * 32
    forged = rewrite(bundle, tmp_path / "f.tar.gz", {"bundle.json": json.dumps(info).encode()}, fix_manifest=True)
    code, out, err = in_process(["rerun", str(forged), "--results", str(tmp_path / "n.sqlite")], capsys)
    assert code == 2 and out == ""
    assert f"{'0' * 32} in the bundle: refused" in err and "regenerated here" in err


def test_changed_tool_version_reported(
    tiny: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results, _ = tiny
    old = tmp_path / "old.sqlite"
    with sqlite3.connect(results) as src, sqlite3.connect(old) as dst:
        src.backup(dst)
        dst.execute("UPDATE machines SET info = json_set(info, '$.tool_version', '0.1.9')")
    code, out, err = in_process(["report", str(results), "--against", str(old)], capsys)
    assert code == 0, err
    assert out.startswith("reproduced: all 12 paired runs")
    assert "provenance: cnfgen-queens version: 0.1.9 in OLD, 0.2.0 in NEW" in out


HONEST = '#!/bin/sh\nexec cadical -q "$@"\n'
LIAR = '#!/bin/sh\n# a solver that says UNSAT to everything\necho "s UNSATISFIABLE"\nexit 20\n'


def test_changed_binary_stated_and_lying_solver_a_changed_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    need_solver("cadical")
    script = tmp_path / "mysat"
    script.write_text(HONEST)
    script.chmod(0o755)
    solver = f'solvers:\n  - {{name: mysat, command: "{script} {{cnf}}", output: competition}}\n'
    cfg = write_config(tmp_path, "mine", "instances: {n: [4, 5], encodings: [pairwise]}\n" + solver)
    bundle = tmp_path / "mine.tar.gz"
    code, out, err = in_process(["batch", str(cfg), "-j", "2", "--no-progress", "--bundle", str(bundle)], capsys)
    assert code == 0, err
    script.write_text(LIAR)  # the same path, other bytes: the config's hash is the same, the binary is not
    new = tmp_path / "new.sqlite"
    code, out, err = in_process(["rerun", str(bundle), "--results", str(new), "--strict", "--no-progress"], capsys)
    assert code == 2 and out == ""
    assert "difference: solver mysat: binary SHA-256" in err and "(--strict): nothing run" in err
    code, out, err = in_process(["rerun", str(bundle), "--results", str(new), "--no-progress"], capsys)
    assert code == 0, err
    assert "difference: solver mysat: binary SHA-256" in err
    code, out, err = in_process(["report", str(new), "--against", str(bundle)], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "not reproduced: 2 of 2 runs changed answer (2 with a wrong answer), in mysat pairwise"
    assert "| mysat pairwise | n=4 | 0 | SAT | wrong (UNSAT) |" in out


def test_sample_is_seeded_per_cell(tmp_path: Path) -> None:
    cfg = tmp_path / "s.yaml"
    cfg.write_text(
        "instances: {n: [4, 5], encodings: [pairwise], shuffle_seeds: [1, 2, 3]}\nsolvers: [pysat:cadical195]\n"
        "limits: {time: 10}\nrepeats: 2\n"
    )
    runs = build(load(cfg))
    chosen = sample(runs, 2, seed=7)
    assert chosen == sample(runs, 2, seed=7) and len(chosen) == 4  # 2 cells (N 4, 5) of 6 runs each
    assert sorted(cell_of(r)[3] for r in runs if r.key in chosen) == [4, 4, 5, 5]
    assert sample(runs, 10, seed=7) == frozenset(r.key for r in runs)


def rejudged(results: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """What ``report RESULTS --rejudge`` prints (it must succeed)."""
    code, out, err = in_process(["report", str(results), "--rejudge"], capsys)
    assert code == 0, err
    return out


def test_rejudge_lists_the_runs_whose_verdict_would_change(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Kept output that today's parser and judge read otherwise than the stored row (here an honest run's log
    replaced by a liar's UNSAT) is listed; the other runs' kept output (models checked again, the liar's UNSAT
    judged wrong again) changes nothing."""
    need_solver("cadical")
    for name, text in (("honest", HONEST), ("liar", LIAR)):
        (tmp_path / name).write_text(text)
        (tmp_path / name).chmod(0o755)
    solvers = "".join(
        f'  - {{name: {n}, command: "{tmp_path / n} {{cnf}}", output: competition}}\n' for n in ("honest", "liar")
    )
    cfg = write_config(
        tmp_path, "kept", "instances: {n: [4, 5], encodings: [pairwise]}\nkeep_output: true\nsolvers:\n" + solvers
    )
    code, _, err = in_process(["batch", str(cfg), "-j", "2", "--no-progress"], capsys)
    assert code == 0, err
    results = tmp_path / "kept" / "results.sqlite"
    out = rejudged(results, capsys)
    assert "rejudge: 4 runs' kept output read again; 0 verdict(s) would change" in out
    with sqlite3.connect(results) as db:
        (key,) = db.execute("SELECT run_key FROM runs WHERE solver = 'honest' AND n = 4").fetchone()
    (tmp_path / "kept" / "run-output" / f"{key}.log").write_text("s UNSATISFIABLE\n")
    out = rejudged(results, capsys)
    assert "rejudge: 4 runs' kept output read again; 1 verdict(s) would change" in out
    assert f"| {key} | honest | n=4 pairwise | SAT | wrong (UNSAT) |" in out


def test_rejudge_reads_a_kept_result_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """MiniSat answers in a result file: the batch keeps it beside the log (``<run key>.result``) and
    ``--rejudge`` reads it again; a result file changed to a wrong model is listed, a missing one skipped."""
    need_solver("minisat")
    grid = "instances: {n: [3, 5], encodings: [pairwise]}\nkeep_output: true\nsolvers: [minisat]\n"
    cfg = write_config(tmp_path, "kept", grid)
    code, _, err = in_process(["batch", str(cfg), "--no-progress"], capsys)
    assert code == 0, err
    results = tmp_path / "kept" / "results.sqlite"
    out = rejudged(results, capsys)
    assert "rejudge: 2 runs' kept output read again; 0 verdict(s) would change" in out
    with sqlite3.connect(results) as db:
        keys = dict(db.execute("SELECT n, run_key FROM runs"))
    kept = tmp_path / "kept" / "run-output"
    assert (kept / f"{keys[5]}.result").read_text().startswith("SAT\n")
    (kept / f"{keys[5]}.result").write_text("SAT\n" + " ".join(str(-v) for v in range(1, 26)) + " 0\n")
    (kept / f"{keys[3]}.result").unlink()
    out = rejudged(results, capsys)
    assert "1 skipped: the answer was in a result file (not kept); 1 verdict(s) would change" in out
    assert f"| {keys[5]} | minisat | n=5 pairwise | SAT | wrong (SAT) |" in out


def test_file_instances_travel_with_instances_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """DIMACS files of instances.files: named by hash in a bundle (rerun refuses: nothing to run them on), or
    inside it with --with-instances (rerun reproduces)."""
    need_solver("minisat")
    (tmp_path / "cnfs").mkdir()
    pigeonhole(tmp_path / "cnfs" / "php-4-3.cnf", 3)
    (tmp_path / "cnfs" / "easy.cnf").write_text("p cnf 2 2\n1 2 0\n-1 0\n")
    cfg = write_config(tmp_path, "files", "instances: {files: [cnfs/*.cnf]}\nsolvers: [minisat]\n")
    assert in_process(["batch", str(cfg), "--no-progress"], capsys)[0] == 0
    results = tmp_path / "files" / "results.sqlite"
    for flags, member in (([], False), (["--with-instances"], True)):
        bundle = tmp_path / f"b{len(flags)}.tar.gz"
        code, _, err = in_process(["bundle", str(results), "-o", str(bundle), *flags], capsys)
        assert code == 0, err
        assert ("instances/cnfs/php-4-3.cnf" in members(bundle)) is member
        new = tmp_path / f"new{len(flags)}.sqlite"
        code, out, err = in_process(["rerun", str(bundle), "--results", str(new), "--no-progress"], capsys)
        if not member:
            assert code == 2 and "named by hash only (bundled without --with-instances)" in err
            continue
        assert code == 0, err
        code, out, err = in_process(["report", str(new), "--against", str(bundle)], capsys)
        assert code == 0 and out.startswith("reproduced: all 2 paired runs"), out + err


def test_html_report_has_an_against_tab_linked_by_its_name(
    tiny: tuple[Path, Path],
    tmp_path: Path,
    browser: Any,  # noqa: F811 (the fixture imported above)
    capsys: pytest.CaptureFixture[str],
) -> None:
    results, bundle = tiny
    out = tmp_path / "html"
    code, _, err = in_process(["report", str(results), "--against", str(bundle), "--html", str(out)], capsys)
    assert code == 0, err
    page, errors = open_page(browser, (out / "index.html").as_uri() + "#against")
    assert page.is_visible("#against") and page.is_hidden("#overview")
    assert page.text_content("#against .against-headline").startswith("reproduced: all 12 paired runs")
    page.click("nav button[data-tab=overview]")
    assert page.is_hidden("#against") and page.is_visible("#overview")
    page.click("nav button[data-tab=against]")
    assert page.evaluate("location.hash") == "#tab=against"
    assert errors == []


def test_bad_inputs_are_one_line_refusals(
    tiny: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results, bundle = tiny
    text = tmp_path / "notes.txt"
    text.write_text("not a bundle\n")
    runs = ROOT / "data" / "results" / "encodings-runs.csv"
    cases = [
        (
            ["bundle", str(tmp_path / "none.sqlite"), "-o", str(tmp_path / "b.tar.gz")],
            "none.sqlite: no such results file",
        ),
        (["bundle", str(results), "-o", str(results)], "is the same file as the input"),
        (["bundle", str(results), "-o", str(bundle)], ""),  # a bundle may be replaced
        (["rerun", str(text), "--results", str(tmp_path / "n.sqlite")], "notes.txt: not a readable bundle"),
        (["rerun", str(results), "--results", str(tmp_path / "n.sqlite")], "not a readable bundle"),
        (["bundle", str(runs), "-o", str(tmp_path / "b.tar.gz")], "a runs CSV: give the config that ran its runs"),
        (
            ["bundle", str(runs), "--config", str(ROOT / "configs" / "smoke.yaml"), "-o", str(tmp_path / "b.tar.gz")],
            "the runs are of config hash(es) d6d7de5832af0cf7, not 597d6d0d77a90eca",
        ),
    ]
    for argv, said in cases:
        code, _, err = in_process(argv, capsys)
        if not said:
            assert code == 0, err
            continue
        assert code == 2 and said in err and len(err.strip().splitlines()) == 1, (argv, err)
    assert not (tmp_path / "n.sqlite").exists() and not (tmp_path / "b.tar.gz").exists()


def test_rerun_of_a_sample_on_dask(tiny: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The rerun is a batch: on the Dask executor too, a sample of one run per cell (here every run: one
    seed, one repeat) reproduces."""
    need_module("dask.distributed")
    _, bundle = tiny
    new = tmp_path / "dask.sqlite"
    argv = ["rerun", str(bundle), "--results", str(new), "--sample", "1", "--executor", "dask", "-j", "2"]
    code, out, err = in_process([*argv, "--no-progress"], capsys)
    assert code == 0, err
    assert "12 runs done (12 solved)" in out
    code, out, err = in_process(["report", str(new), "--against", str(bundle)], capsys)
    assert code == 0 and out.startswith("reproduced: all 12 paired runs"), out + err


def test_a_plugin_travels_in_the_bundle(tmp_path: Path) -> None:
    """The plugin's source is a member; the rerun loads that copy (the original is gone), and reproduces.  In
    processes of their own: a plugin's registration lasts as long as its process."""
    example = ROOT / "examples" / "queens-plugin-example" / "queens_plugin_example.py"
    grid = tmp_path / "grid"
    grid.mkdir()
    (grid / "twolevel.py").write_bytes(example.read_bytes())
    body = "plugins: [twolevel.py]\ninstances: {n: [6, 8], encodings: [twolevel]}\nsolvers: [pysat:cadical195]\n"
    cfg = write_config(grid, "plug", body)
    bundle = tmp_path / "plug.tar.gz"

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-c", CLI_ENTRY, *args]
        return subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=240)

    done = cli("batch", str(cfg), "--no-progress", "--bundle", str(bundle))
    assert done.returncode == 0, done.stderr
    found = members(bundle)
    assert found["plugins/0-twolevel.py"] == example.read_bytes()
    assert "gen-queens 8 --encoding twolevel --plugin plugins/0-twolevel.py" in found["bundle.json"].decode()
    shutil.rmtree(grid)
    new = tmp_path / "again" / "new.sqlite"
    done = cli("rerun", str(bundle), "--results", str(new), "--no-progress")
    assert done.returncode == 0, done.stderr
    done = cli("report", str(new), "--against", str(bundle))
    assert done.returncode == 0 and done.stdout.startswith("reproduced: all 2 paired runs"), done.stdout + done.stderr


def test_a_runs_csv_of_several_configs_bundles_the_runs_of_the_one_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The large-N runs CSV holds five configs' runs: the N = 2000 stage's bundle takes its own 6 and the 3 of
    the copy run on its seed 2 (other hash, the same run keys), leaves the rest out and says so; its config
    (34.4M clauses shuffled, above today's shuffle guard) is read as the record of runs made; the report's
    options are recorded and used."""
    runs = ROOT / "data" / "results" / "large-n" / "large-n-runs.csv"
    out = tmp_path / "stage.tar.gz"
    argv = ["bundle", str(runs), "--config", str(ROOT / "configs" / "large-n-2000.yaml"), "--time", "cpu"]
    code, _, err = in_process([*argv, "-o", str(out)], capsys)
    assert code == 0, err
    assert f"{runs}: 306 run(s) of other configs left out" in err
    found = members(out)
    info = json.loads(found["bundle.json"])
    assert info["runs"] == 9 and info["report"]["time"] == "cpu"
    assert "--time cpu" in found["README.md"].decode()
    report = found["report/report.md"].decode()
    assert "median solved (CPU s)" in report and "| cadical | product | 3 | 3 | 3 | 0 | 0 |" in report
    with store_of(out) as db:
        hashes = sqlite3.connect(db).execute("SELECT config_hash, COUNT(*) FROM runs GROUP BY 1").fetchall()
    assert sorted(n for _, n in hashes) == [3, 6]


def test_the_report_options_of_a_bundle(tiny: tuple[Path, Path], tmp_path: Path) -> None:
    """``bundle --by n``: the bundle's report/report.md is the table per N, as `report --by n` prints it."""
    from cnfgen_queens.cli import main

    results, _ = tiny
    out = tmp_path / "by-n.tar.gz"
    assert main(["bundle", str(results), "--by", "n", "-o", str(out)]) == 0
    found = members(out)
    assert found["report/report.md"].decode().startswith("| N | solver | encoding |")
    assert json.loads(found["bundle.json"])["report"] == {
        "by": ["n"],
        "time": "wall",
        "command": "cnfgen-queens report store.sqlite --by n --time wall",
    }


def test_attached_files_travel_checked_by_the_manifest(
    tiny: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``bundle --attach FILE``: a study's other tables ride in ``attached/NAME``, listed in the MANIFEST and in
    bundle.json; a changed attached member is refused like any other; an unreadable file or two of one name is a
    one-line refusal, nothing written."""
    from cnfgen_queens.experiments.bundle import verified

    results, _ = tiny
    notes = tmp_path / "ganak.md"
    notes.write_text("| pairwise | 8 | 92 | 1.19 |\n")
    out = tmp_path / "with.tar.gz"
    code, _, err = in_process(["bundle", str(results), "-o", str(out), "--attach", str(notes)], capsys)
    assert code == 0, err
    found = verified(out)
    assert found["attached/ganak.md"] == notes.read_bytes()
    assert json.loads(found["bundle.json"])["attached"] == ["attached/ganak.md"]
    lying = {"attached/ganak.md": b"| pairwise | 8 | 92 | 0.01 |\n"}
    changed = rewrite(out, tmp_path / "bad.tar.gz", lying, fix_manifest=False)
    code, _, err = in_process(["rerun", str(changed), "--results", str(tmp_path / "n.sqlite")], capsys)
    assert code == 2 and err.strip().endswith(
        "member attached/ganak.md does not match its SHA-256 in the MANIFEST: refused"
    )
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "ganak.md").write_text("another\n")
    for attach, said in (
        ([str(tmp_path / "none.md")], "--attach: cannot read"),
        ([str(notes), str(tmp_path / "other" / "ganak.md")], "--attach: two files named 'attached/ganak.md'"),
    ):
        target = tmp_path / "refused.tar.gz"
        argv = ["bundle", str(results), "-o", str(target)] + [x for a in attach for x in ("--attach", a)]
        code, _, err = in_process(argv, capsys)
        assert code == 2 and said in err and len(err.strip().splitlines()) == 1, err
        assert not target.exists()
    assert not (tmp_path / "n.sqlite").exists()


def test_a_bundle_report_carries_the_comparison_as_report_compare_prints_it(
    tiny: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``bundle --machines --compare A B``: report/report.md is what the recorded command (`report --machines
    --compare A B`) prints from the bundle's store, the table, the machine with the load at the runs' start and
    the comparison's verdict; bundle.json records them; the same store gives the same bytes; a pair that names
    nothing in the runs is a one-line refusal, nothing written."""
    from cnfgen_queens.experiments.bundle import verified

    results, _ = tiny
    outs = [tmp_path / f"compare-{i}.tar.gz" for i in (1, 2)]
    for out in outs:
        argv = ["bundle", str(results), "--machines", "--time", "cpu", "--compare", "minisat", "pysat:cadical195"]
        code, _, err = in_process([*argv, "-o", str(out)], capsys)
        assert code == 0, err
    assert outs[0].read_bytes() == outs[1].read_bytes()
    found = verified(outs[0])
    recorded = json.loads(found["bundle.json"])["report"]
    assert recorded == {
        "by": [],
        "time": "cpu",
        "compare": ["minisat", "pysat:cadical195"],
        "machines": True,
        "command": "cnfgen-queens report store.sqlite --machines --time cpu --compare minisat pysat:cadical195",
    }
    store = tmp_path / "store.sqlite"
    store.write_bytes(found["store.sqlite"])
    code, printed, err = in_process(["report", str(store), *recorded["command"].split()[3:]], capsys)
    assert code == 0, err
    report = found["report/report.md"].decode()
    assert report == printed
    assert "\nmachines: 1\n" in report and "| load at start (median, max) |" in report
    assert "compare solver: A = minisat, B = pysat:cadical195 (cpu time;" in report
    assert "instances run by both: 6; solved by both: 6" in report and "\nverdict: " in report
    refused = tmp_path / "refused.tar.gz"
    argv = ["bundle", str(results), "--compare", "minisat", "glucose", "-o", str(refused)]
    code, _, err = in_process(argv, capsys)
    assert code == 2 and "--compare 'glucose'" in err and len(err.strip().splitlines()) == 1, err
    assert not refused.exists()
