"""The one enumeration core (issue 13): the accept step, the external loop's in-memory base, typed
options, UsageError and Status instead of strings.  Counts are compared with OEIS, not own output."""

from __future__ import annotations

import io
import itertools
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import need_solver

from cnfgen_queens.cli import main
from cnfgen_queens.cnf.merge import merge_clauses
from cnfgen_queens.cnf.scan import read_cnf
from cnfgen_queens.cnf.writer import write_cnf
from cnfgen_queens.counting import cube_count
from cnfgen_queens.enumeration.accept import Acceptor
from cnfgen_queens.enumeration.embedded_loop import embedded_solver, embedded_spec
from cnfgen_queens.enumeration.external_loop import WorkFormula, enumerate_external
from cnfgen_queens.enumeration.records import EnumerationError
from cnfgen_queens.errors import UsageError
from cnfgen_queens.execution import executors
from cnfgen_queens.limits import Limits
from cnfgen_queens.model.board import images
from cnfgen_queens.model.decode import DecodeError, blocking_clauses, model_placement, variant_placement
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.known_counts import known_counts
from cnfgen_queens.model.variants import Variant
from cnfgen_queens.solutions.api import DEFAULT_SOLVER, Report, Request, SolverChoice, Where, count, solutions
from cnfgen_queens.solvers import Status, resolve

KNOWN = known_counts()


def model_of(n: int, placement: tuple[int, ...]) -> list[int]:
    return [(r * n + c + 1) * (1 if placement[r] == c else -1) for r in range(n) for c in range(n)]


def brute(n: int) -> list[tuple[int, ...]]:
    """Every solution by brute force over permutations (independent of any solver)."""
    return [
        p
        for p in itertools.permutations(range(n))
        if len({r - c for r, c in enumerate(p)}) == n and len({r + c for r, c in enumerate(p)}) == n
    ]


def test_model_placement_agrees_with_the_reference_decoder() -> None:
    rng = random.Random(13)
    variant = Variant(((0, 1),))
    for n in (1, 4, 5, 6, 8):
        sols = brute(n)
        models = [model_of(n, p) for p in sols]
        for _ in range(300):  # random cell sets: mostly not solutions, some near misses
            k = rng.choice([n - 1, n, n + 1])
            cells = set(rng.sample(range(1, n * n + 1), min(k, n * n)))
            models.append([v if v in cells else -v for v in range(1, n * n + 1)])
        for model in models:
            for v in (None, variant if n >= 4 else None):
                try:
                    want = variant_placement(n, (x for x in model if x > 0), v)
                except DecodeError as e:
                    with pytest.raises(DecodeError) as got:
                        model_placement(n, model, v)
                    assert str(got.value) == str(e)
                else:
                    assert model_placement(n, model, v) == want


def test_acceptor_checks_every_model() -> None:
    n = 8
    p = brute(n)[0]
    accept = Acceptor(n, "s", symmetric=True)
    found = accept(model_of(n, p))
    assert found.placement == p and found.weight == len(images(p))
    assert accept.blocks(found) == blocking_clauses(p, True)
    other = next(q for q in images(p) if q != p)
    with pytest.raises(EnumerationError, match="blocked placement again") as e:
        accept(model_of(n, other))  # an image of a found solution: blocked with --symmetric
    assert e.value.status is Status.ERROR
    with pytest.raises(EnumerationError, match="not a solution"):
        accept([-v for v in model_of(n, p)])
    cube = Acceptor(n, "s", assumptions=(1,))  # the queen of row 1 in column 1
    outside = next(q for q in brute(n) if q[0] != 0)
    with pytest.raises(EnumerationError, match="outside the cube"):
        cube(model_of(n, outside))
    placed = Acceptor(n, "s", variant=Variant(((0, 0),)))
    with pytest.raises(EnumerationError, match="placed queen"):
        placed(model_of(n, outside))
    plain = Acceptor(n, "s")
    assert plain(model_of(n, other)).weight == 1 and plain.blocks(plain.check(model_of(n, p))) == [
        blocking_clauses(p)[0]
    ]


def test_work_formula_writes_what_merge_writes(tmp_path: Path) -> None:
    for formula in (QueensFormula(6), QueensFormula(7, "sequential", variant=Variant(holes=((2, 3),)))):
        work = WorkFormula(formula, tmp_path / "base.cnf")
        reference = io.BytesIO()
        write_cnf(reference, formula, formula.header_comments("cnfgen-queens enumerate"), fast=False)
        assert (tmp_path / "base.cnf").read_bytes() == reference.getvalue()
        blocks = [c for p in brute(formula.n)[:3] for c in blocking_clauses(p, True)]
        work.add(blocks)
        work.write(tmp_path / "current.cnf")
        merged = io.BytesIO()
        merge_clauses(tmp_path / "base.cnf", blocks, merged)
        assert (tmp_path / "current.cnf").read_bytes() == merged.getvalue()
        on_disk, in_memory = read_cnf(tmp_path / "current.cnf"), work.cnf()
        assert in_memory.header.num_clauses == on_disk.header.num_clauses == on_disk.num_clauses
        assert in_memory.num_vars == on_disk.num_vars
        assert in_memory.lits.tolist() == on_disk.lits.tolist()


def test_typed_options_run_the_external_loop(tmp_path: Path) -> None:
    need_solver("kissat")
    calls: list[int] = []
    request = Request(
        QueensFormula(6),
        SolverChoice("kissat", ("--quiet",)),
        where=Where(workdir=tmp_path),
        report=Report(on_call=lambda: calls.append(1)),
    )
    found = list(solutions(request))
    assert sorted(f.placement for f in found) == sorted(brute(6)) and len(found) == KNOWN[6][0]
    assert len(calls) == KNOWN[6][0] + 1  # one call per solution and the UNSAT one
    assert (tmp_path / "solutions.txt").read_text().count("\n") == KNOWN[6][0]
    with pytest.raises(UsageError, match="--resume"):
        next(
            enumerate_external(
                Request(QueensFormula(6), SolverChoice("kissat"), where=Where(workdir=tmp_path)), resolve("kissat")
            )
        )
    with pytest.raises(UsageError, match="resume with those options"):
        next(
            solutions(
                Request(
                    QueensFormula(6), SolverChoice("kissat"), where=Where(workdir=tmp_path, resume=True), symmetric=True
                )
            )
        )


def test_usage_errors_and_statuses() -> None:
    with pytest.raises(UsageError):
        embedded_solver("pysat:nosuch")
    with pytest.raises(UsageError, match="not incremental"):
        embedded_solver("pysat:kissat404")
    with pytest.raises(UsageError):
        count(Request(QueensFormula(6), SolverChoice("pysat:nosuch"), engine="loop"))
    done = count(Request(QueensFormula(6), engine="loop"))
    assert done.status is Status.UNSAT and done.complete and done.total == KNOWN[6][0]
    stopped = count(Request(QueensFormula(14), engine="loop", limits=Limits(time=0.3)))
    assert stopped.status is Status.TIMEOUT and not stopped.complete and stopped.total < KNOWN[14][0]


def test_cli_usage_error_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["enumerate", "6", "--solver", "pysat:kissat404"]) == 2
    assert main(["count", "6", "--symmetric", "--solver", "pysat:kissat404"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all("not incremental" in line for line in err)


def test_external_loop_checks_models_against_base_and_blocks(tmp_path: Path) -> None:
    """A lying solver that repeats its first answer: the second model satisfies the base formula but
    violates the blocking clause, which the runner's check against the in-memory clauses names."""
    formula = QueensFormula(4)
    first = brute(4)[0]
    liar = tmp_path / "repeat.sh"
    model = " ".join(map(str, model_of(4, first)))
    liar.write_text(f'#!/bin/sh\necho "s SATISFIABLE"\necho "v {model} 0"\nexit 10\n')
    liar.chmod(0o755)
    request = Request(formula, SolverChoice(str(liar)), where=Where(workdir=tmp_path / "work"))
    loop = enumerate_external(request, resolve(str(liar)))
    assert next(loop).placement == first
    with pytest.raises(EnumerationError) as e:
        next(loop)
    clauses = formula.counts()[1] + 1
    assert e.value.status is Status.ERROR
    assert f"violates clause {clauses} of {clauses}: -2 -8 -9 -15 0" in str(e.value)
    assert (tmp_path / "work" / "solutions.txt").read_text() == "2 4 1 3\n"  # the good one is kept


def test_cube_pool_loses_no_cube_that_finishes_between_two_looks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cube finishing between the scheduler's two looks at its futures was dropped (``count 14 --jobs 2``
    then said "time limit reached; 461 of 462 cubes counted" without a time limit).  The cubes run for
    real, in this process; only the moment their futures say done is chosen."""

    class Future:
        def __init__(self, result: object, first: bool) -> None:
            self.value, self.looks, self.first = result, 0, first

        def done(self) -> bool:
            self.looks += 1
            return self.first or self.looks > 1  # the others finish right after the first look

    class Pool:
        def __init__(self, jobs: int) -> None:
            self.submitted = 0

        def submit(self, key: str, fn: Callable[..., object], *args: object) -> Future:
            self.submitted += 1
            return Future(fn(*args), self.submitted == 1)

        def ready(self, futures: list[Future]) -> list[Future]:  # one look at each future
            return [f for f in futures if f.done()]

        def result(self, future: Future) -> object:
            return future.value

        def close(self, interrupted: bool = False) -> None:
            pass

    monkeypatch.setattr(executors, "ForkPool", Pool)
    result = cube_count.count_symmetric(Request(QueensFormula(8), where=Where(jobs=2)), embedded_spec(DEFAULT_SOLVER))
    assert result.groups_total > 2 and result.groups_done == result.groups_total
    assert (result.status, result.total, result.fundamental) == ("UNSAT", *KNOWN[8])


def test_a_count_resolves_its_solver_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The solver is resolved once per command and handed down: not again per cube group (embedded), nor per
    solver call of the restart loop or per cube (a binary)."""
    from cnfgen_queens.enumeration import embedded_loop
    from cnfgen_queens.solutions import api
    from cnfgen_queens.solvers import runner

    names: list[str] = []
    real_name = embedded_loop.embedded_name
    monkeypatch.setattr(embedded_loop, "embedded_name", lambda n: names.append(n) or real_name(n))
    result = count(Request(QueensFormula(8)))
    assert (result.engine, result.total, result.groups_total is not None and result.groups_total > 1) == (
        "cubes",
        KNOWN[8][0],
        True,
    )
    assert names == ["cadical195"]

    need_solver("minisat")
    resolved: list[str] = []
    for module in (api, runner):
        real = module.resolve
        monkeypatch.setattr(module, "resolve", lambda s, f=None, _r=real: resolved.append(s) or _r(s, f))
    for engine, jobs in (("loop", 1), ("cubes", 2)):
        resolved.clear()
        result = count(Request(QueensFormula(6), SolverChoice("minisat"), engine=engine, where=Where(jobs=jobs)))
        assert (result.total, result.solver_calls > 2) == (KNOWN[6][0], True)
        assert resolved == ["minisat"], engine
