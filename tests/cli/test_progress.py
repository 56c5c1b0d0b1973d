"""Progress bars (tqdm, stderr) on long commands: on for a terminal, off for pipes and with --quiet/--no-progress."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from helpers import ROOT, need_solver


def run_with_tty_stderr(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) with stderr on a 100-column pseudo-terminal."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=slave, cwd=cwd)
    os.close(slave)
    chunks: list[bytes] = []
    while True:  # drain the terminal while the command runs, so it never blocks on a full buffer
        ready = select.select([master], [], [], 0.2)[0]
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the command closed its end
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    out = proc.stdout.read().decode() if proc.stdout else ""
    code = proc.wait(timeout=300)
    os.close(master)
    return code, out, b"".join(chunks).decode(errors="replace")


@pytest.fixture
def cnfgen() -> str:
    return str(Path(sys.executable).parent / "cnfgen-queens")


def test_external_enumeration_shows_a_bar_on_a_terminal(cnfgen: str, tmp_path: Path) -> None:
    need_solver("minisat")
    code, out, err = run_with_tty_stderr([cnfgen, "enumerate", "6", "--solver", "minisat"], tmp_path)
    assert code == 0 and out.endswith("count: 4 (published-count)\n")
    assert "solutions:" in err and "/4 " in err  # the OEIS total is the bar's total


def test_no_bar_with_quiet_or_without_a_terminal(cnfgen: str, tmp_path: Path) -> None:
    need_solver("minisat")
    for flag in ("--quiet", "--no-progress"):
        code, out, err = run_with_tty_stderr([cnfgen, "enumerate", "6", "--solver", "minisat", flag], tmp_path)
        assert (code, err) == (0, "") and out.endswith("count: 4 (published-count)\n")
    piped = subprocess.run(
        [cnfgen, "count", "6", "--solver", "minisat"], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert piped.returncode == 0 and piped.stdout == "count: 4 (published-count)\n" and piped.stderr == ""


def test_encoding_table_says_what_it_does(tmp_path: Path) -> None:
    script = str(ROOT / "scripts" / "encoding_table.py")
    code, out, err = run_with_tty_stderr([sys.executable, script, "8", "20"], tmp_path)
    assert code == 0
    assert "counting variables and clauses of 16 encodings for N = 8, 20" in err
    assert re.search(r"\d+/32 \[", err)  # 16 encodings x 2 sizes
    # pairwise: one clause per row plus one per attacking pair, n(n-1)(5n-1)/3 (the queens graph's edges)
    assert "| `pairwise` | 64 | 736 | 400 | 12,560 |" in out
    piped = subprocess.run(
        [sys.executable, script, "8", "--no-progress"], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert piped.stderr == "counting variables and clauses of 16 encodings for N = 8\n"
