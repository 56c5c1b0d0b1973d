"""A batch's own work per run, made cheaper (issue 33 item 4) without checking less: each worker parses a small
instance once (again when the file changes), the coordinator claims and stores runs a block at a time (one
SQLite transaction each), and the machine's fingerprint is computed once."""

from __future__ import annotations

import os
import socket
import time
from dataclasses import replace
from pathlib import Path

import pytest

from cnfgen_queens.cli import gen_main
from cnfgen_queens.experiments import config as config_mod
from cnfgen_queens.experiments import tasks
from cnfgen_queens.experiments.batch import BatchRequest, run_batch
from cnfgen_queens.experiments.grid import build
from cnfgen_queens.experiments.machine import this_machine
from cnfgen_queens.experiments.store import Store
from cnfgen_queens.solvers.outcome import Status

CONFIG = """experiment: blocks
instances:
  n: [5]
  encodings: [pairwise]
solvers: [pysat:cadical195]
limits: {time: 20}
repeats: REPEATS
results: RESULTS
"""


def _config(tmp_path: Path, repeats: int) -> config_mod.Config:
    path = tmp_path / "c.yaml"
    path.write_text(CONFIG.replace("REPEATS", str(repeats)).replace("RESULTS", str(tmp_path / "r.sqlite")))
    return config_mod.load(path)


def test_a_worker_parses_an_instance_once_and_again_when_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = build(_config(tmp_path, 3))
    cnf = tmp_path / "q5.cnf"
    assert gen_main(["5", "-o", str(cnf)]) == 0
    parses: list[Path] = []
    real = tasks.read_cnf
    monkeypatch.setattr(tasks, "read_cnf", lambda p: parses.append(p) or real(p))
    first = [tasks.execute(r, str(cnf)) for r in runs]
    assert [m.status for m in first] == [Status.SAT] * 3 and all(m.verified for m in first)
    assert len(parses) == 1  # three runs, one parse
    assert gen_main(["3", "-o", str(cnf)]) == 0  # another file at the same path: no solution
    again = tasks.execute(runs[0], str(cnf))
    assert len(parses) == 2 and again.status is Status.UNSAT  # the new file, not the parsed copy


def test_claims_are_taken_a_block_at_a_time(tmp_path: Path) -> None:
    with Store(tmp_path / "r.sqlite") as store:
        assert store.claim_many(["a", "b", "c"]) == {"a", "b", "c"}
        store.db.execute("DELETE FROM claims WHERE run_key = 'b'")
        live = os.getppid()  # another live process of this host holds c now
        store.db.execute("UPDATE claims SET pid = ? WHERE run_key = 'c'", (live,))
        store.db.execute("INSERT INTO claims VALUES ('d', ?, 999999999, ?)", (socket.gethostname(), time.time()))
        assert store.claim_many(["b", "c", "d", "e"]) == {"b", "d", "e"}  # d's holder is dead: taken over


def test_rows_are_stored_a_block_at_a_time_and_end_their_claims(tmp_path: Path) -> None:
    config = _config(tmp_path, 4)
    assert run_batch(config, BatchRequest(progress=False, log=lambda s: None)).done == 4
    with Store(config.results) as store:
        rows = store.rows()
        store.claim_many([r.run_key for r in rows] + ["new"])  # stored runs are not claimed
        store.add_many([replace(r, run_key=f"x{i}") for i, r in enumerate(rows)] + [replace(rows[0], run_key="new")])
        assert len(store.rows()) == 9
        assert store.db.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0


def test_the_fingerprint_is_computed_once() -> None:
    machine = this_machine()
    assert machine.fingerprint is machine.fingerprint  # cached on the (frozen) record
    assert "fingerprint" not in machine.as_dict()
