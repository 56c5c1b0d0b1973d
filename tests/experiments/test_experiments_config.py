"""Batch config: every error names file, line and key path; the CLI prints one line and exits 2."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from helpers import need_solver

from cnfgen_queens.cli import main
from cnfgen_queens.experiments.config import ConfigError, load
from cnfgen_queens.experiments.grid import build, expand

GOOD = """\
experiment: t
instances:
  n: [4, 5]
  encodings: [pairwise, sequential]
solvers: [pysat:cadical195]
limits: {time: 10}
results: out.sqlite
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "exp.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def error_of(tmp_path: Path, text: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load(path)
    return str(info.value)


def test_good_config_and_defaults(tmp_path: Path) -> None:
    c = load(write(tmp_path, GOOD))
    assert c.ns == (4, 5)
    assert c.encodings == ("pairwise", "sequential")
    assert c.task == "solve" and c.repeats == 1 and c.time_limit == 10.0 and c.memory_limit is None
    assert c.results == Path("out.sqlite")
    assert len(build(c)) == 4
    need_solver("minisat")
    c = load(write(tmp_path, GOOD.replace("[pysat:cadical195]", "[minisat, {name: minisat, args: [-rnd-seed=3]}]")))
    assert [s.label for s in c.solvers] == ["minisat", "minisat -rnd-seed=3"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (GOOD.replace("[4, 5]", "[4, ten]"), "exp.yaml:3: instances.n[1]: expected a positive integer, got 'ten'"),
        (GOOD.replace("[4, 5]", "[4, true]"), "instances.n[1]: expected a positive integer, got True"),
        (GOOD.replace("[4, 5]", "[0, 5]"), "instances.n[0]: expected a positive integer, got 0"),
        (
            GOOD.replace("{time: 10}", "{time: soon}"),
            "exp.yaml:6: limits.time: expected a positive finite number, got 'soon'",
        ),
        (GOOD.replace("{time: 10}", "{time: .inf}"), "limits.time: expected a positive finite number, got inf"),
        (GOOD.replace("{time: 10}", "{time: 10, memory: 1.5}"), "limits.memory: expected a positive integer, got 1.5"),
        (GOOD.replace("{time: 10}", "{memory: 100}"), "limits.time: missing"),
        (GOOD + "repeats: [1]\n", "repeats: expected a positive integer, got a list"),
        (GOOD + "task: enumerate\n", "task: expected solve or count, got 'enumerate'"),
        (
            GOOD.replace("  n: [4, 5]\n", "  n: [4, 5]\n  column_alo: yes please\n"),
            "instances.column_alo: expected true",
        ),
        (GOOD.replace("[pysat:cadical195]", "pysat:cadical195"), "solvers: expected a list of solvers"),
        (GOOD.replace("[pysat:cadical195]", "[{name: minisat, args: -verb=0}]"), "solvers[0].args: expected a list"),
        (GOOD.replace("instances:", "instance:"), "exp.yaml:2: instance: unknown key 'instance'; valid: experiment"),
        (GOOD.replace("{time: 10}", "{time: 10, memroy: 5}"), "exp.yaml:6: limits.memroy: unknown key 'memroy'"),
        (GOOD.replace("[pysat:cadical195]", "[{name: minisat, arg: [x]}]"), "solvers[0].arg: unknown key 'arg'"),
        (GOOD.replace("  n: [4, 5]\n", "  n: [4, 5]\n  n: [6]\n"), "exp.yaml:4: instances.n: duplicate key"),
        (GOOD.replace("[4, 5]", "[4, 4]"), "instances.n[1]: duplicate entry 4"),
        (GOOD.replace("[4, 5]", "[]"), "instances.n: empty list: the grid would have no runs"),
        (GOOD.replace("[4, 5]", "{from: 9, to: 4}"), "instances.n: empty range: from 9 > to 4"),
        (GOOD.replace("[pairwise, sequential]", "[]"), "instances.encodings: empty list"),
        (GOOD.replace("[pysat:cadical195]", "[]"), "solvers: empty list"),
        (GOOD.replace("sequential]", "sequentail]"), "instances.encodings[1]: unknown encoding 'sequentail'; valid:"),
        (GOOD.replace("[pysat:cadical195]", "[pysat:cadical195, kisat]"), "exp.yaml:5: solvers[1]: unknown or missing"),
        (GOOD.replace("[pysat:cadical195]", "[pysat:nosuch]"), "solvers[0]: unknown or missing solver"),
        (GOOD.replace("[pysat:cadical195]", "[{name: pysat:cadical195, args: [-x]}]"), "takes no arguments"),
        (GOOD + "task: count\n", None),
        (GOOD.replace("[4, 5]", "[8, 1000]").replace("pairwise, ", "") + "task: count\n", None),  # 12.0M clauses
        (
            GOOD.replace("[4, 5]", "[8, 1000]") + "task: count\n",
            "instances.encodings[0]: task count: N=1000 pairwise has 1,664,668,000 clauses, above the limit of "
            "20,000,000 for a formula held in memory",
        ),
        (GOOD.replace("[4, 5]", "[8, 1000]") + "task: solve\n", None),  # a solver reads the file, holds nothing
        (
            GOOD.replace("[4, 5]", "[8, 1000]").replace("sequential]\n", "sequential]\n  max_clauses: 4000000\n")
            + "task: count\n",
            None,
        ),  # max_clauses leaves both N = 1000 instances out: nothing too big is run
        (
            GOOD.replace("[4, 5]", "[8, 1000]").replace("sequential]\n", "sequential]\n  max_clauses: 2000000000\n")
            + "task: count\n",
            "use encoding product",
        ),  # sequential (12.0M) kept and fits; pairwise is over
        ("", "exp.yaml: (top level): empty config"),
        ("- just\n- a list\n", "(top level): expected a mapping with keys experiment"),
    ],
)
def test_errors_name_file_line_and_key(tmp_path: Path, text: str, expected: str | None) -> None:
    if expected is None:  # a valid variant
        load(write(tmp_path, text))
        return
    assert expected in error_of(tmp_path, text)


def test_broken_yaml_is_one_clean_message(tmp_path: Path) -> None:
    msg = error_of(tmp_path, GOOD.replace("[4, 5]", "[4, 5"))
    assert msg.startswith(f"{tmp_path / 'exp.yaml'}:") and "not valid YAML" in msg
    assert "\n" not in msg


def test_cli_config_error_exit_2_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for text in (GOOD.replace("[4, 5]", "[4, 5"), GOOD.replace("limits", "limit"), GOOD.replace("[4, 5]", "[]")):
        path = write(tmp_path, text)
        assert main(["batch", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("cnfgen-queens batch: error: ") and "Traceback" not in err
    assert main(["batch", str(tmp_path / "missing.yaml")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["batch", str(write(tmp_path, GOOD)), "--scheduler", "tcp://x:1"]) == 2
    assert "--scheduler needs --executor dask" in capsys.readouterr().err


def test_run_keys_are_stable_and_cover_what_matters(tmp_path: Path) -> None:
    base = {r.describe(): r.key for r in build(load(write(tmp_path, GOOD)))}
    more = {r.describe(): r.key for r in build(load(write(tmp_path, GOOD.replace("[4, 5]", "[4, 5, 6]"))))}
    assert all(more[d] == k for d, k in base.items())  # adding an N keeps the keys of the others
    assert len(more) == 6
    other = {r.key for r in build(load(write(tmp_path, GOOD.replace("{time: 10}", "{time: 11}"))))}
    assert not other & set(base.values())  # another limit is another run
    c = load(write(tmp_path, GOOD + "repeats: 3\n"))
    assert len({r.key for r in build(c)}) == 12


def test_range_max_clauses_and_all_encodings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cnfgen_queens import encodings
    from cnfgen_queens.model.formula import QueensFormula

    text = GOOD.replace("[4, 5]", "{from: 4, to: 10, step: 3}").replace("[pairwise, sequential]", "all")
    c = load(write(tmp_path, text))
    assert c.ns == (4, 7, 10) and c.encodings == tuple(encodings.names())
    limit = QueensFormula(10, "pairwise").counts()[1] - 1
    path = write(
        tmp_path, GOOD.replace("[4, 5]", "[4, 10]").replace("  encodings", f"  max_clauses: {limit}\n  encodings")
    )
    runs, left_out = expand(load(path))
    assert [(i.n, i.encoding) for i in left_out] == [(10, "pairwise")]
    assert len(runs) == 3
    assert main(["batch", str(path), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "= 4 runs, less 1 instances over max_clauses: 3 runs; 3 to do" in out and "left out: n=10 pairwise" in out


def test_committed_configs_are_valid() -> None:
    from helpers import ROOT

    from cnfgen_queens import encodings

    smoke = load(ROOT / "configs" / "smoke.yaml", check_solvers=False)
    assert smoke.ns == tuple(range(4, 13)) and len(smoke.encodings) == 3 and len(build(smoke)) == 81
    assert {s.name for s in smoke.solvers} == {"pysat:cadical195", "kissat", "minisat"}
    full = load(ROOT / "configs" / "encodings.yaml", check_solvers=False)
    assert full.encodings == tuple(encodings.names()) and full.time_limit == 60
    assert {s.name for s in full.solvers} == {"kissat", "minisat", "cadical"} and max(full.ns) >= 200


def test_column_alo_list_is_a_grid_axis(tmp_path: Path) -> None:
    """``column_alo: [false, true]`` runs each instance without and with the redundant clauses."""

    path = tmp_path / "axis.yaml"
    path.write_text(
        "instances: {n: [8], encodings: [sequential], column_alo: [false, true]}\n"
        "solvers: [pysat:cadical195]\nlimits: {time: 10}\n"
    )
    config = load(path)
    runs, _ = expand(config)
    assert [r.instance.column_alo for r in runs] == [False, True]
    assert runs[1].instance.clauses == runs[0].instance.clauses + 8  # N column clauses
    assert len({r.key for r in runs}) == 2
    single = tmp_path / "single.yaml"
    single.write_text(path.read_text().replace("[false, true]", "true"))
    assert load(single).normalized()["instances"]["column_alo"] is True  # the old hash


@pytest.mark.parametrize("value", ["[]", "[true, true]", "[1]", "yes-please"])
def test_column_alo_bad_values(tmp_path: Path, value: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        f"instances: {{n: [8], encodings: [sequential], column_alo: {value}}}\n"
        "solvers: [pysat:cadical195]\nlimits: {time: 10}\n"
    )
    with pytest.raises(ConfigError, match=r"instances\.column_alo"):
        load(path)
