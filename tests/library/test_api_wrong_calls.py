"""Wrong calls of the public API: each raises Python's own exception type (TypeError for a wrong type, a ValueError
for a bad value, FileNotFoundError for a missing file) with one sentence that names the parameter as the API
spells it, never a CLI flag nor Python's internal words (``'int' object has no attribute``).  Nothing runs before
the refusal: every call is refused at the library's edge, and nothing is left behind."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import cnfgen_queens as cq

F = cq.queens(6)
BROKEN = cq.queens(8, break_symmetry=True)
CONFIG = {"instances": {"n": [6]}, "solvers": ["pysat:cadical195"], "limits": {"time": 60}, "results": "r.sqlite"}

# (what is wrong, the call, the exception type, the parameter its message names)
WRONG: list[tuple[str, Callable[[], Any], type[Exception], str]] = [
    ("queens(8, 3)", lambda: cq.queens(8, 3), TypeError, "encoding"),
    ("queens('8')", lambda: cq.queens("8"), TypeError, "n"),
    ("queens(8.0)", lambda: cq.queens(8.0), TypeError, "n"),
    ("queens(True)", lambda: cq.queens(True), TypeError, "n"),
    ("queens(0)", lambda: cq.queens(0), ValueError, "n"),
    ("unknown encoding", lambda: cq.queens(8, "nonesuch"), ValueError, "encoding"),
    ("group_size='3'", lambda: cq.queens(8, "commander", group_size="3"), TypeError, "group_size"),
    ("group_size=0", lambda: cq.queens(8, "commander", group_size=0), ValueError, "group_size"),
    ("group_size for pairwise", lambda: cq.queens(8, group_size=3), ValueError, "group_size"),
    ("torus='no'", lambda: cq.queens(8, torus="no"), TypeError, "torus"),
    ("torus=1", lambda: cq.queens(8, torus=1), TypeError, "torus"),
    ("column_alo=None", lambda: cq.queens(8, column_alo=None), TypeError, "column_alo"),
    ("break_symmetry='yes'", lambda: cq.queens(8, break_symmetry="yes"), TypeError, "break_symmetry"),
    ("place=5", lambda: cq.queens(8, place=5), TypeError, "place"),
    ("place of triples", lambda: cq.queens(8, place=[(1, 2, 3)]), ValueError, "place"),
    ("holes='a1'", lambda: cq.queens(8, holes="a1"), TypeError, "holes"),
    ("random_place=-1", lambda: cq.queens(8, random_place=-1, seed=1), ValueError, "random_place"),
    ("seed='1'", lambda: cq.queens(8, random_place=2, seed="1"), TypeError, "seed"),
    ("seed without random_place", lambda: cq.queens(8, seed=1), ValueError, "seed"),
    (
        "break_symmetry on a large torus",
        lambda: cq.queens(40, torus=True, break_symmetry=True),
        ValueError,
        "break_symmetry",
    ),
    ("write(3)", lambda: F.write(3), TypeError, "target"),
    ("write(None)", lambda: F.write(None), TypeError, "target"),
    ("write(text stream)", lambda: F.write(io.StringIO()), TypeError, "target"),
    ("write shuffle=1.5", lambda: F.write(io.BytesIO(), shuffle=1.5), TypeError, "shuffle"),
    ("write shuffle=-1", lambda: F.write(io.BytesIO(), shuffle=-1), ValueError, "shuffle"),
    ("write comments='no'", lambda: F.write(io.BytesIO(), comments="no"), TypeError, "comments"),
    ("write allow_large=1", lambda: F.write(io.BytesIO(), allow_large=1), TypeError, "allow_large"),
    ("to_pysat allow_large='yes'", lambda: F.to_pysat(allow_large="yes"), TypeError, "allow_large"),
    ("cell(1.5, 0)", lambda: F.cell(1.5, 0), TypeError, "row"),
    ("cell(0, '1')", lambda: F.cell(0, "1"), TypeError, "column"),
    ("solve(8)", lambda: cq.solve(8), TypeError, "formula"),
    ("solve a missing file", lambda: cq.solve("missing.cnf"), FileNotFoundError, "formula_or_path"),
    ("solve solver=3", lambda: cq.solve(F, solver=3), TypeError, "solver"),
    ("solve solver=None", lambda: cq.solve(F, solver=None), TypeError, "solver"),
    ("unknown solver", lambda: cq.solve(F, "nonesuch"), ValueError, "solver"),
    ("time_limit='10'", lambda: cq.solve(F, time_limit="10"), TypeError, "time_limit"),
    ("time_limit=True", lambda: cq.solve(F, time_limit=True), TypeError, "time_limit"),
    ("time_limit=0", lambda: cq.solve(F, time_limit=0), ValueError, "time_limit"),
    ("time_limit=nan", lambda: cq.solve(F, time_limit=float("nan")), ValueError, "time_limit"),
    ("memory_limit='1G'", lambda: cq.solve(F, memory_limit="1G"), TypeError, "memory_limit"),
    ("memory_limit=1.5", lambda: cq.solve(F, memory_limit=1.5), TypeError, "memory_limit"),
    ("memory_limit=0", lambda: cq.solve(F, memory_limit=0), ValueError, "memory_limit"),
    ("memory_limit=2**40", lambda: cq.solve(F, memory_limit=2**40), ValueError, "memory_limit"),
    ("solver_args=3", lambda: cq.solve(F, "minisat", solver_args=3), TypeError, "solver_args"),
    ("solver_args of ints", lambda: cq.solve(F, "minisat", solver_args=[1, 2]), TypeError, "solver_args"),
    ("solver_args unclosed quote", lambda: cq.solve(F, "minisat", solver_args="'-verb=0"), ValueError, "solver_args"),
    ("solvers_file missing", lambda: cq.solve(F, solvers_file="missing.yaml"), FileNotFoundError, "solvers_file"),
    ("solvers_file=3", lambda: cq.solve(F, solvers_file=3), TypeError, "solvers_file"),
    ("solve require_checked='no'", lambda: cq.solve(F, require_checked="no"), TypeError, "require_checked"),
    ("solve require_checked=0", lambda: cq.solve(F, require_checked=0), TypeError, "require_checked"),
    ("enumerate_solutions(8)", lambda: cq.enumerate_solutions(8), TypeError, "formula"),
    ("enumerate solver=3", lambda: cq.enumerate_solutions(F, solver=3), TypeError, "solver"),
    ("enumerate symmetric='yes'", lambda: cq.enumerate_solutions(F, symmetric="yes"), TypeError, "symmetric"),
    ("enumerate limit=0", lambda: cq.enumerate_solutions(F, limit=0), ValueError, "limit"),
    ("enumerate limit='3'", lambda: cq.enumerate_solutions(F, limit="3"), TypeError, "limit"),
    ("enumerate time_limit=-1", lambda: cq.enumerate_solutions(F, time_limit=-1), ValueError, "time_limit"),
    ("enumerate allow_large=None", lambda: cq.enumerate_solutions(F, allow_large=None), TypeError, "allow_large"),
    (
        "enumerate symmetric torus",
        lambda: cq.enumerate_solutions(cq.queens(5, torus=True), symmetric=True),
        ValueError,
        "symmetric",
    ),
    (
        "enumerate symmetric break_symmetry",
        lambda: cq.enumerate_solutions(BROKEN, symmetric=True),
        ValueError,
        "break_symmetry",
    ),
    (
        "enumerate with a solver that is not incremental",
        lambda: cq.enumerate_solutions(F, "pysat:kissat404"),
        ValueError,
        "solver",
    ),
    ("count(8)", lambda: cq.count(8), TypeError, "formula"),
    ("count engine=3", lambda: cq.count(F, engine=3), TypeError, "engine"),
    ("count engine='fast'", lambda: cq.count(F, engine="fast"), ValueError, "engine"),
    ("count jobs='2'", lambda: cq.count(F, jobs="2"), TypeError, "jobs"),
    ("count jobs=0", lambda: cq.count(F, jobs=0), ValueError, "jobs"),
    ("count jobs=None", lambda: cq.count(F, jobs=None), TypeError, "jobs"),
    ("count executor=3", lambda: cq.count(F, executor=3), TypeError, "executor"),
    ("count executor='bogus'", lambda: cq.count(F, executor="bogus"), ValueError, "executor"),
    ("count scheduler=3", lambda: cq.count(F, scheduler=3), TypeError, "scheduler"),
    ("count scheduler without dask", lambda: cq.count(F, scheduler="tcp://localhost:1"), ValueError, "scheduler"),
    ("count symmetric=1", lambda: cq.count(F, symmetric=1), TypeError, "symmetric"),
    ("count certify=3", lambda: cq.count(F, certify=3), TypeError, "certify"),
    ("count certify symmetric", lambda: cq.count(F, certify="d", symmetric=True), ValueError, "certify"),
    ("count check_all='yes'", lambda: cq.count(F, check_all="yes"), TypeError, "check_all"),
    ("count require_checked='no'", lambda: cq.count(F, require_checked="no"), TypeError, "require_checked"),
    ("count time_limit='1'", lambda: cq.count(F, time_limit="1"), TypeError, "time_limit"),
    ("count memory_limit=-1", lambda: cq.count(F, memory_limit=-1), ValueError, "memory_limit"),
    ("count limit=1.5", lambda: cq.count(F, limit=1.5), TypeError, "limit"),
    ("count allow_large='no'", lambda: cq.count(F, allow_large="no"), TypeError, "allow_large"),
    ("count break_symmetry in parallel", lambda: cq.count(BROKEN, jobs=2), ValueError, "break_symmetry"),
    ("count break_symmetry symmetric", lambda: cq.count(BROKEN, symmetric=True), ValueError, "break_symmetry"),
    ("count loop in parallel", lambda: cq.count(F, engine="loop", jobs=2), ValueError, "engine"),
    ("decode(3, f)", lambda: cq.decode(3, F), TypeError, "model"),
    ("decode([1.5], f)", lambda: cq.decode([1.5], F), TypeError, "model"),
    ("decode(['1'], f)", lambda: cq.decode(["1"], F), TypeError, "model"),
    ("decode(model, '4')", lambda: cq.decode([1], "4"), TypeError, "formula"),
    ("blocking_clause(tuple)", lambda: cq.blocking_clause((1, 3, 0, 2)), TypeError, "board"),
    ("Board('x')", lambda: cq.Board("x"), TypeError, "columns"),
    ("Board((0, 0.5))", lambda: cq.Board((0, 0.5)), TypeError, "columns"),
    ("list_encodings('8')", lambda: cq.list_encodings("8"), TypeError, "length"),
    ("list_encodings(0)", lambda: cq.list_encodings(0), ValueError, "length"),
    ("list_encodings group_size=1.5", lambda: cq.list_encodings(8, group_size=1.5), TypeError, "group_size"),
    ("at_most_one(5)", lambda: cq.at_most_one(5), TypeError, "lits"),
    ("at_most_one of strings", lambda: cq.at_most_one([1, "2"]), TypeError, "lits"),
    ("at_most_one of a zero", lambda: cq.at_most_one([1, 0]), ValueError, "lits"),
    ("at_most_one of x and -x", lambda: cq.at_most_one([1, -1]), ValueError, "lits"),
    ("at_most_one encoding=3", lambda: cq.at_most_one([1, 2], 3), TypeError, "encoding"),
    ("at_most_one pool=3", lambda: cq.at_most_one([1, 2], pool=3), TypeError, "pool"),
    ("run_batch(list)", lambda: cq.run_batch(["a"]), TypeError, "config"),
    ("run_batch a missing file", lambda: cq.run_batch("missing.yaml"), FileNotFoundError, "config"),
    ("run_batch jobs=0", lambda: cq.run_batch(CONFIG, jobs=0), ValueError, "jobs"),
    ("run_batch jobs='2'", lambda: cq.run_batch(CONFIG, jobs="2"), TypeError, "jobs"),
    ("run_batch fresh='no'", lambda: cq.run_batch(CONFIG, fresh="no"), TypeError, "fresh"),
    ("run_batch retry_errors=1", lambda: cq.run_batch(CONFIG, retry_errors=1), TypeError, "retry_errors"),
    ("run_batch executor=3", lambda: cq.run_batch(CONFIG, executor=3), TypeError, "executor"),
    ("run_batch executor='bogus'", lambda: cq.run_batch(CONFIG, executor="bogus"), ValueError, "executor"),
    ("run_batch progress='yes'", lambda: cq.run_batch(CONFIG, progress="yes"), TypeError, "progress"),
    ("load_results(3)", lambda: cq.load_results(3), TypeError, "path"),
    ("load_results a missing file", lambda: cq.load_results("missing.sqlite"), FileNotFoundError, "path"),
    ("load_results as_frame='yes'", lambda: cq.load_results(__file__, as_frame="yes"), TypeError, "as_frame"),
]


def test_the_table_covers_the_public_api() -> None:
    assert len(WRONG) >= 60
    called = " ".join(what for what, *_ in WRONG)
    public = {
        "queens",
        "solve",
        "decode",
        "count",
        "enumerate",
        "run_batch",
        "load_results",
        "list_encodings",
        "at_most_one",
        "blocking_clause",
        "Board",
        "write",
        "to_pysat",
        "cell",
    }
    assert {name for name in public if name not in called} == set()


@pytest.mark.parametrize(("call", "kind", "parameter"), [w[1:] for w in WRONG], ids=[w[0] for w in WRONG])
def test_a_wrong_call_raises_pythons_type_naming_the_parameter(
    call: Callable[[], Any], kind: type[Exception], parameter: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(Exception) as raised:  # the type is checked below, exactly
        result = call()
        if hasattr(result, "__next__"):  # a generator's refusal comes at once, before its first item
            next(result)
    error = raised.value
    assert isinstance(error, kind), f"{type(error).__name__}: {error}"
    if kind is TypeError:
        assert not isinstance(error, ValueError)
    message = str(error)
    assert re.search(rf"(?<![\w-]){re.escape(parameter)}(?![\w-])", message), f"{parameter} not named: {message}"
    assert "\n" not in message and "Traceback" not in message, message
    assert not re.search(r"(?<![\w-])--[a-z]", message), f"a CLI flag in the API's message: {message}"
    assert not re.search(r"object (has no attribute|is not iterable)|not supported between", message), message
    assert not re.search(r"[.;:]\s+[A-Z]", message.removeprefix("[Errno 2] ")), f"not one sentence: {message}"
    assert list(tmp_path.iterdir()) == []


def test_solver_args_as_one_string_are_split_as_a_shell_does(tmp_path: Path) -> None:
    """``solver_args="-verb=0"`` was split into characters ('-', 'v', ...): minisat refused them, status ERROR."""
    from helpers import need_solver

    need_solver("minisat")
    out = cq.solve(F, "minisat", solver_args="-verb=0 '-rnd-seed=3'")
    assert out.status == "SAT" and out.outcome.verified, out.outcome.error
    assert cq.solve(F, "minisat", solver_args=("-verb=0",)).status == "SAT"
