"""The GBD instance hash: equal to GBD's own ``gbdc`` on our files and on odd DIMACS, block by block."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from helpers import need_module

from cnfgen_queens.cli import main
from cnfgen_queens.cnf import gbd_hash as instance_hash
from cnfgen_queens.cnf.gbd_hash import gbd_hash

WELL_FORMED = {  # gbdc parses these; every line ends with a newline
    "plain": b"p cnf 3 2\n1 -2 0\n2 3 0\n",
    "comments and blanks": b"c hello\np cnf 3 2\n1 -2 0\nc in the middle 1 2 3\n  2\t3   0  \n\n0\n",
    "crlf": b"p cnf 2 1\r\n1 2 0\r\n-1 0\r\n",
    "only comments": b"c a\nc b\n",
    "minus zero and 00": b"1 -0\n00\n",
    "cr ends a comment": b"c comment\r5 0\n",
    "utf-8 comment": "c \u265b queens\n1 0\n".encode(),
}
# (file, normalized text): GBD's definition (gbd-tools' reference) where gbdc refuses the file, or drops an
# unterminated last line after a header
ODD = {
    "no final zero": (b"p cnf 2 2\n1 2 0\n-1", b"1 2 0 -1 0"),
    "no newline at the end": (b"p cnf 1 2\n1 0\n0", b"1 0 0"),
    "stray characters": (b"c x\n%\n1 2 x 3 0\n4 0\n", b"1 2 4 0"),
    "control bytes": (b"1\x01 2\x0b\x0c3 0\n\x00-4 0\n", b"1 2 3 0 -4 0"),
    "empty": (b"", b""),
}


def _files(tmp_path: Path) -> list[Path]:
    paths = []
    for i, data in enumerate(WELL_FORMED.values()):
        paths.append(tmp_path / f"well{i}.cnf")
        paths[-1].write_bytes(data)
    rng = random.Random(5)
    for i in range(20):  # random clause text with random blanks and comment lines
        lines = []
        for _ in range(rng.randint(0, 30)):
            if rng.random() < 0.15:
                lines.append("c " + " ".join(str(rng.randint(-9, 99)) for _ in range(rng.randint(0, 4))))
            else:
                lits = [str(rng.choice([-1, 1]) * rng.randint(1, 120)) for _ in range(rng.randint(0, 6))]
                blank = rng.choice([" ", "  ", "\t", " \t "])
                lines.append(rng.choice(["", " "]) + blank.join([*lits, "0"]) + rng.choice(["", " "]))
        text = "".join(line + rng.choice(["\n", "\r\n"]) for line in lines)
        paths.append(tmp_path / f"random{i}.cnf")
        paths[-1].write_text(text)
    for n, enc, extra in ((8, "pairwise", []), (12, "commander", []), (9, "sequential", ["--shuffle", "3"])):
        paths.append(tmp_path / f"q{n}-{enc}.cnf")
        assert main(["gen", str(n), "-e", enc, *extra, "-o", str(paths[-1])]) == 0
    return paths


@pytest.mark.parametrize("block", [instance_hash.BLOCK, 1, 2, 3, 7, 64])
def test_equals_gbdc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    """Small blocks cut lines, tokens and comments at every position: the hash must not change."""
    need_module("gbdc")
    import gbdc

    monkeypatch.setattr(instance_hash, "BLOCK", block)
    for path in _files(tmp_path):
        assert gbd_hash(path) == gbdc.gbdhash(str(path)), (path.name, path.read_bytes()[:200])


@pytest.mark.parametrize("block", [instance_hash.BLOCK, 1, 2, 5])
def test_definition_on_odd_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    """MD5 of the normalized clause text: comments and stray text to the line end dropped, blanks one space."""
    import hashlib

    monkeypatch.setattr(instance_hash, "BLOCK", block)
    path = tmp_path / "x.cnf"
    for name, (data, normalized) in ODD.items():
        path.write_bytes(data)
        assert gbd_hash(path) == hashlib.md5(normalized).hexdigest(), name
    path.write_bytes(b"c " + b"x" * 50 + b" 1 2 0\n3 0\n" + b"7 " * 40 + b"0\n")  # lines longer than a block
    assert gbd_hash(path) == hashlib.md5(b"3 0 " + b"7 " * 40 + b"0").hexdigest()


def test_known_value() -> None:
    """Pinned where gbdc is absent too: MD5 of "1 -2 0 2 3 0" (gbdc 0.4.3 agrees)."""
    assert hashlib_of(b"p cnf 3 2\n1 -2 0\n2 3 0\n") == "5c199826eee734c6484e691f3c129214"


def hashlib_of(data: bytes) -> str:
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".cnf") as f:
        f.write(data)
        f.flush()
        return gbd_hash(f.name)
