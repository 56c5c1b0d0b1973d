"""Runner pieces without processes: output parsing, exit-code cross-checks, profiles, model checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from cnfgen_queens.cnf.scan import read_cnf
from cnfgen_queens.limits import Limits
from cnfgen_queens.solvers import Outcome, ProfileError, Status, check_model
from cnfgen_queens.solvers.finished import Finished
from cnfgen_queens.solvers.parse import classify, parse_competition, parse_minisat
from cnfgen_queens.solvers.profiles import BUILTIN, generic, load_user_profiles

GENERIC = generic("/opt/x/solver")


def ended(code: int, *, timed_out: bool = False, wall: float = 0.1, cpu: float | None = 0.1) -> Finished:
    """The record of a run that ended with ``code``."""
    return Finished(
        exit_code=code,
        wall=wall,
        cpu=cpu,
        peak_memory_mb=None,
        stdout=b"",
        stderr=b"",
        timed_out=timed_out,
        leftovers=0,
    )


def status_of(text: str, code: int, profile=GENERIC, limits: Limits = Limits(), **kw) -> tuple[Status, str | None]:  # type: ignore[no-untyped-def]  # noqa: B008
    return classify(parse_competition(text), profile, ended(code, **kw), limits, "")


def test_wrapped_v_lines_and_v_before_s() -> None:
    claim = parse_competition("c hello\nv 1 -2\nv 3\nv -4 0\ns SATISFIABLE\n")
    assert claim.answer == "SAT" and claim.model == (1, -2, 3, -4) and claim.terminated


def test_answers_and_exit_cross_check() -> None:
    assert status_of("s SATISFIABLE\nv 1 0\n", 10)[0] is Status.SAT
    assert status_of("s UNSATISFIABLE\n", 20)[0] is Status.UNSAT
    assert status_of("s UNSATISFIABLE\n", 10) == (Status.ERROR, "answer UNSATISFIABLE but exit code 10")
    assert status_of("s SATISFIABLE\n", 10)[1] == "answer SATISFIABLE but no model"
    assert status_of("s SATISFIABLE\nv 1 2\n", 10)[0] is Status.ERROR  # no terminating 0
    assert status_of("c nothing\n", 10)[0] is Status.ERROR  # exit 10 without an s line
    assert status_of("s UNKNOWN\n", 20)[0] is Status.ERROR
    assert status_of("s SATISFIABLE\ns UNSATISFIABLE\n", 10)[0] is Status.ERROR
    assert status_of("s UNSATISFIABLE\nv 1 0\n", 20)[0] is Status.ERROR


def test_solver_quirks() -> None:
    clasp, cms, picosat = BUILTIN["clasp"], BUILTIN["cryptominisat5"], BUILTIN["picosat"]
    assert status_of("v 1 0\ns SATISFIABLE\n", 30, clasp)[0] is Status.SAT  # model proved unique
    assert status_of("v 1 0\ns SATISFIABLE\n", 30)[0] is Status.ERROR  # 30 means nothing to others
    assert status_of("s INDETERMINATE\n", 15, cms)[0] is Status.UNKNOWN
    assert status_of("c UNKNOWN\n", 0, BUILTIN["cadical"])[0] is Status.UNKNOWN  # cadical's own limit
    assert status_of("c UNKNOWN\n", 0, BUILTIN["cadical"], limits=Limits(time=0.1))[0] is Status.TIMEOUT
    status, error = status_of("*** picosat: can not read 'x'\n", 0, picosat)  # errors on stdout, exit 0
    assert status is Status.ERROR and "can not read" in (error or "")
    assert status_of("", -11)[1] == "no answer, killed by SIGSEGV"


def test_memout_classification() -> None:
    claim = parse_competition("c solving\n")
    status, _ = classify(
        claim, GENERIC, ended(-6), Limits(memory=64), "terminate called after throwing an instance of 'std::bad_alloc'"
    )
    assert status is Status.MEMOUT


def test_minisat_result_file() -> None:
    assert parse_minisat("SAT\n1 -2 3 0\n").model == (1, -2, 3)
    assert parse_minisat("UNSAT\n").answer == "UNSAT"
    assert parse_minisat("INDET\n").answer == "UNKNOWN"
    assert parse_minisat(None).answer is None
    assert parse_minisat("maybe\n").problem is not None


def test_check_model(tmp_path: Path) -> None:
    path = tmp_path / "f.cnf"
    path.write_text("p cnf 3 2\n1 2 0\n-1 -3 0\n")
    cnf = read_cnf(path)
    assert check_model(cnf, [2]) == ((-1, 2, -3), None)  # unlisted variables are false
    model, error = check_model(cnf, [1, 3])
    assert model is None and error == "model violates clause 2 of 2: -1 -3 0"
    assert "variable 4" in (check_model(cnf, [1, 4])[1] or "")
    assert "both" in (check_model(cnf, [1, -1])[1] or "")


def test_profile_commands() -> None:
    kissat = BUILTIN["kissat"]
    cnf, proof = Path("f.cnf"), Path("p.drat")
    assert kissat.command("kissat", cnf) == ["kissat", "f.cnf"]
    assert kissat.command("kissat", cnf, time=2.5, proof=proof, args=["--sat"]) == [
        "kissat",
        "--time=3",
        "--no-binary",
        "--sat",
        "f.cnf",
        "p.drat",
    ]
    minisat = BUILTIN["minisat"]
    assert minisat.command("minisat", cnf, model=Path("m")) == ["minisat", "f.cnf", "m"]
    assert BUILTIN["cadical"].command("cadical", cnf, time=1) == ["cadical", "-t", "1", "f.cnf"]


def test_user_profiles(tmp_path: Path) -> None:
    good = tmp_path / "ok.yaml"
    good.write_text(
        "solvers:\n  mine:\n    command: '/opt/mine --seed=1 {args} {cnf} {model}'\n"
        "    output: minisat\n    time_flags: '-T {time}'\n    sat_exit: [10, 0]\n"
    )
    mine = load_user_profiles(good)["mine"]
    assert mine.binary == "/opt/mine" and mine.output == "minisat" and mine.sat_exit == frozenset({0, 10})
    assert mine.command("/opt/mine", Path("f"), model=Path("m"), time=5) == [
        "/opt/mine",
        "-T",
        "5",
        "--seed=1",
        "f",
        "m",
    ]
    shipped = load_user_profiles(Path(__file__).resolve().parents[2] / "configs" / "solvers.yaml")
    assert {"kissat-sat", "minisat-like"} <= set(shipped)
    for text, message in [
        ("solvers:\n  x:\n    command: 'x {args}'\n", "no {cnf}"),
        ("solvers:\n  x:\n    command: 'x {cnf}'\n    colour: red\n", "unknown key"),
        ("solvers:\n  x:\n    command: 'x {cnf} {bogus}'\n", "unknown placeholder"),
        ("solvers:\n  x:\n    command: 'x {cnf}'\n    output: minisat\n", "{model}"),
        ("solvers: [1, 2]\n", "expected a mapping"),
        ("solvers:\n  x: [\n", "not valid YAML"),
    ]:
        bad = tmp_path / "bad.yaml"
        bad.write_text(text)
        with pytest.raises(ProfileError, match=message.replace("{", r"\{").replace("}", r"\}")):
            load_user_profiles(bad)


def test_outcome_record() -> None:
    out = Outcome(
        status=Status.SAT,
        solver="s",
        version=None,
        model=(1, -2, 3),
        exit_code=10,
        wall=0.1,
        cpu=0.1,
        peak_memory_mb=None,
        verified=True,
        error=None,
        stderr_tail="",
        proof=None,
    )
    assert out.true_vars() == {1, 3} and out.exit_status == 10
    assert out.to_dict()["status"] == "SAT" and out.to_dict()["model"] == [1, -2, 3]
    assert str(Status.TIMEOUT) == "TIMEOUT" and Status("MEMOUT") is Status.MEMOUT
    with pytest.raises(ValueError):
        Limits(time=0)
