#!/usr/bin/env python3
"""Ctrl-C during start-up (issue 11 leftover, issue 13): where a SIGINT lands, and start-up time.

For ``gen-queens 4`` and ``cnfgen-queens --version``: the median wall of ``--repeat`` (20) start-ups
(scripts/benchlib.py), then SIGINT sent after 0..59 ms (``--runs`` processes), each classified by what the
user sees:

- quiet: one line or nothing, exit 130 (our handler, from the package's first statement on);
- killed: exit by the signal without a word (it landed before Python installed its handler);
- python: a traceback (or "Fatal Python error") from before the package (site, the wrapper);
- first: a traceback from the package's own statements before the one that sets its handler
  (the same limit: Python runs a pending handler at a module's first instruction);
- ours: a traceback with any other frame of cnfgen_queens (the bug; expected 0);
- finished: the command ended first.

A benchlib table prints, for each command and tree, the start-up time and the rate of SIGINTs that gave a
traceback (python + first + ours, the counts of every kind in its note) and the rate of ``ours`` (goal 0).

``--compare DIR``: the same for the package found in DIR (e.g. ``git archive REF cnfgen_queens |
tar -x -C DIR``), run alternately with this one (``benchlib.side_by_side``), so the ratio is measured side
by side: this tree's figures are printed against DIR's.
"""

from __future__ import annotations

import argparse
import ast
import collections
import importlib.util
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib

BIN = benchlib.BIN
COMMANDS = (("gen-queens", "4"), ("cnfgen-queens", "--version"))
KINDS = ("quiet", "killed", "python", "first", "ours", "finished")


def _env(tree: str | None) -> dict[str, str]:
    env = dict(os.environ)
    if tree:
        env["PYTHONPATH"] = tree
    return env


def start_up(argv: list[str], env: dict[str, str]) -> benchlib.Case:
    """A case of :func:`benchlib.side_by_side`: one start-up of ``argv`` with ``env`` (it must succeed)."""
    return lambda: benchlib.measure(argv, env=env)


OUR_FRAME = re.compile(r'^\s*File "(?P<file>[^"]*/cnfgen_queens/[^"]*)", line (?P<line>\d+), in (?P<name>\S+)', re.M)


def handler_line(tree: str | None) -> int:
    """The line of the package's ``_signal.signal(..., quiet_exit)`` (the last a SIGINT can land on before
    the handler is set: ``signal.signal`` runs a pending handler first), in ``tree`` or the one installed."""
    spec = None if tree else importlib.util.find_spec("cnfgen_queens")
    origin = Path(tree, "cnfgen_queens", "__init__.py") if tree else Path(spec.origin if spec and spec.origin else "")
    calls = [
        node.lineno
        for node in ast.walk(ast.parse(origin.read_text()))
        if isinstance(node, ast.Call)
        and ast.unparse(node.func) == "_signal.signal"
        and [ast.unparse(a) for a in node.args][1:] == ["quiet_exit"]
    ]
    assert len(calls) == 1, calls
    return calls[0]


def classify(argv: list[str], env: dict[str, str], delay: float, limit: int) -> str:
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate()
    frames = list(OUR_FRAME.finditer(err))
    first = [
        m["file"].endswith("/cnfgen_queens/__init__.py") and m["name"] == "<module>" and int(m["line"]) <= limit
        for m in frames
    ]
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--runs", type=int, default=300, help="interrupted processes per command and tree")
    ap.add_argument("--repeat", type=int, default=20, help="start-ups per command and tree (the median is shown)")
    ap.add_argument("--compare", metavar="DIR", help="another cnfgen_queens tree to measure beside this one")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = ap.parse_args(argv)
    if args.runs < 1 or args.repeat < 1:
        ap.error("--runs and --repeat must be at least 1")
    trees = {"this": None, **({"compare": args.compare} if args.compare else {})}
    table = benchlib.Table(
        f"Ctrl-C during start-up: start-up median of {args.repeat}, then {args.runs} SIGINTs "
        "after 0-59 ms, per command and tree"
    )
    for script, *rest in COMMANDS:
        argv = [str(BIN / script), *rest]
        times = benchlib.side_by_side({name: start_up(argv, _env(tree)) for name, tree in trees.items()}, args.repeat)
        seen: dict[str, collections.Counter[str]] = {name: collections.Counter() for name in trees}
        limits = {name: handler_line(tree) for name, tree in trees.items()}
        for i in range(args.runs):
            for name, tree in trees.items():
                seen[name][classify(argv, _env(tree), (i % 60) / 1000, limits[name])] += 1
        rate = {name: 100 * sum(seen[name][k] for k in ("python", "first", "ours")) / args.runs for name in trees}
        for name in trees:
            beside = bool(args.compare) and name == "this"  # this tree's figures against the other's
            against = "the --compare tree" if beside else ""
            table.add(
                f"{' '.join([script, *rest])} ({name}): start-up",
                times[name].wall,
                "s",
                reference=times["compare"].wall if beside else None,
                against=against,
            )
            table.add(
                "  SIGINT gave a traceback (python, first, ours)",
                rate[name],
                "%",
                reference=rate["compare"] if beside else None,
                against=against,
                note="  ".join(f"{k} {seen[name][k]}" for k in KINDS) + f" of {args.runs}",
            )
            table.add(
                "  SIGINT gave a traceback of ours (the bug)", 100 * seen[name]["ours"] / args.runs, "%", goal="0 %"
            )
    table.print(markdown=args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
