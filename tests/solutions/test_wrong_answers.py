"""Wrong answers: an invalid model is stored as the solver's SAT with verdict ``wrong`` (not an ERROR,
not unsolved), and ``solve`` does not pass on an UNSAT that the file's own header contradicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cnfgen_queens.cli import main
from cnfgen_queens.experiments.store import Store
from cnfgen_queens.experiments.verdict import Verdict
from cnfgen_queens.solvers import Status

FAKES = Path(__file__).resolve().parents[1] / "fakes"


def test_batch_stores_an_invalid_model_as_a_wrong_sat(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "r.sqlite"
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(
        "instances:\n  n: [8]\n  encodings: [pairwise]\n"
        f"solvers: [{FAKES / 'wrong_model.sh'}, {FAKES / 'liar.sh'}]\nlimits: {{time: 10}}\nresults: {results}\n"
    )
    assert main(["batch", str(cfg), "--no-progress"]) == 0
    assert "2 runs done (0 solved)" in capsys.readouterr().out
    with Store(results, readonly=True) as store:
        rows = {Path(r.solver).name: r for r in store.rows()}
    bad = rows["wrong_model.sh"]
    assert (bad.status, bad.verified, bad.verdict) == (Status.SAT, False, Verdict.WRONG)  # said SAT, check failed
    assert bad.error is not None and bad.error.startswith("model violates clause 1 of 736")
    liar = rows["liar.sh"]
    assert (liar.status, liar.verdict) == (Status.UNSAT, Verdict.WRONG)
    assert main(["report", str(results)]) == 0
    head, _, *lines = (line.strip("|").split("|") for line in capsys.readouterr().out.splitlines())
    table = [dict(zip((h.strip() for h in head), (c.strip() for c in line), strict=True)) for line in lines]
    assert [(t["solved"], t["wrong"]) for t in table] == [("0", "1")] * 2 + [("0", "0")], table  # + virtual best


def test_solve_refuses_an_unsat_its_header_contradicts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    q8, q3 = tmp_path / "q8.cnf", tmp_path / "q3.cnf"
    assert main(["gen", "8", "-o", str(q8)]) == 0 and main(["gen", "3", "-o", str(q3)]) == 0
    capsys.readouterr()
    liar = str(FAKES / "liar.sh")
    assert main(["solve", str(q8), "--solver", liar]) == 1  # as batch judges it: wrong, a solver error
    out, err = capsys.readouterr()
    sentence = "the header describes 8-queens (pairwise), which has 92 solutions (OEIS A000170): a wrong answer"
    assert f"c error: the solver answered UNSAT, but {sentence}" in out and out.endswith("s UNKNOWN\n")
    assert "c status UNSAT" in out  # what the solver said is still shown
    assert err.count("\n") == 1 and sentence in err
    assert main(["solve", str(q8), "--solver", liar, "--json"]) == 1
    record = json.loads(capsys.readouterr().out)
    assert record["status"] == "UNSAT" and sentence in record["wrong_answer"]
    assert main(["solve", str(q3), "--solver", liar]) == 20  # N = 3 has no solution: UNSAT is right
    assert "c error" not in capsys.readouterr().out
    merged = tmp_path / "blocked.cnf"  # clauses added: no longer the formula the header describes
    blocks = tmp_path / "blocks.cnf"
    blocks.write_text("1 0\n-1 0\n")
    assert main(["merge", str(q8), str(blocks), "-o", str(merged)]) == 0
    capsys.readouterr()
    assert main(["solve", str(merged), "--solver", liar]) == 20
    assert "c error" not in capsys.readouterr().out
    appended = tmp_path / "appended.cnf"  # block >> q8.cnf: more clauses under the same header
    appended.write_bytes(q8.read_bytes() + b"1 0\n-1 0\n")
    assert main(["solve", str(appended), "--solver", liar]) == 20
    assert "c error" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("flags", "sentence"),
    [
        (["8", "--break-symmetry"], "8-queens with --break-symmetry (pairwise), which has 12 solutions (OEIS A002562)"),
        (
            ["7", "--torus", "--break-symmetry"],  # its orbits are unpublished: the board's count, one orbit kept
            "7-queens torus with --break-symmetry (pairwise), which has 28 solutions (OEIS A007705), of which at "
            "least one is kept",
        ),
    ],
)
def test_a_wrong_unsat_names_the_count_of_the_formula_in_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], sentence: str
) -> None:
    """The symmetry-broken formula keeps one board per orbit: its wrong UNSAT names that count, not the
    plain board's."""
    cnf = tmp_path / "q.cnf"
    assert main(["gen", *flags, "-o", str(cnf)]) == 0
    capsys.readouterr()
    assert main(["solve", str(cnf), "--solver", str(FAKES / "liar.sh")]) == 1
    _, err = capsys.readouterr()
    assert f"{sentence}: a wrong answer" in err and err.count("\n") == 1
