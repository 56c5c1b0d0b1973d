"""Solver output is parsed streaming: the same claims whatever the piece size, bounded memory for comments."""

from __future__ import annotations

import io
import tracemalloc

import pytest

from cnfgen_queens.solvers import parse
from cnfgen_queens.solvers.parse import Claim, read_competition, read_minisat

OUTPUTS = [
    "c hello\ns SATISFIABLE\nv 1 -2 3\nv -4 5 0\n",
    "v 1 -2\nv 3 0\ns SATISFIABLE\n",  # clasp: v before s
    "c x\ns UNSATISFIABLE",  # no final newline
    "s SATISFIABLE\nv 12345 -67890 0",  # ends inside the v line
    "s SATISFIABLE\nv " + " ".join(str(-i if i % 3 else i) for i in range(1, 3000)) + " 0\n",
    "s SATISFIABLE\ns UNSATISFIABLE\n",
    "s MAYBE\n",
    "hello there\ns UNKNOWN\n",
    "s SATISFIABLE\nv 1 x2 0\n",
    "s SATISFIABLE\nv 1 0 2\n",
    "   \n\tc indented comment\n  s INDETERMINATE  \n",
    "c" + "x" * 5000 + "\ns UNKNOWN\n",  # not a comment: "c" must be followed by a blank
]


@pytest.mark.parametrize("text", OUTPUTS)
@pytest.mark.parametrize("piece", [1, 2, 3, 7, 64])
def test_pieces_do_not_change_the_claim(text: str, piece: int, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = read_competition(io.BytesIO(text.encode()))
    monkeypatch.setattr(parse, "PIECE", piece)
    assert read_competition(io.BytesIO(text.encode())) == whole


def test_claims() -> None:
    claims = [read_competition(io.BytesIO(t.encode())) for t in OUTPUTS]
    assert claims[0] == Claim("SAT", (1, -2, 3, -4, 5), True, None, None)
    assert claims[1] == Claim("SAT", (1, -2, 3), True, None, None)
    assert claims[2] == Claim("UNSAT", None, False, None, None)
    assert claims[3] == Claim("SAT", (12345, -67890), True, None, None)
    assert len(claims[4].model or ()) == 2999 and claims[4].terminated
    assert "conflicting answer lines" in (claims[5].problem or "")
    assert "unrecognised answer line" in (claims[6].problem or "")
    assert claims[7].garbage == "hello there" and claims[7].answer == "UNKNOWN"
    assert "not a literal" in (claims[8].problem or "")
    assert "after the terminating 0" in (claims[9].problem or "")
    assert claims[10] == Claim("UNKNOWN", None, False, None, None)
    assert claims[11].garbage is not None and len(claims[11].garbage) <= 80


class Comments(io.RawIOBase):
    """``total`` bytes of comment lines (or one endless comment line), then an answer; made up as read."""

    def __init__(self, total: int, line: int) -> None:
        self.left, self.line, self.done = total, line, False

    def readline(self, size: int = -1) -> bytes:  # type: ignore[override]
        if self.left > 0:
            n = min(size, self.line, self.left)
            self.left -= n
            body = b"c " + b"x" * max(0, n - 3)
            return body + b"\n" if n == self.line or self.left == 0 else body
        if not self.done:
            self.done = True
            return b"s UNSATISFIABLE\n"
        return b""

    def read(self, size: int = -1) -> bytes:  # type: ignore[override]
        """Lines as :meth:`readline` makes them, up to ``size`` bytes (the reader reads a megabyte at a time)."""
        parts, got = [], 0
        while got < size and (part := self.readline(size - got)):
            parts.append(part)
            got += len(part)
        return b"".join(parts)


@pytest.mark.parametrize(
    "line", [pytest.param(100, marks=pytest.mark.slow), 10**9]
)  # many short comment lines; one endless comment line
def test_comments_are_never_held(line: int) -> None:
    tracemalloc.start()
    try:
        claim = read_competition(Comments(50 * 1024 * 1024, line))  # type: ignore[arg-type]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert claim == Claim("UNSAT", None, False, None, None)
    assert peak < 8 * 1024 * 1024  # a couple of 1 MB pieces, not 50 MB


@pytest.mark.parametrize("piece", [1, 3, 1 << 20])
def test_minisat_result_file_in_pieces(piece: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parse, "PIECE", piece)
    assert read_minisat(io.BytesIO(b"SAT\n1 -2 300 -4000 0\n")) == Claim("SAT", (1, -2, 300, -4000), True, None, None)
    assert read_minisat(io.BytesIO(b"SAT\n1 -2")) == Claim("SAT", (1, -2), False, None, None)
    assert read_minisat(io.BytesIO(b"UNSAT\n")) == Claim("UNSAT", None, False, None, None)
    assert read_minisat(None) == Claim(None, None, False, None, None)
    assert "not a literal" in (read_minisat(io.BytesIO(b"SAT\n1 zz 0\n")).problem or "")
    assert "not SAT/UNSAT/INDET" in (read_minisat(io.BytesIO(b"MAYBE\n")).problem or "")
