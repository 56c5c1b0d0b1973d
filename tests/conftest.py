"""Shared fixtures (the helpers they use are in helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A results database holding the hand-made rows of test_experiments_report.HAND (report and plot tests)."""
    from test_experiments_report import HAND

    from cnfgen_queens.experiments.store import Store

    path = tmp_path / "hand.sqlite"
    with Store(path) as store:
        for r in HAND:
            store.add(r)
    return path
