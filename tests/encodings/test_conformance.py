"""The conformance gate (``check-encoding``, ``cq.check_encoding``): every built-in passes with the claims its
record makes, and a deliberately wrong encoding is caught for each property, with its counterexample."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

import cnfgen_queens as cq
from cnfgen_queens.encodings import REGISTRY, Encoding, VarPool, get, measured_counts, names
from cnfgen_queens.encodings.conformance import Report, check
from cnfgen_queens.encodings.plugin_loading import load_plugin
from cnfgen_queens.encodings.plugins import PluginError

Clauses = list[tuple[int, ...]]


def pairs(lits: Sequence[int]) -> Clauses:
    return [(-a, -b) for i, a in enumerate(lits) for b in lits[i + 1 :]]


def record(
    build: Callable[[list[int], VarPool], Clauses],
    complete: bool = False,
    parsimonious: bool | None = None,
    size: Callable[[int], tuple[int, int]] | None = None,
) -> Encoding:
    """An unregistered record of ``build`` (a plugin's shape: not positional, not built in)."""
    return Encoding(
        name="wrong",
        build=build,
        size=size or (lambda n: measured_counts(build, n)),
        description="d",
        reference="r",
        propagation_complete=complete,
        parsimonious=parsimonious,
        positional=False,
        size_declared=size is not None,
        builtin=False,
    )


def verdict(report: Report, prop: str) -> tuple[bool, str]:
    finding = next(f for f in report.findings if f.prop == prop)
    return finding.ok, finding.text


@pytest.mark.parametrize("name", names())
def test_every_builtin_passes_and_its_claims_are_what_is_measured(name: str) -> None:
    enc = get(name)
    report = check(enc)  # n = 1..10
    assert report.ok, report.lines()
    assert report.propagation_complete == enc.propagation_complete
    assert report.parsimonious == enc.parsimonious
    assert [f.prop for f in report.findings] == ["semantics", "hygiene", "propagation", "parsimony", "size"]


def test_allowing_two_true_inputs_is_caught_with_the_assignment() -> None:
    report = check(record(lambda lits, pool: pairs(lits)[1:]), max_n=4)  # (-x1, -x2) left out
    ok, text = verdict(report, "semantics")
    assert not ok and "n=2" in text and "x1=1 x2=1 makes 2 true, yet extendable" in text
    assert not report.ok and verdict(report, "propagation") == (False, "not measured: the clauses are wrong")


def test_forbidding_a_single_true_input_is_caught() -> None:
    report = check(record(lambda lits, pool: [*pairs(lits), (-lits[0],)]), max_n=4)
    ok, text = verdict(report, "semantics")
    assert not ok and text.startswith(
        "n=1 (inputs 1..n [1]): x1=1 makes 1 true, yet no auxiliary assignment extends it"
    )


def test_ignoring_the_sign_of_a_negated_input_is_caught() -> None:
    report = check(record(lambda lits, pool: pairs([abs(x) for x in lits])), max_n=3)
    ok, text = verdict(report, "semantics")
    assert not ok and "negated inputs" in text


def test_dropping_a_repeated_literal_is_caught() -> None:
    """minicard issue 3: a repeated literal counts twice, so at most one of (x1, x2, x1) refuses x1."""
    report = check(record(lambda lits, pool: pairs(list(dict.fromkeys(lits)))), max_n=3)
    ok, text = verdict(report, "semantics")
    assert not ok and "a literal repeated [1, 1]" in text and "x1=1 makes 2 true, yet extendable" in text


def test_an_auxiliary_that_reuses_a_problem_variable_is_caught() -> None:
    """PySAT issues 140 and 207: the auxiliary numbered after the inputs' count, not taken from the pool."""

    def build(lits: list[int], pool: VarPool) -> Clauses:
        if len(lits) < 2:
            return []
        pool.new()
        h = len(lits) + 1  # as if the inputs were 1..n and nothing else were in use
        return [*pairs(lits), *((-x, h) for x in lits)]

    report = check(record(build), max_n=4)
    assert "(scattered ids [2, 5, 8, 11]): x2=0 x5=0 x8=0 x11=1 makes 1 true" in verdict(report, "semantics")[1]
    ok, text = verdict(report, "hygiene")
    assert not ok
    assert text.startswith("n=2 (scattered ids [2, 5]): variable 3 in clause (-2, 3) is neither an input nor taken")


def test_an_input_used_as_an_auxiliary_is_caught() -> None:
    report = check(record(lambda lits, pool: [*pairs(lits), *((-x, lits[-1]) for x in lits[:-1])]), max_n=3)
    ok, text = verdict(report, "semantics")
    assert not ok and text.startswith("n=2 (inputs 1..n [1, 2]): x1=1 x2=0 makes 1 true, yet no auxiliary")


def test_an_auxiliary_not_from_the_pool_is_caught() -> None:
    def build(lits: list[int], pool: VarPool) -> Clauses:
        h = pool.top + 1  # pool.new() not called: the next line would take the same number
        return [*pairs(lits), *((-x, h) for x in lits)]

    ok, text = verdict(check(record(build), max_n=3), "hygiene")
    assert not ok and "variable 2 in clause (-1, 2) is above the pool's top 1: not taken from pool.new()" in text


def test_an_auxiliary_kept_from_an_earlier_call_is_caught() -> None:
    """One head taken from the pool once and kept: the second line on the same pool shares it."""
    kept: list[int] = []

    def build(lits: list[int], pool: VarPool) -> Clauses:
        if not kept:
            kept.append(pool.new())
        return [*pairs(lits), *((-x, kept[0]) for x in lits)]

    ok, text = verdict(check(record(build), max_n=3), "hygiene")
    assert not ok and ("neither an input nor taken from the pool" in text or "not taken from pool.new()" in text)


def test_a_non_deterministic_encoding_is_caught() -> None:
    def build(lits: list[int], pool: VarPool) -> Clauses:
        out = pairs(lits)
        random.shuffle(out)
        return out

    random.seed(1)
    ok, text = verdict(check(record(build), max_n=5), "hygiene")
    assert not ok and "two calls on the same inputs differ (not deterministic) at clause" in text


def split_pairs(lits: list[int], pool: VarPool) -> Clauses:
    """Right, but unit propagation derives nothing: each (-a, -b) split on a fresh auxiliary."""
    out: Clauses = []
    for a, b in pairs(lits):
        t = pool.new()
        out += [(a, b, t), (a, b, -t)]
    return out


def test_a_false_claim_of_propagation_completeness_is_caught_with_a_witness() -> None:
    report = check(record(split_pairs, complete=True), max_n=4)
    ok, text = verdict(report, "propagation")
    assert not ok and text == "claims yes, measured no (n = 2..4): n=2: from x2=1 unit propagation leaves x1 not false"
    assert verdict(report, "semantics")[0] and verdict(report, "hygiene")[0]
    assert report.propagation_complete is False


def test_a_false_claim_of_parsimony_is_caught_with_the_extension_count() -> None:
    report = check(record(split_pairs, parsimonious=True), max_n=3)
    ok, text = verdict(report, "parsimony")
    assert not ok and text.endswith(
        "(counts need the projection onto the cells): n=3, every input false: 8 auxiliary extensions"
    )


def test_a_claim_of_no_stands_where_none_is_found() -> None:
    """product is pairwise up to 6 inputs (parsimonious there), not beyond: its "no" is not refuted at 6."""
    ok, text = verdict(check(get("product"), max_n=6), "parsimony")
    assert ok and text.endswith("the claim of no may hold beyond this n")


def test_a_wrong_declared_size_is_caught_with_the_line_length() -> None:
    report = check(record(lambda lits, pool: pairs(lits), size=lambda n: (n * (n - 1) // 2 + (n == 5), 0)))
    ok, text = verdict(report, "size")
    assert not ok and text == "n=5: declared 11 clauses, 0 auxiliaries; built 10 clauses, 0 auxiliaries"


def test_the_size_line_names_the_growth_class() -> None:
    assert verdict(check(get("pairwise"), max_n=3), "size")[1].endswith(
        "grow quadratic (n = 128: 8128 clauses, 0 auxiliaries)"
    )
    assert "clauses grow linear" in verdict(check(get("ladder"), max_n=3), "size")[1]


def test_register_encoding_refuses_a_wrong_encoding_naming_the_counterexample() -> None:
    with pytest.raises(
        PluginError,
        match=r"test_conformance.py: encoding 'wrong-two' refused by the conformance gate: n=2 .* yet extendable",
    ):
        cq.register_encoding(name="wrong-two", build=lambda lits, pool: pairs(lits)[1:], description="d", reference="r")
    assert "wrong-two" not in REGISTRY


def test_register_encoding_refuses_a_builtin_name_and_a_bad_name() -> None:
    with pytest.raises(PluginError, match="'commander' clashes with a built-in encoding of that name"):
        cq.register_encoding(name="commander", build=lambda lits, pool: pairs(lits), description="d", reference="r")
    with pytest.raises(PluginError, match="one printable word"):
        cq.register_encoding(name="two words", build=lambda lits, pool: pairs(lits), description="d", reference="r")


def test_a_name_taken_by_another_registration_is_refused(tmp_path: Path) -> None:
    cq.register_encoding(name="taken", build=lambda lits, pool: pairs(lits), description="d", reference="r")
    other = tmp_path / "other.py"
    other.write_text(
        "from cnfgen_queens import register_encoding\n"
        "register_encoding(name='taken', build=lambda lits, pool: [], description='d', reference='r')\n"
    )
    with pytest.raises(
        PluginError,
        match=r"^plugin .*other.py: encoding 'taken' is already registered \(by plugin .*test_conformance.py\)$",
    ):
        load_plugin(str(other))


def test_register_encoding_measures_unstated_claims_and_the_formula_is_counted() -> None:
    enc = cq.register_encoding(name="split-pairs", build=split_pairs, description="d", reference="r")
    assert (enc.propagation_complete, enc.parsimonious) == (False, False)
    formula = cq.queens(6, "split-pairs")
    assert cq.count(formula).total == 4  # OEIS A000170, projected onto the cells
    assert cq.check_encoding("split-pairs", max_n=5).ok
    row = next(r for r in cq.list_encodings(4) if r.name == "split-pairs")
    assert (row.clauses, row.aux, row.propagation_complete, row.parsimonious) == (12, 6, False, False)


def test_a_plugin_that_raises_while_encoding_is_one_line() -> None:
    def build(lits: list[int], pool: VarPool) -> Clauses:
        if len(lits) == 12:
            raise KeyError("seven")
        return pairs(lits)

    cq.register_encoding(name="not-seven", build=build, description="d", reference="r")
    with pytest.raises(
        PluginError,
        match=r"test_conformance.py, encoding 'not-seven' failed while encoding 12 inputs: KeyError: 'seven'$",
    ):
        cq.queens(12, "not-seven").to_pysat()
