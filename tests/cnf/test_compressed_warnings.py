"""A compressed file without its extension: the reader warns that it reads it as compressed only when its
bytes decode; corrupt data is the one error line, as every bad input is (found by test_fuzz's merge case:
two lines, the warning and the error)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from helpers import run_cli


@pytest.mark.parametrize("command", ["merge", "solve", "stats"])
def test_corrupt_unnamed_gzip_is_one_error_line(tmp_path: Path, command: str) -> None:
    (tmp_path / "in.cnf").write_bytes(b"\x1f\x8b")  # gzip's magic, then nothing
    (tmp_path / "blocks.txt").write_bytes(b"")
    argv = {
        "merge": ["merge", "in.cnf", "blocks.txt", "-o", "out.cnf"],
        "solve": ["solve", "in.cnf"],
        "stats": ["stats", "in.cnf", "--no-graph"],
    }[command]
    ran = run_cli(argv, tmp_path, timeout=120)
    assert ran.code in (1, 2), ran
    assert len(ran.lines) == 1 and "error:" in ran.lines[0] and "corrupt or truncated gzip data" in ran.lines[0]
    assert not (tmp_path / "out.cnf").exists()


def test_good_unnamed_gzip_still_warns(tmp_path: Path) -> None:
    (tmp_path / "q.cnf").write_bytes(gzip.compress(b"p cnf 2 2\n1 2 0\n-1 0\n", mtime=0))
    ran = run_cli(["solve", "q.cnf"], tmp_path, timeout=120)
    assert ran.code == 10, ran
    assert any("warning: q.cnf: gzip-compressed data without the .gz extension" in line for line in ran.lines)
    assert "s SATISFIABLE" in ran.out
