"""Every answer says how it was checked, and CLI, API and batch judge one solver output the same way
(issue 30, item 4).  The hostile party is a fake solver that always says UNSAT (tests/fakes/liar.sh);
the honest side is real solvers, and the counts it is compared with come from brute force."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

import pytest
from brute_force import brute_count
from helpers import in_process, need_module, need_solver, one_line

import cnfgen_queens as cq
from cnfgen_queens.cli import gen_main
from cnfgen_queens.enumeration.records import Count
from cnfgen_queens.experiments.store import Store
from cnfgen_queens.solvers.outcome import Checked, Status

LIAR = str(Path(__file__).resolve().parents[1] / "fakes" / "liar.sh")


def stripped(tmp_path: Path, n: int) -> Path:
    """gen-queens N with its comment lines taken out: a CNF that names no board."""
    full, bare = tmp_path / f"q{n}.cnf", tmp_path / f"bare{n}.cnf"
    assert gen_main([str(n), "-o", str(full)]) == 0
    bare.write_text("".join(line for line in full.read_text().splitlines(True) if not line.startswith("c")))
    return bare


def test_a_count_built_on_lying_unsat_says_unchecked(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 30: ``count 8 --place 1,1 --solver ./liar.sh`` printed ``count: 0``, exit 0, for a truth of 4."""
    truth = brute_count(8, placed=[(0, 0)])
    code, out, _ = in_process(["count", "8", "--place", "1,1", "--solver", LIAR, "--quiet"], capsys)
    assert (code, out) == (0, "count: 0 (unchecked)\n") and truth == 4
    code, out, err = in_process(
        ["count", "8", "--place", "1,1", "--solver", LIAR, "--quiet", "--require-checked"], capsys
    )
    assert (code, out) == (1, "") and "nothing checked" in one_line(err) and "--require-checked" in err


def test_an_honest_count_says_how_it_was_checked(capsys: pytest.CaptureFixture[str]) -> None:
    """minisat counts the placed-queen variant right (brute force), but nothing published checks it: unchecked;
    the plain board agrees with OEIS A000170: published-count, which --require-checked accepts."""
    need_solver("minisat")
    truth = brute_count(8, placed=[(0, 0)])
    code, out, _ = in_process(["count", "8", "--place", "1,1", "--solver", "minisat", "--quiet"], capsys)
    assert (code, out) == (0, f"count: {truth} (unchecked)\n")
    code, out, _ = in_process(["count", "6", "--solver", "minisat", "--quiet", "--require-checked"], capsys)
    assert (code, out) == (0, f"count: {brute_count(6)} (published-count)\n")
    code, out, _ = in_process(["enumerate", "5", "--solver", "minisat", "--quiet", "--require-checked"], capsys)
    assert code == 0 and out.splitlines()[-1] == f"count: {brute_count(5)} (published-count)"


def test_a_wrong_count_is_called_wrong_by_cli_and_api_alike(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 30: the liar on the plain board, 0 against OEIS's 4.  The CLI printed a bare ``count: 0`` (exit 1, a
    MISMATCH line); ``cq.count`` returned status UNSAT with no error.  Now both say it is wrong, in one text:
    the CLI ``count: 0 (wrong)`` and that text on one stderr line, the API status ERROR with it as ``error``."""
    truth = brute_count(6)
    code, out, err = in_process(["count", "6", "--solver", LIAR, "--engine", "loop", "--quiet"], capsys)
    assert (code, out) == (1, "count: 0 (wrong)\n") and truth == 4
    assert f"OEIS A000170 says {truth}" in one_line(err) and "nothing checked" in err
    c = cq.count(cq.queens(6), solver=LIAR, engine="loop")
    assert (c.status, c.total, c.checked, c.refused) == (Status.ERROR, 0, None, False)
    assert err == f"cnfgen-queens count: error: {c.error}\n" and c.mismatches
    c = cq.count(cq.queens(6), solver=LIAR, engine="loop", require_checked=True)
    assert c.status is Status.ERROR and c.refused and c.checked is None and "disagrees" in (c.error or "")


def test_a_refusal_is_a_flag_not_the_words_of_an_error() -> None:
    """Count.refused was read off the end of the error text: a solver's error that ends in those words (its stderr
    is quoted there) made a stopped count a refused one, and the CLI dropped its ``partial count`` line."""
    stopped = Count(
        total=3,
        fundamental=None,
        status=Status.ERROR,
        engine="loop",
        wall=0.1,
        solver_calls=4,
        error="liar: exit 1: c refused by --require-checked",
    )
    assert not stopped.refused and not stopped.complete
    c = cq.count(cq.queens(6, place=[(0, 1)]), solver=LIAR, engine="loop", require_checked=True)
    assert c.refused and dataclasses.replace(c, error="anything").refused


def test_require_checked_is_named_in_the_api_s_words(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The API's refusals name its parameter, ``require_checked=True``; the CLI's its flag."""
    c = cq.count(cq.queens(6, place=[(0, 1)]), solver=LIAR, engine="loop", require_checked=True)
    assert c.refused and (c.error or "").endswith("refused by require_checked=True"), c.error
    assert "--require-checked" not in (c.error or "")
    solved = cq.solve(stripped(tmp_path, 8), solver=LIAR, require_checked=True)
    assert solved.status is Status.ERROR and (solved.outcome.error or "").endswith("refused by require_checked=True")
    code, _, err = in_process(
        ["count", "6", "--place", "1,2", "--solver", LIAR, "--engine", "loop", "--quiet", "--require-checked"], capsys
    )
    assert code == 1 and one_line(err).rstrip().endswith("refused by --require-checked"), err


def test_an_unchecked_unsat_says_so_and_require_checked_refuses_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 30: a lying UNSAT on a CNF without its comments was ``s UNSATISFIABLE``, exit 20, with no word."""
    bare = stripped(tmp_path, 8)
    code, out, _ = in_process(["solve", str(bare), "--solver", LIAR], capsys)
    assert code == 20 and "s UNSATISFIABLE" in out.splitlines()
    assert any(line.startswith("c checked: unchecked") for line in out.splitlines())
    code, out, err = in_process(["solve", str(bare), "--solver", LIAR, "--require-checked"], capsys)
    assert code == 1 and "s UNKNOWN" in out.splitlines() and "--require-checked" in one_line(err)
    code, out, _ = in_process(["solve", str(bare), "--solver", LIAR, "--json"], capsys)
    assert code == 20 and json.loads(out)["checked"] == "unchecked"


def test_solve_names_each_way_of_checking(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Real solvers: a SAT model (model-verified), N = 3 by OEIS (published-count), an UNSAT whose DRAT proof
    was checked (proof-verified)."""
    minisat, cadical = need_solver("minisat"), need_solver("cadical")
    need_module("dratify")
    q8, q3 = tmp_path / "q8.cnf", tmp_path / "q3.cnf"
    assert gen_main(["8", "-o", str(q8)]) == 0 and gen_main(["3", "-o", str(q3)]) == 0
    words = {}
    for name, argv in {
        "sat": [str(q8), "--solver", minisat],
        "oeis": [str(q3), "--solver", minisat],
        "proof": [str(stripped(tmp_path, 3)), "--solver", cadical, "--proof", str(tmp_path / "p.drat")],
    }.items():
        code, out, _ = in_process(["solve", *argv, "--no-model", "--require-checked"], capsys)
        words[name] = (code, [line for line in out.splitlines() if line.startswith("c checked:")])
    assert words == {
        "sat": (10, ["c checked: model-verified"]),
        "oeis": (20, ["c checked: published-count"]),
        "proof": (20, ["c checked: proof-verified"]),
    }


CLI_STATUS = {10: Status.SAT, 20: Status.UNSAT, 1: Status.ERROR}


@pytest.mark.parametrize("solver", ["liar", "minisat"])
def test_cli_and_api_judge_one_answer_the_same(tmp_path: Path, capsys: pytest.CaptureFixture[str], solver: str) -> None:
    """Issue 30: ``cq.solve(cq.queens(8), solver="./liar.sh")`` returned UNSAT where the CLI rejected it as
    wrong.  Same solver, same CNF (the formula, a file of it, the file without comments): same status, same
    word, same reason, with and without require_checked."""
    exe = LIAR if solver == "liar" else need_solver("minisat")
    q8 = tmp_path / "q8.cnf"
    assert gen_main(["8", "-o", str(q8)]) == 0
    for require in (False, True):
        for given in (cq.queens(8), q8, stripped(tmp_path, 8)):
            path = q8 if isinstance(given, cq.Formula) else given
            flag = ["--require-checked"] if require else []
            code, out, _ = in_process(["solve", str(path), "--solver", exe, "--json", *flag], capsys)
            record = json.loads(out)
            api = cq.solve(given, solver=exe, require_checked=require)
            assert api.status is CLI_STATUS[code], (given, require)
            assert (None if api.checked is None else api.checked.value) == record["checked"]
            reason = record.get("wrong_answer") or record.get("refused")
            if reason is not None:  # the same refusal, each in its own words
                reason = reason.replace("--require-checked", "require_checked=True")
            assert (api.outcome.error if api.status is Status.ERROR else None) == reason
    if solver == "liar":
        assert cq.solve(cq.queens(8), solver=exe).status is Status.ERROR  # the published count: 92


def test_the_batch_stores_how_each_run_was_checked(tmp_path: Path) -> None:
    """A ``checked`` column: model-verified SAT, published-count UNSAT (N = 3) and counts; an older store
    without the column still reads (None), and opening it to write adds the column."""
    from cnfgen_queens.cli import main

    need_solver("minisat")
    results = tmp_path / "r.sqlite"
    for task in ("solve", "count"):
        cfg = tmp_path / f"{task}.yaml"
        cfg.write_text(
            f"experiment: {task}\ninstances:\n  n: [3, 5]\n  encodings: [pairwise]\nsolvers: [minisat]\n"
            f"limits: {{time: 30}}\nresults: {results}\ntask: {task}\n"
        )
        assert main(["batch", str(cfg), "--jobs", "1", "--no-progress"]) == 0
    with Store(results, readonly=True) as store:
        got = sorted((r.task, r.n, str(r.status), r.checked) for r in store.rows())
    assert got == [
        ("count", 3, "UNSAT", Checked.PUBLISHED),
        ("count", 5, "UNSAT", Checked.PUBLISHED),
        ("solve", 3, "UNSAT", Checked.PUBLISHED),
        ("solve", 5, "SAT", Checked.MODEL),
    ]
    with sqlite3.connect(results) as db:
        db.execute("ALTER TABLE runs DROP COLUMN checked")  # a store written before the column
    with Store(results, readonly=True) as store:
        assert {r.checked for r in store.rows()} == {None} and len(store.rows()) == 4
    Store(results).close()
    with Store(results, readonly=True) as store:
        assert "checked" in store.columns


def test_a_liar_in_the_batch_is_stored_unchecked_or_wrong(tmp_path: Path) -> None:
    """The batch judges the liar as solve does: a stripped-of-nothing N = 5 UNSAT is wrong (verdict), N = 3's
    UNSAT agrees with OEIS."""
    from cnfgen_queens.cli import main

    results = tmp_path / "r.sqlite"
    cfg = tmp_path / "liar.yaml"
    cfg.write_text(
        f"experiment: liar\ninstances:\n  n: [3, 5]\n  encodings: [pairwise]\nsolvers: [{LIAR}]\n"
        f"limits: {{time: 30}}\nresults: {results}\n"
    )
    main(["batch", str(cfg), "--jobs", "1", "--no-progress"])
    with Store(results, readonly=True) as store:
        got = sorted((r.n, r.checked, str(r.verdict)) for r in store.rows())
    assert got == [(3, Checked.PUBLISHED, "solved"), (5, None, "wrong")]


def test_require_checked_accepts_a_checked_certificate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No published count for a placed queen, but ``--certify`` writes a certificate that is then checked."""
    need_module("dratify")
    truth = brute_count(6, placed=[(0, 1)])
    argv = ["count", "6", "--place", "1,2", "--solver", "pysat:cadical195", "--quiet", "--require-checked"]
    code, out, _ = in_process([*argv, "--certify", str(tmp_path / "cert")], capsys)
    assert (code, out) == (0, f"count: {truth} (certified)\n")
    code, out, err = in_process(argv, capsys)
    assert (code, out) == (1, "") and "--certify" in one_line(err)
