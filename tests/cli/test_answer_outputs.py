"""What solve, decode and enumerate print for machines and people: the clauses really checked, pure JSON
where JSON is asked for, solve's JSON record decodable, and --cnf checked against solve's c lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import is_solution, need_solver

from cnfgen_queens.model.formula import QueensFormula


def sh(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    return subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True, env=env, timeout=300)


# -- item 2: the clauses checked, and a header that lies -------------------------------------------


@pytest.mark.parametrize("solver", ["minisat", "pysat:cadical195"])  # kissat and cadical refuse such a file
def test_solve_reports_the_clauses_checked_and_warns_on_a_wrong_count(tmp_path: Path, solver: str) -> None:
    if not solver.startswith("pysat:"):
        need_solver(solver)
    (tmp_path / "l.cnf").write_text("p cnf 5 1000\n1 2 0\n-1 0\n")
    run = sh(f"cnfgen-queens solve l.cnf --solver {solver}", tmp_path)
    assert run.returncode == 10, run.stderr
    assert "c model verified against all 2 clauses" in run.stdout.splitlines()
    assert run.stderr == "cnfgen-queens solve: warning: l.cnf: header says 1000 clauses, file has 2\n"
    record = json.loads(sh(f"cnfgen-queens solve l.cnf --solver {solver} --json", tmp_path).stdout)
    assert record["clauses_checked"] == 2


def test_solve_is_quiet_when_the_header_is_right(tmp_path: Path) -> None:
    run = sh("gen-queens 6 | cnfgen-queens solve -", tmp_path)
    assert run.returncode == 10 and run.stderr == ""
    assert f"c model verified against all {QueensFormula(6).counts()[1]} clauses" in run.stdout.splitlines()


# -- item 3: JSON means JSON -------------------------------------------------------------------------


def test_decode_json_on_unsat_is_json(tmp_path: Path) -> None:
    run = sh("gen-queens 3 | cnfgen-queens solve - | cnfgen-queens decode --format json", tmp_path)
    assert run.returncode == 1
    assert json.loads(run.stdout) == {"n": 3, "columns": None}


def test_enumerate_json_stdout_is_json_lines_only(tmp_path: Path) -> None:
    run = sh("cnfgen-queens enumerate 4 --format json", tmp_path)
    assert run.returncode == 0, run.stderr
    records = [json.loads(line) for line in run.stdout.splitlines()]
    assert sorted(r["columns"] for r in records) == [[2, 4, 1, 3], [3, 1, 4, 2]]
    assert run.stderr.splitlines()[-1] == "count: 2 (published-count)"
    jq = sh(
        "cnfgen-queens enumerate 4 --format json | python -c 'import json,sys; [json.loads(x) for x in sys.stdin]'",
        tmp_path,
    )
    assert jq.returncode == 0


@pytest.mark.parametrize("gen", ["gen-queens 8", "gen-queens 8 -e commander --shuffle 5"])
def test_solve_json_pipes_into_decode(tmp_path: Path, gen: str) -> None:
    run = sh(f"{gen} | cnfgen-queens solve - --json | cnfgen-queens decode - --format line", tmp_path)
    assert run.returncode == 0, run.stderr
    assert is_solution(run.stdout, 8)
    unsat = sh("gen-queens 3 | cnfgen-queens solve - --json | cnfgen-queens decode -", tmp_path)
    assert (unsat.returncode, unsat.stdout) == (1, "no solution\n")


def test_solve_json_record_names_its_cnf(tmp_path: Path) -> None:
    record = json.loads(sh("gen-queens 5 --shuffle 2 | cnfgen-queens solve - --json", tmp_path).stdout)
    assert record["cnf_header"][0] == "p cnf {} {}".format(*QueensFormula(5).counts()[:2])
    assert any(line.startswith("shuffle: seed=2 vars=25") for line in record["cnf_header"])


# -- item 4: --cnf against solve's c lines; SAT without a model ------------------------------------------


def test_decode_refuses_a_cnf_that_is_not_the_one_solved(tmp_path: Path) -> None:
    assert sh("gen-queens 20 | cnfgen-queens solve - > s.out; gen-queens 8 -o q8.cnf", tmp_path).returncode == 0
    run = sh("cnfgen-queens decode s.out --cnf q8.cnf", tmp_path)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "q8.cnf" in run.stderr and "20" in run.stderr and "8" in run.stderr
    shuffled = sh(
        "gen-queens 8 --shuffle 5 | cnfgen-queens solve - > t.out; gen-queens 8 --shuffle 6 -o s6.cnf", tmp_path
    )
    assert shuffled.returncode == 0
    other = sh("cnfgen-queens block t.out --cnf s6.cnf", tmp_path)
    assert other.returncode == 2 and other.stdout == "" and other.stderr.count("\n") == 1
    assert "seed=5" in other.stderr and "seed=6" in other.stderr
    same = sh("gen-queens 8 --shuffle 5 -o s5.cnf && cnfgen-queens decode t.out --cnf s5.cnf --format line", tmp_path)
    assert same.returncode == 0 and is_solution(same.stdout, 8)


@pytest.mark.parametrize("json_flag", ["", " --json"])
def test_decode_says_sat_without_a_model(tmp_path: Path, json_flag: str) -> None:
    run = sh(f"gen-queens 6 | cnfgen-queens solve - --no-model{json_flag} | cnfgen-queens decode", tmp_path)
    assert run.returncode == 1 and run.stderr.count("\n") == 1
    assert "SAT" in run.stderr and "no model" in run.stderr and "no SAT result" not in run.stderr
