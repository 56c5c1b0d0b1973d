#!/usr/bin/env python3
"""What a shell loop pays per ``solve``: the median wall of ``cnfgen-queens solve`` on a one-clause CNF with
minisat and kissat, and ``scripts/enumerate.sh 8`` (kissat), for this tree and for ``--before REF`` (default
``main``, unpacked with ``git archive``) side by side in one run, alternating, each a fresh process.

``--threshold`` also prints where numpy starts to pay in the model check: ``check_stream`` of pairwise CNFs
of growing size in a fresh process, through the pure-Python path and through numpy (its import included,
the interpreter's start-up not: the child's own clock).

Medians of runs side by side (scripts/benchlib.py); prints a benchlib table (``--markdown``: for
docs/performance.md), each figure of this tree beside the same of ``--before``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib

ROOT = Path(__file__).resolve().parent.parent
BIN = benchlib.BIN

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
    return dict(
        os.environ,
        PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}",
        PYTHONPATH=str(tree),
        CNFGEN_QUEENS_CACHE_DIR=str(cache),
    )


def timed(argv: list[str], environ: dict[str, str], codes: tuple[int, ...] = (0,)) -> Callable[[], benchlib.Sample]:
    """A case of benchlib.side_by_side: ``argv`` once; the benchmark ends on an exit status not in ``codes``."""

    def case() -> benchlib.Sample:
        run = benchlib.measure(argv, env=environ, cwd=ROOT)
        if run.code not in codes:
            raise SystemExit(f"{' '.join(argv[:4])} failed ({run.code})")
        return run

    return case


def own_clock(argv: list[str], environ: dict[str, str]) -> benchlib.Sample:
    """``argv`` once, its wall the seconds the child printed (THRESHOLD's clock: the check, not the start-up)."""
    run = benchlib.measure(argv, env=environ, capture=True)
    return dataclasses.replace(run, wall=float(run.stdout))


def unpack(ref: str, into: Path) -> Path:
    """The package as it is at ``ref`` (git archive), to run beside this tree."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "cnfgen_queens"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def main(argv: list[str] | None = None) -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=formatter)
    ap.add_argument("--before", default="main", help="the git ref to compare with (default: main)")
    ap.add_argument("--repeat", type=int, default=9, help="runs of each solve figure (median; default 9)")
    ap.add_argument("--loops", type=int, default=1, help="runs of enumerate.sh 8 each (median; default 1; 0: none)")
    ap.add_argument("--threshold", action="store_true", help="also time the pure-Python and numpy checks by size")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown (docs/performance.md)")
    args = ap.parse_args(argv)
    table = benchlib.Table(f"solve in a shell loop: this tree against {args.before}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        before = work / "before"
        before.mkdir()
        trees = {"before": unpack(args.before, before), "after": ROOT}
        cnf = work / "q1.cnf"
        cnf.write_text("p cnf 1 1\n1 0\n")
        envs = {k: env(tree, work / f"cache-{k}") for k, tree in trees.items()}
        cq = str(BIN / "cnfgen-queens")
        for solver in ("minisat", "kissat"):
            argv = [cq, "solve", str(cnf), "--solver", solver, "--isolation", "none"]
            cases = {k: timed(argv, envs[k], (10,)) for k in trees}
            first = {k: case() for k, case in cases.items()}  # the after tree's cache is empty here
            runs = benchlib.side_by_side(cases, args.repeat)
            table.add(
                f"solve q1.cnf --solver {solver}",
                runs["after"].wall,
                "s",
                reference=runs["before"].wall,
                against=args.before,
                note=f"median of {args.repeat}; first run, cache empty: {first['after'].wall:.3f} s",
            )
        if args.loops:
            loop = [str(ROOT / "scripts" / "enumerate.sh"), "8"]
            runs = benchlib.side_by_side({k: timed(["bash", *loop], envs[k]) for k in trees}, args.loops)
            table.add(
                "scripts/enumerate.sh 8 (kissat; no solve inside)",
                runs["after"].wall,
                "s",
                reference=runs["before"].wall,
                against=args.before,
                note=f"median of {args.loops}",
            )
        if args.threshold:
            for n in (8, 20, 40, 80):
                path = work / f"q{n}.cnf"
                subprocess.run([str(BIN / "gen-queens"), str(n), "-o", str(path)], check=True, env=envs["after"])
                check = [sys.executable, "-c", THRESHOLD, str(path)]
                small = {"pure": str(path.stat().st_size), "numpy": "0"}  # the size up to which the check is pure
                runs = benchlib.side_by_side(
                    {k: partial(own_clock, [*check, v], envs["after"]) for k, v in small.items()}, 3
                )
                table.add(
                    f"check_stream pairwise N={n} ({path.stat().st_size / 1e6:.2f} MB), numpy (import included)",
                    runs["numpy"].wall,
                    "s",
                    reference=runs["pure"].wall,
                    against="pure Python",
                    note="median of 3",
                )
    table.print(markdown=args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
