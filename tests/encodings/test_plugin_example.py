"""The worked example of docs/plugins.md: the committed bundle of an encoding of one's own (the example plugin,
two-level pairwise) against commander passes its manifest and carries the plugin's source; the report and the
comparison the page quotes are what ``report`` says of the bundle's store; and one cell of the bundle reruns
here, its plugin loaded from the bundle, its instances regenerated with the bundle's GBD hashes."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, in_process, need_solver

from cnfgen_queens.experiments.bundle import store_of, verified
from cnfgen_queens.experiments.report import load_rows

BUNDLE = ROOT / "data" / "results" / "bundles" / "plugin-example.tar.gz"
CONFIG = ROOT / "configs" / "plugin-example.yaml"
PLUGIN = ROOT / "examples" / "queens-plugin-example" / "queens_plugin_example.py"
PAGE = ROOT / "docs" / "plugins.md"
SECTION = "## A worked example: your encoding against commander"
COMPARE = ["--compare", "encoding=twolevel", "encoding=commander"]


def section() -> str:
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    return text[start : end if end >= 0 else len(text)]


def text_blocks(text: str) -> list[list[str]]:
    return [b.splitlines() for b in re.findall(r"^```text\n(.*?)^```$", text, flags=re.M | re.S)]


def report(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """``cnfgen-queens report STORE ARGS`` on the committed bundle's store (checked against its MANIFEST)."""
    with store_of(BUNDLE) as db:
        code, out, err = in_process(["report", str(db), *args], capsys)
    assert code == 0, err
    return out


def figures(out: str) -> tuple[str, str, str, str]:
    """(geometric mean, interval low, high, verdict) of a comparison's output."""
    found = re.search(r"geometric mean over \d+: x(\S+) \(95% CI x(\S+) to x(\S+)\)", out)
    verdict = re.search(r"^verdict: (.+)$", out, flags=re.M)
    assert found is not None and verdict is not None, out
    return found[1], found[2], found[3], verdict[1]


def test_the_committed_bundle_passes_its_manifest_and_carries_the_plugin() -> None:
    members = verified(BUNDLE)  # BundleError naming a member that disagrees with the MANIFEST
    assert members["plugins/0-queens_plugin_example.py"] == PLUGIN.read_bytes()
    info = json.loads(members["bundle.json"])
    assert info["experiment"] == "plugin-example" and info["runs"] == 324
    assert not info["with_host"]
    commands = {i["command"] for i in info["instances"]}
    assert "gen-queens 16 --encoding twolevel --shuffle 0 --plugin plugins/0-queens_plugin_example.py" in commands
    assert len(info["instances"]) == 36 and all(i["gbd_hash"] for i in info["instances"])
    assert len(BUNDLE.read_bytes()) < 200_000  # small enough to commit


def test_the_table_the_page_quotes_is_the_bundles_report() -> None:
    marked = re.search(
        r"<!-- bundle: data/results/bundles/plugin-example.tar.gz -->\n(.*?)<!-- /bundle -->", section(), flags=re.S
    )
    assert marked is not None
    (table,) = text_blocks(marked[1])
    assert table == verified(BUNDLE)["report/report.md"].decode().splitlines()


def test_the_page_quotes_the_comparison_of_the_bundles_store(capsys: pytest.CaptureFixture[str]) -> None:
    """The quoted output of ``report store.sqlite --machines --time cpu --compare ...`` line for line, and the wall
    time and per-solver figures of the prose."""
    text = section()
    quoted = [b for b in text_blocks(text) if b[0].startswith("$ cnfgen-queens report store.sqlite ")]
    assert len(quoted) == 1
    args = shlex.split(quoted[0][0])[4:]
    assert args[-3:] == COMPARE and "--time" in args
    assert report(args, capsys).splitlines() == quoted[0][1:]
    assert quoted[0][-1] == "verdict: commander faster"

    prose = " ".join(text.split())
    mean, low, high, verdict = figures(report(COMPARE, capsys))
    assert f"(`--time wall`, the default: x{mean}, 95% CI x{low} to x{high}, p = " in prose
    assert verdict == "commander faster"
    for solver in ("kissat", "cadical", "pysat:cadical195"):
        mean, low, high, verdict = figures(report(["--time", "cpu", "--where", f"solver={solver}", *COMPARE], capsys))
        assert re.search(rf" {re.escape(solver)} x{mean} \((95% CI )?x{low} to x{high}\)", prose), solver
        assert verdict == "commander faster", solver


RERUN_ONE = """
import json, sys
from pathlib import Path
from cnfgen_queens.experiments.batch import BatchRequest, run_batch
from cnfgen_queens.experiments.config import load
from cnfgen_queens.experiments.grid import build
from cnfgen_queens.experiments.rerun import prepare

bundle, config = Path(sys.argv[1]), Path(sys.argv[2])
ready = prepare(bundle, Path("new.sqlite"), k=1, log=lambda m: None)  # as rerun --sample 1 prepares
chosen = [r for r in build(ready.config) if r.key in ready.only]
small = min(chosen, key=lambda r: (r.instance.n, r.instance.encoding != "twolevel", r.solver.label))
done = run_batch(ready.config, BatchRequest(only=frozenset({small.key}), progress=False, log=lambda m: None))
print(json.dumps({"config_hash": load(config, check_solvers=False).hash, "bundle_hash": ready.config.hash,
                  "differences": list(ready.differences), "sampled": len(chosen), "done": done.done,
                  "solved": done.solved, "key": small.key}))
"""


def test_one_cell_of_the_bundle_reruns_here(tmp_path: Path) -> None:
    """``rerun --sample 1``'s preparation (the bundle's config with its plugin copy, every sampled instance
    regenerated with the bundle's GBD hash), then the smallest twolevel run of the sample, in a process of its own
    (a plugin's registration lasts as long as its process).  About 15 s on a loaded 2-core machine."""
    for name in ("kissat", "cadical"):
        need_solver(name)
    argv = [sys.executable, "-c", RERUN_ONE, str(BUNDLE), str(CONFIG)]
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout.splitlines()[-1])
    info = json.loads(verified(BUNDLE)["bundle.json"])
    assert said["config_hash"] == said["bundle_hash"] == info["config_hash"]  # the committed config made it
    assert said["sampled"] == 54 and (said["done"], said["solved"]) == (1, 1)
    (row,) = load_rows(tmp_path / "new.sqlite")
    assert (row.run_key, row.n, row.encoding, row.status, row.verified) == (said["key"], 16, "twolevel", "SAT", True)
    with store_of(BUNDLE) as db:
        old = [r for r in load_rows(db) if r.run_key == row.run_key]
    assert len(old) == 1 and old[0].gbd_hash == row.gbd_hash and old[0].status == "SAT"
