#!/usr/bin/env python3
"""Benchmark ``gen-queens`` against the same formula built with PySAT's CardEnc + ``CNF.to_file``.

Each generator runs in its own fresh subprocess and writes a file, timed by scripts/benchlib.py
(``measure``: wall time, CPU and the child's own peak resident memory, VmHWM); the two tools run side by
side, alternating, ``--repeat`` times, and a benchlib table prints the median wall time, clauses/s and
the largest peak of the runs of each, gen-queens beside PySAT.  Cases (issue 2): pairwise N = 200 and
sequential N = 1000; ``--quick`` uses N = 60 and N = 200.  The exit status is 1 when gen-queens was
slower than PySAT on a case.

PySAT: A. Ignatiev, A. Morgado, J. Marques-Silva, "PySAT: A Python Toolkit for
Prototyping with SAT Oracles", SAT 2018.  Its ``seqcounter`` is Sinz 2005 (CP 2005)
like ours, but writes a 2-literal line as one binary clause, so its counts differ slightly.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib

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
    exe = benchlib.BIN / "gen-queens"
    if exe.is_file():
        return [str(exe)]
    return [sys.executable, "-c", "from cnfgen_queens.cli import gen_entry; gen_entry()"]


def peak(sample: benchlib.Sample) -> float:
    """The command's own peak RSS in MB (VmHWM); ``ru_maxrss`` when it ended before the first poll (an upper
    bound: Linux counts in it this script's RSS when the command was exec'd)."""
    return sample.peak_mb or sample.tree_peak_mb


def run_child(argv: list[str], workdir: Path | None = None) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one child process (:func:`benchlib.measure`), which must succeed.

    ``workdir`` is no longer used (scripts/bench.py still passes it)."""
    sample = benchlib.measure(argv)
    return sample.wall, peak(sample)


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


def output(tool: str, encoding: str, n: int, workdir: Path) -> Path:
    return workdir / f"{tool}-{encoding}-{n}.cnf"


def measured(tool: str, encoding: str, n: int, workdir: Path, keep: bool = False) -> tuple[benchlib.Sample, Run]:
    """One run of ``tool`` writing the formula to a file: the sample and what it wrote (the file is removed
    unless ``keep``)."""
    path = output(tool, encoding, n, workdir)
    if tool == "gen-queens":
        argv = [*gen_queens_command(), str(n), "-e", encoding, "-o", str(path), "--no-comments"]
    else:
        argv = [sys.executable, "-c", PYSAT_SCRIPT, str(n), PYSAT_NAME[encoding], str(path)]
    sample = benchlib.measure(argv)
    v, c = p_line(path)
    size = path.stat().st_size / 1e6
    if not keep:
        path.unlink()
    return sample, Run(tool, encoding, n, sample.wall, peak(sample), v, c, size)


def measure(tool: str, encoding: str, n: int, workdir: Path, keep: bool = False) -> Run:
    """One run of ``tool`` (``gen-queens`` or ``pysat``) for ``encoding`` and ``n`` (scripts/bench.py)."""
    return measured(tool, encoding, n, workdir, keep)[1]


def case(tool: str, encoding: str, n: int, workdir: Path, into: list[Run], keep_first: bool) -> benchlib.Case:
    """A case of :func:`benchlib.side_by_side`; each run's ``Run`` goes to ``into``, the first one's file is kept
    when ``keep_first``."""

    def run() -> benchlib.Sample:
        sample, got = measured(tool, encoding, n, workdir, keep_first and not into)
        into.append(got)
        return sample

    return run


def compare(table: benchlib.Table, encoding: str, n: int, repeats: int, verify: bool, work: Path) -> bool | None:
    """gen-queens beside PySAT on one case, into ``table``: whether gen-queens was not slower, None when
    ``verify`` found different clauses."""
    got: dict[str, list[Run]] = {"gen-queens": [], "pysat": []}
    keep = verify and encoding == "pairwise"
    cases: dict[str, benchlib.Case] = {tool: case(tool, encoding, n, work, got[tool], keep) for tool in got}
    runs = benchlib.side_by_side(cases, repeats)
    note = ""
    if keep:
        files = [output(tool, encoding, n, work) for tool in got]
        same = clause_digest(files[0]) == clause_digest(files[1])
        for f in files:
            f.unlink()
        if not same:
            print(f"verify {encoding} N={n}: DIFFERENT clauses", flush=True)
            return None
        note = ", the same clauses (--verify)"
    ours, theirs = got["gen-queens"][0], got["pysat"][0]
    wall = {tool: runs[tool].wall for tool in got}
    top = {tool: max(peak(s) for s in runs[tool].samples) for tool in got}
    table.add(
        f"{encoding} N={n}: gen-queens wall",
        wall["gen-queens"],
        "s",
        reference=wall["pysat"],
        against="PySAT",
        goal="<= x1",
        note=f"{ours.num_vars:,} vars, {ours.num_clauses:,} clauses, {ours.size_mb:.1f} MB{note}",
    )
    differ = "" if theirs.num_clauses == ours.num_clauses else f"PySAT writes {theirs.num_clauses:,}"
    table.add(
        "  clauses/s",
        ours.num_clauses / wall["gen-queens"],
        "clauses/s",
        reference=theirs.num_clauses / wall["pysat"],
        against="PySAT",
        note=differ,
    )
    table.add("  peak RSS (largest of the runs)", top["gen-queens"], "MB", reference=top["pysat"], against="PySAT")
    return wall["gen-queens"] <= wall["pysat"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="small N (pairwise 60, sequential 200)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement; the median wall is reported")
    ap.add_argument("--verify", action="store_true", help="check that both pairwise files hold the same clauses")
    ap.add_argument("--workdir", type=Path, default=None, help="where the CNF files go (default: a temp dir)")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown (docs/performance.md)")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    cases = QUICK_CASES if args.quick else FULL_CASES
    table = benchlib.Table(
        f"gen-queens against PySAT, median of {args.repeat} side by side, each generator a "
        "fresh process writing a file (--no-comments)"
    )
    verdicts = []
    with tempfile.TemporaryDirectory(prefix="bench_gen.", dir=args.workdir) as tmp:
        for encoding, n in cases:
            verdict = compare(table, encoding, n, args.repeat, args.verify, Path(tmp))
            if verdict is None:
                return 1
            verdicts.append(verdict)
    table.print(markdown=args.markdown)
    return 0 if all(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
