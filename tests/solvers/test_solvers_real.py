"""The runner with the real solvers: N=8 (SAT, a valid board) and N=3 (UNSAT), API and CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import board_line, is_solution, need_module, need_solver

from cnfgen_queens.cli import gen_main, main
from cnfgen_queens.limits import Limits
from cnfgen_queens.solvers import Status, solve

SOLVERS = ["kissat", "minisat", "cadical", "picosat", "cryptominisat5", "clasp"]


@pytest.fixture(scope="module")
def cnfs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    d = tmp_path_factory.mktemp("queens")
    paths = {}
    for n in (3, 8):
        paths[n] = d / f"q{n}.cnf"
        assert gen_main([str(n), "-o", str(paths[n])]) == 0
    return paths


@pytest.mark.parametrize("name", SOLVERS)
def test_api_sat_and_unsat(name: str, cnfs: dict[int, Path]) -> None:
    need_solver(name)
    sat = solve(cnfs[8], name)
    assert sat.status is Status.SAT, sat.error
    assert sat.verified and sat.exit_code in (10, 30) and sat.solver == name
    assert sat.version
    assert is_solution(board_line(sat.true_vars(), 8), 8)
    assert sat.model is not None and len(sat.model) == 64
    assert sat.cpu is not None and sat.wall >= 0
    unsat = solve(cnfs[3], name)
    assert unsat.status is Status.UNSAT, unsat.error
    assert unsat.model is None and unsat.exit_code == 20


@pytest.mark.parametrize("name", SOLVERS)
def test_cli_sat_and_unsat(name: str, cnfs: dict[int, Path], capsys: pytest.CaptureFixture[str]) -> None:
    need_solver(name)
    assert main(["solve", str(cnfs[8]), "--solver", name]) == 10
    out = capsys.readouterr().out.splitlines()
    assert [line for line in out if line.startswith("s ")] == ["s SATISFIABLE"]
    assert any(line.startswith(f"c solver {name} ") for line in out)
    v = [int(t) for line in out if line.startswith("v ") for t in line.split()[1:]]
    assert v[-1] == 0 and all(len(line) <= 80 for line in out if line.startswith("v "))
    assert is_solution(board_line({lit for lit in v if lit > 0}, 8), 8)
    assert main(["solve", str(cnfs[3]), "--solver", name]) == 20
    out = capsys.readouterr().out.splitlines()
    assert "s UNSATISFIABLE" in out and not any(line.startswith("v ") for line in out)


def test_embedded_default(cnfs: dict[int, Path], capsys: pytest.CaptureFixture[str]) -> None:
    sat = solve(cnfs[8])
    assert sat.status is Status.SAT and sat.solver == "pysat:cadical195" and sat.verified
    assert is_solution(board_line(sat.true_vars(), 8), 8)
    assert solve(cnfs[3], "pysat:glucose4").status is Status.UNSAT
    assert main(["solve", str(cnfs[3]), "--json"]) == 20
    record = json.loads(capsys.readouterr().out)
    assert record["status"] == "UNSAT" and record["solver"] == "pysat:cadical195"


def test_stdin(cnfs: dict[int, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    need_solver("kissat")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(cnfs[8].read_bytes())))
    assert main(["solve", "-", "--solver", "kissat"]) == 10
    assert "s SATISFIABLE" in capsys.readouterr().out


def test_path_to_binary_uses_profile(cnfs: dict[int, Path]) -> None:
    path = need_solver("minisat")
    out = solve(cnfs[8], path)  # a path whose name is a profile keeps the profile's quirks (result file)
    assert out.status is Status.SAT and out.solver == "minisat"


@pytest.mark.parametrize("name", ["kissat", "cadical"])
def test_drat_proof_verified(name: str, cnfs: dict[int, Path], tmp_path: Path) -> None:
    need_solver(name)
    need_module("dratify")
    proof = tmp_path / "proof.drat"
    out = solve(cnfs[3], name, proof=proof)
    assert out.status is Status.UNSAT and out.proof == "verified" and out.verified, out.error
    assert proof.is_file()


def test_embedded_proof_and_limits_on_easy(cnfs: dict[int, Path], tmp_path: Path) -> None:
    need_module("dratify")
    out = solve(cnfs[3], proof=tmp_path / "p.drat", limits=Limits(time=30))
    assert out.status is Status.UNSAT and out.proof == "verified"


def test_solvers_listing(capsys: pytest.CaptureFixture[str]) -> None:
    need_solver("kissat")
    assert main(["solvers", "--json"]) == 0
    rows = {r["name"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert set(SOLVERS) <= set(rows) and rows["kissat"]["found"] and rows["kissat"]["version"]


def test_cli_options_and_usage_errors(
    cnfs: dict[int, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    need_solver("kissat")
    need_solver("minisat")
    q8, q3 = str(cnfs[8]), str(cnfs[3])
    assert main(["solve", q8, "--solver", "kissat", "--solver-args=--sat --seed=3", "--no-model"]) == 10
    assert not any(line.startswith("v ") for line in capsys.readouterr().out.splitlines())
    shipped = str(Path(__file__).resolve().parents[2] / "configs" / "solvers.yaml")
    assert main(["solve", q8, "--solvers-file", shipped, "--solver", "kissat-sat", "-t", "30"]) == 10
    assert "c solver kissat-sat " in capsys.readouterr().out
    assert main(["solve", q8, "--solver", "kissat", "--solver-args=--no-such-option"]) == 1
    assert "--no-such-option" in capsys.readouterr().err  # the solver's own complaint is passed on
    capsys.readouterr()
    assert main(["solve", q3, "--solver", "minisat", "--proof", str(tmp_path / "p")]) == 2  # minisat writes none
    bad = tmp_path / "bad.cnf"
    bad.write_text("p cnf 2 1\n1 x 0\n")
    assert main(["solve", str(bad), "--solver", "kissat"]) == 2
    assert main(["solve", str(tmp_path / "missing.cnf")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and "no DRAT proof" in err[0] and "not a literal" in err[1] and "cannot read" in err[2]
