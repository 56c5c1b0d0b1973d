"""Symmetry-broken counting (issue 15): lex-leader predicates, orbit weights, cubes in processes and on Dask.

Every count is compared with OEIS A000170 / A002562 (data/known_counts.csv, itself checked against
the sequences typed in from OEIS in test_enumeration.py).
"""

from __future__ import annotations

import itertools
import random

import pytest
from conftest import need_module

from cnfgen_queens.board import images
from cnfgen_queens.cli import main
from cnfgen_queens.cube_count import CubeTask, _checked, count_symmetric, live_cubes
from cnfgen_queens.enumeration import EnumerationError
from cnfgen_queens.formula import QueensFormula
from cnfgen_queens.known_counts import known_counts
from cnfgen_queens.symmetry import canonical, lex_leader_aux, lex_leader_clauses, orbit, orbit_size

KNOWN = known_counts()


def all_solutions(n: int) -> list[tuple[int, ...]]:
    """Every solution by brute force over permutations (small n only): independent of any solver."""
    return [
        p
        for p in itertools.permutations(range(n))
        if len({r - c for r, c in enumerate(p)}) == n and len({r + c for r, c in enumerate(p)}) == n
    ]


@pytest.mark.parametrize("n", range(1, 9))
def test_lex_leader_keeps_exactly_the_least_board_of_each_orbit(n: int) -> None:
    from pysat.solvers import Solver

    clauses = list(lex_leader_clauses(n, n * n + 1))
    assert max((abs(lit) for c in clauses for lit in c), default=n * n) == n * n + lex_leader_aux(n)
    solutions = all_solutions(n)
    least = {min(images(p)) for p in solutions}  # board.images: the reference implementation
    with Solver(name="cadical195", bootstrap_with=clauses) as s:
        kept = {
            p
            for p in solutions
            if s.solve(assumptions=[(r * n + c + 1) * (1 if p[r] == c else -1) for r in range(n) for c in range(n)])
        }
    assert kept == least
    assert len(kept) == KNOWN[n][1]
    assert sum(orbit_size(p) for p in kept) == KNOWN[n][0]


def test_orbit_matches_the_eight_symmetries_of_the_board() -> None:
    rng = random.Random(15)
    for n in range(1, 13):
        for _ in range(20):
            p = tuple(rng.sample(range(n), n))  # any permutation: the symmetries do not need a solution
            assert sorted(orbit(p)) == images(p)
            assert canonical(p) == images(p)[0]
    assert {orbit_size(p) for p in all_solutions(8)} == {4, 8}  # N = 8 has one orbit of 4 (OEIS: 11*8 + 4)
    assert orbit_size((0,)) == 1 and orbit_size((1, 3, 0, 2)) == 2


@pytest.mark.parametrize("n", range(1, 13))
def test_symmetric_count_matches_oeis(n: int) -> None:
    result = count_symmetric(QueensFormula(n))
    assert result.status == "DONE" and result.error is None
    assert (result.count, result.fundamental) == KNOWN[n]
    assert result.cubes_done == result.cubes_total


@pytest.mark.slow
@pytest.mark.parametrize("n", [13, 14])
def test_symmetric_count_matches_oeis_13_14(n: int) -> None:
    result = count_symmetric(QueensFormula(n), jobs=2)
    assert (result.status, result.count, result.fundamental) == ("DONE", *KNOWN[n])


@pytest.mark.parametrize("encoding", ["sequential", "commander", "pysat:totalizer"])
def test_symmetric_count_other_encodings_and_processes(encoding: str) -> None:
    for n in (8, 10):
        result = count_symmetric(QueensFormula(n, encoding), jobs=2, depth=2)
        assert (result.count, result.fundamental) == KNOWN[n], (encoding, n)


def test_live_cubes_are_a_subset_and_lose_no_solution() -> None:
    formula = QueensFormula(10)
    live = live_cubes(formula, "pysat:cadical195", depth=3)
    every = live_cubes(formula, "pysat:lingeling", depth=3)  # no unit propagation: nothing dropped
    assert set(live) < set(every)
    canon = {min(images(p)) for p in all_solutions(8)}
    cells = {tuple(r * 8 + p[r] + 1 for r in range(3)) for p in canon}
    assert cells <= set(live_cubes(QueensFormula(8), "pysat:minisat22", depth=3))


def test_every_model_is_checked() -> None:
    n = 6
    good = (1, 3, 5, 0, 2, 4)  # canonical: the lex-least of its orbit
    assert min(images(good)) == good
    model = [(r * n + c + 1) * (1 if good[r] == c else -1) for r in range(n) for c in range(n)]
    assert _checked("s", n, model, (2,), set()) == (good, 4)  # its orbit: 4 boards (OEIS: A000170(6) = 4)
    wrong = [
        (model, (1,), set(), "outside the cube"),
        (model, (2,), {good}, "blocked placement again"),
        ([-v for v in model], (), set(), "not a solution"),
        ([abs(v) if v == -1 else v for v in model], (), set(), "attack"),
    ]
    mirrored = good[::-1]
    mirror_model = [(r * n + c + 1) * (1 if mirrored[r] == c else -1) for r in range(n) for c in range(n)]
    wrong.append((mirror_model, (), set(), "symmetry breaking excludes"))
    for cells, cube, seen, message in wrong:
        with pytest.raises(EnumerationError, match=message):
            _checked("s", n, cells, cube, seen)


def test_cli_symmetric_with_jobs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["count", "11", "--symmetric", "--jobs", "2"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["fundamental: 341", "count: 2680"]
    assert captured.err == ""  # no progress bar without a terminal
    assert main(["count", "10", "--symmetric", "-e", "ladder"]) == 0
    assert capsys.readouterr().out.splitlines() == ["fundamental: 92", "count: 724"]


def test_cli_time_limit_bounds_the_whole_count(capsys: pytest.CaptureFixture[str]) -> None:
    for n, extra in (("14", []), ("14", ["--jobs", "2"]), ("60", ["--jobs", "2"])):
        assert main(["count", n, "--symmetric", "--time-limit", "0.5", *extra]) == 1
        captured = capsys.readouterr()
        assert captured.out.splitlines()[-1].startswith("partial count: ")
        assert "time limit reached" in captured.err and "cubes counted" in captured.err


def test_cli_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["count", "8", "--scheduler", "tcp://127.0.0.1:8786"]) == 2
    assert main(["count", "8", "--symmetric", "--limit", "3"]) == 2
    assert main(["count", "8", "--executor", "dask", "--solver", "minisat"]) == 2
    assert main(["count", "8", "--executor", "ray"]) == 2
    assert main(["count", "8", "--jobs", "2", "--solver", "pysat:kissat404"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 5 and all("error" in line for line in err)


def test_dask_local_cluster(capsys: pytest.CaptureFixture[str]) -> None:
    need_module("distributed")
    assert main(["count", "10", "--executor", "dask", "--jobs", "2", "--symmetric"]) == 0
    assert capsys.readouterr().out.splitlines() == ["fundamental: 92", "count: 724"]


def test_dask_scheduler_runs_twice_on_the_same_workers() -> None:
    """A long-lived worker keeps its solver for one run only: a second count starts afresh."""
    need_module("distributed")
    import logging

    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=None, silence_logs=logging.ERROR) as c:
        for n in (9, 9, 10):
            result = count_symmetric(QueensFormula(n), executor="dask", scheduler=c.scheduler_address)
            assert (result.count, result.fundamental) == KNOWN[n]


def test_a_cube_task_names_its_run() -> None:
    a = CubeTask(QueensFormula(8), "pysat:cadical195", "run-a")
    assert a != CubeTask(QueensFormula(8), "pysat:cadical195", "run-b")


@pytest.mark.slow
def test_issue_15_reproducers(capsys: pytest.CaptureFixture[str]) -> None:
    """`count 13 --symmetric` (139 s before, and it would not take --jobs) and `count 14 --jobs 2`."""
    assert main(["count", "13", "--symmetric", "--jobs", "2"]) == 0
    assert capsys.readouterr().out.splitlines() == ["fundamental: 9233", "count: 73712"]
    assert main(["count", "14", "--jobs", "2"]) == 0
    assert capsys.readouterr().out.splitlines() == ["count: 365596"]


def test_progress_bar_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import sys

    from cnfgen_queens.cli.count import tqdm_progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for quiet, tty, shown in ((False, True, True), (True, True, False), (False, False, False)):
        err = Terminal() if tty else io.StringIO()
        monkeypatch.setattr(sys, "stderr", err)
        update, close = tqdm_progress(quiet)
        result = count_symmetric(QueensFormula(8), jobs=2, progress=update)
        close()
        assert result.count == 92
        text = err.getvalue()
        assert (f"{result.cubes_total}/{result.cubes_total}" in text and "solutions=92" in text) == shown, text
