"""``pysat:*`` counts from the committed table (issue 11's dry run), checked against a build."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cnfgen_queens import encodings
from cnfgen_queens.cli import main
from cnfgen_queens.encodings import measured_counts, pysat_card
from cnfgen_queens.encodings.pysat_card import PYSAT_ENCODINGS, TABLE_MAX_N, installed_version, pysat_atmost_one

ROOT = Path(__file__).resolve().parent.parent
NAMES = [pysat_card.PREFIX + kind for kind in PYSAT_ENCODINGS]
SLOW_KINDS = ("totalizer", "sortnetwrk")  # quadratic / power-of-two sizes: a few seconds to build up to 200


def _clear() -> None:
    pysat_card.tabled_counts.cache_clear()
    for name in NAMES:
        encodings.get(name).size.cache_clear()  # a functools.cache


@pytest.fixture
def fresh() -> Iterator[None]:
    """Counts forgotten before and after: the test sees its own lookups, later tests the real ones."""
    _clear()
    yield
    _clear()


def _no_build(kind: str, lits: object, pool: object) -> list[tuple[int, ...]]:
    raise AssertionError(f"pysat:{kind} was built to count it")


@pytest.mark.parametrize(
    "kind", [pytest.param(k, marks=pytest.mark.slow) if k in SLOW_KINDS else k for k in PYSAT_ENCODINGS]
)
def test_counts_equal_a_build_for_every_line_up_to_the_table_size(kind: str) -> None:
    """Whatever the counts come from (the table for a tabled PySAT, a build otherwise), they are a build's."""
    enc = encodings.get(pysat_card.PREFIX + kind)
    for n in range(TABLE_MAX_N + 1):
        built = measured_counts(lambda lits, pool: pysat_atmost_one(kind, lits, pool), n)
        assert enc.count(n) == built, (kind, n)


def test_installed_pysat_is_in_the_table() -> None:
    if not pysat_card.tabled_counts():
        pytest.skip(f"PySAT {installed_version()} is not tabled: counts are measured (scripts/pysat_counts_table.py)")
    assert sorted(pysat_card.tabled_counts()) == sorted(PYSAT_ENCODINGS)
    assert all(len(v) == TABLE_MAX_N + 1 for v in pysat_card.tabled_counts().values())


def test_tabled_version_counts_without_building(monkeypatch: pytest.MonkeyPatch, fresh: None) -> None:
    if not pysat_card.tabled_counts():
        pytest.skip(f"PySAT {installed_version()} is not tabled")
    monkeypatch.setattr(pysat_card, "pysat_atmost_one", _no_build)
    for name in NAMES:
        assert encodings.get(name).count(TABLE_MAX_N)[0] > 0
    with pytest.raises(AssertionError, match="was built"):  # longer than the table: measured
        encodings.get(NAMES[0]).count(TABLE_MAX_N + 1)


def test_other_version_is_measured(monkeypatch: pytest.MonkeyPatch, fresh: None) -> None:
    monkeypatch.setattr(pysat_card, "installed_version", lambda: "0.0.0-not-tabled")
    assert pysat_card.tabled_counts() == {}
    built = measured_counts(lambda lits, pool: pysat_atmost_one("mtotalizer", lits, pool), 36)
    assert encodings.get("pysat:mtotalizer").count(36) == built == (424, 138)  # a build, not a table row


def test_table_rows_must_pair_up() -> None:
    with pytest.raises(ValueError, match="3 clause counts, 2 aux"):
        pysat_card.read_table("pysat,kind,clauses,aux\n9.9,ladder,0 0 1,0 0\n")


def test_encodings_dry_run_builds_no_pysat_encoding(
    monkeypatch: pytest.MonkeyPatch, fresh: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 11: `batch configs/encodings.yaml --dry-run` sized every pysat:* line by building it (1.45 s)."""
    if not pysat_card.tabled_counts():
        pytest.skip(f"PySAT {installed_version()} is not tabled")
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(pysat_card, "pysat_atmost_one", _no_build)
    assert main(["batch", "configs/encodings.yaml", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "= 276 runs" in out and "n=200 pysat:totalizer (14431274 clauses > max_clauses 4000000)" in out
