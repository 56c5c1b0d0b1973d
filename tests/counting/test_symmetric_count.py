"""Symmetry-broken counting (issue 15): canonical border cubes, orbit weights, groups in processes and on Dask.

Every count is compared with OEIS A000170 / A002562 (data/known_counts.csv, itself checked against
the sequences typed in from OEIS in test_enumeration.py).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

import pytest
from helpers import need_module, need_solver

from cnfgen_queens.cli import main
from cnfgen_queens.counting import cube_count
from cnfgen_queens.counting.border_cubes import BorderCube, border_cubes, cube_groups, image, representative
from cnfgen_queens.counting.cube_count import CubeTask, _weight, count_symmetric
from cnfgen_queens.enumeration.accept import Acceptor
from cnfgen_queens.enumeration.embedded_loop import embedded_spec
from cnfgen_queens.enumeration.records import Count, EnumerationError, GroupCount
from cnfgen_queens.enumeration.request import Report, Request
from cnfgen_queens.execution.where import ONE_WORKER, Where
from cnfgen_queens.limits import NEVER, Deadline
from cnfgen_queens.model.board import Board, images
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.known_counts import known_counts
from cnfgen_queens.model.symmetry import canonical, orbit, orbit_size
from cnfgen_queens.solvers.default import DEFAULT_SOLVER

KNOWN = known_counts()
SOLVER = embedded_spec(DEFAULT_SOLVER)


def cube_symmetric(
    formula: QueensFormula,
    where: Where = ONE_WORKER,
    deadline: Deadline = NEVER,
    progress: Callable[[GroupCount, int | None], None] | None = None,
) -> Count:
    """:func:`.count_symmetric` of ``formula`` with the default solver."""
    return count_symmetric(Request(formula, where=where, report=Report(progress=progress)), SOLVER, deadline)


def all_solutions(n: int) -> list[tuple[int, ...]]:
    """Every solution, in lexicographic order, by backtracking row by row over the free columns and
    diagonals (small n only): independent of any solver.  (Filtering all n! permutations took 2.4 s at
    n = 10; this takes 0.05 s.)"""
    found: list[tuple[int, ...]] = []

    def place(p: tuple[int, ...], cols: frozenset[int], diag: frozenset[int], anti: frozenset[int]) -> None:
        r = len(p)
        if r == n:
            found.append(p)
        for c in range(n) if r < n else ():
            if c not in cols and r - c not in diag and r + c not in anti:
                place((*p, c), cols | {c}, diag | {r - c}, anti | {r + c})

    place((), frozenset(), frozenset(), frozenset())
    return found


def border(n: int, p: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """The cells of a solution's queens on the four edge lines (reference: from the placement itself)."""
    m = n - 1
    return tuple(sorted((r, c) for r, c in enumerate(p) if r in (0, m) or c in (0, m)))


@pytest.mark.parametrize("n", range(1, 11))
def test_border_cubes_find_each_orbit_once(n: int) -> None:
    """Solver-free: over every solution (brute force), exactly one member of each orbit lies in a canonical
    border cube and is its representative; the weights sum to OEIS A000170 and the orbits to A002562."""
    cubes = {c.cells: c for c in border_cubes(n)}
    solutions = all_solutions(n)
    counted = {p: _weight(cubes[border(n, p)], p) for p in solutions if border(n, p) in cubes}
    counted = {p: w for p, w in counted.items() if w}
    assert len({canonical(p) for p in counted}) == len(counted)  # no orbit twice
    assert {canonical(p) for p in counted} == {canonical(p) for p in solutions}  # every orbit
    assert (sum(counted.values()), len(counted)) == KNOWN[n]
    assert all(w == orbit_size(p) for p, w in counted.items())


@pytest.mark.parametrize("n", range(1, 16))
def test_border_cubes_are_canonical_and_stabilised(n: int) -> None:
    """Each listed border is the least image of itself, its stabiliser is every symmetry that fixes it
    (checked with board.py's symmetries), no border is listed twice, and groups keep the order."""
    board = Board(n)
    seen = set()
    for cube in border_cubes(n):
        moved = [tuple(sorted(sym(x) for x in cube.cells)) for sym in board.symmetries]
        assert min(moved) == cube.cells and cube.cells not in seen
        assert cube.stabilizer == tuple(g for g in range(8) if moved[g] == cube.cells)
        seen.add(cube.cells)
    assert [c for g in cube_groups(n) for c in g.cubes] == list(border_cubes(n))
    assert all(set(g.fixed) <= set(c.cells) for g in cube_groups(n) for c in g.cubes)


@pytest.mark.parametrize("n", range(1, 14))
def test_border_cubes_lose_no_border_to_pruning(n: int) -> None:
    """Every consistent border (brute force over all four edge queens, no pruning) has its least image
    listed, and nothing else is listed."""
    board, m = Board(n), n - 1
    least = set()
    for a, b, c, d in itertools.product(range(n), repeat=4):
        if (a == 0) != (c == 0) or (a == m) != (d == 0) or (b == 0) != (c == m) or (b == m) != (d == m):
            continue
        cells = sorted({(0, a), (m, b), (c, 0), (d, m)})
        if attacking(cells):
            continue
        least.add(min(tuple(sorted(sym(x) for x in cells)) for sym in board.symmetries))
    assert {c.cells for c in border_cubes(n)} == least


def attacking(cells: list[tuple[int, int]]) -> bool:
    return any(
        p[0] == q[0] or p[1] == q[1] or abs(p[0] - q[0]) == abs(p[1] - q[1])
        for i, p in enumerate(cells)
        for q in cells[i + 1 :]
    )


def test_representative_is_the_least_image_under_the_stabiliser() -> None:
    n = 6
    good = (1, 3, 5, 0, 2, 4)
    cube = BorderCube(border(n, good), (0, 1, 2, 3))  # pretend rotations fix it: the rule, not the geometry
    others = [image(good, g) for g in (1, 2, 3)]
    assert representative(good, cube) == all(good <= o for o in others)
    assert sum(representative(p, cube) for p in {good, *others}) == 1
    assert representative(good, BorderCube(cube.cells, (0,)))


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
    result = cube_symmetric(QueensFormula(n))
    assert result.status == "UNSAT" and result.error is None
    assert (result.total, result.fundamental) == KNOWN[n]
    assert result.groups_done == result.groups_total


@pytest.mark.slow
@pytest.mark.parametrize("n", [13, 14])
def test_symmetric_count_matches_oeis_13_14(n: int) -> None:
    result = cube_symmetric(QueensFormula(n), where=Where(jobs=2))
    assert (result.status, result.total, result.fundamental) == ("UNSAT", *KNOWN[n])


@pytest.mark.parametrize("encoding", ["sequential", "commander", "pysat:totalizer"])
def test_symmetric_count_other_encodings_and_processes(encoding: str) -> None:
    for n in (8, 10):
        result = cube_symmetric(QueensFormula(n, encoding), where=Where(jobs=2))
        assert (result.total, result.fundamental) == KNOWN[n], (encoding, n)


@pytest.mark.parametrize("jobs", [1, 2])
def test_large_formula_path_counts_right(monkeypatch: pytest.MonkeyPatch, jobs: int) -> None:
    """Formulas over FRESH_UP_TO clauses are built once per worker and run under assumptions."""
    monkeypatch.setattr(cube_count, "FRESH_UP_TO", 0)
    for n in (6, 8, 10):
        result = cube_symmetric(QueensFormula(n), where=Where(jobs=jobs))
        assert (result.status, result.total, result.fundamental) == ("UNSAT", *KNOWN[n])
    assert cube_count.worker_state() == {}  # the in-process solver and clauses are not kept after the count


def test_unlisted_groups_still_count_every_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Beyond LISTED_UP_TO the groups come lazily (no total in advance); the count is the same."""
    monkeypatch.setattr(cube_count, "LISTED_UP_TO", 0)
    for jobs in (1, 2):
        result = cube_symmetric(QueensFormula(9), where=Where(jobs=jobs))
        assert (result.total, result.fundamental, result.status) == (*KNOWN[9], "UNSAT")
        assert result.groups_total == result.groups_done == sum(1 for _ in cube_groups(9))


def test_every_model_is_checked() -> None:
    n = 6
    good = (1, 3, 5, 0, 2, 4)
    cube = next(c for c in border_cubes(n) if c.cells == border(n, good))
    cells = tuple(r * n + c + 1 for r, c in cube.cells)
    model = [(r * n + c + 1) * (1 if good[r] == c else -1) for r in range(n) for c in range(n)]

    def checked(cells_: tuple[int, ...], seen: set, model_: list[int]) -> tuple[tuple[int, ...], int]:
        found = Acceptor(n, "s", weigh=lambda p: _weight(cube, p), assumptions=cells_, seen=seen).check(model_)
        return found.placement, found.weight

    assert checked(cells, set(), model) == (good, 4)  # its orbit: 4 boards (OEIS: A000170(6) = 4)
    wrong = [
        ((cells[0] + 1,), set(), model, "outside the cube"),
        (cells, {good}, model, "blocked placement again"),
        (cells, set(), [-v for v in model], "not a solution"),
        (cells, set(), [abs(v) if v == -1 else v for v in model], "attack"),
    ]
    for cells_, seen, model_, message in wrong:
        with pytest.raises(EnumerationError, match=message):
            checked(cells_, seen, model_)


def test_cli_symmetric_with_jobs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["count", "11", "--symmetric", "--jobs", "2"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["fundamental: 341", "count: 2680 (published-count)"]
    assert captured.err == ""  # no progress bar without a terminal
    assert main(["count", "10", "--symmetric", "-e", "ladder"]) == 0
    assert capsys.readouterr().out.splitlines() == ["fundamental: 92", "count: 724 (published-count)"]


def test_cli_time_limit_bounds_the_whole_count(capsys: pytest.CaptureFixture[str]) -> None:
    for n, extra in (("14", []), ("14", ["--jobs", "2"]), ("60", ["--jobs", "2"])):
        assert main(["count", n, "--symmetric", "--time-limit", "0.5", *extra]) == 1
        captured = capsys.readouterr()
        assert captured.out.splitlines()[-1].startswith("partial count: ")
        assert "time limit reached" in captured.err and "cube groups counted" in captured.err


def test_cli_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["count", "8", "--scheduler", "tcp://127.0.0.1:8786"]) == 2
    assert main(["count", "8", "--engine", "cubes", "--limit", "3"]) == 2
    assert main(["count", "8", "--executor", "dask", "--solver", "minisat"]) == 2
    assert main(["count", "8", "--executor", "ray"]) == 2
    assert main(["count", "8", "--jobs", "2", "--solver", "pysat:kissat404"]) == 2
    assert main(["count", "8", "--engine", "loop", "--jobs", "2"]) == 2
    assert main(["count", "8", "--engine", "cubes", "--place", "1,1", "--limit", "2"]) == 2
    assert main(["count", "8", "--engine", "cubes", "--solver", "minisat", "--allow-large"]) == 2  # a binary counts
    for external_only in (["--output-limit", "5"], ["--isolation", "none"], ["--solver-args", "x"]):
        assert main(["count", "8", *external_only]) == 2  # ignored by the cubes before
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 11 and all("error" in line for line in err)
    assert err[-1].endswith("--solver-args: for an external solver only; pysat:cadical195 is embedded")


@pytest.mark.parametrize(
    ("argv", "engine"),
    [
        ([], "cubes"),  # the default: an embedded solver on the plain board
        (["--symmetric"], "cubes"),
        (["--engine", "loop"], "loop"),
        (["--engine", "loop", "--symmetric"], "loop"),
        (["--limit", "400"], "loop"),  # what only the loop can do (352 < 400: the whole count)
        (["--allow-large"], "loop"),
        (["--solver", "pysat:minisat22"], "cubes"),
    ],
)
def test_count_picks_its_engine(
    argv: list[str], engine: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--engine auto`` counts by cubes wherever they apply, and both engines give OEIS's counts."""
    from cnfgen_queens.solutions import api

    ran: list[str] = []
    for module, name in ((cube_count, "count_symmetric"), (api, "_count_by_loop")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, _n=name, _r=real, **k: ran.append(_n) or _r(*a, **k))
    assert main(["count", "9", "--quiet", *argv]) == 0
    out = capsys.readouterr().out.splitlines()
    assert ran == [{"cubes": "count_symmetric", "loop": "_count_by_loop"}[engine]]
    assert out[-1] == "count: 352 (published-count)"
    assert ("fundamental: 46" in out) == ("--symmetric" in argv)


def test_count_with_a_variant_or_an_external_solver_is_the_loop(capsys: pytest.CaptureFixture[str]) -> None:
    """(A binary solver's loop at N = 5: 11 calls; the 92 solutions of N = 8 in test_enumeration.py, kissat.)"""
    need_solver("minisat")
    assert main(["count", "8", "--quiet", "--place", "1,1"]) == 0
    assert main(["count", "5", "--quiet", "--solver", "minisat"]) == 0
    assert capsys.readouterr().out.splitlines() == ["count: 4 (unchecked)", "count: 10 (published-count)"]


def test_dask_local_cluster(capsys: pytest.CaptureFixture[str]) -> None:
    need_module("distributed")
    assert main(["count", "10", "--executor", "dask", "--jobs", "2", "--symmetric"]) == 0
    assert capsys.readouterr().out.splitlines() == ["fundamental: 92", "count: 724 (published-count)"]


def test_dask_scheduler_runs_twice_on_the_same_workers() -> None:
    """A long-lived worker keeps its solver for one run only: a second count starts afresh."""
    need_module("distributed")
    import logging

    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=None, silence_logs=logging.ERROR) as c:
        for n in (9, 9, 10):
            result = cube_symmetric(QueensFormula(n), where=Where(executor="dask", scheduler=c.scheduler_address))
            assert (result.total, result.fundamental) == KNOWN[n]


def test_a_cube_task_names_its_run() -> None:
    a = CubeTask(QueensFormula(8), SOLVER, "run-a")
    assert a != CubeTask(QueensFormula(8), SOLVER, "run-b")


@pytest.mark.slow
def test_issue_15_reproducers(capsys: pytest.CaptureFixture[str]) -> None:
    """`count 13 --symmetric` (139 s before, and it would not take --jobs) and `count 14 --jobs 2`."""
    assert main(["count", "13", "--symmetric", "--jobs", "2"]) == 0
    assert capsys.readouterr().out.splitlines() == ["fundamental: 9233", "count: 73712 (published-count)"]
    assert main(["count", "14", "--jobs", "2"]) == 0
    assert capsys.readouterr().out.splitlines() == ["count: 365596 (published-count)"]


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
        result = cube_symmetric(QueensFormula(8), where=Where(jobs=2), progress=update)
        close()
        assert result.total == 92
        text = err.getvalue()
        assert (f"{result.groups_total}/{result.groups_total}" in text and "solutions=92" in text) == shown, text


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_stopped_count_of_unlisted_groups_claims_no_total(jobs: int, capsys: pytest.CaptureFixture[str]) -> None:
    """Beyond LISTED_UP_TO a count stopped by its time limit has no total (the pool said "0 of 1 cubes")."""
    result = cube_symmetric(QueensFormula(30), where=Where(jobs=jobs), deadline=Deadline.after(1))
    assert (result.status, result.groups_total) == ("TIMEOUT", None)
    assert main(["count", "30", "--jobs", str(jobs), "--time-limit", "1"]) == 1
    err = capsys.readouterr().err
    assert "time limit reached" in err and " of " not in err.split(";")[-1], err
