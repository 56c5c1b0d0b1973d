"""The CLI in a process of its own under an address-space limit and a timeout: a runaway allocation is a
one-line error or a refusal, never the kernel's kill; the process is gone when the call returns."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from helpers import CLI_ENTRY, ROOT

GEN_ENTRY = "import sys; from cnfgen_queens.cli import gen_main; sys.exit(gen_main(sys.argv[1:]))"
MEMORY_MB = 1536  # RLIMIT_AS of the child: numpy and networkx need about 0.6 GB of address space to start


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        """The non-empty lines on stderr."""
        return [line for line in self.err.splitlines() if line.strip()]


def run_cli(
    argv: list[str], cwd: Path, *, gen: bool = False, memory_mb: int = MEMORY_MB, timeout: float = 60,
    stdin: bytes | None = None, env: dict[str, str] | None = None, entry: str | None = None,
) -> Ran:  # fmt: skip
    """``cnfgen-queens ARGV`` (``gen-queens`` with ``gen``) under RLIMIT_AS and a timeout, SIGINT as default;
    ``env``: variables set (or replaced) in the child's environment; ``entry``: the child's ``-c`` code
    instead of the console script's."""
    limit = memory_mb << 20

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        os.setsid()  # its own group: killed whole on timeout

    env = {**os.environ, **(env or {}), "PYTHONPATH": str(ROOT)}
    env.pop("CNFGEN_QUEENS_DEBUG", None)
    proc = subprocess.Popen(
        [sys.executable, "-c", entry or (GEN_ENTRY if gen else CLI_ENTRY), *argv],
        cwd=cwd, env=env, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limits,
    )  # fmt: skip
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        raise AssertionError(f"{argv} still running after {timeout} s") from None
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 9)
            proc.wait()
    return Ran(proc.returncode, out.decode(errors="replace"), err.decode(errors="replace"))
