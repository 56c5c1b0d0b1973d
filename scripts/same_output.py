"""Run one list of command lines with two installations and compare what each line prints.

For a change that must not change behaviour (a refactor): every line's stdout, stderr and exit code
must be the same with the old installation and the new one.

    python scripts/same_output.py --old OLD_VENV/bin --new NEW_VENV/bin [--lines FILE]

Each installation runs the whole list in order in one fresh directory (the same path both times, so
paths printed agree), holding copies of the repository's configs/ and data/. Decimal numbers (times)
are masked before comparing, except in lines marked ``exact: `` (reports of committed stores); integers
(counts, sizes, exit codes) are compared as printed. The lines
are ``scripts/same_output_lines.txt``'s unless ``--lines`` names another file: one shell line each, ``#``
comments skipped. Exit 0 when every line agrees, 1 with the first lines that differ.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DECIMAL = re.compile(r"\d+\.\d+")
EXACT = "exact: "
LINES = ROOT / "scripts" / "same_output_lines.txt"
TIMEOUT = 600


@dataclass(frozen=True)
class Printed:
    stdout: str
    stderr: str
    code: int

    def masked(self) -> Printed:
        return Printed(DECIMAL.sub("#.#", self.stdout), DECIMAL.sub("#.#", self.stderr), self.code)


def same(line: str, a: Printed, b: Printed) -> bool:
    return a == b if line.startswith(EXACT) else a.masked() == b.masked()


def run_all(bin_dir: Path, lines: list[str], where: Path) -> list[Printed]:
    """Every line in order, in ``where`` made fresh, with ``bin_dir`` first on PATH."""
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    for name in ("configs", "data"):
        shutil.copytree(ROOT / name, where / name)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "COLUMNS": "80"}
    env.pop("VIRTUAL_ENV", None)
    out = []
    for line in lines:
        command = ["bash", "-c", line.removeprefix(EXACT)]
        proc = subprocess.run(command, cwd=where, env=env, capture_output=True, timeout=TIMEOUT)
        out.append(Printed(proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace"), proc.returncode))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--old", type=Path, required=True, help="bin directory of the old installation")
    parser.add_argument("--new", type=Path, required=True, help="bin directory of the new installation")
    parser.add_argument("--lines", type=Path, default=LINES, help="the command lines")
    args = parser.parse_args()
    text = args.lines.read_text(encoding="utf-8").splitlines()
    lines = [line for line in text if line.strip() and not line.lstrip().startswith("#")]
    with tempfile.TemporaryDirectory(prefix="same-output-") as tmp:
        where = Path(tmp) / "run"
        old = run_all(args.old.resolve(), lines, where)
        new = run_all(args.new.resolve(), lines, where)
    differ = [(line, a, b) for line, a, b in zip(lines, old, new, strict=True) if not same(line, a, b)]
    for line, a, b in differ[:10]:
        print(f"DIFFERS: {line}")
        for what in ("code", "stdout", "stderr"):
            if getattr(a, what) != getattr(b, what):
                print(f"  {what}: old {getattr(a, what)!r:.300}\n  {' ' * len(what)}  new {getattr(b, what)!r:.300}")
    print(f"{len(lines) - len(differ)} of {len(lines)} lines print the same; {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
