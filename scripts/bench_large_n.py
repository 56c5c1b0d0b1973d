"""Large N in enumerate and count: wall time and peak RSS of the refusals, the bounded runs and the legit use.

    python scripts/bench_large_n.py [--only refuse|bounded|legit] [--ulimit-kb KB]

Each command runs under ``/usr/bin/time -f "%e %M"`` (wall seconds, peak RSS in KB of the
command's process; an external solver's own memory is its child's and not counted there) and
under ``ulimit -v`` (default 4,000,000 KB, as the issue's reproducers were measured; twice that
for the legit runs, whose embedded CaDiCaL holds 3 GB), so a regression shows as a crash here
instead of an OOM kill of the machine.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import tempfile

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


def measure(command: str, ulimit_kb: int) -> tuple[int, str, str]:
    """(exit status, wall seconds, peak RSS in MB) of ``cnfgen-queens command``."""
    with tempfile.TemporaryDirectory(prefix="bench-large-n-") as tmp:
        line = f'ulimit -v {ulimit_kb}; /usr/bin/time -o {tmp}/t -f "%e %M" cnfgen-queens {command} > /dev/null'
        done = subprocess.run(["bash", "-c", line], cwd=tmp, capture_output=True, text=True)
        with open(f"{tmp}/t") as f:
            fields = f.read().split()
    wall, kb = fields[-2], fields[-1]
    last = done.stderr.strip().splitlines()[-1:] or [""]
    print(f"{command:60s} exit {done.returncode}  {float(wall):7.1f} s  {int(kb) / 1024:7.0f} MB  {last[0][:90]}")
    return done.returncode, wall, kb


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    p.add_argument("--only", choices=("refuse", "bounded", "legit"))
    p.add_argument("--ulimit-kb", type=int, default=4_000_000)
    args = p.parse_args()
    kb = args.ulimit_kb
    groups = {"refuse": (REFUSE, 2, kb), "bounded": (BOUNDED, 1, kb), "legit": (LEGIT, 0, 2 * kb)}
    for name, (commands, want, limit) in groups.items():
        if args.only and name != args.only:
            continue
        print(f"-- {name} (expected exit {want}), ulimit -v {limit} KB")
        for command in commands:
            status, *_ = measure(command, limit)
            if status != want:
                print(f"   UNEXPECTED exit {status} for: cnfgen-queens {shlex.quote(command)}")


if __name__ == "__main__":
    main()
