"""An output path that is not a regular file is never replaced by the atomic rename (cnf/atomic.py).

Every writer goes through :func:`cnfgen_queens.cnf.atomic.atomic_output`: a symlink is written through (the
file it names is replaced, the link stays); a stream output (``-o``, ``report``'s tables and plots,
``Formula.write``) into a FIFO or character device is written into, as a shell redirection would; a directory,
socket or block device, and a FIFO or device given as a file output (a proof, the work files of ``--out``),
are refused with one line and exit 2 (UsageError from the library), before any work.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import GEN_ENTRY, ROOT, need_solver, run_cli

import cnfgen_queens as cq
from cnfgen_queens.errors import UsageError

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def unix_socket(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "s.png"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    try:
        yield path
    finally:
        sock.close()


class FifoReader:
    """A FIFO at ``path`` with a reader already there (opened without waiting, so a writer that comes at any
    moment finds it), and a thread that collects what is written until the writer closes it."""

    def __init__(self, path: Path) -> None:
        os.mkfifo(path)
        self.path, self.chunks, self.stop = path, [], threading.Event()  # type: list[bytes]
        self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while not self.stop.is_set():
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:  # a writer, nothing written yet
                chunk = None
            if chunk:
                self.chunks.append(chunk)
            elif chunk == b"" and self.chunks:  # the writer closed after writing
                return
            else:  # no writer yet (b""), or nothing to read yet
                time.sleep(0.005)

    def close(self) -> bytes:
        """What was written (wait up to 10 s for a writer still writing)."""
        self.thread.join(10)
        self.stop.set()
        self.thread.join(10)
        os.close(self.fd)
        assert not self.thread.is_alive()
        return b"".join(self.chunks)


def test_a_plot_into_a_fifo_with_a_reader_gets_the_bytes(db: Path) -> None:
    reader = FifoReader(db.parent / "p.png")
    try:
        ran = run_cli(["report", db.name, "--cactus", "p.png"], db.parent, timeout=120)
    finally:
        got = reader.close()
    assert ran.code == 0, ran
    assert (db.parent / "p.png").is_fifo()  # not swapped for a regular file
    assert got.startswith(PNG)


def test_a_plot_into_a_fifo_with_no_reader_is_refused(db: Path) -> None:
    os.mkfifo(db.parent / "p.png")
    names = sorted(p.name for p in db.parent.iterdir())
    run_cli(["report", db.name, "--cactus", "p.png"], db.parent, timeout=120).one_line(
        1, "cannot write p.png", "no reader"
    )
    assert (db.parent / "p.png").is_fifo()
    assert sorted(p.name for p in db.parent.iterdir()) == names  # no temporary file left beside it


def test_a_plot_or_table_over_a_socket_is_refused_before_any_work(db: Path, unix_socket: Path) -> None:
    for flag in ("--cactus", "--json"):
        ran = run_cli(["report", db.name, flag, unix_socket.name], db.parent, timeout=120)
        ran.one_line(2, f"cannot write {unix_socket.name}", "socket")
        assert ran.out == ""  # refused before the table was made
        assert unix_socket.is_socket()


def test_a_plot_is_written_through_a_symlink(db: Path) -> None:
    real = db.parent / "real.png"
    real.write_bytes(b"old")
    (db.parent / "link.png").symlink_to("real.png")
    ran = run_cli(["report", db.name, "--cactus", "link.png"], db.parent, timeout=120)
    assert ran.code == 0, ran
    assert (db.parent / "link.png").is_symlink()  # the link stays, the file it names is replaced
    assert real.read_bytes().startswith(PNG)


def test_a_work_file_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    """enumerate --out d reads base.cnf back: a FIFO there is refused, not replaced nor written into."""
    need_solver("cadical")
    (tmp_path / "d").mkdir()
    os.mkfifo(tmp_path / "d" / "base.cnf")
    ran = run_cli(["enumerate", "6", "--solver", "cadical", "--out", "d"], tmp_path, timeout=60)
    ran.one_line(2, "cannot write d/base.cnf", "FIFO")
    assert (tmp_path / "d" / "base.cnf").is_fifo() and ran.out == ""


def test_gen_into_process_substitution(tmp_path: Path) -> None:
    """``gen-queens 6 -o >(cmd)``: the path is /dev/fd/N, a pipe; it is written into."""
    r, w = os.pipe()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", GEN_ENTRY, "6", "-o", f"/dev/fd/{w}"],
        pass_fds=(w,),
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    os.close(w)
    try:
        with os.fdopen(r, "rb") as pipe:
            got = pipe.read()
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert b"p cnf 36 " in got


def test_the_library_writes_into_a_fifo_and_refuses_a_socket(tmp_path: Path, unix_socket: Path) -> None:
    reader = FifoReader(tmp_path / "q.cnf")
    try:
        cq.queens(6).write(tmp_path / "q.cnf")
    finally:
        got = reader.close()
    assert b"p cnf 36 " in got and (tmp_path / "q.cnf").is_fifo()
    with pytest.raises(UsageError, match="socket"):
        cq.queens(6).write(unix_socket)
    assert unix_socket.is_socket()
    (tmp_path / "dir.cnf").mkdir()
    with pytest.raises(UsageError, match="directory"):
        cq.queens(6).write(tmp_path / "dir.cnf")
