#!/usr/bin/env python3
"""What a shell loop pays per ``solve``: the median wall of ``cnfgen-queens solve`` on a one-clause CNF with
minisat and kissat, and ``scripts/enumerate.sh 8`` (kissat), for this tree and for ``--before REF`` (default
``main``, unpacked with ``git archive``) side by side in one run, alternating, each a fresh process.

``--threshold`` also prints where numpy starts to pay in the model check: ``check_stream`` of pairwise CNFs
of growing size in a fresh process, through the pure-Python path and through numpy (its import included).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

THRESHOLD = """
import sys, time
from pathlib import Path
start = time.perf_counter()
from cnfgen_queens.cnf.scan import CnfFile, check_stream
path = Path(sys.argv[1])
check_stream(CnfFile(path, str(path)), None, small=int(sys.argv[2]))
print(time.perf_counter() - start)
"""


def env(tree: Path, cache: Path) -> dict[str, str]:
    return dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}", PYTHONPATH=str(tree),
                CNFGEN_QUEENS_CACHE_DIR=str(cache))  # fmt: skip


def timed(argv: list[str], environ: dict[str, str], codes: tuple[int, ...] = (0,)) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=environ, cwd=ROOT)
    wall = time.perf_counter() - start
    if proc.returncode not in codes:
        raise SystemExit(f"{' '.join(argv[:4])} failed ({proc.returncode}): {proc.stderr.strip()[-300:]}")
    return wall


def unpack(ref: str, into: Path) -> Path:
    """The package as it is at ``ref`` (git archive), to run beside this tree."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "cnfgen_queens"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=formatter)
    ap.add_argument("--before", default="main", help="the git ref to compare with (default: main)")
    ap.add_argument("--repeat", type=int, default=9, help="runs of each solve figure (median; default 9)")
    ap.add_argument("--loops", type=int, default=1, help="runs of enumerate.sh 8 each (median; default 1)")
    ap.add_argument("--threshold", action="store_true", help="also time the pure-Python and numpy checks by size")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        before = work / "before"
        before.mkdir()
        trees = {"before": unpack(args.before, before), "after": ROOT}
        cnf = work / "q1.cnf"
        cnf.write_text("p cnf 1 1\n1 0\n")
        envs = {k: env(tree, work / f"cache-{k}") for k, tree in trees.items()}
        cq = str(BIN / "cnfgen-queens")
        print(f"load average {os.getloadavg()[0]:.2f}; before = {args.before}, after = this tree; "
              f"median of {args.repeat} (enumerate.sh: {args.loops})")  # fmt: skip
        for solver in ("minisat", "kissat"):
            argv = [cq, "solve", str(cnf), "--solver", solver, "--isolation", "none"]
            walls: dict[str, list[float]] = {k: [] for k in trees}
            first = {k: timed(argv, envs[k], (10,)) for k in trees}  # the after tree's cache is empty here
            for _ in range(args.repeat):
                for k in trees:
                    walls[k].append(timed(argv, envs[k], (10,)))
            b, a = statistics.median(walls["before"]), statistics.median(walls["after"])
            print(f"solve q1.cnf --solver {solver}: before {b:.3f} s, after {a:.3f} s (first run, cache empty: "
                  f"{first['after']:.3f} s): x{b / a:.2f}")  # fmt: skip
        loop: dict[str, list[float]] = {k: [] for k in trees}
        for _ in range(args.loops):
            for k in trees:
                loop[k].append(timed(["bash", str(ROOT / "scripts" / "enumerate.sh"), "8"], envs[k]))
        b, a = statistics.median(loop["before"]), statistics.median(loop["after"])
        print(f"scripts/enumerate.sh 8 (kissat; no solve inside): before {b:.2f} s, after {a:.2f} s")
        if args.threshold:
            for n in (8, 20, 40, 80):
                path = work / f"q{n}.cnf"
                subprocess.run([str(BIN / "gen-queens"), str(n), "-o", str(path)], check=True, env=envs["after"])
                pure, chunks = ([float(subprocess.run([sys.executable, "-c", THRESHOLD, str(path), str(small)],
                                 capture_output=True, text=True, check=True, env=envs["after"]).stdout)
                                 for _ in range(3)] for small in (path.stat().st_size, 0))  # fmt: skip
                print(
                    f"check_stream pairwise N={n} ({path.stat().st_size / 1e6:.2f} MB): pure Python "
                    f"{statistics.median(pure):.3f} s, numpy (import included) {statistics.median(chunks):.3f} s"
                )


if __name__ == "__main__":
    main()
