"""The Python API (issue 23) against the CLI: one test per function, the same arguments both ways.

Same bytes (write, to_opb, to_mzn vs gen-queens), same counts (count, solutions vs count, enumerate;
to_pysat counted by PySAT's own solver; OEIS A000170 and A007705), same outcome (solve vs solve --json),
same board and clause (decode, blocking_clause vs decode, block), same rows (run_batch, load_results vs
batch, report --runs-csv), same errors (UsageError with the CLI's message).
"""

from __future__ import annotations

import gzip
import inspect
import io
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import default_signals, gen_in_process, need_module, need_solver
from helpers import in_process as cli
from test_api_errors import cli_words, without_placeholders

import cnfgen_queens as cq
from cnfgen_queens import library
from cnfgen_queens.cli import gen_main
from cnfgen_queens.encodings import names
from cnfgen_queens.model.known_counts import published_count

# (queens() keyword arguments, the gen-queens arguments they stand for)
FORMULAS = [
    ({"n": 8}, ["8"]),
    ({"n": 8, "encoding": "commander"}, ["8", "--encoding", "commander"]),
    ({"n": 9, "encoding": "bimander", "group_size": 3, "column_alo": True},
     ["9", "--encoding", "bimander", "--group-size", "3", "--column-alo"]),
    ({"n": 7, "encoding": "sequential", "place": [(0, 0)], "holes": [(6, 6), (3, 2)]},
     ["7", "--encoding", "sequential", "--place", "1,1", "--block-square", "7,7", "--block-square", "4,3"]),
    ({"n": 7, "encoding": "ladder", "torus": True}, ["7", "--encoding", "ladder", "--torus"]),
    ({"n": 10, "encoding": "pysat:seqcounter", "random_place": 3, "seed": 5},
     ["10", "--encoding", "pysat:seqcounter", "--random-place", "3", "--seed", "5"]),
]  # fmt: skip


def test_every_public_name_has_a_runnable_example() -> None:
    """The examples run as doctests (pyproject's testpaths with --doctest-modules); here: that they exist."""

    documented = [n for n in library.__all__ if n != "DEFAULT_SOLVER"]
    missing = [n for n in documented if ">>> " not in (inspect.getdoc(getattr(library, n)) or "")]
    assert missing == []


def test_the_package_re_exports_the_library_lazily() -> None:
    assert set(cq._LIBRARY) == set(library.__all__)  # every name, none a subpackage's (tests/library/test_api_names.py)
    for name in cq._LIBRARY:
        assert getattr(cq, name) is getattr(library, name)
        assert name in dir(cq)
    assert cq.enumerate_solutions is library.enumerate_solutions and cq.list_encodings is library.list_encodings
    with pytest.raises(AttributeError, match="no attribute 'nonesuch'"):
        cq.nonesuch  # noqa: B018
    code = (
        "import sys, cnfgen_queens as cq; before = 'cnfgen_queens.library' in sys.modules; cq.queens; "
        "print(before, 'cnfgen_queens.library' in sys.modules)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["False", "True"], proc.stderr
    assert (Path(cq.__file__).parent / "py.typed").is_file()


@pytest.mark.parametrize(("kwargs", "argv"), FORMULAS, ids=[" ".join(a) for _, a in FORMULAS])
def test_write_gives_the_bytes_of_gen_queens(kwargs: dict, argv: list[str], capfdbinary, tmp_path: Path) -> None:
    f = cq.queens(**kwargs)
    assert f.argv == tuple(argv) and f.command == "gen-queens " + " ".join(argv)
    code, expected, _ = gen_in_process(argv, capfdbinary)
    assert code == 0
    target = tmp_path / "f.cnf"
    assert f.write(target) == f.nclauses
    assert target.read_bytes() == expected
    header = expected.split(b"\np cnf ")[1].split(b"\n")[0].split()
    assert (f.nvars, f.nclauses) == (int(header[0]), int(header[1]))
    body = [tuple(map(int, line.split()[:-1])) for line in expected.decode().splitlines() if line[:1] not in "cp"]
    assert list(f.clauses()) == body
    for shuffle in (0, 7):  # the seed is recorded: the command in the header says --shuffle
        buf = io.BytesIO()
        f.write(buf, shuffle=shuffle)
        assert gen_in_process([*argv, "--shuffle", str(shuffle)], capfdbinary)[:2] == (0, buf.getvalue())
    buf = io.BytesIO()
    f.write(buf, shuffle=2, allow_large=True)
    assert gen_in_process([*argv, "--allow-large", "--shuffle", "2"], capfdbinary)[:2] == (0, buf.getvalue())
    with pytest.warns(UserWarning, match="drops the shuffle seed"):
        f.write(io.BytesIO(), shuffle=1, comments=False)
    f.write(tmp_path / "f.cnf.gz", comments=False)
    plain = gzip.decompress((tmp_path / "f.cnf.gz").read_bytes())
    assert gen_in_process([*argv, "--no-comments"], capfdbinary)[:2] == (0, plain)


def test_cells_and_targets(tmp_path: Path) -> None:
    f = cq.queens(5, "sequential")
    assert f.cells == [[f.cell(r, c) for c in range(5)] for r in range(5)] and f.cell(4, 4) == 25
    with pytest.raises(cq.UsageError, match=r"cell \(5, 0\) is off the 5x5 board"):
        f.cell(5, 0)
    with pytest.raises(TypeError, match="a binary file"):
        f.write(io.StringIO())  # a text stream with no bytes underneath
    with pytest.raises(cq.UsageError, match=r"writing \.zst is not supported"):
        f.write(tmp_path / "f.cnf.zst")
    assert list(tmp_path.iterdir()) == []  # refused before a file was made


@pytest.mark.parametrize(
    ("kwargs", "argv"),
    [
        ({"n": 0}, ["0"]),
        ({"n": 46341}, ["46341"]),
        ({"n": 8, "encoding": "nonesuch"}, ["8", "-e", "nonesuch"]),
        ({"n": 8, "group_size": 3}, ["8", "--group-size", "3"]),
        ({"n": 8, "encoding": "commander", "group_size": 1}, ["8", "-e", "commander", "--group-size", "1"]),
        ({"n": 4, "place": [(9, 0)]}, ["4", "--place", "10,1"]),
        ({"n": 4, "place": [(0, 0), (1, 1)]}, ["4", "--place", "1,1", "--place", "2,2"]),
        ({"n": 4, "place": [(0, 0)], "holes": [(0, 0)]}, ["4", "--place", "1,1", "--block-square", "1,1"]),
        ({"n": 8, "random_place": 3}, ["8", "--random-place", "3"]),
        ({"n": 8, "seed": 3}, ["8", "--seed", "3"]),
        ({"n": 8, "random_place": -1, "seed": 1}, ["8", "--random-place", "-1", "--seed", "1"]),
    ],
)
def test_errors_are_the_clis(kwargs: dict, argv: list[str], capsys) -> None:
    code, _, err = cli(["gen", *argv], capsys)
    assert code == 2
    with pytest.raises(cq.UsageError) as raised:
        cq.queens(**kwargs)
    message = cli_words(str(raised.value))  # the API's words: its parameters and 0-based squares (issue 31)
    assert message in without_placeholders(err.strip().splitlines()[-1]), (message, err)


def test_python_types_are_checked() -> None:
    wrong = (({"n": 8.0}, "n must be an integer, got 8.0"), ({"n": True}, "n must be an integer"),
             ({"n": 8, "seed": "1", "random_place": 1}, "seed must be an integer, got '1'"))  # fmt: skip
    for kwargs, message in wrong:
        with pytest.raises(TypeError, match=message):  # a wrong type is Python's TypeError (issue 31)
            cq.queens(**kwargs)
    with pytest.raises(cq.UsageError, match=r"place: expected \(row, column\) pairs"):
        cq.queens(8, place=[(1, 2, 3)])
    with pytest.raises(TypeError, match="shuffle must be an integer"):
        cq.queens(4).write(io.BytesIO(), shuffle=1.5)


def test_to_opb_and_to_mzn_are_gen_queens_formats(capfdbinary) -> None:
    for fmt in ("opb", "mzn"):
        code, written, _ = gen_in_process(["6", "--format", fmt], capfdbinary)
        expected = written.decode()
        assert code == 0
        assert getattr(cq.queens(6, "commander"), f"to_{fmt}")() == expected  # the encoding does not apply
    with pytest.raises(cq.UsageError, match=r"^to_opb\(\) states the plain board: torus=True applies to the CNF only$"):
        cq.queens(5, torus=True).to_opb()
    with pytest.raises(cq.UsageError, match=r"^to_mzn\(\) states the plain board: place= applies to the CNF only$"):
        cq.queens(5, place=[(0, 0)]).to_mzn()


def primary_models(cnf: object, n: int) -> int:
    """Solutions of ``cnf`` counted by PySAT's own solver, blocking on the N*N cell variables only (its
    enum_models would count every assignment of the free auxiliaries)."""
    from pysat.solvers import Solver

    found = 0
    with Solver(name="cadical195", bootstrap_with=cnf.clauses) as s:  # type: ignore[attr-defined]
        while s.solve():
            model = s.get_model()
            s.add_clause([-v for v in range(1, n * n + 1) if model[v - 1] > 0])
            found += 1
    return found


@pytest.mark.parametrize("encoding", ["commander", "sequential", "pysat:totalizer"])
def test_to_pysat_is_counted_by_pysat_to_oeis(encoding: str) -> None:
    f = cq.queens(8, encoding)
    cnf = f.to_pysat()
    assert cnf.nv == f.nvars and [tuple(c) for c in cnf.clauses] == list(f.clauses())
    assert primary_models(cnf, 8) == 92 == published_count(8, torus=False, other_variant=False)[0]
    torus = cq.queens(7, encoding, torus=True).to_pysat()
    assert primary_models(torus, 7) == 28 == published_count(7, torus=True, other_variant=False)[0]


def test_to_cnfgen(monkeypatch) -> None:
    need_module("cnfgen")
    f = cq.queens(6, "binary")
    g = f.to_cnfgen()
    assert (g.number_of_variables(), g.number_of_clauses()) == (f.nvars, f.nclauses)
    body = [line for line in g.to_dimacs().splitlines() if line and line[0] not in "cp"]
    assert [tuple(map(int, line.split()[:-1])) for line in body] == list(f.clauses())
    assert list(g.all_variable_labels())[:2] == ["x_{0,0}", "x_{0,1}"]
    monkeypatch.setitem(sys.modules, "cnfgen", None)  # as if CNFgen were not installed
    with pytest.raises(ImportError, match=r"to_cnfgen\(\) needs CNFgen: pip install 'cnfgen-queens\[cnfgen\]'"):
        f.to_cnfgen()


def test_encodings_are_the_list_encodings_table(capsys) -> None:
    for argv, kwargs in ((["-n", "8"], {}), (["-n", "13", "--group-size", "4"], {"length": 13, "group_size": 4})):
        capsys.readouterr()
        assert gen_main(["--list-encodings", *argv]) == 0
        lines = capsys.readouterr().out.splitlines()[1:]
        rows = cq.list_encodings(**kwargs)
        assert [r.name for r in rows] == names()
        assert [line.split()[:4] for line in lines] == [
            [r.name, str(r.clauses), str(r.aux), "yes" if r.propagation_complete else "no"] for r in rows
        ]
    code, _, err = cli(["gen", "--list-encodings", "--group-size", "1"], capsys)
    with pytest.raises(cq.UsageError) as raised:
        cq.list_encodings(group_size=1)
    assert code == 2 and str(raised.value) in err


def at_most_one_holds(clauses: list[list[int]], lits: list[int]) -> bool:
    """Whether the clauses allow exactly the assignments of ``lits`` with at most one true (all 2^n checked
    by PySAT under assumptions)."""
    from pysat.solvers import Solver

    with Solver(name="cadical195", bootstrap_with=clauses) as s:
        for values in itertools.product((False, True), repeat=len(lits)):
            assumptions = [lit if v else -lit for lit, v in zip(lits, values, strict=True)]
            if s.solve(assumptions=assumptions) != (sum(values) <= 1):
                return False
    return True


@pytest.mark.parametrize("encoding", names())
def test_at_most_one_on_your_own_literals(encoding: str) -> None:
    from pysat.formula import IDPool

    pool = IDPool()  # top_id forgotten: the literals are made by hand, the pool knows nothing of them
    lits = [3, -5, 7, 8, 11, -12]
    clauses = cq.at_most_one(lits, encoding, pool=pool)
    used = {abs(x) for c in clauses for x in c}
    aux = used - {abs(x) for x in lits}
    assert all(a > 12 for a in aux) and pool.top >= max(used)  # past the inputs, and reserved
    assert pool.id("mine") > max(used)  # the pool's next id is fresh
    assert at_most_one_holds(clauses, lits)
    assert cq.at_most_one(lits, encoding) == clauses  # no pool: auxiliaries after the largest literal too


def test_at_most_one_refuses_what_it_cannot_encode() -> None:
    with pytest.raises(cq.UsageError, match="distinct variables"):
        cq.at_most_one([1, -1], "commander")
    with pytest.raises(cq.UsageError, match="unknown encoding 'nope'"):
        cq.at_most_one([1, 2], "nope")
    with pytest.raises(cq.UsageError, match="group size must be at least 2, got 1"):
        cq.at_most_one([1, 2, 3], "commander", group_size=1)
    assert cq.at_most_one([4], "sequential") == []


def solve_json(path: Path, solver: str, capsys) -> dict:
    code, out, _ = cli(["solve", str(path), "--solver", solver, "--json"], capsys)
    record = json.loads(out)
    assert code == {"SAT": 10, "UNSAT": 20}.get(record["status"], 0)
    return record


@pytest.mark.parametrize("solver", ["pysat:cadical195", "minisat", "kissat"])
def test_solve_gives_the_clis_outcome(solver: str, tmp_path: Path, capsys) -> None:
    if not solver.startswith("pysat:"):
        need_solver(solver)
    for n, encoding, status in ((8, "commander", "SAT"), (3, "pairwise", "UNSAT")):
        f = cq.queens(n, encoding)
        out = cq.solve(f, solver)
        path = tmp_path / f"q{n}.cnf"
        f.write(path)
        record = solve_json(path, solver, capsys)
        assert out.status == record["status"] == status
        assert out.measured_by == record["measured_by"] and out.outcome.solver == record["solver"]
        assert out.wall > 0 and (out.peak is None or out.peak > 0)
        if status == "SAT":
            assert out.model is not None and out.outcome.verified and out.board is not None
            assert out.board == cq.decode(out.model, f)
            assert cq.solve(path, solver).board is not None  # a file: N from its header
        else:
            assert out.model is None and out.board is None


def test_solve_a_shuffled_file_and_a_foreign_one(tmp_path: Path) -> None:
    f = cq.queens(10, "sequential", place=[(0, 1)])
    path = tmp_path / "s.cnf"
    f.write(path, shuffle=3)
    board = cq.solve(path).board
    assert board is not None and board.columns[0] == 1  # unshuffled through the header, the queen kept
    foreign = tmp_path / "foreign.cnf"
    foreign.write_text("p cnf 2 1\n1 2 0\n")
    out = cq.solve(foreign)
    assert out.status == "SAT" and out.board is None


def test_solve_errors_are_the_clis(tmp_path: Path, capsys) -> None:
    f = cq.queens(5)
    path = tmp_path / "q.cnf"
    f.write(path)
    code, _, err = cli(["solve", str(path), "--solver", "nonesuch"], capsys)
    with pytest.raises(cq.UsageError) as raised:
        cq.solve(f, "nonesuch")
    assert code == 2 and str(raised.value) in err
    with pytest.raises(cq.UsageError, match="time_limit must be a positive"):
        cq.solve(f, time_limit=0)
    (tmp_path / "bad.cnf").write_text("p cnf 1 1\n1 2 0\n")
    code, _, err = cli(["solve", str(tmp_path / "bad.cnf")], capsys)
    with pytest.raises(cq.UsageError) as raised:
        cq.solve(tmp_path / "bad.cnf")
    assert code == 2 and str(raised.value) in err


def test_decode_and_blocking_clause_are_decode_and_block(tmp_path: Path, capsys) -> None:
    f = cq.queens(8, "commander")
    path = tmp_path / "q.cnf"
    f.write(path)
    code, answer, _ = cli(["solve", str(path)], capsys)
    assert code == 10
    (tmp_path / "answer.txt").write_text(answer)
    model = [int(t) for line in answer.splitlines() if line.startswith("v ") for t in line.split()[1:]][:-1]
    board = cq.decode(model, f)
    assert cli(["decode", str(tmp_path / "answer.txt")], capsys)[1] == str(board)
    assert cli(["decode", str(tmp_path / "answer.txt"), "--format", "line"], capsys)[1] == board.line + "\n"
    assert cli(["decode", str(tmp_path / "answer.txt"), "--format", "svg"], capsys)[1] == board._repr_svg_()
    block = cli(["block", str(tmp_path / "answer.txt")], capsys)[1]
    assert block == " ".join(map(str, cq.blocking_clause(board))) + " 0\n"
    assert board.queens == [(r, c) for r, c in enumerate(board.columns)] and board.n == 8
    assert cq.decode(model, 8) == board
    with pytest.raises(ValueError, match="attack each other"):
        cq.Board((0, 1, 2, 3))
    with pytest.raises(ValueError, match="not a placement of 4 queens"):
        cq.Board((0, 4, 1, 3))
    bad = [abs(v) for v in model]  # every cell true
    with pytest.raises(ValueError, match="attack each other"):
        cq.decode(bad, f)
    placed = cq.queens(8, place=[(0, 0)])
    if board.columns[0] != 0:  # the variant's own constraint: the placed queen is missing
        with pytest.raises(ValueError, match="placed queen at row 1 column 1 is missing"):
            cq.decode(model, placed)


@pytest.mark.parametrize("symmetric", [False, True])
def test_solutions_are_enumerate(symmetric: bool, capsys) -> None:
    flags = ["--symmetric"] if symmetric else []
    code, out, _ = cli(["enumerate", "6", "-e", "ladder", "--quiet", *flags], capsys)
    assert code == 0
    boards = list(cq.enumerate_solutions(cq.queens(6, "ladder"), symmetric=symmetric))
    lines = out.splitlines()
    assert lines[-1] == "count: 4 (published-count)"
    assert sorted(b.line for b in boards) == sorted(line for line in lines if ":" not in line)
    assert len(boards) == (1 if symmetric else 4)
    assert len(list(cq.enumerate_solutions(cq.queens(8), limit=5))) == 5
    with pytest.raises(cq.UsageError, match="symmetric=True does not combine with torus=True"):
        cq.enumerate_solutions(cq.queens(5, torus=True), symmetric=True)  # at once, not at the first next()
    with pytest.raises(cq.UsageError, match="limit must be a positive integer, got 0"):
        cq.enumerate_solutions(cq.queens(5), limit=0)


@pytest.mark.parametrize(
    ("kwargs", "options", "argv"),
    [
        ({"n": 8}, {}, ["8"]),
        (
            {"n": 8, "encoding": "commander"},
            {"symmetric": True, "engine": "loop"},
            ["8", "-e", "commander", "--symmetric", "--engine", "loop"],
        ),
        ({"n": 7, "torus": True}, {}, ["7", "--torus"]),
        ({"n": 9}, {"jobs": 2, "symmetric": True}, ["9", "--jobs", "2", "--symmetric"]),
    ],
)
def test_count_is_count(kwargs: dict, options: dict, argv: list[str], capsys) -> None:
    code, out, _ = cli(["count", *argv, "--quiet"], capsys)
    assert code == 0
    c = cq.count(cq.queens(**kwargs), **options)
    lines = dict(line.split(": ") for line in out.splitlines())
    assert c.complete and not c.mismatches and f"{c.total} ({c.checked})" == lines["count"]
    assert c.fundamental == (int(lines["fundamental"]) if "fundamental" in lines else None)
    assert c.total == published_count(kwargs["n"], torus=kwargs.get("torus", False), other_variant=False)[0]


def test_count_errors_are_the_clis(capsys) -> None:
    code, _, err = cli(["count", "8", "--engine", "loop", "--jobs", "2", "--quiet"], capsys)
    with pytest.raises(cq.UsageError) as raised:
        cq.count(cq.queens(8), engine="loop", jobs=2)
    assert code == 2 and cli_words(str(raised.value)) in err
    with pytest.raises(cq.UsageError, match="unknown engine 'fast'"):
        cq.count(cq.queens(8), engine="fast")


def test_run_batch_runs_from_a_script_on_stdin_or_without_the_main_guard(tmp_path: Path) -> None:
    """``python - <<EOF`` with ``cq.run_batch``: the spawned workers tried to run ``<stdin>`` as the main
    script again (FileNotFoundError in each), and the batch lost every run (done=0, exit code 130); a script
    file without ``if __name__ == "__main__":`` started the batch again in each worker (RuntimeError)."""
    script = (
        "import cnfgen_queens as cq\n"
        "s = cq.run_batch({'instances': {'n': [6, 7], 'encodings': ['pairwise']}, 'solvers': ['pysat:cadical195'],"
        " 'limits': {'time': 60}, 'results': 'r.sqlite'}, jobs=2)\n"
        "print(s.done, s.solved, s.failed, s.interrupted)\n"
    )
    (tmp_path / "unguarded.py").write_text(script)
    for argv, stdin in (([sys.executable, "-"], script), ([sys.executable, "unguarded.py"], "")):
        ran = subprocess.run(
            argv, input=stdin, capture_output=True, text=True, cwd=tmp_path, timeout=300, preexec_fn=default_signals
        )
        assert ran.returncode == 0 and ran.stderr == "", ran.stderr[-2000:]
        assert ran.stdout.split() == ["2", "2", "[]", "False"]
        (tmp_path / "r.sqlite").unlink()


def test_count_and_enumerate_take_a_binarys_arguments_and_the_users_profiles(tmp_path: Path) -> None:
    """`cq.count` and `cq.enumerate_solutions` take `solver_args` and `solvers_file` as `cq.solve` and the
    CLI's `count --solver-args --solvers-file` do: they reach every solver call."""
    need_solver("cadical")
    need_solver("minisat")
    profiles = tmp_path / "solvers.yaml"
    profiles.write_text(
        'solvers:\n  quiet-minisat:\n    command: "minisat -verb=0 {flags} {args} {cnf} {model}"\n'
        "    output: minisat\n    version_args: null\n"
    )
    assert cq.count(cq.queens(6), "quiet-minisat", solvers_file=profiles).total == published_count(6)[0]
    assert cq.count(cq.queens(6), "cadical", solver_args="--sat", engine="loop").total == published_count(6)[0]
    boards = list(cq.enumerate_solutions(cq.queens(6), "cadical", solver_args=["--unsat"]))
    assert len(boards) == published_count(6)[0]
    refused = cq.count(cq.queens(6), "cadical", solver_args="--no-such-option", engine="loop")
    assert str(refused.status) == "ERROR" and "--no-such-option" in (refused.error or "")
    with pytest.raises(cq.UsageError, match="unknown solver 'quiet-minisat'"):
        cq.count(cq.queens(6), "quiet-minisat")
