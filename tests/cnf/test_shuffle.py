"""``--shuffle SEED``: a seeded renaming + literal/clause permutation that decode/block can undo."""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

import pytest
from helpers import need_solver
from pysat.solvers import Solver

from cnfgen_queens.cli import gen_main
from cnfgen_queens.cnf.dimacs import Header, read_header_file
from cnfgen_queens.cnf.scan import read_cnf, violated_clause
from cnfgen_queens.cnf.shuffle import (
    ShuffleError,
    header_shuffle,
    header_shuffle_map,
    inverse,
    rename,
    shuffle_clauses,
    shuffle_map,
    unshuffle_map,
)
from cnfgen_queens.model.board import Board, find_attack
from cnfgen_queens.model.formula import QueensFormula


def gen(tmp_path: Path, *argv: str, name: str = "q.cnf") -> Path:
    out = tmp_path / name
    assert gen_main([*argv, "-o", str(out)]) == 0
    return out


def canonical(clauses) -> Counter:
    return Counter(tuple(sorted(c)) for c in clauses)


def test_shuffle_map_is_a_seeded_permutation() -> None:
    t = shuffle_map(50, 3)
    assert t[0] == 0 and sorted(t[1:]) == list(range(1, 51))
    assert t == shuffle_map(50, 3)
    assert t != shuffle_map(50, 4)
    assert inverse(t)[t[17]] == 17


def test_shuffle_clauses_keeps_the_formula() -> None:
    f = QueensFormula(6, "sequential")
    num_vars, _ = f.counts()
    original = list(f.clauses())
    shuffled = shuffle_clauses(original, num_vars, 11)
    assert shuffled == shuffle_clauses(original, num_vars, 11)
    back = [rename(c, inverse(shuffle_map(num_vars, 11))) for c in shuffled]
    assert canonical(back) == canonical(original)
    assert back != original  # clause order changed
    assert set(back) != set(original)  # same clauses as sets, so some literal order changed


@pytest.mark.parametrize("encoding", ["pairwise", "ladder", "pysat:totalizer"])
def test_cli_shuffle_is_deterministic_and_undoable(tmp_path: Path, encoding: str) -> None:
    first = gen(tmp_path, "6", "-e", encoding, "--shuffle", "42").read_bytes()
    a = gen(tmp_path, "6", "-e", encoding, "--shuffle", "42")
    plain = gen(tmp_path, "6", "-e", encoding, name="plain")
    assert a.read_bytes() == first
    header = read_header_file(a)
    assert header_shuffle(header) == 42
    table = header_shuffle_map(header)
    show = next(c for c in header.comments if c.startswith("p show "))
    assert show == "p show " + " ".join(str(table[v]) for v in range(1, 37)) + " 0"
    cnf, ref = read_cnf(a), read_cnf(plain)
    assert cnf.num_vars == ref.num_vars and cnf.num_clauses == ref.num_clauses
    back = [rename(c, unshuffle_map(header)) for c in cnf.clauses()]
    assert canonical(back) == canonical(ref.clauses())


def count_shuffled(path: Path) -> int:
    """Enumerate boards of a shuffled file: models mapped back, blocks mapped forward."""
    cnf = read_cnf(path)
    header = cnf.header
    back, forward = unshuffle_map(header), header_shuffle_map(header)
    cells = [int(t) for t in next(c for c in header.comments if c.startswith("p show ")).split()[2:-1]]
    size = int(len(cells) ** 0.5)
    found = 0
    with Solver(name="minisat22", bootstrap_with=list(cnf.clauses())) as s:
        while s.solve():
            model = s.get_model()
            true = {x for x in model if x > 0}
            assert violated_clause(cnf, true) is None
            queens = [divmod(back[v] - 1, size) for v in true if back[v] <= size * size]
            assert len(queens) == size and find_attack(Board(size), queens) is None
            found += 1
            s.add_clause([-forward[v] if forward[v] in true else forward[v] for v in range(1, size * size + 1)])
    return found


@pytest.mark.parametrize(("n", "expected"), [(4, 2), (5, 10), (6, 4)])
def test_enumerate_on_shuffled_instances(tmp_path: Path, n: int, expected: int) -> None:
    assert count_shuffled(gen(tmp_path, str(n), "-e", "commander", "--shuffle", "9")) == expected


def test_blocks_are_shuffled_with_the_formula(tmp_path: Path) -> None:
    blocked = [(0, 1), (1, 3), (2, 0), (3, 2)]  # one of the two 4-queens boards, unshuffled names
    blocks = tmp_path / "b.txt"
    blocks.write_text(" ".join(str(-(r * 4 + c + 1)) for r, c in blocked) + " 0\n")
    path = gen(tmp_path, "4", "--block", str(blocks), "--shuffle", "5")
    assert read_header_file(path).num_clauses == QueensFormula(4).counts()[1] + 1
    assert count_shuffled(path) == 1


def test_kissat_strict_accepts_shuffled_output(tmp_path: Path) -> None:
    kissat = need_solver("kissat")
    path = gen(tmp_path, "8", "-e", "bimander", "--shuffle", "1")
    run = subprocess.run([kissat, "--strict", "-q", str(path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 10, run.stderr
    model = [int(t) for line in run.stdout.splitlines() if line.startswith("v ") for t in line.split()[1:]]
    true = {x for x in model if x > 0}
    cnf = read_cnf(path)
    assert violated_clause(cnf, true) is None
    back = unshuffle_map(cnf.header)
    queens = [divmod(back[v] - 1, 8) for v in true if back[v] <= 64]
    assert len(queens) == 8 and find_attack(Board(8), queens) is None


def test_unshuffled_header_gives_none_and_bad_headers_fail() -> None:
    assert unshuffle_map(Header(10, 3, ("p show 1 2 0",))) is None
    with pytest.raises(ShuffleError):
        header_shuffle(Header(10, 3, ("shuffle: seed=1 vars=9",)))
    with pytest.raises(ShuffleError):
        header_shuffle(Header(10, 3, ("shuffle: nonsense",)))


def test_shuffle_errors_and_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert gen_main(["4", "--shuffle", "-3"]) == 2
    assert "non-negative" in capsys.readouterr().err
    assert gen_main(["4", "--shuffle", "x"]) == 2
    assert gen_main(["4", "--shuffle", "1", "--format", "opb"]) == 2
    assert "cnf only" in capsys.readouterr().err
    out = tmp_path / "bare.cnf"
    assert gen_main(["4", "--shuffle", "1", "--no-comments", "-o", str(out)]) == 0
    assert "drops the shuffle seed" in capsys.readouterr().err
    assert out.read_bytes().startswith(b"p cnf 16 80\n")


def refuse(*args: object) -> None:
    raise AssertionError("the reference shuffle ran where the vectorised one should")


SHUFFLE_CASES = [
    ("pairwise", 1, False, ()),
    ("pairwise", 2, True, ()),
    ("pairwise", 8, True, ((-1, -10), (5,))),
    ("sequential", 9, False, ((-3, 4, -5),)),
    ("commander", 10, True, ()),
    ("product", 12, True, ((-1, -2, -3),)),
    ("ladder", 7, False, ()),
    ("bimander", 11, True, ()),
    ("binary", 6, False, ()),
    ("nested", 13, True, ()),
]


@pytest.mark.parametrize(("encoding", "n", "column_alo", "extra"), SHUFFLE_CASES)
@pytest.mark.parametrize("seed", [0, 1, 2**32, 2**63 - 1])
def test_vectorised_shuffle_writes_the_reference_bytes(
    monkeypatch: pytest.MonkeyPatch, encoding: str, n: int, column_alo: bool, extra: tuple, seed: int
) -> None:
    """The vectorised shuffle draws the same random stream as random.Random(seed) and permutes the same way: the same
    file, also with many small chunks (the stream continues across them) and with extra clauses."""
    import io

    from cnfgen_queens.cnf import writer
    from cnfgen_queens.cnf.writer import write_cnf

    formula = QueensFormula(n, encoding, column_alo)
    ref, fast, small = io.BytesIO(), io.BytesIO(), io.BytesIO()
    write_cnf(ref, formula, ["x"], extra, shuffle=seed, fast=False)
    write_cnf(fast, formula, ["x"], extra, shuffle=seed, fast=True)
    monkeypatch.setattr(writer, "CLAUSE_CHUNK", 5)
    monkeypatch.setattr("cnfgen_queens.cnf.shuffle.shuffle_clauses", refuse)  # the vectorised path must run
    write_cnf(small, formula, ["x"], extra, shuffle=seed, fast=True)
    assert fast.getvalue() == ref.getvalue() == small.getvalue()
    assert ref.getvalue().count(b" 0\n") >= formula.counts()[1]


def test_vectorised_shuffle_with_variants_and_streamed_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """Placed queens and holes (unit clauses after the lines), and a line too long for a template (its
    clauses streamed in chunks): still the reference's bytes."""
    import io

    from cnfgen_queens.cnf import writer as generate
    from cnfgen_queens.cnf.writer import write_cnf
    from cnfgen_queens.model.variants import Variant

    monkeypatch.setattr(generate, "TEMPLATE_MAX_LITERALS", 10)  # nested lines take the streaming path
    monkeypatch.setattr(generate, "CHUNK_LITERALS", 16)
    for formula in (
        QueensFormula(9, "pairwise", variant=Variant(placed=((0, 1),), holes=((4, 4), (5, 0)))),
        QueensFormula(12, "nested", column_alo=True),
    ):
        ref, fast = io.BytesIO(), io.BytesIO()
        write_cnf(ref, formula, [], (), shuffle=7, fast=False)
        with monkeypatch.context() as m:
            m.setattr("cnfgen_queens.cnf.shuffle.shuffle_clauses", refuse)
            write_cnf(fast, formula, [], (), shuffle=7, fast=True)
        assert fast.getvalue() == ref.getvalue()
        plain_ref, plain_fast = io.BytesIO(), io.BytesIO()  # the unshuffled fast writer on the same chunks
        write_cnf(plain_ref, formula, [], (), fast=False)
        write_cnf(plain_fast, formula, [], (), fast=True)
        assert plain_fast.getvalue() == plain_ref.getvalue()


def test_an_empty_extra_clause_keeps_the_reference_bytes() -> None:
    """The reference writes an empty clause as " 0"; such a file takes the reference path."""
    import io

    from cnfgen_queens.cnf.writer import write_cnf

    ref, fast = io.BytesIO(), io.BytesIO()
    write_cnf(ref, QueensFormula(6), [], ((), (-1,)), shuffle=3, fast=False)
    write_cnf(fast, QueensFormula(6), [], ((), (-1,)), shuffle=3, fast=True)
    assert fast.getvalue() == ref.getvalue() and b"\n 0\n" in ref.getvalue()
