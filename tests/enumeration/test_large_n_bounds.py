"""Large N in enumerate and count: a clear refusal before anything is built, or a run the time limit bounds.

The reproducers (N = 1000 pairwise: 1,664,668,000 clauses) used to build the whole formula
(OOM kill, std::bad_alloc, MemoryError after minutes).  Now they are refused at once (exit 2,
one line), and with --allow-large the time limit covers building and writing the formula.
Scaled down where the real size would need gigabytes: a 1 s limit stops the build early.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import need_solver, run_cli

from cnfgen_queens.cli import main
from cnfgen_queens.cnf.owned import LOCK_FILE
from cnfgen_queens.enumeration import external_loop, size_cap
from cnfgen_queens.enumeration.embedded_loop import enumerate_embedded
from cnfgen_queens.enumeration.external_loop import WorkFormula
from cnfgen_queens.enumeration.records import EnumerationError
from cnfgen_queens.errors import UsageError
from cnfgen_queens.limits import Deadline, Limits
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.solutions.api import HELD_CLAUSES, Request, check_held_size, count
from cnfgen_queens.solvers.outcome import Status

GENEROUS = 60.0  # seconds a 1 s limit may take to end on a loaded machine (was minutes, or a crash)


REPRODUCERS = [
    ["count", "1000", "--jobs", "2", "--time-limit", "5"],
    ["count", "1000", "--time-limit", "5"],
    ["count", "1000", "--solver", "kissat", "--time-limit", "5"],
    ["enumerate", "1000", "--limit", "2", "--time-limit", "5"],
]


@pytest.mark.parametrize("argv", REPRODUCERS, ids=lambda a: " ".join(a))
def test_reproducers_are_refused_before_anything_is_built(argv: list[str], tmp_path: Path) -> None:
    done = run_cli(argv, tmp_path)
    assert done.out == ""
    line = done.one_line(2)
    for part in ("N=1000", "pairwise", "1,664,668,000 clauses", f"{HELD_CLAUSES:,}", "-e product (8,866,644 clauses)"):
        assert part in line
    by_cubes = argv[0] == "count" and "--solver" not in argv  # count's default engine with an embedded solver
    assert ("--allow-large" in line) and (("cubes" in line) == by_cubes)
    assert done.wall < GENEROUS  # nothing was built: N = 1000 pairwise takes minutes and gigabytes


def test_cube_counting_is_refused_even_with_allow_large(capsys: pytest.CaptureFixture[str]) -> None:
    for extra in (["--jobs", "2"], ["--engine", "cubes"], ["--symmetric", "--engine", "cubes"]):
        assert main(["count", "1000", "--allow-large", "--time-limit", "5", *extra]) == 2
        err = capsys.readouterr().err
        assert "--engine loop" in err and "--allow-large" in err and len(err.splitlines()) == 1


def test_compact_encodings_under_the_cap_run_and_beyond_it_a_smaller_n(capsys: pytest.CaptureFixture[str]) -> None:
    for encoding in ("sequential", "commander", "product", "ladder"):  # the legit large-N use, as documented
        check_held_size(QueensFormula(1000, encoding))
    check_held_size(QueensFormula(229))  # pairwise: 19,910,405 clauses
    with pytest.raises(UsageError, match=r"N=230 pairwise has 20,172,840 clauses"):
        check_held_size(QueensFormula(230))
    with pytest.raises(UsageError, match=r"N=3000 sequential has 107,931,012 clauses.*use a smaller N"):
        check_held_size(QueensFormula(3000, "sequential"))
    check_held_size(QueensFormula(3000, "sequential"), allow_large=True)


def test_the_cap_and_allow_large_through_the_cli(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """A small formula over a lowered cap: refused with exit 2, then counted with --allow-large."""
    monkeypatch.setattr(size_cap, "HELD_CLAUSES", 500)  # N = 8 pairwise has 736 clauses
    for argv in (["count", "8"], ["enumerate", "8"], ["count", "8", "--symmetric"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "N=8 pairwise has 736 clauses, above the limit of 500" in err and err.count("\n") == 1
    assert main(["count", "8", "--allow-large"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "count: 92 (published-count)"  # OEIS A000170
    assert main(["count", "8", "--jobs", "2", "--allow-large"]) == 2  # cubes: in every worker, never
    # cubes in J local workers hold J copies: each gets 1/J of the cap
    monkeypatch.setattr(size_cap, "HELD_CLAUSES", 1000)
    assert main(["count", "8", "--symmetric"]) == 0
    assert capsys.readouterr().out.splitlines() == ["fundamental: 12", "count: 92 (published-count)"]
    assert main(["count", "8", "--jobs", "2"]) == 2
    err = capsys.readouterr().err
    assert "--jobs 2: each local worker holds a copy" in err and "use --jobs 1 or fewer" in err  # the cause: --jobs
    assert err.count("\n") == 1


def test_embedded_time_limit_covers_building(tmp_path: Path) -> None:
    """Reproducers 2 and 4 with --allow-large: the build stops at the limit with the partial result."""
    for argv in (["count", "1000"], ["enumerate", "1000", "--limit", "2"]):
        done = run_cli([*argv, "--allow-large", "--time-limit", "1"], tmp_path)
        assert done.code == 1, done.err
        assert done.out.strip().splitlines()[-1] == "partial count: 0"
        assert "time limit reached while building the formula" in done.err and "Traceback" not in done.err
        assert done.wall < GENEROUS


def test_embedded_build_checks_the_deadline_between_chunks() -> None:
    with pytest.raises(EnumerationError, match=r"building the formula \(0 of 1,646,800 clauses") as e:
        next(enumerate_embedded(QueensFormula(100), deadline=Deadline.after(-1)))
    assert e.value.status is Status.TIMEOUT


def test_external_time_limit_covers_writing_the_base(tmp_path: Path) -> None:
    """Reproducer 3 with --allow-large: writing base.cnf (21 GB) stops at the limit; nothing is left behind."""
    need_solver("kissat")
    out = tmp_path / "run"
    done = run_cli(
        ["count", "1000", "--solver", "kissat", "--allow-large", "--time-limit", "1", "--out", str(out)], tmp_path
    )
    assert done.code == 1, done.err
    assert done.out.strip().splitlines()[-1] == "partial count: 0"
    assert "time limit reached while writing base.cnf" in done.err and "Traceback" not in done.err
    assert done.wall < GENEROUS
    assert sorted(p.name for p in out.iterdir()) == [LOCK_FILE, "run.json", "solutions.txt"]  # no half-written base


def test_streamed_base_writes_what_the_held_one_does(tmp_path: Path) -> None:
    """Above HOLD_BYTES the base is not held: each round copies base.cnf, the runner streams the check."""
    formula = QueensFormula(7, "sequential")
    held = WorkFormula(formula, tmp_path / "held.cnf")
    streamed = WorkFormula(formula, tmp_path / "streamed.cnf", hold=0)
    assert held.cnf() is not None and streamed.cnf() is None
    blocks = [(-1, -10, -19), (-2, -12)]
    for work in (held, streamed):
        work.add(blocks)
    held.write(tmp_path / "a.cnf")
    streamed.write(tmp_path / "b.cnf")
    assert (tmp_path / "a.cnf").read_bytes() == (tmp_path / "b.cnf").read_bytes()


def test_streamed_external_loop_counts_right(monkeypatch: pytest.MonkeyPatch, capsys, tmp_path: Path) -> None:
    need_solver("kissat")
    monkeypatch.setattr(external_loop, "HOLD_BYTES", 0)
    assert main(["count", "7", "--solver", "kissat", "--quiet", "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "count: 40 (published-count)"  # OEIS A000170


def test_resumed_solutions_survive_a_write_timeout(monkeypatch: pytest.MonkeyPatch, capsys, tmp_path: Path) -> None:
    """Solutions read back from solutions.txt are handed out before the base is written (and may time out)."""
    need_solver("kissat")
    assert main(["enumerate", "8", "--solver", "kissat", "--limit", "3", "--quiet", "--out", str(tmp_path)]) == 0

    def expired(self, data):  # a deadline already passed
        raise EnumerationError("time limit reached while writing base.cnf", Status.TIMEOUT)

    monkeypatch.setattr(external_loop._TimedFile, "write", expired)
    argv = ["enumerate", "8", "--solver", "kissat", "--quiet", "--out", str(tmp_path), "--resume"]
    capsys.readouterr()
    assert main(argv) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "partial count: 3"
    assert (tmp_path / "solutions.txt").read_text().count("\n") == 3


def test_batch_count_cannot_build_a_formula_over_the_cap(tmp_path: Path) -> None:
    """``task: count`` at N = 1000 pairwise: refused when the config is checked (exit 2, one line, no results
    file), and an ERROR row naming the size from the run itself (the task's own check), not an OOM kill."""
    with pytest.raises(UsageError, match="1,664,668,000 clauses"):
        count(Request(QueensFormula(1000), limits=Limits(time=5)))
    cfg = tmp_path / "big.yaml"
    cfg.write_text(
        "experiment: big\ninstances:\n  n: [1000]\n  encodings: [pairwise]\n"
        f"solvers: [pysat:cadical195]\ntask: count\nlimits: {{time: 5}}\nresults: {tmp_path / 'r.sqlite'}\n"
    )
    done = run_cli(["batch", str(cfg), "--no-progress"], tmp_path)
    done.one_line(2, "instances.encodings[0]: task count: N=1000 pairwise has 1,664,668,000 clauses")
    assert done.wall < GENEROUS
    assert not (tmp_path / "r.sqlite").exists()
