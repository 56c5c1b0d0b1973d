"""The one CNF writer (issue 13): extra clauses, a shuffle, the clause count; the CLI and the batch share it."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pytest

from cnfgen_queens.cli import gen_main
from cnfgen_queens.cnf.shuffle import shuffle_map
from cnfgen_queens.cnf.writer import write_cnf
from cnfgen_queens.model.formula import QueensFormula

# sha256 of `gen-queens ARGS --no-comments`, recorded before the writers were merged into one
SHUFFLED_GOLDEN = {
    "8 --shuffle 3": "5d5dd2ebc375d05cc1c057c18506a9c533219e363b9b60c8965537c4f218f15f",
    "9 -e sequential --shuffle 0 --place 1,1": "21f714d9ee9ef9893e682d893a124d4f830da528fe2a133630c3e5082b9301dc",
    "7 -e commander --shuffle 11 --column-alo --block BLOCKS": (
        "76f596d9112efa54c691fc4b7486d4b50934b59d412d6c191c32adde65e065aa"
    ),
}


@pytest.mark.parametrize("args", sorted(SHUFFLED_GOLDEN))
def test_shuffled_bytes_unchanged(args: str, tmp_path: Path, capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    blocks = tmp_path / "blocks.txt"
    blocks.write_text("-1 -2 0\n")
    argv = [str(blocks) if a == "BLOCKS" else a for a in args.split()]
    assert gen_main([*argv, "--no-comments"]) == 0
    assert hashlib.sha256(capfdbinary.readouterr().out).hexdigest() == SHUFFLED_GOLDEN[args]


def _written(
    formula: QueensFormula,
    comments: list[str] | None = None,
    extra: list[tuple[int, ...]] | None = None,
    show: bool = False,
    shuffle: int | None = None,
    fast: bool | None = None,
) -> bytes:
    buf = io.BytesIO()
    write_cnf(buf, formula, comments or [], extra or [], show=show, shuffle=shuffle, fast=fast)
    return buf.getvalue()


def _parsed(text: str) -> tuple[int, list[tuple[int, ...]]]:
    """(variables in the p line, clauses): our files hold one clause per line."""
    lines = [line for line in text.splitlines() if not line.startswith("c")]
    assert lines[0].startswith("p cnf ")
    clauses = [tuple(int(t) for t in line.split()) for line in lines[1:]]
    assert all(c[-1] == 0 for c in clauses) and int(lines[0].split()[3]) == len(clauses)
    return int(lines[0].split()[2]), [c[:-1] for c in clauses]


@pytest.mark.parametrize("fast", [False, True])
def test_extra_clauses_follow_the_formula_and_count_in_the_header(fast: bool) -> None:
    formula = QueensFormula(6, "sequential")
    v, c = formula.counts()
    num_vars, clauses = _parsed(_written(formula, ["x"], [(-1, -2), (3,)], fast=fast).decode())
    assert (num_vars, len(clauses)) == (v, c + 2)
    assert clauses[:-2] == list(formula.clauses()) and clauses[-2:] == [(-1, -2), (3,)]


def test_shuffle_permutes_extra_clauses_with_the_formula() -> None:
    formula = QueensFormula(5, "pairwise")
    v, c = formula.counts()
    text = _written(formula, ["x"], [(-1, -7)], show=True, shuffle=4).decode()
    _, clauses = _parsed(text)
    table = shuffle_map(v, 4)
    renamed = {tuple(sorted(table[x] if x > 0 else -table[-x] for x in cl)) for cl in [*formula.clauses(), (-1, -7)]}
    assert len(clauses) == c + 1
    assert {tuple(sorted(cl)) for cl in clauses} == renamed
    assert "c shuffle: seed=4 vars=" in text and f"c p show {' '.join(str(table[i]) for i in range(1, 26))} 0" in text


def test_shuffle_without_a_header_records_nothing() -> None:
    text = _written(QueensFormula(4, "pairwise"), shuffle=1).decode()
    assert text.startswith("p cnf ")


@pytest.mark.parametrize("seed", [None, 3])
def test_batch_instance_equals_gen_queens(seed: int | None, tmp_path: Path, capfdbinary) -> None:
    from cnfgen_queens.experiments.grid import Instance
    from cnfgen_queens.experiments.tasks import generate

    formula = QueensFormula(7, "commander", True)
    instance = Instance(7, "commander", True, None, seed, *formula.counts())
    path, _ = generate(instance, str(tmp_path))
    shuffle = [] if seed is None else ["--shuffle", str(seed)]
    assert gen_main(["7", "-e", "commander", "--column-alo", *shuffle]) == 0
    by_gen = [line for line in capfdbinary.readouterr().out.splitlines() if not line.startswith(b"c command: ")]
    assert Path(path).read_bytes().splitlines() == by_gen


def test_a_wrong_count_is_an_internal_error(monkeypatch) -> None:
    formula = QueensFormula(4, "pairwise")
    monkeypatch.setattr(QueensFormula, "counts", lambda self: (16, 1))
    with pytest.raises(RuntimeError, match="internal error: wrote"):
        _written(formula, fast=False)
