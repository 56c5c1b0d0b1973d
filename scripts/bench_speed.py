#!/usr/bin/env python3
"""Issue 33's figures for the generator, the runner's own pass and start-up, each beside its reference in one run.

1. The runner's own pass: ``cnfgen-queens solve CNF --solver readonly`` against that solver alone
   (scripts/readonly.c reads the file and answers ``s UNKNOWN``), on the N = 300 pairwise CNF (708 MB);
   ``solve --solver kissat --time-limit 1`` against ``kissat --time=1``; ``merge`` against ``cat``;
   ``stats --no-graph`` (the reader is one part of it); the input check alone in MB/s of CPU.
2. The generator: ``gen-queens N --no-comments`` for pairwise N = 200 and sequential N = 1000, to stdout and
   with ``-o``, against the same bytes from scripts/cwriter.c (wall, CPU, peak RSS; target 3x, 200 MB).
3. Start-up: ``gen-queens 8``, ``decode``, ``block`` and ``solve --help`` against ``python -c pass``
   (median of 15, side by side, bytecode cached; target 2x).

The C programs are compiled here when a compiler is present (else those rows say so).  Wall and CPU are the
child's own (``wait4``), the ratios are of medians of runs taken in turns; the load average is printed
before and after.  ``--quick`` shrinks every case (a smoke run, not the targets).  Run alone or as
``scripts/bench.py --only speed``.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

BIN = Path(sys.executable).parent
SCRIPTS = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Run:
    wall: float
    cpu: float
    peak_mb: float
    code: int


def measure(argv: list[str], stdout: Path | None = None, env: dict[str, str] | None = None) -> Run:
    """One run of ``argv`` (stdout to ``stdout``, else discarded): its own wall, CPU and peak RSS."""
    with open(stdout or os.devnull, "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode)


def side_by_side(
    pairs: dict[str, tuple[list[str], Path | None]], times: int, env: dict[str, str] | None = None
) -> dict[str, list[Run]]:
    """Each command ``times`` times, in turns (the order reversed every other round, so load hits all alike)."""
    runs: dict[str, list[Run]] = {name: [] for name in pairs}
    names = list(pairs)
    for i in range(times):
        for name in names if i % 2 == 0 else names[::-1]:
            argv, out = pairs[name]
            runs[name].append(measure(argv, out, env))
            if out is not None and out.exists():
                out.unlink()
    return runs


def med(runs: list[Run], what: str) -> float:
    return statistics.median(getattr(r, what) for r in runs)


def compiled(source: str, work: Path) -> Path | None:
    """scripts/SOURCE built with the C compiler, or None without one."""
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None:
        return None
    exe = work / Path(source).stem
    subprocess.run([cc, "-O2", "-o", str(exe), str(SCRIPTS / source)], check=True)
    return exe


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def generator(quick: bool, work: Path, times: int) -> list[str]:
    writer = compiled("cwriter.c", work)
    if writer is None:
        return ["generator: no C compiler, no reference"]
    out = work / "gen.cnf"
    lines = []
    for encoding, n in (("pairwise", 60), ("sequential", 300)) if quick else (("pairwise", 200), ("sequential", 1000)):
        ours = [str(BIN / "gen-queens"), str(n), "-e", encoding, "--no-comments"]
        theirs = [str(writer), encoding, str(n)]
        reference = work / "c.cnf"
        subprocess.run([*ours, "-o", str(out)], check=True)
        subprocess.run([*theirs, "-o", str(reference)], check=True)
        same = filecmp.cmp(out, reference, shallow=False)  # (in pieces: this process stays small, so the
        out.unlink()  # children's peak RSS, which counts what they were forked with, is their own)
        reference.unlink()
        for mode in ("stdout", "-o"):
            before = load()
            to = ["-o", str(out)] if mode == "-o" else []
            sink = out if mode == "stdout" else None
            runs = side_by_side({"gen": ([*ours, *to], sink), "c": ([*theirs, *to], sink)}, times)
            g, c = runs["gen"], runs["c"]
            lines.append(
                f"generator {encoding} N={n} {mode:6}: gen-queens {med(g, 'wall'):.2f} s wall {med(g, 'cpu'):.2f} s "
                f"CPU {max(r.peak_mb for r in g):.0f} MB | C writer {med(c, 'wall'):.2f} s {med(c, 'cpu'):.2f} s | "
                f"x{med(g, 'wall') / med(c, 'wall'):.2f} wall x{med(g, 'cpu') / med(c, 'cpu'):.2f} CPU (target 3) "
                f"| same bytes: {same} | median of {times}, load {before}-{load()}"
            )
    return lines


CHECK_ONLY = (
    "import sys, time\nfrom pathlib import Path\nfrom cnfgen_queens.cnf.scan import CnfFile, check_stream\n"
    "t = time.process_time(); check_stream(CnfFile(Path(sys.argv[1]), 'q'), None)\n"
    "print(time.process_time() - t)\n"
)


def runner_pass(quick: bool, work: Path, times: int) -> list[str]:
    n = 120 if quick else 300
    cnf, blocks, merged = work / f"q{n}.cnf", work / "blocks.cnf", work / "merged.cnf"
    subprocess.run([str(BIN / "gen-queens"), str(n), "-o", str(cnf)], check=True)
    blocks.write_text(f"p cnf {n * n} 1\n-1 -{n + 2} 0\n")
    size = cnf.stat().st_size / 1e6
    subprocess.run(["cat", str(cnf)], stdout=subprocess.DEVNULL, check=True)  # in the page cache for all
    cq = str(BIN / "cnfgen-queens")
    lines = []
    seconds = [float(subprocess.run([sys.executable, "-c", CHECK_ONLY, str(cnf)], capture_output=True, text=True,
                                    check=True).stdout) for _ in range(3)]  # fmt: skip
    lines.append(f"input check alone (check_stream) on {size:.0f} MB: {size / min(seconds):.0f} MB/s of CPU "
                 f"(best of 3; 173 MB/s before issue 33)")  # fmt: skip
    readonly = compiled("readonly.c", work)
    if readonly is None:
        lines.append("runner's pass: no C compiler, no read-only solver")
    else:
        before = load()
        runs = side_by_side({"solve": ([cq, "solve", str(cnf), "--solver", str(readonly)], None),
                             "alone": ([str(readonly), str(cnf)], None)}, times)  # fmt: skip
        s, a = runs["solve"], runs["alone"]
        lines.append(
            f"solve N={n} ({size:.0f} MB) --solver readonly: {med(s, 'wall'):.2f} s wall {med(s, 'cpu'):.2f} s CPU "
            f"{max(r.peak_mb for r in s):.0f} MB | the solver alone {med(a, 'wall'):.2f} s {med(a, 'cpu'):.2f} s | "
            f"beyond the solver +{med(s, 'wall') - med(a, 'wall'):.2f} s wall | median of {times}, "
            f"load {before}-{load()}"
        )
    kissat = subprocess.run([cq, "solvers", "--path", "kissat"], capture_output=True, text=True).stdout.strip()
    if kissat:
        before = load()
        runs = side_by_side({"solve": ([cq, "solve", str(cnf), "--solver", "kissat", "--time-limit", "1"], None),
                             "alone": ([kissat, "--time=1", "-q", str(cnf)], None)}, max(1, times // 2))  # fmt: skip
        s, a = runs["solve"], runs["alone"]
        lines.append(f"solve N={n} --solver kissat --time-limit 1: {med(s, 'wall'):.2f} s wall {med(s, 'cpu'):.2f} s "
                     f"CPU | kissat --time=1 alone {med(a, 'wall'):.2f} s {med(a, 'cpu'):.2f} s | "
                     f"load {before}-{load()}")  # fmt: skip
    before = load()
    runs = side_by_side({"merge": ([cq, "merge", str(cnf), str(blocks), "-o", str(merged)], None),
                         "cat": (["cat", str(cnf), str(blocks)], merged)}, max(1, times // 2))  # fmt: skip
    m, c = runs["merge"], runs["cat"]
    lines.append(f"merge N={n} + 1 clause -o: {med(m, 'wall'):.2f} s wall {med(m, 'cpu'):.2f} s CPU | cat > file "
                 f"{med(c, 'wall'):.2f} s {med(c, 'cpu'):.2f} s | load {before}-{load()}")  # fmt: skip
    if merged.exists():
        merged.unlink()
    st = measure([cq, "stats", str(cnf), "--no-graph"])
    lines.append(f"stats N={n} --no-graph: {st.wall:.2f} s wall {st.cpu:.2f} s CPU {st.peak_mb:.0f} MB (the reader is "
                 f"one part: the GBD hash and the tallies are the rest) | load {load()}")  # fmt: skip
    cnf.unlink()
    return lines


def startup(work: Path, times: int) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env |= {"PYTHONPYCACHEPREFIX": str(work / "pyc"), "CNFGEN_QUEENS_CACHE_DIR": str(work / "cache")}
    cnf, answer = work / "q8.cnf", work / "q8.out"
    subprocess.run([str(BIN / "gen-queens"), "8", "-o", str(cnf)], check=True, env=env)
    answer.write_bytes(subprocess.run([str(BIN / "cnfgen-queens"), "solve", str(cnf)], capture_output=True,
                                      env=env).stdout)  # fmt: skip
    cq = str(BIN / "cnfgen-queens")
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "gen-queens 8": [str(BIN / "gen-queens"), "8"],
        "decode": [cq, "decode", str(answer), "-n", "8"],
        "block": [cq, "block", str(answer), "-n", "8"],
        "solve --help": [cq, "solve", "--help"],
    }
    for argv in commands.values():  # bytecode written, the help kept: what every later start finds
        subprocess.run(argv, env=env, capture_output=True, check=True)
    before = load()
    runs = side_by_side({name: (argv, None) for name, argv in commands.items()}, times, env)
    base_wall, base_cpu = med(runs["python -c pass"], "wall"), med(runs["python -c pass"], "cpu")
    return [f"start-up {name}: {med(r, 'wall') * 1000:.1f} ms wall {med(r, 'cpu') * 1000:.1f} ms CPU | "
            f"x{med(r, 'wall') / base_wall:.2f} wall x{med(r, 'cpu') / base_cpu:.2f} CPU of python -c pass "
            f"(target 2) | median of {times}, load {before}-{load()}"
            for name, r in runs.items() if name != "python -c pass"]  # fmt: skip


def figures(quick: bool, work: Path) -> list[str]:
    lines = [f"issue 33 figures, load average {load()} at the start"]
    lines += startup(work, 15)
    lines += generator(quick, work, 3 if quick else 5)
    lines += runner_pass(quick, work, 3 if quick else 5)
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="small cases: a smoke run, not the targets")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-speed.") as tmp:
        for line in figures(args.quick, Path(tmp)):
            print(line, flush=True)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load()} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
