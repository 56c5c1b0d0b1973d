"""The readers of a CNF body behind ``solve``'s checks (pure Python for a small body, chunks for a large one: the
compiled scanner or numpy, each test run with both) accept and refuse exactly the same bodies, and find the
same violated clause."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cnfgen_queens.cnf.dimacs import DimacsError
from cnfgen_queens.cnf.scan import CnfFile, _model_values_numpy, check_stream, model_values

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

PURE, NUMPY = 1 << 20, 0  # the ``small`` bound that picks each path
SETTINGS = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)

# what test_dimacs, test_fuzz and test_hostile_inputs feed the readers, and the numpy reader's own traps
HOSTILE: list[bytes] = [
    b"",
    b"\n",
    b"1 -2 0\n2 3 -4 0\n-1 4 0\n",
    b"1 -2 0 2 3 -4 0 -1 4 0",
    b"1 -2 0\n2 3",
    b"0\n0\n",
    b"c mid\n1 0\nc another 5 0\n-2 0\n",
    b"1 0\n%\n0\n",
    b"1 0\n%\n99 junk\n",
    b"1 0\np cnf 4 3\n",
    b"1-2 0\n",
    b"- 1 0\n",
    b"-\n",
    b"1 -\n",
    b"--1 0\n",
    b"+1 0\n",
    b"1_0 0\n",
    b"0x1 0\n",
    b"1.5 0\n",
    b"1e1 0\n",
    b"-0 0\n",
    b"00 01 0\n",
    b"1\t-2\v3\f0\r\n4 0\r\n",
    b"1 0\r2 0\r",
    b"5 0\n",
    b"-5 0\n",
    b"99999999999999999999999 0\n",
    b"-9223372036854775808 0\n",
    b"1 \xc3\xa9 0\n",
    b"1 \x00 0\n",
    b"1 c 0\n",
    b"   \n\t\n1 0",
    b"1" * 5000 + b" 0\n",
    b"4 " * 3000 + b"0\n",
    b"1 2 3 4",
]


def outcome(path: Path, value: bytearray | None, small: int) -> tuple[object, ...]:
    """What the reader made of ``path``: the check (the largest variable only when no clause is violated:
    then it is the whole body's) and its warnings, or the error's type and message."""
    warnings: list[str] = []
    try:
        check = check_stream(CnfFile(path, "f.cnf"), value, warnings.append, small=small)
    except (DimacsError, ValueError) as e:
        return type(e).__name__, str(e)
    top = check.max_var if check.violated is None else None
    return check.violated, check.clauses, top, tuple(warnings)


def both(tmp_path: Path, body: bytes, value: bytearray | None, num_vars: int = 4) -> tuple[object, ...]:
    path = tmp_path / "f.cnf"
    path.write_bytes(b"c hostile\np cnf %d 3\n" % num_vars + body)
    pure, chunks = outcome(path, value, PURE), outcome(path, value, NUMPY)
    assert pure == chunks, body[:200]
    return pure


MODELS = [None, bytearray(6), bytearray([0, 1, 1, 1, 1, 0]), bytearray([0, 1, 0, 1, 0, 0]), bytearray(2)]


@pytest.mark.parametrize("body", HOSTILE)
def test_both_paths_agree_on_hostile_bodies(tmp_path: Path, body: bytes, compiled: str) -> None:
    for value in MODELS:
        both(tmp_path, body, value)


def test_the_paths_are_really_different_and_refuse_what_they_must(tmp_path: Path, compiled: str) -> None:
    assert "variable 5 exceeds" in str(both(tmp_path, b"1 -2 0\n5 0\n", None)[1])  # refused by both
    assert both(tmp_path, b"1 -2 0\n2 3 -4 0\n-1 4 0\n", bytearray([0, 1, 0, 0, 0, 0])) == ((2, (-1, 4)), 3, None, ())
    assert both(tmp_path, b"1 0\n2", bytearray([0, 1, 1, 0])) == (
        None,
        2,
        2,
        ("f.cnf: last clause has no terminating 0; taken as ended",),
    )


@SETTINGS
@given(
    body=st.lists(
        st.one_of(
            st.sampled_from(
                [
                    b"0",
                    b"1",
                    b"-1",
                    b"2",
                    b"-3",
                    b"4",
                    b"-4",
                    b"5",
                    b"-",
                    b"+2",
                    b"c",
                    b"c x",
                    b"%",
                    b"p cnf 1 1",
                    b"1-2",
                    b"x",
                    b"00",
                    b"-0",
                ]
            ),
            st.integers(-6, 6).map(lambda i: str(i).encode()),
        ),
        max_size=40,
    ).flatmap(
        lambda toks: st.lists(
            st.sampled_from([b" ", b"\n", b"\t", b"\r\n", b"  ", b"\n\n"]), min_size=len(toks), max_size=len(toks)
        ).map(lambda seps: b"".join(t + s for t, s in zip(toks, seps, strict=True)))
    ),
    value=st.one_of(st.none(), st.lists(st.integers(0, 1), min_size=1, max_size=8).map(lambda v: bytearray([*v, 0]))),
)
@example(body=b"0 0 0 0 0 0 0 1 ", value=bytearray(2))  # violated before a last clause without its 0
def test_both_paths_agree_on_generated_bodies(
    tmp_path: Path, body: bytes, value: bytearray | None, compiled: str
) -> None:
    both(tmp_path, body, value, num_vars=5)


@SETTINGS
@given(model=st.lists(st.integers(-12, 12), max_size=30), num_vars=st.integers(0, 12))
def test_model_values_pure_and_numpy_agree(model: list[int], num_vars: int) -> None:
    assert model_values(model, num_vars) == _model_values_numpy(model, num_vars)


def test_a_small_check_does_not_import_numpy(tmp_path: Path) -> None:
    """A solve on a small CNF (each round of a shell loop) pays no numpy import (about 0.2 s)."""
    path = tmp_path / "q.cnf"
    path.write_bytes(b"p cnf 3 2\n1 -2 0\n2 3 0\n")
    code = (
        "import sys; from pathlib import Path; from cnfgen_queens.cnf.scan import CnfFile, check_stream, model_values\n"
        f"f = CnfFile(Path({str(path)!r}), 'q')\n"
        "assert check_stream(f, None).clauses == 2\n"
        "v, _ = model_values([1, -2, 3], 3)\n"
        "assert check_stream(f, v).violated is None\n"
        "assert 'numpy' not in sys.modules, 'numpy imported'\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-500:]
