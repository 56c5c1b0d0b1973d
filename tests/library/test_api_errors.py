"""Python's own errors from the API (issue 31): TypeError with a sentence for a wrong type, FileNotFoundError for
a missing file, UsageError (a ValueError) for a bad value, in the API's words (its parameters, its 0-based
squares as the caller gave them, never a CLI flag); and the API and the CLI give the same outcome on the same
input and limits, the memory limit included.  Every case runs both ways."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import in_process as cli
from helpers import run_cli

import cnfgen_queens as cq

FLAGS = {"holes": "--block-square"}  # the parameters whose flag is not their name with dashes


def cli_words(message: str) -> str:
    """An API message in the CLI's words: squares 1-based, parameters as flags (placeholders left out), so that
    it can be compared with the CLI's message for the same input, its placeholders (``--seed S``) left out too.

    >>> cli_words("queen at (9, 0) is off the 4x4 board (rows, columns 0..3); seed= needs random_place=")
    'queen at 10,1 is off the 4x4 board (rows, columns 1..4); --seed needs --random-place'
    """

    def flag(name: str) -> str:
        return FLAGS.get(name, "--" + name.replace("_", "-"))

    message = re.sub(r"\((\d+), (\d+)\)", lambda m: f"{int(m[1]) + 1},{int(m[2]) + 1}", message)
    message = re.sub(r"columns 0\.\.(\d+)", lambda m: f"columns 1..{int(m[1]) + 1}", message)
    message = re.sub(r"\b([a-z_]+)=True\b", lambda m: flag(m[1]), message)
    message = re.sub(r"\b([a-z_]+)='([^']*)'", lambda m: f"{flag(m[1])} {m[2]}", message)
    message = re.sub(r"\b([a-z_]+)=(?=[\s,;:)]|$)", lambda m: flag(m[1]), message)
    message = re.sub(r"^n must ", "N must ", message)  # the board size: N on the command line
    message = message.replace("cnfgen_queens.register_encoding", "--plugin FILE.py")  # an encoding of one's own
    return re.sub(r"^([a-z]+_[a-z_]+) must ", lambda m: f"argument {flag(m[1])}: must ", message)


def without_placeholders(cli_message: str) -> str:
    return re.sub(r"(--[a-z-]+) [A-Z]\b", r"\1", cli_message)


# (what the API is given, the CLI's arguments for the same input, words the API's message must hold)
VALUES: list[tuple[str, Callable[[], Any], str, list[str]]] = [
    (
        "place off the board",
        lambda: cq.queens(8, place=[(9, 9)]),
        "gen 8 --place 10,10",
        ["queen at (9, 9)", "rows, columns 0..7"],
    ),
    (
        "placed queens attack",
        lambda: cq.queens(4, place=[(0, 0), (1, 1)]),
        "gen 4 --place 1,1 --place 2,2",
        ["(0, 0) and (1, 1)"],
    ),
    (
        "queen on a hole",
        lambda: cq.queens(4, place=[(0, 0)], holes=[(0, 0)]),
        "gen 4 --place 1,1 --block-square 1,1",
        ["queen at (0, 0)"],
    ),
    (
        "hole twice",
        lambda: cq.queens(5, holes=[(2, 3), (2, 3)]),
        "gen 5 --block-square 3,4 --block-square 3,4",
        ["blocked square at (2, 3)"],
    ),
    (
        "random_place without seed",
        lambda: cq.queens(8, random_place=3),
        "gen 8 --random-place 3",
        ["random_place= needs seed="],
    ),
    ("seed without random_place", lambda: cq.queens(8, seed=3), "gen 8 --seed 3", ["seed= needs random_place="]),
    (
        "negative random_place",
        lambda: cq.queens(8, random_place=-1, seed=1),
        "gen 8 --random-place -1 --seed 1",
        ["random_place must be"],
    ),
    ("group_size for pairwise", lambda: cq.queens(8, group_size=3), "gen 8 --group-size 3", ["group_size= applies to"]),
    (
        "symmetric torus enumeration",
        lambda: cq.enumerate_solutions(cq.queens(5, torus=True), symmetric=True),
        "enumerate 5 --torus --symmetric",
        ["symmetric=True does not combine with torus=True"],
    ),
    (
        "symmetric count with placed queens",
        lambda: cq.count(cq.queens(8, place=[(0, 0)]), symmetric=True),
        "count 8 --place 1,1 --symmetric",
        ["symmetric=True does not combine with place="],
    ),
    (
        "loop in parallel",
        lambda: cq.count(cq.queens(8), engine="loop", jobs=2),
        "count 8 --engine loop --jobs 2",
        ["engine='loop' does not combine with jobs=", "engine='cubes'"],
    ),
    (
        "cubes with a limit",
        lambda: cq.count(cq.queens(8), engine="cubes", limit=3),
        "count 8 --engine cubes --limit 3",
        ["limit=", "engine='loop'"],
    ),
    (
        "certify symmetric",
        lambda: cq.count(cq.queens(6), certify="d", symmetric=True),
        "count 6 --certify d --symmetric",
        ["certify= does not combine with symmetric=True"],
    ),
    (
        "OPB of a placed board",
        lambda: cq.queens(8, place=[(0, 0)]).to_opb(),
        "gen 8 --place 1,1 --format opb",
        ["to_opb()", "place= applies to the CNF only"],
    ),
]


@pytest.mark.parametrize(("call", "command", "words"), [v[1:] for v in VALUES], ids=[v[0] for v in VALUES])
def test_a_bad_value_is_a_value_error_in_the_apis_words(
    call: Callable[[], Any],
    command: str,
    words: list[str],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # certify's directory, never made: refused first
    code, _, err = cli(command.split(), capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err  # the CLI refuses the same input
    with pytest.raises(cq.UsageError) as raised:
        call()
    message = str(raised.value)
    assert isinstance(raised.value, ValueError)
    for w in words:
        assert w in message, (w, message)
    assert not re.search(r"--[a-z]", message), f"a CLI flag in the API's message: {message}"
    assert not re.search(r"\d,\d", message), f"a square as the CLI writes it: {message}"
    for r, c in re.findall(r"(\d+),(\d+)", command):  # a square: 1-based on the command line, 0-based here
        shown = f"({int(r) - 1}, {int(c) - 1})"
        assert (shown in message) == (f"{r},{c}" in err), (message, err)
    if "to_opb" not in message:  # the same message, word for word once in the CLI's words
        assert cli_words(message) in without_placeholders(err), (cli_words(message), err)
    assert list(tmp_path.iterdir()) == []


TYPES: list[tuple[str, Callable[[], Any], str]] = [
    ("count(8)", lambda: cq.count(8), r"count\(\) takes a formula, not a board size: pass cq\.queens\(8\)"),
    ("enumerate_solutions(8)", lambda: cq.enumerate_solutions(8), r"pass cq\.queens\(8\)"),
    ("solve(8)", lambda: cq.solve(8), r"solve\(\) takes a formula, not a board size: pass cq\.queens\(8\)"),
    (
        "solve(list)",
        lambda: cq.solve([[1, 2]]),
        r"solve\(\) takes a formula made by cq\.queens\(n\), a CNF file's path or a pysat",
    ),
    ("count(str)", lambda: cq.count("8"), r"count\(\) takes a formula made by cq\.queens\(n\), got str"),
    ("decode(model, str)", lambda: cq.decode([1], "4"), r"decode\(\) takes a formula made by cq\.queens\(n\), got str"),
    ("queens(8.0)", lambda: cq.queens(8.0), "n must be an integer, got 8.0"),
    ("queens(True)", lambda: cq.queens(True), "n must be an integer, got True"),
    ("queens(place=5)", lambda: cq.queens(8, place=5), r"place takes \(row, column\) pairs of 0-based integers, got 5"),
    ("queens(holes=floats)", lambda: cq.queens(8, holes=[(1.0, 2)]), r"holes takes \(row, column\) pairs"),
    ("write(shuffle=1.5)", lambda: cq.queens(4).write(Path("never.cnf"), shuffle=1.5), "shuffle must be an integer"),
    ("list_encodings(1.5)", lambda: cq.list_encodings(1.5), "length must be an integer, got 1.5"),
    ("at_most_one(str)", lambda: cq.at_most_one([1, "2"]), "lits must hold integer literals, got '2'"),
    ("blocking_clause(tuple)", lambda: cq.blocking_clause((1, 3, 0, 2)), "board must be a Board"),
    ("run_batch(list)", lambda: cq.run_batch(["a"]), "config must be a dict or a YAML file's path"),
    ("count(jobs='2')", lambda: cq.count(cq.queens(6), jobs="2"), "jobs must be an integer, got '2'"),
]


@pytest.mark.parametrize(("call", "message"), [t[1:] for t in TYPES], ids=[t[0] for t in TYPES])
def test_a_wrong_type_is_a_type_error_saying_what_to_pass(
    call: Callable[[], Any], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TypeError, match=message) as raised:
        call()
    assert not isinstance(raised.value, ValueError)  # Python's TypeError, not a bad value
    assert list(tmp_path.iterdir()) == []


def test_a_missing_file_is_file_not_found(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing.cnf"
    for call, argv in (
        (lambda: cq.solve(missing), ["solve", str(missing)]),
        (lambda: cq.solve(str(missing), memory_limit=64), ["solve", str(missing), "-m", "64"]),
        (lambda: cq.load_results(tmp_path / "r.sqlite"), ["report", str(tmp_path / "r.sqlite")]),
        (lambda: cq.run_batch(tmp_path / "c.yaml"), ["batch", str(tmp_path / "c.yaml")]),
    ):
        code, _, err = cli(argv, capsys)
        assert code == 2 and len(err.strip().splitlines()) == 1, err  # the CLI: one line, exit 2
        with pytest.raises(FileNotFoundError) as raised:
            call()
        assert raised.value.filename == argv[1]  # Python's own, naming the path as given
    with pytest.raises(IsADirectoryError):
        cq.solve(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_solve_takes_a_pysat_cnf_as_the_cli_takes_its_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for n, status in ((8, "SAT"), (3, "UNSAT")):
        f = cq.queens(n, "sequential")
        cnf = f.to_pysat()
        out = cq.solve(cnf)
        f.write(tmp_path / "f.cnf", comments=False)
        _, stdout, _ = cli(["solve", str(tmp_path / "f.cnf"), "--json"], capsys)
        assert out.status == json.loads(stdout)["status"] == status
        assert out.board is None  # no header: no board, as for any foreign file
        if status == "SAT":
            assert out.outcome.verified and out.model is not None
            assert cq.decode(out.model, f).n == n  # the model is the formula's: a board
    bad = cq.queens(4).to_pysat()
    bad.clauses.append([1, 0])
    with pytest.raises(cq.UsageError, match="non-zero integer literals"):
        cq.solve(bad)


def test_solve_under_a_memory_limit_is_the_clis(tmp_path: Path) -> None:
    """``solve(f, memory_limit=1)`` answered SAT after other work in the same process, where ``solve -m 1``
    gives MEMOUT: the forked solver reused the memory this process had freed.  Checked after such work."""
    f = cq.queens(8)
    path = tmp_path / "q8.cnf"
    f.write(path)
    assert cq.count(f).total == 92 and cq.solve(f).status == "SAT"  # this process holds and frees memory
    for memory in (1, 512):
        ran = run_cli(["solve", str(path), "--json", "--memory-limit", str(memory)], tmp_path, timeout=300)
        expected = json.loads(ran.out)["status"]
        assert expected == ("MEMOUT" if memory == 1 else "SAT")
        for formula_or_path in (f, path, str(path)):
            got = cq.solve(formula_or_path, memory_limit=memory)
            assert got.status == expected, (memory, formula_or_path)
            assert (got.board is not None) == (expected == "SAT")
        got = cq.solve(f, memory_limit=memory, time_limit=120)
        assert got.status == expected
    messages = set()
    for memory in (None, 64):  # in this process, or as the CLI in its own: the same refusal
        with pytest.raises(cq.UsageError, match="takes no solver arguments") as raised:
            cq.solve(f, memory_limit=memory, solver_args=["--seed=1"])
        messages.add(str(raised.value))
    assert len(messages) == 1


def test_count_and_enumerate_under_a_memory_limit_are_the_clis(tmp_path: Path) -> None:
    for argv, api in (
        (["count", "8", "--quiet", "-m", "1"], lambda: cq.count(cq.queens(8), memory_limit=1).total),
        (
            ["enumerate", "6", "--quiet", "-m", "1"],
            lambda: len(list(cq.enumerate_solutions(cq.queens(6), memory_limit=1))),
        ),
    ):
        ran = run_cli(argv, tmp_path, timeout=300)  # as a user runs it: this process's memory is not the command's
        assert ran.code == 0
        assert ran.out.splitlines()[-1] == f"count: {api()} (published-count)"  # N = 8 and 6: A000170
