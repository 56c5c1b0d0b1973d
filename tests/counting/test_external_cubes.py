"""External solvers by cubes (issue 26, item 3): ``count N --solver BINARY --jobs J`` counts the canonical
border cubes, one restart loop per cube in its own work directory, resumable.  Counts against OEIS
A000170 (all) and A002562 (fundamental), written out here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import need_solver

from cnfgen_queens.cli import main
from cnfgen_queens.counting.external_cubes import DONE, RUN, count_external_cubes
from cnfgen_queens.limits import Deadline
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.solutions.api import Request, SolverChoice, Where, count
from cnfgen_queens.solvers import resolve

A000170 = {6: 4, 7: 40, 8: 92, 10: 724}
A002562 = {6: 1, 7: 6, 8: 12, 10: 92}


def _out(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().out.split()


@pytest.mark.parametrize("n", [pytest.param(10, marks=pytest.mark.slow), 8])
def test_kissat_by_cubes(n: int, capsys: pytest.CaptureFixture[str]) -> None:
    need_solver("kissat")
    assert main(["count", str(n), "--solver", "kissat", "--jobs", "2", "--symmetric", "--quiet"]) == 0
    assert _out(capsys) == ["fundamental:", str(A002562[n]), "count:", str(A000170[n]), "(published-count)"]


@pytest.mark.parametrize("n", [6, 7])
def test_minisat_by_cubes_in_one_process(n: int, tmp_path: Path) -> None:
    need_solver("minisat")
    c = count(
        Request(
            QueensFormula(n),
            SolverChoice("minisat"),
            engine="cubes",
            symmetric=True,
            where=Where(workdir=tmp_path / "w"),
        )
    )
    assert (c.total, c.fundamental, c.engine, c.complete, c.mismatches) == (A000170[n], A002562[n], "cubes", True, ())
    assert json.loads((tmp_path / "w" / RUN).read_text())["n"] == n
    assert all((d / DONE).exists() for d in (tmp_path / "w" / "groups").glob("*/cube-*"))


def test_resume_after_a_time_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_solver("minisat")
    out = str(tmp_path / "w")
    request = Request(QueensFormula(8), SolverChoice("minisat"), where=Where(jobs=2, workdir=Path(out)))
    first = count_external_cubes(request, resolve("minisat"), Deadline.after(0.6))
    assert not first.complete
    assert main(["count", "8", "--solver", "minisat", "--jobs", "2", "--out", out, "--quiet"]) == 2
    assert "use --resume" in capsys.readouterr().err
    assert main(["count", "9", "--solver", "minisat", "--jobs", "2", "--out", out, "--resume", "--quiet"]) == 2
    assert "resume with those options" in capsys.readouterr().err
    assert main(["count", "8", "--solver", "minisat", "--jobs", "2", "--out", out, "--resume", "--quiet"]) == 0
    assert _out(capsys) == ["count:", str(A000170[8]), "(published-count)"]


def test_a_tampered_finished_cube_is_refused_on_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_solver("minisat")
    out = tmp_path / "w"
    assert main(["count", "7", "--solver", "minisat", "--jobs", "2", "--out", str(out), "--quiet"]) == 0
    sol = next(p for p in sorted(out.glob("groups/*/cube-*/solutions.txt")) if p.read_text())
    sol.write_text(sol.read_text() + sol.read_text().splitlines()[0] + "\n")  # a repeated solution
    assert main(["count", "7", "--solver", "minisat", "--jobs", "2", "--out", str(out), "--resume", "--quiet"]) == 1
    assert "repeats an earlier solution" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--executor", "dask"], "--executor dask"),
        (["--limit", "3"], "--limit"),
        (["--torus"], "--torus"),
        (["--resume"], "--resume needs --out"),
    ],
)
def test_what_external_cubes_refuse(extra: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    need_solver("minisat")
    assert main(["count", "8", "--solver", "minisat", "--jobs", "2", *extra, "--quiet"]) == 2
    assert said in capsys.readouterr().err
