"""One judgement through every door: ``cnfgen-queens solve``, ``cq.solve`` and ``cnfgen-queens batch`` (read back
from its store) say the same of one solver's answer on one file: what the solver answered, the verdict (solved,
wrong, unsolved) and how the answer was checked.

Issue 42: a batch of the torus (N = 7) or of ``break_symmetry`` (N = 8) stored a lying UNSAT as ``UNSAT / solved``
(``report``: wrong 0) where ``solve`` called it a wrong answer (exit 1) and ``cq.solve`` returned ERROR.  The
solvers: a liar (UNSAT whatever the board), a wrong model (SAT with a model that violates a clause), a silent one
(prints nothing, exits 0), and a real one (minisat).  Every door reads the file the batch generated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import in_process, need_solver

import cnfgen_queens as cq
from cnfgen_queens.experiments.store import Store
from cnfgen_queens.solvers.outcome import Status

FAKES = Path(__file__).resolve().parents[1] / "fakes"
CLI_STATUS = {10: Status.SAT, 20: Status.UNSAT, 0: Status.UNKNOWN, 1: Status.ERROR}

BOARDS = {  # the batch's instances (beside encodings: [pairwise])
    "plain": "n: [7]",
    "torus": "n: [7]\n  torus: true",
    "break_symmetry": "n: [8]\n  break_symmetry: true",
    "torus_break_symmetry": "n: [7]\n  torus: true\n  break_symmetry: true",
    "holes": 'n: [6]\n  holes: ["2,2"]',
    "placed": 'n: [8]\n  place: ["1,1"]',
    "completion": "n: [8]\n  random_place: [2]\n  random_seeds: [3]",
    "shuffled": "n: [7]\n  shuffle_seeds: [5]",
}


def solvers(tmp_path: Path) -> dict[str, str]:
    silent = tmp_path / "silent.sh"
    silent.write_text("#!/bin/sh\nexit 0\n")
    silent.chmod(0o755)
    return {
        "liar": str(FAKES / "liar.sh"),
        "wrong_model": str(FAKES / "wrong_model.sh"),
        "silent": str(silent),
        "minisat": need_solver("minisat"),
    }


def word(value: Any) -> str | None:
    return None if value is None else str(value)


def through_the_batch(tmp_path: Path, board: str, exes: dict[str, str]) -> tuple[Path, dict[str, tuple[Any, ...]]]:
    """The file the batch generated for ``board``, and per solver (answer, verdict, checked) as stored."""
    from cnfgen_queens.cli import main

    results = tmp_path / "r.sqlite"
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(
        f"experiment: judge\ninstances:\n  {BOARDS[board]}\n  encodings: [pairwise]\n"
        f"solvers: [{', '.join(exes.values())}]\nlimits: {{time: 60}}\nresults: {results}\n"
    )
    assert main(["batch", str(cfg), "--jobs", "1", "--no-progress"]) == 0
    with Store(results, readonly=True) as store:
        rows = store.rows()
    by_path = {exe: name for name, exe in exes.items()}
    stored = {by_path[r.solver]: (word(r.status), word(r.verdict), word(r.checked)) for r in rows}
    (cnf,) = [p for p in (tmp_path / "cnf-cache").rglob("*.cnf") if p.is_file()]
    return cnf, stored


@pytest.mark.parametrize("board", BOARDS)
def test_cli_api_and_batch_judge_every_answer_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], board: str
) -> None:
    exes = solvers(tmp_path)
    cnf, stored = through_the_batch(tmp_path, board, exes)
    for name, exe in exes.items():
        code, out, _ = in_process(["solve", str(cnf), "--solver", exe, "--json", "-t", "60"], capsys)
        record = json.loads(out)
        cli = (record["answer"], record["verdict"], record["checked"])
        solved = cq.solve(cnf, solver=exe, time_limit=60)
        api = (word(solved.answer), word(solved.verdict), word(solved.checked))
        assert cli == api == stored[name], (board, name)
        assert CLI_STATUS[code] is solved.status, (board, name)  # the door's own status: ERROR for a wrong answer
        assert (solved.status is Status.ERROR) == (solved.verdict == "wrong" or solved.answer is Status.ERROR)
    assert stored["minisat"] == ("SAT", "solved", "model-verified")
    assert stored["wrong_model"] == ("SAT", "wrong", None)
    assert stored["silent"][1:] == ("unsolved", None)
    published = board in ("plain", "torus", "break_symmetry", "torus_break_symmetry", "shuffled")
    assert stored["liar"] == ("UNSAT", "wrong", None) if published else ("UNSAT", "solved", "unchecked"), board


def test_report_counts_a_lying_unsat_on_the_torus_as_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 42's reproducer: ``report`` printed ``wrong 0`` for the liar on the 7-queens torus."""
    from cnfgen_queens.cli import main

    results = tmp_path / "r.sqlite"
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(
        f"instances:\n  n: [7]\n  encodings: [pairwise]\n  torus: true\nsolvers: [{FAKES / 'liar.sh'}]\n"
        f"limits: {{time: 10}}\nresults: {results}\n"
    )
    assert main(["batch", str(cfg), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["report", str(results)]) == 0
    head, _, *lines = (line.strip("|").split("|") for line in capsys.readouterr().out.splitlines())
    table = [dict(zip((h.strip() for h in head), (c.strip() for c in line), strict=True)) for line in lines]
    assert (table[0]["solved"], table[0]["wrong"]) == ("0", "1"), table


def test_cli_and_api_judge_a_file_without_comments_alike(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without its comments a file names no board: the liar's UNSAT is unchecked, the same through both doors."""
    from cnfgen_queens.cli import main

    full, bare = tmp_path / "q7.cnf", tmp_path / "bare.cnf"
    assert main(["gen", "7", "--torus", "-o", str(full)]) == 0
    bare.write_text("".join(line for line in full.read_text().splitlines(True) if not line.startswith("c")))
    for name, exe in solvers(tmp_path).items():
        code, out, _ = in_process(["solve", str(bare), "--solver", exe, "--json"], capsys)
        record = json.loads(out)
        solved = cq.solve(bare, solver=exe)
        assert (record["answer"], record["verdict"], record["checked"]) == (
            word(solved.answer),
            word(solved.verdict),
            word(solved.checked),
        ), name
        assert CLI_STATUS[code] is solved.status, name
        if name == "liar":
            assert (solved.answer, solved.verdict, solved.checked) == (Status.UNSAT, "solved", "unchecked")


@pytest.mark.parametrize(
    ("n", "variant", "flags"), [(7, "torus: true", ["--torus"]), (6, "break_symmetry: true", ["--break-symmetry"])]
)
def test_a_lying_count_is_wrong_through_every_door(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int, variant: str, flags: list[str]
) -> None:
    """task count: the liar's count of 0 disagrees with OEIS (A007705: 28; A002562: 1): ``count`` says wrong (exit 1),
    ``cq.count`` status ERROR, the batch verdict wrong."""
    from cnfgen_queens.cli import main

    liar = str(FAKES / "liar.sh")
    results = tmp_path / "r.sqlite"
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(
        f"task: count\ninstances:\n  n: [{n}]\n  encodings: [pairwise]\n  {variant}\nsolvers: [{liar}]\n"
        f"limits: {{time: 60}}\nresults: {results}\n"
    )
    assert main(["batch", str(cfg), "--jobs", "1", "--no-progress"]) == 0
    with Store(results, readonly=True) as store:
        (row,) = store.rows()
    code, out, _ = in_process(["count", str(n), *flags, "--solver", liar, "--quiet"], capsys)
    api = cq.count(cq.queens(n, torus="--torus" in flags, break_symmetry="--break-symmetry" in flags), solver=liar)
    assert (code, out) == (1, "count: 0 (wrong)\n")
    assert (api.status, api.total) == (Status.ERROR, 0)
    assert (row.count, word(row.verdict)) == (0, "wrong")
