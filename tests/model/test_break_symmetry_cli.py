"""``--break-symmetry`` from the shell, the Python API and a batch: bytes, header, shuffle, loops, refusals."""

from __future__ import annotations

import io
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import gen_in_process, in_process, need_solver, one_line, run_cli
from pysat.solvers import Solver

import cnfgen_queens as cq
from cnfgen_queens.cli import main
from cnfgen_queens.cnf.dimacs import read_header
from cnfgen_queens.cnf.shuffle import unshuffle_map
from cnfgen_queens.experiments.config import load
from cnfgen_queens.experiments.grid import build
from cnfgen_queens.experiments.store import Store
from cnfgen_queens.experiments.verdict import Judged, Verdict, judge
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.known_counts import known_counts, published_count
from cnfgen_queens.model.symmetry import canonical
from cnfgen_queens.model.variants import Variant
from cnfgen_queens.solvers.outcome import Checked, Status


def test_same_bytes_in_fresh_processes_and_the_header(tmp_path: Path) -> None:
    argv = ["9", "-e", "commander", "--block-square", "1,1", "--block-square", "9,9", "--break-symmetry"]
    runs = [run_cli(argv, tmp_path, gen=True) for _ in range(2)]
    assert runs[0].code == runs[1].code == 0
    a, b = runs[0].out, runs[1].out
    assert a == b
    comments = [line for line in a.splitlines() if line.startswith("c ")]
    group = [line for line in comments if line.startswith("c symmetry breaking:")]
    assert len(group) == 1
    kept = "identity, rotate 180, transpose, anti-transpose (4 maps)"
    assert f"stabiliser of the placed queens and blocked squares in D4: {kept}" in group[0]
    assert comments[-1] == "c p show " + " ".join(map(str, range(1, 82))) + " 0"


def test_the_plain_file_is_unchanged_and_the_flag_only_appends(capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    _, plain, _ = gen_in_process(["8", "--no-comments"], capfdbinary)
    _, broken, _ = gen_in_process(["8", "--no-comments", "--break-symmetry"], capfdbinary)
    formula = QueensFormula(8, break_symmetry=True)
    body = plain.split(b"\n", 1)[1]
    assert broken.split(b"\n", 1)[0] == b"p cnf %d %d" % formula.counts()
    assert broken.split(b"\n", 1)[1].startswith(body)  # the plain clauses first, then the chains


def test_shuffled_file_keeps_one_board_per_orbit(tmp_path: Path, capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    path = tmp_path / "q8.cnf"
    argv = ["8", "-e", "sequential", "--break-symmetry", "--shuffle", "5", "-o", str(path)]
    assert gen_in_process(argv, capfdbinary)[0] == 0
    with open(path, "rb") as f:
        header = read_header(f)
    show = next(c for c in header.comments if c.startswith("p show "))
    cells = [int(t) for t in show.split()[2:-1]]
    back = unshuffle_map(header)
    assert back is not None and sorted(back[v] for v in cells) == list(range(1, 65))
    clauses = [[int(t) for t in line.split()[:-1]] for line in path.read_text().splitlines() if line[:1] not in "cp"]
    boards = set()
    with Solver(name="cadical195", bootstrap_with=clauses) as s:
        while s.solve():
            true = {back[v] for v in s.get_model() if v > 0 and v in set(cells)}
            boards.add(tuple(c for r in range(8) for c in range(8) if r * 8 + c + 1 in true))
            s.add_clause([-v for v in cells if back[v] in true])
    assert len(boards) == known_counts()[8][1] and all(canonical(b) == b for b in boards)


def test_api_writes_the_command_line_bytes(capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    f = cq.queens(7, "ladder", place=[(3, 3)], break_symmetry=True)
    assert f.command == "gen-queens 7 --encoding ladder --break-symmetry --place 4,4"
    buf = io.BytesIO()
    assert f.write(buf, shuffle=2) == f.nclauses
    code, out, _ = gen_in_process([*f.argv, "--shuffle", "2"], capfdbinary)
    assert code == 0 and out == buf.getvalue()
    assert (f.nvars, f.nclauses) == QueensFormula(7, "ladder", variant=f.formula.variant, break_symmetry=True).counts()


def test_enumerate_lists_one_board_per_orbit(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = in_process(["enumerate", "8", "--break-symmetry", "--quiet"], capsys)
    lines = out.splitlines()
    assert code == 0 and lines[-1] == "count: 12 (published-count)"  # A002562(8)
    boards = {tuple(int(t) - 1 for t in line.split()) for line in lines[:-1]}
    assert len(boards) == 12 and all(canonical(b) == b for b in boards)
    need_solver("minisat")
    code, out2, _ = in_process(
        ["enumerate", "8", "--break-symmetry", "--quiet", "-s", "minisat", "-e", "commander"], capsys
    )
    assert code == 0 and set(out2.splitlines()) == set(lines)


def test_count_of_a_torus_and_of_a_placed_queen(capsys: pytest.CaptureFixture[str]) -> None:
    # no published count of the torus's orbits: unchecked
    assert in_process(["count", "7", "--torus", "--break-symmetry", "--quiet"], capsys)[1] == "count: 1 (unchecked)\n"
    # the centre queen of N = 9: every map keeps it, so the orbits are fewer than the boards
    code, out, _ = in_process(["count", "9", "--place", "5,5", "--quiet"], capsys)
    whole = int(out.split()[1])  # count: N (how it was checked)
    code, out, _ = in_process(["count", "9", "--place", "5,5", "--break-symmetry", "--quiet"], capsys)
    assert code == 0 and 0 < int(out.split()[1]) < whole


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["count", "8", "--break-symmetry", "--symmetric"], "--break-symmetry does not combine with --symmetric"),
        (["count", "8", "--break-symmetry", "--jobs", "2"], "--break-symmetry does not combine with --jobs"),
        (["count", "8", "--break-symmetry", "--engine", "cubes"], "does not combine with --engine cubes"),
        (["gen", "17", "--torus", "--break-symmetry"], "its group has 36,992 maps"),
        (["gen", "8", "--format", "opb", "--break-symmetry"], "--break-symmetry applies to --format cnf only"),
        (["gen", "--list-encodings", "--break-symmetry"], "needs N (the board size)"),
        (["gen", "--list-encodings", "8", "--torus"], "--torus does not apply to --list-encodings"),
    ],
)
def test_refusals_are_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, out, err = in_process(argv, capsys)
    assert code == 2 and out == "", err
    one_line(err, message)


def test_list_encodings_row(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = in_process(["gen", "--list-encodings", "8", "--break-symmetry"], capsys)
    row = out.splitlines()[-1].split()
    assert code == 0 and row[:3] == ["--break-symmetry", "1205", "241"]
    code, out, _ = in_process(["gen", "--list-encodings", "5", "--break-symmetry", "--torus"], capsys)
    expected = QueensFormula(5, variant=Variant(torus=True), break_symmetry=True).group.size()
    assert code == 0 and out.splitlines()[-1].split()[1:3] == [str(k) for k in expected]


CONFIG = """\
experiment: lex
instances:
  n: [6, 8]
  encodings: [pairwise]
{extra}solvers: [pysat:cadical195]
task: count
engine: loop
limits: {{time: 60}}
results: {results}
"""


def test_batch_axis_keeps_the_plain_keys_and_counts_orbits(tmp_path: Path) -> None:
    plain = tmp_path / "plain.yaml"
    plain.write_text(CONFIG.format(extra="", results=tmp_path / "plain.sqlite"))
    both = tmp_path / "both.yaml"
    both.write_text(CONFIG.format(extra="  break_symmetry: [false, true]\n", results=tmp_path / "both.sqlite"))
    plain_keys = {r.key for r in build(load(plain))}
    runs = build(load(both))
    assert len(runs) == 4 and plain_keys < {r.key for r in runs}
    broken = [r for r in runs if r.instance.break_symmetry]
    assert [r.instance.clauses for r in broken] == [QueensFormula(n, break_symmetry=True).counts()[1] for n in (6, 8)]
    assert main(["batch", str(both), "--no-progress"]) == 0
    with Store(tmp_path / "both.sqlite", readonly=True) as store:
        rows = store.rows()
    counts = {(r.n, '"break_symmetry": true' in (r.variant or "")): r.count for r in rows}
    assert counts == {(6, False): 4, (8, False): 92, (6, True): 1, (8, True): 12}
    # the orbit counts are judged against OEIS A002562, as the count's checked column says they were checked
    assert {(r.verdict, r.checked) for r in rows} == {(Verdict.SOLVED, Checked.PUBLISHED)}


def test_verdict_judges_a_count_by_the_published_count_of_its_formula() -> None:
    def row(n: int, count: int, **variant: object) -> Judged:
        return SimpleNamespace(
            verdict=None,
            status=Status.UNKNOWN,
            task="count",
            n=n,
            count=count,
            verified=None,
            error=None,
            time_limit=None,
            wall=None,
            variant=json.dumps(variant) if variant else None,
        )

    assert published_count(8, break_symmetry=True) == (12, "A002562")
    assert judge(row(8, 12, break_symmetry=True)) is Verdict.SOLVED
    assert judge(row(8, 92, break_symmetry=True)) is Verdict.WRONG  # every board is not one per orbit
    assert judge(row(8, 92)) is Verdict.SOLVED
    # the torus's orbits under its whole group: no published count (not wrong, whatever the count)
    assert published_count(7, torus=True, break_symmetry=True) is None
    assert judge(row(7, 1, torus=True, break_symmetry=True)) is Verdict.SOLVED
    assert judge(row(7, 27, torus=True)) is Verdict.WRONG  # A007705(7) = 28


def test_study_configs_load() -> None:
    root = Path(__file__).resolve().parents[2]
    for name, runs in (("symmetry.yaml", 5 * 2 * 3 * 3), ("symmetry-torus.yaml", 4 * 2 * 3 * 3)):
        config = load(root / "configs" / name, check_solvers=False)
        assert config.variant is not None and config.variant.break_symmetry == (False, True)
        assert len(build(config)) == runs


def test_unsat_study_configs_are_the_scripts_and_unsat() -> None:
    """configs/symmetry-unsat/ is what scripts/symmetry_unsat_configs.py writes; each instance keeps the
    transposition and is UNSAT (the smallest, N = 20, solved here)."""
    import importlib.util

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("unsat_configs", root / "scripts" / "symmetry_unsat_configs.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    for n in script.NS:
        path = root / "configs" / "symmetry-unsat" / f"n{n}.yaml"
        assert path.read_text() == script.config(n)
        broken = [r.instance for r in build(load(path, check_solvers=False)) if r.instance.break_symmetry]
        assert {i.formula().group.order for i in broken} == {2}  # the identity and the transposition
    path = root / "configs" / "symmetry-unsat" / "n20.yaml"
    formula = next(r.instance for r in build(load(path, check_solvers=False)) if r.instance.break_symmetry).formula()
    with Solver(name="cadical195", bootstrap_with=[list(c) for c in formula.clauses()]) as s:
        assert s.solve() is False


def test_an_unsat_answer_on_a_broken_board_is_wrong(tmp_path: Path, capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    from cnfgen_queens.solutions.known_answer import Verdict, judge_answer
    from cnfgen_queens.solvers.outcome import Outcome, Status

    path = tmp_path / "q8.cnf"
    assert gen_in_process(["8", "-e", "ladder", "--break-symmetry", "-o", str(path)], capfdbinary)[0] == 0
    with open(path, "rb") as f:
        header = read_header(f)
    unsat = Outcome(
        status=Status.UNSAT,
        solver="liar",
        version=None,
        model=None,
        exit_code=20,
        wall=0.0,
        cpu=None,
        peak_memory_mb=None,
        verified=False,
        stderr_tail="",
        proof=None,
        error=None,
    )
    judged = judge_answer(unsat, header, path)  # one board per orbit: SAT exactly when the board has a solution
    assert judged.verdict is Verdict.WRONG and "12 solutions (OEIS A002562)" in (judged.wrong or "")  # one per orbit
