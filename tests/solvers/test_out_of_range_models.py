"""A model that names variables beyond the CNF's is a rejected (wrong) model, however long its ``v`` line
(issue 30: a line of more than 64 literals whose first is out of range crashed ``solve``, ``count``,
``enumerate``, the API and the batch with numpy's "zero-size array to reduction operation maximum")."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import in_process

import cnfgen_queens as cq
from cnfgen_queens.cli import gen_main
from cnfgen_queens.enumeration.records import EnumerationError
from cnfgen_queens.experiments.store import Store
from cnfgen_queens.solvers.outcome import Status

LINES = {  # a v line of the liar, N = 8 (64 variables): numpy's path (> 64 literals) and Python's
    "long": " ".join(map(str, range(65, 201))),
    "short": "65 66",
    "late": " ".join(str(-v) for v in range(1, 65)) + " -65 " + " ".join(map(str, range(66, 140))),
}
PROBLEM = "model mentions variable 65, but the CNF has 64"


def liar(tmp_path: Path, line: str) -> str:
    """A solver that says SAT (exit 10) with ``v LINE 0``."""
    path = tmp_path / "liar_range.sh"
    path.write_text(f'#!/bin/sh\necho "s SATISFIABLE"\necho "v {line} 0"\nexit 10\n')
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize("shape", list(LINES))
def test_cli_rejects_the_model(tmp_path: Path, capsys: pytest.CaptureFixture[str], shape: str) -> None:
    solver, q8 = liar(tmp_path, LINES[shape]), tmp_path / "q8.cnf"
    assert gen_main(["8", "-o", str(q8)]) == 0
    code, out, err = in_process(["solve", str(q8), "--solver", solver], capsys)
    assert code == 1 and "s UNKNOWN" in out.splitlines() and f"c error: {PROBLEM}" in out.splitlines(), out
    assert err.count("\n") == 1 and PROBLEM in err and "Traceback" not in err, err
    for command in ("count", "enumerate"):
        code, out, err = in_process([command, "8", "--solver", solver, "--quiet"], capsys)
        assert code == 1 and err.count("\n") == 1 and PROBLEM in err and "ValueError" not in err, (command, err)


def test_api_rejects_the_model(tmp_path: Path) -> None:
    solver = liar(tmp_path, LINES["long"])
    solved = cq.solve(cq.queens(8), solver=solver)
    assert solved.status is Status.ERROR and solved.outcome.model_rejected and solved.outcome.error == PROBLEM
    counted = cq.count(cq.queens(8), solver=solver)
    assert counted.status is Status.ERROR and PROBLEM in (counted.error or "")
    with pytest.raises(EnumerationError, match=PROBLEM):
        list(cq.enumerate_solutions(cq.queens(8), solver=solver))


def test_the_batch_judges_it_wrong(tmp_path: Path) -> None:
    from cnfgen_queens.cli import main

    solver, results, cfg = liar(tmp_path, LINES["long"]), tmp_path / "r.sqlite", tmp_path / "c.yaml"
    cfg.write_text(
        f"experiment: range\ninstances:\n  n: [8]\n  encodings: [pairwise]\nsolvers: [{solver}]\n"
        f"limits: {{time: 30}}\nresults: {results}\n"
    )
    main(["batch", str(cfg), "--jobs", "1", "--no-progress"])
    with Store(results, readonly=True) as store:
        (row,) = store.rows()
    assert str(row.verdict) == "wrong" and PROBLEM in (row.error or ""), row  # status: what the solver claimed
