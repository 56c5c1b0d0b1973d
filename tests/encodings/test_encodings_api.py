"""The Encoding interface (issue 13): one way to build and count, ``takes_group_size``, the
``positional`` rule the fast writer relies on; the fast writer's byte order and malloc scope."""

from __future__ import annotations

import io
import random
from dataclasses import replace

import numpy as np
import pytest

from cnfgen_queens import encodings
from cnfgen_queens.cli import gen_main
from cnfgen_queens.cnf import writer
from cnfgen_queens.cnf.writer import FAST_MIN_CLAUSES, format_literals, write_cnf
from cnfgen_queens.encodings import REGISTRY, VarPool
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.variants import Variant


@pytest.mark.parametrize("name", encodings.names())
def test_positional_rule_holds(name: str) -> None:
    """A line of any n distinct variables, from a pool at any top, is the template relabelled."""
    enc = encodings.get(name)
    assert enc.positional
    rng = random.Random(name)
    for n in (0, 1, 2, 3, 5, 8, 13, 21):
        template, aux = enc.template(n)
        assert enc.count(n) == (len(template), aux)
        lits = rng.sample(range(1, 10 * n + 10), n)
        top = max(lits, default=0) + rng.randrange(50)
        pool = VarPool(top)
        built = enc(lits, pool)
        assert pool.top == top + aux
        relabel = {i + 1: v for i, v in enumerate(lits)} | {n + j: top + j for j in range(1, aux + 1)}
        expected = [tuple(relabel[x] if x > 0 else -relabel[-x] for x in c) for c in template]
        assert built == expected, (name, n)


def test_takes_group_size_is_one_property() -> None:
    takers = [name for name in encodings.names() if encodings.get(name).takes_group_size]
    assert takers == ["commander", "bimander"]
    assert encodings.get("commander").count(10, group_size=4) != encodings.get("commander").count(10)
    # parameters of other encodings are passed over, never an error
    assert encodings.get("pairwise").count(10, group_size=4) == encodings.get("pairwise").count(10)
    with pytest.raises(ValueError, match="--group-size applies to commander, bimander, not to pairwise"):
        QueensFormula(8, "pairwise", group_size=4)


def test_not_positional_is_written_clause_by_clause(monkeypatch: pytest.MonkeyPatch) -> None:
    """An encoding that does not state the rule never reaches the template path, even when asked."""
    by_value = replace(REGISTRY["pairwise"], name="pairwise-by-value", positional=False)
    monkeypatch.setitem(REGISTRY, by_value.name, by_value)
    formula = QueensFormula(7, "pairwise-by-value")
    assert writer.body_size(formula)[1] is False  # an estimate, not an exact size from templates

    def no_templates(*_: object) -> None:
        raise AssertionError("template path used for a non-positional encoding")

    monkeypatch.setattr(writer, "_template", no_templates)
    fast, slow = io.BytesIO(), io.BytesIO()
    write_cnf(fast, formula, ["c"], fast=True)
    write_cnf(slow, QueensFormula(7, "pairwise"), ["c"], fast=False)
    assert fast.getvalue() == slow.getvalue()


OTHER_ORDER = ">" if writer.BYTE_ORDER == "<" else "<"


def test_formatter_gives_the_same_text_in_the_other_byte_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a machine of the other byte order runs: words laid out the other way, same bytes out."""
    values = [1, -1, 9, -10, 99, 100, -9999, 10000, 123456789, -(2**31 - 1), 0, 7, 0]
    want = "".join(f"{v} " if v else "0\n" for v in values).encode()
    native = format_literals(np.array(values))
    monkeypatch.setattr(writer, "BYTE_ORDER", OTHER_ORDER)
    other = format_literals(np.array(values))
    assert native == other == want
    assert format_literals(np.array([], dtype=np.int64)) == b""


@pytest.mark.parametrize(("n", "encoding"), [(9, "sequential"), (12, "commander"), (10, "pysat:totalizer")])
def test_fast_path_in_the_other_byte_order_equals_reference(
    n: int, encoding: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    formula = QueensFormula(n, encoding, column_alo=True)
    slow = io.BytesIO()
    write_cnf(slow, formula, ["c"], fast=False)
    monkeypatch.setattr(writer, "BYTE_ORDER", OTHER_ORDER)
    fast = io.BytesIO()
    write_cnf(fast, formula, ["c"], fast=True)
    assert fast.getvalue() == slow.getvalue()


def test_malloc_tuning_only_for_the_gen_command(
    monkeypatch: pytest.MonkeyPatch, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    """A library caller's process keeps its malloc settings; the gen-queens process tunes its own."""
    calls: list[str] = []
    monkeypatch.setattr(writer, "reuse_freed_memory", lambda: calls.append("mallopt"))
    n = 60  # pairwise N = 60: over FAST_MIN_CLAUSES, so the default is the fast path
    assert QueensFormula(n).counts()[1] >= FAST_MIN_CLAUSES
    write_cnf(io.BytesIO(), QueensFormula(n), ["c"])
    assert calls == []
    assert gen_main([str(n), "--no-comments"]) == 0
    capfdbinary.readouterr()
    assert calls == ["mallopt"]


def test_reuse_freed_memory_runs_in_a_child() -> None:
    """The tuning itself (glibc's mallopt through ctypes) works where it is used: a fresh process."""
    import subprocess
    import sys

    code = "from cnfgen_queens.cnf.writer import reuse_freed_memory as r; r(); r(); print('ok')"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "ok\n", "")


@pytest.mark.parametrize("name", [n for n in encodings.names() if encodings.get(n).array or encodings.get(n).width])
def test_array_templates_and_widths_hold(name: str) -> None:
    """What an encoding states for large files: its numpy template is its template, and no clause is wider
    than its ``width`` (the size bound of gen-queens' pre-write check relies on it)."""
    enc = encodings.get(name)
    for n in range(31):
        template, aux = enc.template(n)
        array = enc.array_template(n)
        if enc.array is not None:
            assert array is not None
            assert ([tuple(row) for row in array[0].tolist()], array[1]) == (template, aux), n
        if enc.width is not None:
            assert all(len(c) <= enc.width for c in template), n


@pytest.mark.parametrize(
    "formula",
    [
        QueensFormula(9),
        QueensFormula(12, "sequential", column_alo=True),
        QueensFormula(7, break_symmetry=True),
        QueensFormula(10, "sequential", variant=Variant(placed=((0, 1),), holes=((5, 5), (6, 7)))),
        QueensFormula(8, variant=Variant(torus=True)),
        QueensFormula(1),
        QueensFormula(2, "sequential"),
    ],
    ids=repr,
)
def test_size_bound_is_above_the_bytes(formula: QueensFormula) -> None:
    out = io.BytesIO()
    write_cnf(out, formula)
    body = out.getvalue().split(b"\n", 1)[1]
    bound = writer.body_bound(formula)
    assert bound is not None and len(body) <= bound <= 2 * writer.body_size(formula)[0] + 100


def test_the_bound_spares_the_exact_size(monkeypatch: pytest.MonkeyPatch, capfdbinary) -> None:
    """gen-queens' refusal of a file over 50 GB needs the exact size only when the bound is over the limit: a
    large pairwise formula builds no template before writing (the exact size cost 0.37 s at N = 200)."""
    calls: list[int] = []
    real = writer.body_size

    def exact(formula: QueensFormula) -> tuple[int, bool]:
        calls.append(formula.n)
        return real(formula)

    monkeypatch.setattr(writer, "SIZE_FROM", 0)
    monkeypatch.setattr(writer, "body_size", exact)
    assert gen_main(["30", "--no-comments"]) == 0
    assert len(capfdbinary.readouterr().out) > 0 and calls == []
    monkeypatch.setattr(writer, "LARGE_BYTES", 1000)  # the bound is over it: the exact size is named
    assert gen_main(["30", "--no-comments"]) == 2
    assert calls == [30] and " bytes (" in capfdbinary.readouterr().err.decode()
