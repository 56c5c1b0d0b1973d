"""``stats``: one number format (thousands separators, as the other lines), booleans as in --json
(true/false), --json values raw, and the file's GBD hash (the one batch stores), also from stdin."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from cnfgen_queens.cli import main
from cnfgen_queens.cnf.gbd_hash import gbd_hash


def test_stats_formats_consistently_and_prints_the_gbd_hash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cnf = tmp_path / "q16.cnf"
    assert main(["gen", "16", "-o", str(cnf)]) == 0
    capsys.readouterr()
    assert main(["stats", str(cnf), "--json", "--no-graph"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["gbd_hash"] == gbd_hash(cnf) and doc["queens"]["conflict_edges"] == 6_320  # raw in JSON
    assert main(["stats", str(cnf)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"GBD hash             {gbd_hash(cnf)}" in lines
    queens = {line[7:51].strip(): line[51:].strip() for line in lines if line.startswith("queens ")}
    assert queens["conflict edges"] == "6,320"  # as the clauses line: never 6320 here and 12,560 there
    assert queens["vig cells equal conflict graph"] == "true"  # as --json says it, not Python's True
    assert queens["maximal cliques that are lines only"] == "false"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(cnf.read_bytes())))
    assert main(["stats", "-", "--no-graph"]) == 0  # stdin is read once: hashed in the same pass
    assert f"GBD hash             {gbd_hash(cnf)}" in capsys.readouterr().out.splitlines()
