"""Variant counts: the torus against OEIS A007705, completion against a brute-force counter; the batch grid."""

from __future__ import annotations

import math
import random
import re
import textwrap
from pathlib import Path

import pytest
from brute_force import brute_count
from helpers import need_solver

from cnfgen_queens.cli import main
from cnfgen_queens.experiments.config import ConfigError, load
from cnfgen_queens.experiments.grid import expand
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.variants import TORUS_COUNTS, Variant, make_variant
from cnfgen_queens.solutions.api import Request, SolverChoice, count, solutions

# OEIS A007705 as printed there (https://oeis.org/A007705), N = 1..13
A007705 = [1, 0, 0, 0, 10, 0, 28, 0, 0, 0, 88, 0, 4524]


def test_torus_counts_table_is_oeis_and_brute_force() -> None:
    assert [TORUS_COUNTS[n] for n in range(1, 14)] == A007705
    for n in range(1, 14):
        assert brute_count(n, torus=True) == A007705[n - 1], n
    # solutions exist iff gcd(N, 6) = 1
    assert all((A007705[n - 1] > 0) == (math.gcd(n, 6) == 1) for n in range(1, 14))


@pytest.mark.parametrize("n", [*range(1, 13), pytest.param(13, marks=pytest.mark.slow)])
def test_count_cli_torus_matches_a007705(n: int, capsys) -> None:
    assert main(["count", str(n), "--torus", "-e", "commander"]) == 0
    assert capsys.readouterr().out == f"count: {A007705[n - 1]} (published-count)\n"


def test_count_cli_reports_a_torus_mismatch(capsys) -> None:
    """The check can fail: a torus count with a blocked square differs from A007705 and is not compared."""
    assert main(["count", "7", "--torus", "--block-square", "1,1"]) == 0
    out = capsys.readouterr().out
    assert out == f"count: {brute_count(7, True, holes=[(0, 0)])} (unchecked)\n" and out != "count: 28\n"


def test_external_loop_counts_torus(tmp_path: Path, capsys) -> None:
    need_solver("kissat")
    assert main(["count", "7", "--torus", "--solver", "kissat", "--out", str(tmp_path), "--quiet"]) == 0
    assert capsys.readouterr().out == "count: 28 (published-count)\n"
    # resuming the directory with other variant options is refused
    assert main(["count", "7", "--solver", "kissat", "--out", str(tmp_path), "--resume"]) == 2


def random_case(rng: random.Random, n: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]], bool]:
    torus = rng.random() < 0.3
    holes = sorted({(rng.randrange(n), rng.randrange(n)) for _ in range(rng.randrange(0, n))})
    v = make_variant(n, (), holes, torus, rng.randrange(0, 3), rng.randrange(1000))
    return list(v.placed), holes, torus


@pytest.mark.parametrize("n", [5, 6, 7, 8])
def test_completion_counts_match_brute_force(n: int) -> None:
    rng = random.Random(n)
    checked = nonzero = 0
    for _ in range(12):
        placed, holes, torus = random_case(rng, n)
        f = QueensFormula(n, "sequential", variant=Variant(tuple(placed), tuple(holes), torus))
        r = count(Request(f, SolverChoice("pysat:cadical195"), engine="loop"))
        assert r.status == "UNSAT" and r.total == brute_count(n, torus, placed, holes), (placed, holes, torus)
        checked += 1
        nonzero += r.total > 0
    assert checked == 12 and nonzero >= 2  # the cases are not all trivially empty


def test_enumerated_completions_keep_the_placed_queens(capsys) -> None:
    assert main(["enumerate", "8", "--place", "1,1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "count: 4 (unchecked)"  # the 4 solutions with a corner queen
    assert all(line.split()[0] == "1" for line in lines[:-1])
    found = {f.placement for f in solutions(Request(QueensFormula(8, variant=Variant(((0, 0),)))))}
    assert len(found) == 4


def test_variant_usage_errors(capsys) -> None:
    assert main(["count", "8", "--torus", "--symmetric"]) == 2
    assert main(["count", "8", "--place", "1,1", "--jobs", "2", "--memory-limit", "500"]) == 2
    assert main(["enumerate", "8", "--place", "1,1", "--place", "2,2"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and all(line.startswith("cnfgen-queens ") for line in err)
    assert "8 board symmetries" in err[0] and "--memory-limit" in err[1] and "attack each other" in err[2]


# -- batch: the instances: keys ------------------------------------------------------------

GRID = """\
instances:
  n: [8, 10]
  encodings: [pairwise]
  random_place_fraction: [0, 0.25, 0.5]
  random_seeds: {from: 0, to: 2}
solvers: [pysat:cadical195]
limits: {time: 30}
results: out.sqlite
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "exp.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def test_grid_sweeps_n_k_seed(tmp_path: Path) -> None:
    c = load(write(tmp_path, GRID))
    runs, skipped = expand(c)
    assert not skipped and len(runs) == 2 * 3 * 3
    got = [(r.instance.n, r.instance.random_place, r.instance.random_seed) for r in runs]
    assert got == [(n, k, s) for n in (8, 10) for k in ((0, 2, 4) if n == 8 else (0, 3, 5)) for s in range(3)]
    assert len({r.key for r in runs}) == len(runs)
    f = runs[-1].instance.formula()
    assert len(f.variant.placed) == 5 and f.variant.random_seed == 2
    assert "k5r2" in runs[-1].instance.filename
    plain = load(
        write(tmp_path, GRID.replace("  random_place_fraction: [0, 0.25, 0.5]\n  random_seeds: {from: 0, to: 2}\n", ""))
    )
    assert "variant" not in plain.normalized()["instances"] and not expand(plain)[0][0].instance.is_variant


def test_grid_torus_place_holes_and_k(tmp_path: Path) -> None:
    text = GRID.replace(
        "random_place_fraction: [0, 0.25, 0.5]",
        'random_place: [1, 2]\n  torus: true\n  place: ["1,1"]\n  holes: [[2, 2], "3,3"]',
    )
    c = load(write(tmp_path, text.replace("[8, 10]", "[11]")))
    runs, _ = expand(c)
    assert len(runs) == 6
    v = runs[0].instance.formula().variant
    assert v.torus and (0, 0) in v.placed and v.holes == ((1, 1), (2, 2)) and len(v.placed) == 2


BOTH = "random_place_fraction: [0, 0.25, 0.5]\n  random_seeds: {from: 0, to: 2}"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("random_seeds: {from: 0, to: 2}", "", "instances.random_seeds: random placement needs random_seeds"),
        ("random_place_fraction: [0, 0.25, 0.5]", "random_place_fraction: [1.5]", "expected a number between 0 and 1"),
        ("random_place_fraction: [0, 0.25, 0.5]", "random_place: [9]", "n=8: cannot place 9 more"),
        (BOTH, 'place: ["1,1", "2,2"]', "attack each other"),
        ("random_place_fraction: [0, 0.25, 0.5]", "torus: 3", "instances.torus: expected true or false, got 3"),
        (BOTH, 'holes: ["a"]', "instances.holes[0]: expected ROW,COLUMN"),
        ("random_place_fraction: [0, 0.25, 0.5]", "random_place: [1]\n  random_place_fraction: [0.1]", "not both"),
    ],
)
def test_grid_variant_errors(tmp_path: Path, old: str, new: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        load(write(tmp_path, GRID.replace(old, new)))
    assert message in str(info.value) and "exp.yaml:" in str(info.value)


def test_batch_runs_completion_instances(tmp_path: Path, monkeypatch, capsys) -> None:
    """A real batch on completion instances: every answer agrees with the brute-force counter."""
    need_solver("kissat")
    import sqlite3

    monkeypatch.chdir(tmp_path)
    write(tmp_path, GRID.replace("[pysat:cadical195]", "[kissat, pysat:cadical195]"))
    assert main(["batch", "exp.yaml", "--jobs", "1", "--no-progress"]) == 0
    c = load(tmp_path / "exp.yaml")
    runs = {r.key: r for r in expand(c)[0]}
    rows = sqlite3.connect(tmp_path / "out.sqlite").execute("SELECT run_key, status, verified FROM runs").fetchall()
    assert len(rows) == len(runs) == 36
    statuses = set()
    for key, status, verified in rows:
        v = runs[key].instance.formula().variant
        sat = brute_count(runs[key].instance.n, placed=v.placed) > 0
        assert status == ("SAT" if sat else "UNSAT") and (verified == 1) == sat
        statuses.add(status)
    assert statuses == {"SAT", "UNSAT"}


def test_report_counts_unsat_completions_as_solved(tmp_path: Path, monkeypatch, capsys) -> None:
    """UNSAT is a right answer for a completion instance; the row records the variant."""
    import json
    import sqlite3

    monkeypatch.chdir(tmp_path)
    write(tmp_path, GRID.replace("[8, 10]", "[8]"))
    assert main(["batch", "exp.yaml", "--jobs", "1", "--no-progress"]) == 0
    assert "9 runs done (9 solved)" in capsys.readouterr().out
    assert main(["report", "out.sqlite", "--csv", "r.csv"]) == 0
    line = next(x for x in (tmp_path / "r.csv").read_text().splitlines() if "pysat:cadical195" in x)
    assert ",9,0,9,6,3,0," in line  # runs, missing, solved (SAT, UNSAT), wrong
    db = sqlite3.connect(tmp_path / "out.sqlite")
    variants = [json.loads(v) for (v,) in db.execute("SELECT variant FROM runs ORDER BY variant")]
    assert {(v["random_place"], v["random_seed"]) for v in variants} == {(k, s) for k in (0, 2, 4) for s in range(3)}
    assert db.execute("SELECT COUNT(*) FROM runs WHERE status = 'UNSAT'").fetchone()[0] >= 1


def test_an_older_results_file_gains_the_variant_column(tmp_path: Path) -> None:
    import sqlite3

    from cnfgen_queens.experiments.store import SCHEMA, Store

    path = tmp_path / "old.sqlite"
    old_schema = re.sub(r"\n\s*variant TEXT,[^\n]*", "", SCHEMA)
    assert old_schema != SCHEMA and "variant" not in old_schema
    db = sqlite3.connect(path)
    db.executescript(f"{old_schema} INSERT INTO meta VALUES ('schema_version', '1');")
    db.execute(
        "INSERT INTO runs (run_key, config_hash, experiment, task, n, encoding, column_alo, repeat, variables, clauses,"
        " solver, solver_args, status) VALUES ('k', 'h', 'e', 'solve', 8, 'pairwise', 0, 0, 64, 736, 'kissat', '[]',"
        " 'SAT')"
    )
    db.commit()
    db.close()
    with Store(path, readonly=True) as store:  # read-only: read as it is
        (row,) = store.rows()
        assert row.variant is None and row.n == 8
    with Store(path) as store:  # writable: the column is added
        assert "variant" in store.columns
        assert store.rows()[0].variant is None


@pytest.mark.slow  # issue 13: out of the default run (CI runs it); a whole script run
@pytest.mark.timeout(900)  # above its subprocess timeout (600 s): a loaded machine, not a hang
def test_completion_study_script_scaled_down(tmp_path: Path, monkeypatch) -> None:
    """scripts/completion_study.py on a small grid: fractions equal the brute-force answers, same bytes twice."""
    import csv
    import subprocess
    import sys

    need_solver("kissat")
    monkeypatch.chdir(tmp_path)
    write(tmp_path, GRID.replace("[pysat:cadical195]", "[kissat, pysat:cadical195]"))
    assert main(["batch", "exp.yaml", "--jobs", "1", "--no-progress"]) == 0
    script = Path(__file__).resolve().parents[2] / "scripts" / "completion_study.py"
    outs = []
    for name in ("a", "b"):
        r = subprocess.run([sys.executable, str(script), "exp.yaml", "--out", name], capture_output=True, timeout=600)
        assert r.returncode == 0, r.stderr.decode()
        outs.append({p.name: p.read_bytes() for p in (tmp_path / name).iterdir()})
    assert outs[0] == outs[1] and set(outs[0]) == {
        "completion.csv",
        "completion-runs.csv",
        "completion-conflicts.csv",
        "completion.md",
        "completion.png",
    }
    runs = {r.key: r for r in expand(load(tmp_path / "exp.yaml"))[0]}
    for row in csv.DictReader((tmp_path / "a" / "completion.csv").read_text().splitlines()):
        n, k = int(row["n"]), int(row["k"])
        insts = {r.instance for r in runs.values() if (r.instance.n, r.instance.random_place) == (n, k)}
        placements = [i.formula().variant.placed for i in insts]
        sat = sum(brute_count(n, placed=p) > 0 for p in placements)
        assert int(row["instances"]) == 3 and int(row["sat"]) == sat
