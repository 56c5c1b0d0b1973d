"""The compiled part (cnfgen_queens/cnf/_native.c) against the pure-Python/numpy path it replaces: the same bytes
from the formatters, the same literals, counts and refusals from the scanner (its 64-byte block path included),
and the chunked reader the same at any chunk size with either."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import numpy as np
import pytest

from cnfgen_queens.cnf import native
from cnfgen_queens.cnf.dimacs import DimacsError, Header
from cnfgen_queens.cnf.scan import body_counts, literal_chunks, small_literals
from cnfgen_queens.cnf.writer import format_literals

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SETTINGS = settings(max_examples=300, deadline=None, derandomize=True, database=None)
BLANKS = b" \t\n\r\x0b\x0c"


@pytest.fixture(scope="module")
def compiled_part() -> object:
    from helpers import need_tool

    if native.NATIVE is None:
        need_tool("the compiled part is not built (pip install -e . with a C compiler)")
    return native.NATIVE


def reference(body: bytes, num_vars: int) -> tuple[list[int], int] | None:
    """What the scanner must give: the literals Python's int() reads and the line ends, or None when the body
    holds anything but blanks and literals of at most 18 digits within +-num_vars."""
    if any(b not in BLANKS + b"-0123456789" for b in body):
        return None
    lits = []
    for tok in body.split():
        digits = tok[1:] if tok[:1] == b"-" else tok
        if not digits.isdigit() or len(digits) > 18 or abs(int(tok)) > num_vars:
            return None
        lits.append(int(tok))
    return lits, body.count(b"\n")


def scanned(lib: object, body: bytes, num_vars: int, top: int = 0) -> tuple[object, object]:
    """(scan_literals, scan_count) of ``body`` placed inside a larger buffer."""
    buf = bytearray(b"9x" + body + b"-x")
    out = np.empty(len(body) // 2 + 1, np.int64)
    got = lib.scan_literals(buf, 2, 2 + len(body), num_vars, out)  # type: ignore[attr-defined]
    literals = None if got is None else (out[: got[0]].tolist(), got[1])
    return literals, lib.scan_count(buf, 2, 2 + len(body), num_vars, top)  # type: ignore[attr-defined]


def check(lib: object, body: bytes, num_vars: int, top: int = 0) -> None:
    want = reference(body, num_vars)
    literals, counts = scanned(lib, body, num_vars, top)
    assert literals == want, body[:200]
    if want is None:
        assert counts is None, body[:200]
    else:
        lits = want[0]
        big = max([top, *map(abs, lits)])
        assert counts == (len(lits), lits.count(0), big, want[1], bool(lits) and lits[-1] == 0), body[:200]


ODD = [
    b"0",
    b"-0",
    b"00",
    b"007",
    b"-",
    b"1-2",
    b"--1",
    b"+1",
    b"c",
    b"x",
    b"1_0",
    b"9" * 19,
    b"0" * 20 + b"1",
    b"99999",
    b"-100000",
    b"\xc3\xa9",
    b"\x00",
]
TOKENS = st.one_of(st.integers(-99_999, 99_999).map(lambda i: str(i).encode()), st.sampled_from(ODD))
BODIES = st.lists(
    st.tuples(TOKENS, st.sampled_from([b" ", b"\n", b" 0\n", b"\t", b"\r\n", b"  ", b"\x0b"])), max_size=60
).map(lambda pairs: b"".join(t + s for t, s in pairs))


@SETTINGS
@given(body=BODIES, num_vars=st.sampled_from([0, 1, 9, 10, 12345, 99_999, 100_000, 2**31 - 1]), cut=st.booleans())
def test_scanner_reads_what_python_reads(compiled_part: object, body: bytes, num_vars: int, cut: bool) -> None:
    check(compiled_part, body[:-1] if cut else body, num_vars)


def clean_body(rng: np.random.Generator, num_vars: int, clauses: int) -> bytes:
    """Clauses of 1-3 literals within the header, the largest variable first (so the block path runs)."""
    lines = [f"{num_vars} -{num_vars} 0"]
    for _ in range(clauses):
        width = int(rng.integers(1, 4))
        lits = rng.integers(1, num_vars + 1, width) * rng.choice([-1, 1], width)
        lines.append(" ".join(map(str, lits.tolist())) + " 0")
    return ("\n".join(lines) + "\n").encode()


FLAWS = [b"90001", b"-90001", b"100000", b"1-2", b"007", b"00", b"-0", b"c", b"- 1", b"+5", b"\x00", b"9" * 19]


@pytest.mark.parametrize("flaw", FLAWS)
def test_block_path_finds_a_flaw_anywhere(compiled_part: object, flaw: bytes) -> None:
    """A flaw (or a form only the Python parser reads, or reads to 0) at any place in a long clean body, on
    either side of a 64-byte block's edge: the same verdict as Python's, with the block path and without."""
    rng = np.random.default_rng(len(flaw))
    body = clean_body(rng, 90_000, 300)
    blanks = [i for i in range(len(body)) if body[i : i + 1] in (b" ", b"\n")]
    for at in [*blanks[5:200:7], *blanks[-9:]]:
        flawed = body[: at + 1] + flaw + b" " + body[at + 1 :]
        for blocks in (True, False):
            compiled_part.set_blocks(blocks)  # type: ignore[attr-defined]
            try:
                check(compiled_part, flawed, 90_000)
                check(compiled_part, flawed, 90_000, top=90_000)
            finally:
                compiled_part.set_blocks(True)  # type: ignore[attr-defined]


def test_block_path_counts_long_bodies(compiled_part: object) -> None:
    rng = np.random.default_rng(7)
    for num_vars in (9, 10, 99_999, 123_456, 2**31 - 1):
        body = clean_body(rng, num_vars, 3000)
        for trim in (0, 1, 2, 63, 64, 65):
            check(compiled_part, body[: len(body) - trim], num_vars)
            check(compiled_part, body[trim:], num_vars, top=num_vars)


@SETTINGS
@given(lits=st.lists(st.integers(-(2**31), 2**31), max_size=80), wide=st.booleans())
def test_formatter_writes_numpy_s_bytes(compiled_part: object, lits: list[int], wide: bool) -> None:
    arr = np.array(lits, dtype=np.int64 if wide or any(abs(v) >= 2**31 for v in lits) else np.int32)
    assert compiled_part.format_literals(arr) == format_literals(arr)  # type: ignore[attr-defined]
    for small in (np.int8, np.int16):
        fit = np.clip(arr, -100, 100).astype(small)
        assert compiled_part.format_literals(fit) == format_literals(fit)  # type: ignore[attr-defined]


def test_format_take_is_take_then_format(compiled_part: object) -> None:
    rng = np.random.default_rng(3)
    mapping = np.concatenate(([0], rng.integers(1, 2**31 - 1, 50))).astype(np.int32)
    index = rng.integers(0, 51, 400).astype(np.int32)
    sign = np.where(index == 0, 0, rng.choice([-1, 1], 400)).astype(np.int8)
    want = format_literals(np.take(mapping, index) * sign)
    assert compiled_part.format_take(index, sign, mapping) == want  # type: ignore[attr-defined]
    assert compiled_part.format_take(index.astype(np.int64), sign, mapping.astype(np.int64)) == want  # type: ignore[attr-defined]
    with pytest.raises(IndexError):
        compiled_part.format_take(np.array([51], np.int32), np.array([1], np.int8), mapping)  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        compiled_part.format_literals(np.array([1.0]))  # type: ignore[attr-defined]


BODY_CASES = [
    b"1 -2 0\n2 3 -4 0\n-1 4 0\n",
    b"c x\n1 0\nc y 0\n-2 0\n",
    b"1 0\n%\n0\n",
    b"1 0\n2",
    b"1 2 3 4 ",
    b"1 -2 0 2 3 -4 0 -1 4 0",
    b"   \n\t\n1 0",
    b"4 " * 40 + b"0\n",
    b"1 0\n5 0\n",
    b"1 0\np cnf 1 1\n",
    b"1 \xc3\xa9 0\n",
    b"00 -0 01 0\n",
    b"1-2 0\n",
]


@pytest.mark.parametrize("body", BODY_CASES)
def test_chunked_reader_agrees_with_the_line_parser_at_any_chunk(body: bytes, compiled: str) -> None:
    """``literal_chunks`` and ``body_counts`` cut the body at every chunk size from 1 byte: the literals,
    counts, warnings and errors of the whole body read line by line."""
    header = Header(4, 0)

    def whole() -> object:
        warned: list[str] = []
        try:
            lits = small_literals(body, header, "f", warned.append)
        except DimacsError as e:
            return str(e)
        return lits, warned

    want = whole()
    for chunk in (1, 2, 3, 5, 8, 13, 64, 1 << 20):
        warned: list[str] = []
        try:
            got: object = (
                [v for a in literal_chunks(io.BytesIO(body), header, "f", warned.append, chunk) for v in a.tolist()],
                warned,
            )
        except DimacsError as e:
            got = str(e)
        assert got == want, chunk
        counted: list[str] = []
        try:
            clauses, top = body_counts(io.BytesIO(body), header, "f", counted.append, chunk=chunk)
        except DimacsError as e:
            assert e.args[0] == want, chunk
            continue
        assert isinstance(want, tuple)
        assert (clauses, top, counted) == (want[0].count(0), max(map(abs, want[0]), default=0), want[1]), chunk


def test_pure_variable_turns_the_compiled_part_off() -> None:
    code = "from cnfgen_queens.cnf import native; print(native.NATIVE is None)"
    env = {**os.environ, native.PURE_VARIABLE: "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.strip() == "True", out.stderr
