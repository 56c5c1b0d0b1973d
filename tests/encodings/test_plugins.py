"""Encodings of one's own through every door: ``--plugin FILE.py`` on gen-queens, solve, count (cubes, loop,
symmetric, Dask) and enumerate; the entry-point group; a batch's ``plugins:`` on spawned and Dask workers;
the one-line errors.  Each command runs in a process of its own (a plugin registers for the whole process)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from helpers import PLUGIN_EXAMPLE, PLUGIN_GRID_COUNTS, need_module, plugin_grid, run_cli, stored_counts

from cnfgen_queens.cnf.gbd_hash import gbd_hash

SLOW = 240  # seconds a count, a check or a batch may take on a loaded machine (a hang guard)

PAIRS = """\
from cnfgen_queens import register_encoding

def build(lits, pool):
    return [(-a, -b) for i, a in enumerate(lits) for b in lits[i + 1:]]

register_encoding(name="mypairs", build=build, description="pairwise, again", reference="binomial")
"""


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    path = tmp_path / "twolevel.py"
    path.write_bytes(PLUGIN_EXAMPLE.read_bytes())
    return path


def test_gen_names_the_plugin_and_its_command_makes_the_same_file(plugin: Path, tmp_path: Path) -> None:
    out = run_cli(["8", "--plugin", "twolevel.py", "--encoding", "twolevel", "-o", "q.cnf"], tmp_path, gen=True)
    assert out.code == 0, out.err
    text = (tmp_path / "q.cnf").read_text()
    import hashlib

    assert f"c plugin: twolevel.py sha256:{hashlib.sha256(plugin.read_bytes()).hexdigest()}\n" in text
    command = next(line for line in text.splitlines() if line.startswith("c command: "))
    assert command == "c command: gen-queens 8 --plugin twolevel.py --encoding twolevel -o q.cnf"
    again = run_cli([*shlex.split(command.removeprefix("c command: "))[1:-2], "-o", "again.cnf"], tmp_path, gen=True)
    assert again.code == 0, again.err
    assert (tmp_path / "again.cnf").read_bytes().replace(b"again.cnf", b"q.cnf") == (tmp_path / "q.cnf").read_bytes()
    assert "p cnf 154 536\n" in text  # the example's closed form: 64 cells, 90 heads


def test_a_plugin_with_a_builtins_clauses_has_its_gbd_hash(tmp_path: Path) -> None:
    (tmp_path / "mypairs.py").write_text(PAIRS)
    assert run_cli(["10", "--plugin", "mypairs.py", "-e", "mypairs", "-o", "mine.cnf"], tmp_path, gen=True).code == 0
    assert run_cli(["10", "-o", "builtin.cnf"], tmp_path, gen=True).code == 0
    assert gbd_hash(tmp_path / "mine.cnf") == gbd_hash(tmp_path / "builtin.cnf")
    assert (tmp_path / "mine.cnf").read_bytes() != (tmp_path / "builtin.cnf").read_bytes()  # the header differs


@pytest.mark.parametrize(
    ("args", "last"),
    [
        (["count", "8", "-j", "2"], "count: 92 (published-count)"),  # OEIS A000170; cubes on forked workers
        (["count", "8", "--engine", "loop"], "count: 92 (published-count)"),
        (["count", "8", "--symmetric"], "count: 92 (published-count)"),
        (["count", "6", "--place", "1,2"], "count: 1 (unchecked)"),
        (["enumerate", "6"], "count: 4 (published-count)"),
    ],
)
def test_count_and_enumerate_take_a_plugins_encoding(plugin: Path, tmp_path: Path, args: list[str], last: str) -> None:
    out = run_cli([*args, "--plugin", str(plugin), "-e", "twolevel", "--quiet"], tmp_path, timeout=SLOW)
    assert out.code == 0, out.err
    assert last in out.out.splitlines()


def test_a_certificate_of_a_plugins_encoding_is_checked_with_it(plugin: Path, tmp_path: Path) -> None:
    out = run_cli(
        ["count", "6", "--plugin", "twolevel.py", "-e", "twolevel", "--certify", "cert", "--quiet"],
        tmp_path,
        timeout=SLOW,
    )
    assert out.code == 0, out.err
    assert (
        out.err.splitlines()[-1] == "certificate: cert (cnfgen-queens check-count cert --plugin=twolevel.py checks it)"
    )
    checked = run_cli(["check-count", "cert", "--plugin=twolevel.py"], tmp_path, timeout=SLOW)
    assert (checked.code, checked.out) == (0, "certified count: 4\n"), checked.err


def test_the_python_api_command_names_the_plugin(plugin: Path, tmp_path: Path) -> None:
    code = (
        "import cnfgen_queens as cq\n"
        "from cnfgen_queens.encodings.plugin_loading import load_plugin\n"
        "load_plugin('twolevel.py')\n"
        "f = cq.queens(8, 'twolevel')\n"
        "print(f.command, f.nclauses)\n"
    )
    out = run_cli([], tmp_path, entry=code, timeout=120)
    assert out.out == "gen-queens 8 --plugin twolevel.py --encoding twolevel 536\n", out.err


def test_count_on_dask_workers_loads_the_plugin(plugin: Path, tmp_path: Path) -> None:
    need_module("dask.distributed")
    out = run_cli(
        ["count", "9", "--plugin", str(plugin), "-e", "twolevel", "--executor", "dask", "-j", "2", "--quiet"],
        tmp_path,
        timeout=SLOW,
    )
    assert out.code == 0, out.err[-2000:]
    assert out.out.splitlines()[-1] == "count: 352 (published-count)"


def test_solve_takes_the_plugin_and_judges_an_unsat_by_the_header(plugin: Path, tmp_path: Path) -> None:
    assert run_cli(["8", "--plugin", "twolevel.py", "-e", "twolevel", "-o", "q.cnf"], tmp_path, gen=True).code == 0
    out = run_cli(["solve", "q.cnf", "--plugin", "twolevel.py", "--json"], tmp_path)
    assert out.code == 10, out.err
    assert json.loads(out.out)["status"] == "SAT"


def test_the_entry_point_group_registers_without_plugin(tmp_path: Path) -> None:
    """An installed package, as pip leaves it: a dist-info with entry_points.txt on sys.path."""
    site = tmp_path / "site"
    info = site / "queens_plugin_example-0.1.0.dist-info"
    info.mkdir(parents=True)
    (site / "queens_plugin_example.py").write_bytes(PLUGIN_EXAMPLE.read_bytes())
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: queens-plugin-example\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[cnfgen_queens.encodings]\ntwolevel = queens_plugin_example\n")
    env = {"PYTHONPATH": str(site)}
    out = run_cli(["8", "-e", "twolevel"], tmp_path, gen=True, env=env)
    assert out.code == 0, out.err
    assert "c plugin: queens_plugin_example sha256:" in out.out
    assert "c command: gen-queens 8 -e twolevel\n" in out.out
    listed = run_cli(["--list-encodings"], tmp_path, gen=True, env=env).out.splitlines()
    assert listed[-1].startswith("twolevel                 18      3  yes no  two-level pairwise")
    assert listed[-1].endswith("[plugin queens_plugin_example]")
    assert (
        run_cli(["count", "8", "-e", "twolevel", "--quiet"], tmp_path, env=env).out.strip()
        == "count: 92 (published-count)"
    )


BAD = {
    "missing.py": (None, "plugin missing.py: cannot read it: No such file or directory"),
    "syntax.py": (
        "def build(:\n",
        "plugin syntax.py: its import failed: SyntaxError: invalid syntax (syntax.py, line 1)",
    ),
    "clash.py": (
        PAIRS.replace('"mypairs"', '"commander"'),
        "plugin clash.py: encoding 'commander' clashes with a built-in encoding of that name",
    ),
    "wrong.py": (
        PAIRS.replace("lits[i + 1:]]", "lits[i + 1:]][1:]"),
        "plugin wrong.py: encoding 'mypairs' refused by the conformance gate: n=2 (inputs 1..n [1, 2]): "
        "x1=1 x2=1 makes 2 true, yet extendable to a model (check-encoding mypairs tells more)",
    ),
    "raises.py": (
        PAIRS.replace("    return", "    if len(lits) == 11:\n        raise OSError('eleven')\n    return"),
        "plugin raises.py, encoding 'mypairs' failed while encoding 11 inputs: OSError: eleven",
    ),
    "no_such_module": (
        None,
        "plugin no_such_module: no such module (a file needs its .py; a module must be importable)",
    ),
}


@pytest.mark.parametrize("name", BAD)
def test_a_bad_plugin_is_one_line_exit_2_and_nothing_written(tmp_path: Path, name: str) -> None:
    source, said = BAD[name]
    if source is not None:
        (tmp_path / name).write_text(source)
    out = run_cli(["11", "--plugin", name, "-e", "mypairs", "-o", "q.cnf"], tmp_path, gen=True)
    assert (out.code, out.out) == (2, "")
    assert out.err == f"gen-queens: error: {said}\n"
    assert not (tmp_path / "q.cnf").exists()


def test_check_encoding_exits_1_naming_the_counterexample(tmp_path: Path) -> None:
    (tmp_path / "late.py").write_text(
        PAIRS.replace('reference="binomial"', "reference='b', size=lambda n: (n * (n - 1) // 2 + (n == 9), 0)")
    )
    out = run_cli(["check-encoding", "mypairs", "--plugin", "late.py"], tmp_path, timeout=SLOW)
    assert out.code == 1, out.err
    assert "size:         FAIL  n=9: declared 37 clauses, 0 auxiliaries; built 36 clauses, 0 auxiliaries" in out.out
    assert out.out.splitlines()[-1] == "verdict: FAILS size"
    gen = run_cli(["9", "--plugin", "late.py", "-e", "mypairs"], tmp_path, gen=True)  # never a wrong header
    assert gen.code == 2 and "its size(9) declares 37 clauses and 0 auxiliaries, its build makes 36" in gen.err
    assert run_cli(["check-encoding", "twolevel", "--plugin", str(PLUGIN_EXAMPLE)], tmp_path, timeout=SLOW).code == 0
    assert run_cli(["check-encoding", "sequential", "--max-n", "6"], tmp_path, timeout=SLOW).code == 0


def test_a_batch_with_plugins_on_local_workers(tmp_path: Path) -> None:
    out = run_cli(["batch", str(plugin_grid(tmp_path, "local")), "-j", "2", "--no-progress"], tmp_path, timeout=SLOW)
    assert out.code == 0, out.err[-2000:]
    assert stored_counts(tmp_path / "local" / "r.sqlite") == PLUGIN_GRID_COUNTS


def test_a_batch_with_plugins_on_dask_workers(tmp_path: Path) -> None:
    need_module("dask.distributed")
    out = run_cli(["batch", str(plugin_grid(tmp_path, "dask")), "-j", "2", "--no-progress"], tmp_path, timeout=SLOW)
    assert out.code == 0, out.err[-2000:]
    assert stored_counts(tmp_path / "dask" / "r.sqlite") == PLUGIN_GRID_COUNTS


def test_a_batch_names_a_bad_plugin_by_its_key(tmp_path: Path) -> None:
    cfg = plugin_grid(tmp_path, "local")
    cfg.write_text(cfg.read_text().replace("[twolevel.py]", "[twolevel.py, nothere.py]"))
    out = run_cli(["batch", str(cfg), "--no-progress"], tmp_path, timeout=SLOW)
    assert out.code == 2
    assert out.err.splitlines()[-1].endswith("plugins[1]: plugin nothere.py: cannot read it: No such file or directory")


def test_a_run_under_a_memory_limit_loads_the_plugins_before_it(plugin: Path, tmp_path: Path) -> None:
    """The embedded run's child imported the command's plugins under its RLIMIT_AS: a tight limit made the import
    fail, an ERROR blaming the plugin ("its import failed: SystemError") where the same run without --plugin is
    a MEMOUT, and ``count 8 -m 1`` found 0 boards with it against 92 without.  They load before the limit now."""
    assert run_cli(["40", "-o", "q40.cnf"], tmp_path, gen=True).code == 0
    for extra in ([], ["--plugin", "twolevel.py"]):
        out = run_cli(["solve", "q40.cnf", "--memory-limit", "1", "--json", *extra], tmp_path)
        assert json.loads(out.out)["status"] == "MEMOUT", out.out
        count = run_cli(["count", "8", "-m", "1", "--quiet", *extra], tmp_path)
        assert (count.code, count.out.splitlines()[-1]) == (0, "count: 92 (published-count)"), count.err
    twolevel = run_cli(["count", "8", "-e", "twolevel", "--plugin", "twolevel.py", "-m", "1", "--quiet"], tmp_path)
    assert twolevel.out.splitlines()[-1] == "count: 92 (published-count)", twolevel.err  # OEIS A000170
