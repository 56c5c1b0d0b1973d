#!/usr/bin/env python3
"""Large N in enumerate and count: wall time and peak RSS of the refusals, the bounded runs and the legit use.

    python scripts/bench_large_n.py [--only refuse|bounded|legit] [--ulimit-kb KB] [--markdown]

Each command runs once under ``ulimit -v`` (default 4,000,000 KB, as the issue's reproducers were
measured; twice that for the legit runs, whose embedded CaDiCaL holds 3 GB), so a regression shows as
a crash here instead of an OOM kill of the machine, and is measured by scripts/benchlib.py: wall
seconds, the peak RSS of the command's own process (VmHWM; an external solver's own memory is its
child's and not counted there) and of the largest process of its tree (``ru_maxrss``).  Prints a
benchlib table, its last line of stderr beside each figure; exits 1 when a command's exit status is not
its group's.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib

REFUSE = [  # the four reproducers: refused before anything is built (exit 2)
    "count 1000 --jobs 2 --time-limit 5",
    "count 1000 --time-limit 5",
    "count 1000 --solver kissat --time-limit 5",
    "enumerate 1000 --limit 2 --time-limit 5",
]
BOUNDED = [  # reproducers 2-4 with --allow-large: end near the 5 s limit with the partial result (exit 1)
    "count 1000 --allow-large --time-limit 5",
    "count 1000 --solver kissat --allow-large --time-limit 5",
    "enumerate 1000 --limit 2 --allow-large --time-limit 5",
]
LEGIT = [  # large N that must keep working (exit 0): the first two solutions, embedded and external
    "enumerate 1000 -e sequential --limit 2",
    "enumerate 1000 -e sequential --limit 2 --solver kissat",
    "enumerate 1000 -e sequential --limit 2 --solver cadical",
]


def measure(command: str, ulimit_kb: int) -> tuple[benchlib.Sample, str]:
    """``cnfgen-queens command`` under ``ulimit -v ulimit_kb`` (exec'd by bash: the shell is the command's
    process), measured; and the last line it wrote to stderr."""
    cli = shlex.quote(str(benchlib.BIN / "cnfgen-queens"))
    line = f"ulimit -v {ulimit_kb}; exec {cli} {command} 2>&1 >/dev/null"  # stderr is what is captured
    with tempfile.TemporaryDirectory(prefix="bench-large-n-") as tmp:
        run = benchlib.measure(["bash", "-c", line], cwd=Path(tmp), capture=True, check=False)
    return run, (run.stdout.strip().splitlines()[-1:] or [""])[0]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    p.add_argument("--only", choices=("refuse", "bounded", "legit"))
    p.add_argument("--ulimit-kb", type=int, default=4_000_000)
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown (docs/counting.md)")
    args = p.parse_args(argv)
    kb = args.ulimit_kb
    groups = {"refuse": (REFUSE, 2, kb), "bounded": (BOUNDED, 1, kb), "legit": (LEGIT, 0, 2 * kb)}
    table = benchlib.Table(f"large N: cnfgen-queens under ulimit -v {kb} KB (legit: {2 * kb} KB)")
    unexpected = 0
    for name, (commands, want, limit) in groups.items():
        if args.only and name != args.only:
            continue
        for command in commands:
            run, said = measure(command, limit)
            wrong = "" if run.code == want else "UNEXPECTED "
            unexpected += bool(wrong)
            memory = f"{run.peak_mb:.0f} MB (tree {run.tree_peak_mb:.0f} MB)"
            table.add(
                f"{name}: {command}",
                run.wall,
                "s",
                goal=f"exit {want}",
                note=f"{wrong}exit {run.code}, {memory}; {said[:90]}",
            )
    table.print(markdown=args.markdown)
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
