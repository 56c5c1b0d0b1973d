"""Variants counted by cubes (counting/variant_cubes.py, split_count.py) against a brute force; the policy."""

from __future__ import annotations

import multiprocessing
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers import need_module

from cnfgen_queens.cli import main
from cnfgen_queens.counting.cube_count import FRESH_UP_TO
from cnfgen_queens.counting.split_count import _checked_weight
from cnfgen_queens.counting.variant_cubes import row_groups, split_groups
from cnfgen_queens.enumeration.records import EnumerationError
from cnfgen_queens.limits import Limits
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.variants import Variant, VariantError, make_variant
from cnfgen_queens.solutions.api import Request, SolverChoice, Where, choose_engine, count

Cell = tuple[int, int]


def brute_count(n: int, variant: Variant) -> int:
    """Solutions by a bitmask backtracker over rows (placed queens forced, holes banned); diagonals wrap on
    the torus (rotated masks), else shift."""
    fixed, banned, full = dict(variant.placed), set(variant.holes), (1 << n) - 1

    def go(r: int, cols: int, diag: int, anti: int) -> int:
        if r == n:
            return 1
        if variant.torus:  # diag holds (c - r) mod N, anti (c + r) mod N
            d = ((diag << r) | (diag >> (n - r))) & full if r else diag
            a = ((anti >> r) | (anti << (n - r))) & full if r else anti
            free = full & ~(cols | d | a)
        else:  # diag bit c - r + N, anti bit c + r, over 2N bits
            free = full & ~(cols | (diag >> (n - r)) | (anti >> r))
        total = 0
        for c in [fixed[r]] if r in fixed else range(n):
            if free >> c & 1 and (r, c) not in banned:
                if variant.torus:
                    total += go(r + 1, cols | 1 << c, diag | 1 << ((c - r) % n), anti | 1 << ((c + r) % n))
                else:
                    total += go(r + 1, cols | 1 << c, diag | 1 << (c - r + n), anti | 1 << (c + r))
        return total

    return go(0, 0, 0, 0)


def test_brute_force_knows_the_plain_counts() -> None:
    assert [brute_count(n, Variant()) for n in range(1, 10)] == [1, 0, 0, 2, 10, 4, 40, 92, 352]
    assert [brute_count(n, Variant(torus=True)) for n in (5, 7, 11)] == [10, 28, 88]


def random_variant(rng: random.Random, n: int) -> Variant:
    """Holes (0..N of them), explicit and random placed queens, on the board or the torus."""
    torus = rng.random() < 0.25
    holes = sorted({(rng.randrange(n), rng.randrange(n)) for _ in range(rng.randrange(0, n + 1))})
    placed: list[Cell] = []
    if rng.random() < 0.3:
        cell = (rng.randrange(n), rng.randrange(n))
        if cell not in holes:
            placed.append(cell)
    k = rng.randrange(0, 4)
    return (
        make_variant(n, placed, holes, torus, k, rng.randrange(10_000)) if k else make_variant(n, placed, holes, torus)
    )


def instances(count_wanted: int, seed: int) -> list[tuple[int, Variant]]:
    rng, out = random.Random(seed), []
    while len(out) < count_wanted:
        n = rng.randrange(6, 13)
        try:
            v = random_variant(rng, n)
        except VariantError:  # a dead end of the random placement: draw again
            continue
        if v.active:
            out.append((n, v))
    return out


@pytest.mark.parametrize("wanted", [60, pytest.param(200, marks=pytest.mark.slow)])
def test_random_variants_by_cubes_match_brute_force(wanted: int) -> None:
    """The first 60 of the 200 random variants by default (0.7 s of CPU: 15 on the torus, 36 with solutions,
    every N), all 200 with -m slow (4.4 s)."""
    cases = instances(wanted, seed=26)
    nonzero = 0
    for n, v in cases:
        f = QueensFormula(n, variant=v)
        r = count(Request(f))
        assert (r.engine, r.status) == ("cubes", "UNSAT"), (n, v, r.error)
        assert r.total == brute_count(n, v), (n, v)
        nonzero += r.total > 0
    assert len(cases) == wanted and nonzero >= wanted // 5  # not all empty
    assert len({n for n, _ in cases}) == 7 and any(v.torus for _, v in cases)  # N = 6..12, the torus too


def test_jobs_dask_and_the_loop_agree(capsys: pytest.CaptureFixture[str]) -> None:
    need_module("dask.distributed")
    n, v = 10, make_variant(10, [(0, 2)], [(5, 5), (6, 1)])
    want = brute_count(n, v)
    args = ["count", "10", "--place", "1,3", "--block-square", "6,6", "--block-square", "7,2", "--quiet"]
    for extra in ([], ["--jobs", "2"], ["--executor", "dask", "--jobs", "2"], ["--engine", "loop"]):
        assert main([*args, *extra]) == 0
        assert capsys.readouterr().out == f"count: {want} (unchecked)\n", extra
    assert want > 0


def test_groups_cover_the_open_cells() -> None:
    v = make_variant(8, [(0, 0), (2, 3)], [(1, 6)])
    groups = row_groups(8, v)  # first free rows: 1 and 3
    firsts = [divmod(g.fixed[0] - 1, 8) for g in groups]
    assert firsts == [(1, 5), (1, 7)]  # (1, 6) a hole; 0..4 attacked by (0, 0) or (2, 3)
    assert all(divmod(c[0] - 1, 8)[0] == 3 for g in groups for c in g.cubes)
    full = make_variant(4, [(0, 1), (1, 3), (2, 0), (3, 2)])
    assert [(g.fixed, g.cubes) for g in row_groups(4, full)] == [((), ((),))]
    assert count(Request(QueensFormula(4, variant=full))).total == 1
    assert count(Request(QueensFormula(8, variant=make_variant(8, [(0, 0), (1, 2)])))).total == 0  # no open cell left
    # the 13-torus's whole group (with (r, c) -> (r + c, r - c), issue 34) leaves 10 groups (15 without that map)
    assert len(split_groups(QueensFormula(13, variant=Variant(torus=True)))) == 10


def test_a_queen_on_a_blocked_cell_is_refused() -> None:
    assert _checked_weight("s", False, frozenset({5}), (0, 2, 4, 1, 3)) == 1
    with pytest.raises(EnumerationError, match="outside its cube"):
        _checked_weight("s", False, frozenset({3}), (2, 4, 1, 3, 0))  # cell (0, 2) is literal 3


def test_policy() -> None:
    torus, placed = Variant(torus=True), Variant(((0, 0),))
    assert choose_engine(Request(QueensFormula(8, variant=torus))) == "cubes"
    assert choose_engine(Request(QueensFormula(8, variant=placed))) == "cubes"
    assert choose_engine(Request(QueensFormula(40, variant=placed))) == "loop"  # beyond N = 32 auto runs the loop
    assert choose_engine(Request(QueensFormula(40, variant=placed), where=Where(jobs=2))) == "cubes"
    assert choose_engine(Request(QueensFormula(8, variant=placed), engine="loop")) == "loop"
    assert choose_engine(Request(QueensFormula(8, variant=torus), SolverChoice("minisat"))) == "loop"


def _batch_config(tmp_path: Path, name: str, limits: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(
        f"experiment: {name}\ninstances:\n  n: [7, 11]\n  encodings: [pairwise]\n  torus: true\n"
        f"solvers: [pysat:cadical195, pysat:glucose4]\ntask: count\nengine: cubes\nlimits: {limits}\n"
        f"results: {tmp_path / name / 'r.sqlite'}\n"
    )
    return path


@pytest.mark.parametrize("executor", ["local", "dask"])
def test_batch_counts_variants_by_cubes(tmp_path: Path, executor: str) -> None:
    """The batch's task count runs the CLI's engines per solver, the torus by cubes, under either executor
    (a Dask worker of our LocalCluster may start the cube worker that bounds the time)."""
    if executor == "dask":
        need_module("dask.distributed")
    cfg = _batch_config(tmp_path, "tc", "{time: 60}")
    assert main(["batch", str(cfg), "--jobs", "2", "--executor", executor, "--no-progress"]) == 0
    with sqlite3.connect(tmp_path / "tc" / "r.sqlite") as db:
        rows = sorted(db.execute("select n, solver, status, count, engine from runs"))
    assert rows == [
        (n, s, "UNSAT", c, "cubes") for n, c in ((7, 28), (11, 88)) for s in ("pysat:cadical195", "pysat:glucose4")
    ]


def test_batch_engine_cubes_with_a_memory_limit_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = _batch_config(tmp_path, "mem", "{time: 60, memory: 2048}")
    assert main(["batch", str(cfg), "--no-progress"]) == 2
    assert "limits.memory: engine cubes cannot bound memory" in capsys.readouterr().err


def _count_in(queue: Any) -> None:
    r = count(Request(QueensFormula(11, variant=Variant(torus=True)), limits=Limits(time=60)))
    queue.put((r.engine, r.total, r.complete))


@pytest.mark.forks_beside_threads  # a pytest-xdist worker's IO thread: the fork a Dask worker's pool would make
def test_a_daemonic_process_counts_by_cubes_in_itself() -> None:
    """Under a deadline the cubes run in a worker process, which a daemonic process (a Dask worker of a
    cluster not ours) may not start: there they run in the process itself."""
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_count_in, args=(queue,), daemon=True)
    child.start()
    try:
        assert queue.get(timeout=120) == ("cubes", 88, True)
    finally:
        child.join(10)
        if child.is_alive():
            child.kill()
            child.join()
    assert child.exitcode == 0


def test_a_large_formula_runs_under_assumptions_in_one_solver() -> None:
    """N = 40 pairwise is over FRESH_UP_TO clauses: the groups share one solver per worker, cubes as
    assumptions; 37 queens of a known solution placed, the 3 free rows counted against brute force."""
    n = 40  # N mod 6 = 4: (i, 2i + 1) and (N/2 + i, 2i) is a solution
    board = [(i, 2 * i + 1) for i in range(n // 2)] + [(n // 2 + i, 2 * i) for i in range(n // 2)]
    v = make_variant(n, board[3:])
    f = QueensFormula(n, variant=v)
    assert f.counts()[1] > FRESH_UP_TO
    r = count(Request(f, engine="cubes"))
    assert (r.engine, r.status, r.total) == ("cubes", "UNSAT", brute_count(n, v)) and r.total >= 1
    assert r.groups_total == len(row_groups(n, v)) > 1
