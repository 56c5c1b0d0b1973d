"""``batch --dry-run`` prints every factor of the grid's product (the column_alo axis too), from the
same list the size check uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from cnfgen_queens.cli import main

CONFIG = """\
instances:
  n: [6, 7, 8]
  encodings: [pairwise, sequential]
  column_alo: [false, true]
  shuffle_seeds: [1, 2]
solvers: [pysat:cadical195, pysat:minisat22, pysat:glucose4]
limits: {time: 10}
results: RESULTS
"""


def test_dry_run_line_multiplies_to_its_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(CONFIG.replace("RESULTS", str(tmp_path / "results.sqlite")))
    assert main(["batch", str(cfg), "--dry-run"]) == 0
    first, *runs = capsys.readouterr().out.splitlines()
    expected = "grid: 3 N x 2 encodings x 2 column_alo values x 2 seeds x 3 solvers x 1 repeats = 72 runs;"
    assert first.startswith(expected), first
    assert len([r for r in runs if r.startswith("todo ")]) == 72
