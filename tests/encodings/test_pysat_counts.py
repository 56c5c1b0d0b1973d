"""``pysat:*`` counts: measured with the installed PySAT, whatever its release, and cached on disk (issue 11's
dry run builds nothing once the cache is warm; issue 24: no test depends on which release is installed)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cnfgen_queens import encodings
from cnfgen_queens.cli import main
from cnfgen_queens.encodings import measured_counts, pysat_card
from cnfgen_queens.encodings.pysat_card import PYSAT_ENCODINGS, pysat_atmost_one

ROOT = Path(__file__).resolve().parents[2]
NAMES = [pysat_card.PREFIX + kind for kind in PYSAT_ENCODINGS]
TABLE_MAX_N = 200  # the line lengths checked against a build (the longest line a batch may size: MAX_MEASURED_N)
SLOW_KINDS = ("totalizer", "sortnetwrk")  # quadratic / power-of-two sizes: a few seconds to build up to 200


def _clear() -> None:
    pysat_card.stored_counts.cache_clear()
    for name in NAMES:
        encodings.get(name).size.cache_clear()  # a functools.cache


@pytest.fixture
def fresh() -> Iterator[None]:
    """Counts forgotten in memory before and after (as in a new process): the test sees its own lookups."""
    _clear()
    yield
    _clear()


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh: None) -> Path:
    """An empty cache directory of the test's own."""
    monkeypatch.setenv(pysat_card.CACHE_ENV, str(tmp_path / "cache"))
    pysat_card.flush()  # what earlier tests measured goes to the session's cache, not this one
    return tmp_path / "cache"


def _warm(kinds: object = PYSAT_ENCODINGS, up_to: int = TABLE_MAX_N) -> None:
    """Every count of ``kinds`` up to ``up_to`` measured and written to the cache file, then forgotten in memory."""
    for kind in kinds:  # type: ignore[attr-defined]
        enc = encodings.get(pysat_card.PREFIX + kind)
        for n in range(up_to + 1):
            enc.count(n)
    pysat_card.flush()
    _clear()


def _no_build(kind: str, lits: object, pool: object) -> list[tuple[int, ...]]:
    raise AssertionError(f"pysat:{kind} was built to count it")


@pytest.mark.parametrize(
    "kind", [pytest.param(k, marks=pytest.mark.slow) if k in SLOW_KINDS else k for k in PYSAT_ENCODINGS]
)
def test_counts_equal_a_build_for_every_line_up_to_the_table_size(kind: str, fresh: None) -> None:
    """Whatever the counts come from (memory, the cache file, a build), they are a build's."""
    enc = encodings.get(pysat_card.PREFIX + kind)
    for n in range(TABLE_MAX_N + 1):
        built = measured_counts(lambda lits, pool: pysat_atmost_one(kind, lits, pool), n)
        assert enc.count(n) == built, (kind, n)
    pysat_card.flush()
    _clear()
    for n in range(TABLE_MAX_N + 1):  # now from the file
        assert enc.count(n) == measured_counts(lambda lits, pool: pysat_atmost_one(kind, lits, pool), n)


def test_installed_pysat_is_measured_and_cached(own_cache: Path) -> None:
    """Any installed release: its counts land in a file named after it (no table of releases to fall behind)."""
    _warm(["ladder", "bitwise"], 40)
    stored = pysat_card.stored_counts()
    assert pysat_card.cache_file().name == f"pysat-counts-{pysat_card.installed_version()}.json"
    assert sorted(stored) == ["bitwise", "ladder"] and all(len(v) == 41 for v in stored.values())


def test_cached_counts_need_no_build(monkeypatch: pytest.MonkeyPatch, own_cache: Path) -> None:
    _warm(up_to=60)
    monkeypatch.setattr(pysat_card, "pysat_atmost_one", _no_build)
    for name in NAMES:
        assert encodings.get(name).count(60)[0] > 0
    with pytest.raises(AssertionError, match="was built"):  # not in the cache: measured
        encodings.get(NAMES[0]).count(61)


def test_other_version_is_measured(monkeypatch: pytest.MonkeyPatch, fresh: None) -> None:
    monkeypatch.setattr(pysat_card, "installed_version", lambda: "0.0.0-not-cached")
    assert pysat_card.stored_counts() == {}
    built = measured_counts(lambda lits, pool: pysat_atmost_one("mtotalizer", lits, pool), 36)
    assert encodings.get("pysat:mtotalizer").count(36) == built == (424, 138)  # a build, not a cached row


def test_a_broken_or_foreign_cache_file_is_measured_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh: None
) -> None:
    monkeypatch.setenv(pysat_card.CACHE_ENV, str(tmp_path))
    for text in ("{not json", '{"ladder": {"3": "x"}}', "[1, 2]", '{"ladder": {"3": [1, 2, 3]}}'):
        pysat_card.cache_file().write_text(text)
        _clear()
        assert encodings.get("pysat:ladder").count(3) == measured_counts(
            lambda lits, pool: pysat_atmost_one("ladder", lits, pool), 3
        )
    monkeypatch.setenv(pysat_card.CACHE_ENV, str(tmp_path / "file-not-dir"))
    (tmp_path / "file-not-dir").write_text("")
    pysat_card.flush()  # an unwritable cache is no error


def test_encodings_dry_run_builds_no_pysat_encoding(
    monkeypatch: pytest.MonkeyPatch, fresh: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 11: `batch configs/encodings.yaml --dry-run` sized every pysat:* line by building it (1.45 s)."""
    _warm()  # what the first dry run (or any earlier run) leaves in the cache
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(pysat_card, "pysat_atmost_one", _no_build)
    assert main(["batch", "configs/encodings.yaml", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert ": 276 runs" in out and "n=200 pysat:totalizer (14431274 clauses > max_clauses 4000000)" in out
