#!/usr/bin/env python3
"""Ctrl-C during start-up (issue 11 leftover, issue 13): where a SIGINT lands, and start-up time.

For ``gen-queens 4`` and ``cnfgen-queens --version``: the median wall of 20 start-ups, then
SIGINT sent after 0..59 ms (``--runs`` processes), each classified by what the user sees:

- quiet: one line or nothing, exit 130 (our handler, from the package's first statement on);
- killed: exit by the signal without a word (it landed before Python installed its handler);
- python: a traceback (or "Fatal Python error") from before the package (site, the wrapper);
- first: a traceback from the package's own statements before the one that sets its handler
  (the same limit: Python runs a pending handler at a module's first instruction);
- ours: a traceback with any other frame of cnfgen_queens (the bug; expected 0);
- finished: the command ended first.

``--compare DIR``: the same for the package found in DIR (e.g. ``git archive REF cnfgen_queens |
tar -x -C DIR``), run alternately with this one, so the ratio is measured side by side.
"""

from __future__ import annotations

import argparse
import ast
import collections
import importlib.util
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent
COMMANDS = (("gen-queens", "4"), ("cnfgen-queens", "--version"))
KINDS = ("quiet", "killed", "python", "first", "ours", "finished")


def _env(tree: str | None) -> dict[str, str]:
    env = dict(os.environ)
    if tree:
        env["PYTHONPATH"] = tree
    return env


def start_up(argv: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
    return time.perf_counter() - t0


OUR_FRAME = re.compile(r'^\s*File "(?P<file>[^"]*/cnfgen_queens/[^"]*)", line (?P<line>\d+), in (?P<name>\S+)', re.M)


def handler_line(tree: str | None) -> int:
    """The line of the package's ``_signal.signal(..., quiet_exit)`` (the last a SIGINT can land on before
    the handler is set: ``signal.signal`` runs a pending handler first), in ``tree`` or the one installed."""
    spec = None if tree else importlib.util.find_spec("cnfgen_queens")
    origin = Path(tree, "cnfgen_queens", "__init__.py") if tree else Path(spec.origin if spec and spec.origin else "")
    calls = [
        node.lineno
        for node in ast.walk(ast.parse(origin.read_text()))
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "_signal.signal"
        and [ast.unparse(a) for a in node.args][1:] == ["quiet_exit"]
    ]  # fmt: skip
    assert len(calls) == 1, calls
    return calls[0]


def classify(argv: list[str], env: dict[str, str], delay: float, limit: int) -> str:
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate()
    frames = list(OUR_FRAME.finditer(err))
    first = [m["file"].endswith("/cnfgen_queens/__init__.py") and m["name"] == "<module>" and int(m["line"]) <= limit
             for m in frames]  # fmt: skip
    if not all(first):
        return "ours"
    if frames:
        return "first"
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
        limits = {name: handler_line(tree) for name, tree in trees.items()}
        for i in range(args.runs):
            for name, tree in trees.items():
                seen[name][classify(argv, _env(tree), (i % 60) / 1000, limits[name])] += 1
        print(f"{' '.join([script, *rest])}")
        for name in trees:
            median = statistics.median(times[name]) * 1000
            kinds = "  ".join(
                f"{k} {seen[name][k]}" for k in ("quiet", "killed", "python", "first", "ours", "finished")
            )
            print(f"  {name:<8} start-up median {median:6.1f} ms   SIGINT after 0-59 ms: {kinds}")
        if args.compare:
            ratio = statistics.median(times["this"]) / statistics.median(times["compare"])
            print(f"  start-up ratio this/compare: {ratio:.3f}")


if __name__ == "__main__":
    main()
