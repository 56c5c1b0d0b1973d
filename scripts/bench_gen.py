#!/usr/bin/env python3
"""Benchmark ``gen-queens`` against the same formula built with PySAT's CardEnc + ``CNF.to_file``.

Each generator runs in its own fresh subprocess and writes a file; the parent reads
the child's wall time (``time.perf_counter`` around the child) and its peak resident
memory (GNU ``/usr/bin/time -f %M``, else ``ru_maxrss`` of ``os.wait4``).  Cases (issue 2): pairwise
N = 200 and sequential N = 1000; ``--quick`` uses N = 60 and N = 200.  Each
measurement is repeated ``--repeat`` times and the median wall time is reported.

PySAT: A. Ignatiev, A. Morgado, J. Marques-Silva, "PySAT: A Python Toolkit for
Prototyping with SAT Oracles", SAT 2018.  Its ``seqcounter`` is Sinz 2005 (CP 2005)
like ours, but writes a 2-literal line as one binary clause, so its counts differ slightly.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

# The PySAT side, run as ``python -c PYSAT_SCRIPT N ENCTYPE PATH``: row at-least-one clauses, then
# CardEnc.atmost(bound=1) over every row, column, diagonal and anti-diagonal of length >= 2,
# auxiliary variables from N*N + 1 via top_id (PySAT issue 207), then CNF.to_file.
PYSAT_SCRIPT = """
import sys
from pysat.card import CardEnc, EncType
from pysat.formula import CNF
n, enc, path = int(sys.argv[1]), getattr(EncType, sys.argv[2]), sys.argv[3]
cells = [(r, c) for r in range(n) for c in range(n)]
keys = (lambda r, c: r, lambda r, c: c, lambda r, c: r - c, lambda r, c: r + c)
cnf = CNF()
for r in range(n):
    cnf.append([r * n + c + 1 for c in range(n)])
top = n * n
for key in keys:
    lines = {}
    for r, c in cells:
        lines.setdefault(key(r, c), []).append(r * n + c + 1)
    for k in sorted(lines):
        if len(lines[k]) >= 2:
            am1 = CardEnc.atmost(lits=lines[k], bound=1, top_id=top, encoding=enc)
            top = max(top, am1.nv)
            cnf.extend(am1.clauses)
cnf.nv = max(cnf.nv, top)
cnf.to_file(path)
"""

PYSAT_NAME = {"pairwise": "pairwise", "sequential": "seqcounter"}
GNU_TIME = "/usr/bin/time" if Path("/usr/bin/time").is_file() else None
FULL_CASES = [("pairwise", 200), ("sequential", 1000)]
QUICK_CASES = [("pairwise", 60), ("sequential", 200)]


@dataclass(frozen=True)
class Run:
    """One child process: what it wrote and what it cost."""

    tool: str
    encoding: str
    n: int
    wall: float
    peak_mb: float
    num_vars: int
    num_clauses: int
    size_mb: float

    @property
    def clauses_per_s(self) -> float:
        return self.num_clauses / self.wall if self.wall > 0 else float("inf")


def gen_queens_command() -> list[str]:
    # the console script next to this interpreter: a PATH lookup may find a wrapper (pyenv's shims)
    exe = Path(sys.executable).parent / "gen-queens"
    if exe.is_file():
        return [str(exe)]
    return [sys.executable, "-c", "from cnfgen_queens.cli import gen_entry; gen_entry()"]


def run_child(argv: list[str], workdir: Path) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one child process; raises on a non-zero exit.

    Peak RSS comes from GNU ``/usr/bin/time`` when present: Linux folds the parent's
    high-water mark into a child's ``ru_maxrss`` at exec, so reading ``os.wait4``
    directly would report at least this script's own peak.  ``time`` is a small C
    program, so the measured child starts from a tiny floor.
    """
    report = workdir / "time.out"
    timed = [GNU_TIME, "-f", "%M", "-o", str(report), *argv] if GNU_TIME else argv
    start = time.perf_counter()
    proc = subprocess.Popen(timed, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[0]} exited {proc.returncode}: {err.strip()[-300:]}")
    if GNU_TIME:
        peak_kib = int(report.read_text().split()[-1])
        report.unlink()
    else:
        peak_kib = usage.ru_maxrss  # Linux: KiB; an upper bound (see above)
    return wall, peak_kib / 1024


def p_line(path: Path) -> tuple[int, int]:
    with open(path, "rb") as f:
        for raw in f:
            if raw.startswith(b"p "):
                _, _, v, c = raw.split()
                return int(v), int(c)
    raise RuntimeError(f"{path}: no p line")


def clause_digest(path: Path) -> tuple[int, int]:
    """(clause count, order-free 64-bit sum of hashes of the sorted clauses) in constant memory.

    Two files with the same multiset of clauses (literal order ignored) give the same
    digest; different ones collide with probability about 2**-64.
    """
    total, count = 0, 0
    with open(path, "rb") as f:
        for raw in f:
            if raw[:1] in (b"c", b"p") or not raw.strip():
                continue
            lits = sorted(map(int, raw.split()[:-1]))
            digest = hashlib.blake2b(" ".join(map(str, lits)).encode(), digest_size=8).digest()
            total = (total + int.from_bytes(digest, "little")) % (1 << 64)
            count += 1
    return count, total


def measure(tool: str, encoding: str, n: int, workdir: Path, keep: bool = False) -> Run:
    path = workdir / f"{tool}-{encoding}-{n}.cnf"
    if tool == "gen-queens":
        argv = [*gen_queens_command(), str(n), "-e", encoding, "-o", str(path), "--no-comments"]
    else:
        argv = [sys.executable, "-c", PYSAT_SCRIPT, str(n), PYSAT_NAME[encoding], str(path)]
    wall, peak = run_child(argv, workdir)
    v, c = p_line(path)
    size = path.stat().st_size / 1e6
    if not keep:
        path.unlink()
    return Run(tool, encoding, n, wall, peak, v, c, size)


def median_run(runs: list[Run]) -> Run:
    walls = sorted(runs, key=lambda r: r.wall)
    mid = walls[len(walls) // 2]
    return Run(mid.tool, mid.encoding, mid.n, statistics.median(r.wall for r in runs),
               max(r.peak_mb for r in runs), mid.num_vars, mid.num_clauses, mid.size_mb)  # fmt: skip


def table(rows: list[tuple[Run, Run]]) -> str:
    head = (
        f"{'encoding':<11}{'N':>6}  {'tool':<11}{'vars':>10}{'clauses':>12}{'MB out':>9}"
        f"{'wall s':>9}{'clauses/s':>13}{'peak RSS MB':>13}"
    )
    out = [head, "-" * len(head)]
    for ours, theirs in rows:
        for r in (ours, theirs):
            out.append(
                f"{r.encoding:<11}{r.n:>6}  {r.tool:<11}{r.num_vars:>10}{r.num_clauses:>12}{r.size_mb:>9.1f}"
                f"{r.wall:>9.2f}{r.clauses_per_s:>13,.0f}{r.peak_mb:>13.1f}"
            )
        speed = theirs.wall / ours.wall
        mem = theirs.peak_mb / ours.peak_mb
        verdict = "not slower than PySAT" if ours.wall <= theirs.wall else "SLOWER than PySAT"
        out.append(f"{'':<19}ratio PySAT/ours: wall {speed:.2f}x, peak RSS {mem:.2f}x  -> {verdict}")
        out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="small N (pairwise 60, sequential 200)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement; the median wall is reported")
    ap.add_argument("--verify", action="store_true", help="check that both pairwise files hold the same clauses")
    ap.add_argument("--workdir", type=Path, default=None, help="where the CNF files go (default: a temp dir)")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    cases = QUICK_CASES if args.quick else FULL_CASES
    rows: list[tuple[Run, Run]] = []
    with tempfile.TemporaryDirectory(prefix="bench_gen.", dir=args.workdir) as tmp:
        work = Path(tmp)
        for encoding, n in cases:
            got: dict[str, list[Run]] = {"gen-queens": [], "pysat": []}
            for i in range(args.repeat):  # interleaved, so drift in machine load hits both alike
                keep = args.verify and i == 0 and encoding == "pairwise"
                for tool in got:
                    got[tool].append(measure(tool, encoding, n, work, keep))
                if keep:
                    files = [work / f"{tool}-{encoding}-{n}.cnf" for tool in got]
                    same = clause_digest(files[0]) == clause_digest(files[1])
                    print(f"verify pairwise N={n}: {'same clauses' if same else 'DIFFERENT clauses'}", flush=True)
                    for f in files:
                        f.unlink()
                    if not same:
                        return 1
            rows.append((median_run(got["gen-queens"]), median_run(got["pysat"])))
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, median of {args.repeat} run(s) each, "
          "each generator a fresh process writing a file (--no-comments); "
          f"peak RSS = max over runs ({'GNU time %M' if GNU_TIME else 'wait4 ru_maxrss, an upper bound'}); "
          f"load average at the end {os.getloadavg()[0]:.2f}")  # fmt: skip
    print()
    print(table(rows))
    return 0 if all(ours.wall <= theirs.wall for ours, theirs in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
