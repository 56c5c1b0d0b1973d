"""Solver versions are kept across runs (a shell loop's ``solve`` asks a binary once, not once per solution),
keyed on the binary: one replaced in place is asked again; a corrupt, unwritable or concurrently written
cache only means asking again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_cli

from cnfgen_queens.solvers import discovery
from cnfgen_queens.solvers.version_cache import CACHE_NAME
from cnfgen_queens.user_cache import CACHE_ENV

FAKE = """#!/bin/sh
echo asked >> "{log}"
echo "fake solver {version}"
"""


def fake(folder: Path, version: str = "1.2.3", name: str = "fake") -> Path:
    path = folder / name
    path.write_text(FAKE.format(log=folder / f"{name}.log", version=version))
    path.chmod(0o755)
    return path


def asked(binary: Path) -> int:
    log = binary.with_name(binary.name + ".log")
    return len(log.read_text().splitlines()) if log.exists() else 0


def fresh_version(binary: Path) -> str | None:
    """What a new process would get (this process's own memory of versions emptied)."""
    discovery._versions.clear()
    return discovery.binary_version(str(binary))


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = tmp_path / "cache"
    monkeypatch.setenv(CACHE_ENV, str(where))
    monkeypatch.setattr(discovery, "_versions", {})
    return where


def test_a_version_is_asked_once_across_processes(tmp_path: Path, cache: Path) -> None:
    binary = fake(tmp_path)
    assert fresh_version(binary) == "1.2.3"
    assert fresh_version(binary) == "1.2.3"
    assert asked(binary) == 1
    assert len(json.loads((cache / CACHE_NAME).read_text())) == 1


def test_a_binary_replaced_in_place_is_asked_again(tmp_path: Path, cache: Path) -> None:
    binary = fake(tmp_path)
    assert fresh_version(binary) == "1.2.3"
    fake(tmp_path, "1.2.40")  # another size
    assert fresh_version(binary) == "1.2.40"
    os.utime(binary, ns=(1, 1))  # same size, another time
    assert fresh_version(binary) == "1.2.40"
    assert asked(binary) == 3


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b'{"x": 3}', b"\xff\xfe", b""])
def test_a_corrupt_cache_is_asked_past_and_repaired(tmp_path: Path, cache: Path, content: bytes) -> None:
    cache.mkdir()
    (cache / CACHE_NAME).write_bytes(content)
    binary = fake(tmp_path)
    assert fresh_version(binary) == "1.2.3"
    assert fresh_version(binary) == "1.2.3"
    assert asked(binary) == 1


def test_an_unwritable_cache_asks_every_time(tmp_path: Path, cache: Path) -> None:
    cache.write_text("a file where the cache directory should be")
    binary = fake(tmp_path)
    assert fresh_version(binary) == "1.2.3"
    assert fresh_version(binary) == "1.2.3"
    assert asked(binary) == 2
    assert cache.read_text().startswith("a file")
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_concurrent_writers_leave_a_valid_cache(tmp_path: Path, cache: Path) -> None:
    binaries = [fake(tmp_path, f"2.{i}.0", f"fake{i}") for i in range(6)]
    code = "import sys; from cnfgen_queens.solvers.discovery import binary_version; print(binary_version(sys.argv[1]))"
    env = {**os.environ, CACHE_ENV: str(cache)}
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(b)], stdout=subprocess.PIPE, text=True, env=env)
        for b in binaries
    ]
    try:
        outs = [p.communicate(timeout=60)[0].strip() for p in procs]
    finally:
        for p in procs:
            p.kill()
            p.wait()
    assert outs == [f"2.{i}.0" for i in range(6)]
    kept = json.loads((cache / CACHE_NAME).read_text())
    assert 1 <= len(kept) <= 6 and set(kept.values()) <= set(outs)
    assert sorted(p.name for p in cache.iterdir()) == [CACHE_NAME]  # no temporary file left


def test_solve_keeps_the_version_for_the_next_run(tmp_path: Path, cache: Path) -> None:
    cnf = tmp_path / "q.cnf"
    cnf.write_text("p cnf 1 1\n1 0\n")
    binary = fake(tmp_path)
    (tmp_path / "bin").mkdir()
    wrapper = tmp_path / "bin" / "cadical"  # the cadical profile (a generic binary is not asked its version)
    # answers --version through the fake (counted), and solves the one clause
    wrapper.write_text(
        f'#!/bin/sh\n[ "$1" = --version ] && exec "{binary}"\necho "s SATISFIABLE"\necho "v 1 0"\nexit 10\n'
    )
    wrapper.chmod(0o755)
    for _ in range(2):
        argv = ["solve", str(cnf), "--solver", str(wrapper), "--isolation", "none"]
        run = run_cli(argv, tmp_path, env={CACHE_ENV: str(cache)})
        assert run.code == 10, run.err
        assert "c solver cadical 1.2.3" in run.out
    assert asked(binary) == 1
