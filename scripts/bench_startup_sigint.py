#!/usr/bin/env python3
"""Ctrl-C during start-up (issue 11 leftover, issue 13): where a SIGINT lands, and start-up time.

For ``gen-queens 4`` and ``cnfgen-queens --version``: the median wall of 20 start-ups, then
SIGINT sent after 0..59 ms (``--runs`` processes), each classified by what the user sees:

- quiet: one line or nothing, exit 130 (our handler, from the package's first statement on);
- killed: exit by the signal without a word (it landed before Python installed its handler);
- python: a traceback (or "Fatal Python error") from before the package (site, the wrapper);
- ours: a traceback with a frame of cnfgen_queens (the bug; expected 0);
- finished: the command ended first.

``--compare DIR``: the same for the package found in DIR (e.g. ``git archive REF cnfgen_queens |
tar -x -C DIR``), run alternately with this one, so the ratio is measured side by side.
"""

from __future__ import annotations

import argparse
import collections
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent
COMMANDS = (("gen-queens", "4"), ("cnfgen-queens", "--version"))


def _env(tree: str | None) -> dict[str, str]:
    env = dict(os.environ)
    if tree:
        env["PYTHONPATH"] = tree
    return env


def start_up(argv: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
    return time.perf_counter() - t0


def classify(argv: list[str], env: dict[str, str], delay: float) -> str:
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate()
    if any(line.lstrip().startswith("File ") and "/cnfgen_queens/" in line for line in err.splitlines()):
        return "ours"
    if "Traceback" in err or "Fatal Python error" in err:
        return "python"
    if proc.returncode == 130:
        return "quiet"
    if proc.returncode == -signal.SIGINT:
        return "killed"
    return "finished"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--runs", type=int, default=300, help="interrupted processes per command and tree")
    ap.add_argument("--compare", metavar="DIR", help="another cnfgen_queens tree to measure beside this one")
    args = ap.parse_args()
    trees = {"this": None, **({"compare": args.compare} if args.compare else {})}
    for script, *rest in COMMANDS:
        argv = [str(BIN / script), *rest]
        times: dict[str, list[float]] = {name: [] for name in trees}
        for _ in range(20):
            for name, tree in trees.items():
                times[name].append(start_up(argv, _env(tree)))
        seen: dict[str, collections.Counter[str]] = {name: collections.Counter() for name in trees}
        for i in range(args.runs):
            for name, tree in trees.items():
                seen[name][classify(argv, _env(tree), (i % 60) / 1000)] += 1
        print(f"{' '.join([script, *rest])}")
        for name in trees:
            median = statistics.median(times[name]) * 1000
            kinds = "  ".join(f"{k} {seen[name][k]}" for k in ("quiet", "killed", "python", "ours", "finished"))
            print(f"  {name:<8} start-up median {median:6.1f} ms   SIGINT after 0-59 ms: {kinds}")
        if args.compare:
            ratio = statistics.median(times["this"]) / statistics.median(times["compare"])
            print(f"  start-up ratio this/compare: {ratio:.3f}")


if __name__ == "__main__":
    main()
