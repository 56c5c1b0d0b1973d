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

The C programs are compiled here when a compiler is present (else the table's title says so).  Timed by
scripts/benchlib.py: wall and CPU are the child's own (``wait4``), peak RSS its own (VmHWM; for ``solve``
the largest process of its tree), the ratios are of medians of runs taken in turns (``side_by_side``); each
part prints a benchlib table with the load average at its start and end.  ``--quick`` shrinks every case (a
smoke run, not the targets).  Run alone or as ``scripts/bench.py --only speed``.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib
from bench_gen import peak

BIN = benchlib.BIN
SCRIPTS = Path(__file__).resolve().parent


def to_file(argv: list[str], path: Path) -> list[str]:
    """``argv`` with its stdout to ``path``, through a shell that execs it: the same process, so ``wait4`` and
    the peak are the command's own."""
    return ["sh", "-c", 'f=$1; shift; exec "$@" > "$f"', "sh", str(path), *argv]


def removing(argv: list[str], path: Path) -> benchlib.Case:
    """A case of :func:`benchlib.side_by_side`: ``argv``, then its output ``path`` removed (each run writes anew)."""

    def run() -> benchlib.Sample:
        sample = benchlib.measure(argv)
        path.unlink(missing_ok=True)
        return sample

    return run


def top(run: benchlib.Repeated, tree: bool = False) -> float:
    """The largest peak RSS of the runs, MB: the command's own (VmHWM; see ``bench_gen.peak``), or with ``tree``
    the largest process of its tree (``ru_maxrss``: the tool or the solver it started)."""
    return max(s.tree_peak_mb if tree else peak(s) for s in run.samples)


def compiled(source: str, work: Path) -> Path | None:
    """scripts/SOURCE built with the C compiler, or None without one."""
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None:
        return None
    exe = work / Path(source).stem
    subprocess.run([cc, "-O2", "-o", str(exe), str(SCRIPTS / source)], check=True)
    return exe


def generator(table: benchlib.Table, quick: bool, work: Path, times: int) -> None:
    writer = compiled("cwriter.c", work)
    if writer is None:
        table.title += " (no C compiler, no reference)"
        return
    out = work / "gen.cnf"
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
            if mode == "-o":
                cases = {"gen": removing([*ours, "-o", str(out)], out), "c": removing([*theirs, "-o", str(out)], out)}
            else:
                cases = {"gen": removing(to_file(ours, out), out), "c": removing(to_file(theirs, out), out)}
            runs = benchlib.side_by_side(cases, times)
            g, c = runs["gen"], runs["c"]
            table.add(
                f"gen-queens {encoding} N={n}, {mode}",
                g.wall,
                "s",
                reference=c.wall,
                against="C writer",
                goal="<= x3",
                note=f"CPU {g.cpu:.2f} s, x{g.cpu / c.cpu:.2f} of C's; {'same bytes' if same else 'DIFFERENT bytes'}",
            )
            table.add("  gen-queens peak RSS", top(g), "MB", goal="<= 200 MB")  # (the C writer's is too brief to poll)


CHECK_ONLY = (
    "import sys, time\nfrom pathlib import Path\nfrom cnfgen_queens.cnf.scan import CnfFile, check_stream\n"
    "t = time.process_time(); check_stream(CnfFile(Path(sys.argv[1]), 'q'), None)\n"
    "print(time.process_time() - t)\n"
)


def runner_pass(table: benchlib.Table, quick: bool, work: Path, times: int) -> None:
    n = 120 if quick else 300
    cnf, blocks, merged = work / f"q{n}.cnf", work / "blocks.cnf", work / "merged.cnf"
    subprocess.run([str(BIN / "gen-queens"), str(n), "-o", str(cnf)], check=True)
    blocks.write_text(f"p cnf {n * n} 1\n-1 -{n + 2} 0\n")
    size = cnf.stat().st_size / 1e6
    subprocess.run(["cat", str(cnf)], stdout=subprocess.DEVNULL, check=True)  # in the page cache for all
    cq = str(BIN / "cnfgen-queens")
    seconds = [
        float(benchlib.measure([sys.executable, "-c", CHECK_ONLY, str(cnf)], capture=True).stdout) for _ in range(3)
    ]
    table.add(
        f"input check alone (check_stream), {size:.0f} MB",
        size / min(seconds),
        "MB/s",
        reference=173,
        against="before issue 33",
        note="of CPU, best of 3",
    )
    readonly = compiled("readonly.c", work)
    if readonly is None:
        table.title += " (no C compiler, no read-only solver)"
    else:
        runs = benchlib.side_by_side(
            {"solve": [cq, "solve", str(cnf), "--solver", str(readonly)], "alone": [str(readonly), str(cnf)]}, times
        )
        s, a = runs["solve"], runs["alone"]
        table.add(
            f"solve N={n} ({size:.0f} MB) --solver readonly",
            s.wall,
            "s",
            reference=a.wall,
            against="the solver alone",
            note=f"+{s.wall - a.wall:.2f} s beyond the solver; CPU {s.cpu:.2f} s "
            f"against {a.cpu:.2f} s; {top(s, tree=True):.0f} MB; median of {times}",
        )
    kissat = subprocess.run([cq, "solvers", "--path", "kissat"], capture_output=True, text=True).stdout.strip()
    if kissat:
        repeats = max(1, times // 2)
        runs = benchlib.side_by_side(
            {
                "solve": [cq, "solve", str(cnf), "--solver", "kissat", "--time-limit", "1"],
                "alone": [kissat, "--time=1", "-q", str(cnf)],
            },
            repeats,
        )
        s, a = runs["solve"], runs["alone"]
        table.add(
            f"solve N={n} --solver kissat --time-limit 1",
            s.wall,
            "s",
            reference=a.wall,
            against="kissat --time=1 alone",
            note=f"CPU {s.cpu:.2f} s against {a.cpu:.2f} s; median of {repeats}",
        )
    repeats = max(1, times // 2)
    runs = benchlib.side_by_side(
        {
            "merge": removing([cq, "merge", str(cnf), str(blocks), "-o", str(merged)], merged),
            "cat": removing(to_file(["cat", str(cnf), str(blocks)], merged), merged),
        },
        repeats,
    )
    m, c = runs["merge"], runs["cat"]
    table.add(
        f"merge N={n} + 1 clause -o",
        m.wall,
        "s",
        reference=c.wall,
        against="cat > file",
        note=f"CPU {m.cpu:.2f} s against {c.cpu:.2f} s; median of {repeats}",
    )
    st = benchlib.measure([cq, "stats", str(cnf), "--no-graph"])
    table.add(
        f"stats N={n} --no-graph",
        st.wall,
        "s",
        note=f"CPU {st.cpu:.2f} s, {st.tree_peak_mb:.0f} MB "
        "(the reader is one part: the GBD hash and the tallies are the rest)",
    )
    cnf.unlink()


def startup(table: benchlib.Table, work: Path, times: int) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env |= {"PYTHONPYCACHEPREFIX": str(work / "pyc"), "CNFGEN_QUEENS_CACHE_DIR": str(work / "cache")}
    cnf, answer = work / "q8.cnf", work / "q8.out"
    subprocess.run([str(BIN / "gen-queens"), "8", "-o", str(cnf)], check=True, env=env)
    answer.write_bytes(
        subprocess.run([str(BIN / "cnfgen-queens"), "solve", str(cnf)], capture_output=True, env=env).stdout
    )
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
    runs = benchlib.side_by_side(commands, times, env=env)
    base = runs["python -c pass"]
    for name, r in runs.items():
        if name != "python -c pass":
            table.add(
                f"start-up {name}",
                r.wall,
                "s",
                reference=base.wall,
                against="python -c pass",
                goal="<= x2",
                note=f"CPU {r.cpu * 1000:.1f} ms, x{r.cpu / base.cpu:.2f} of python -c pass's",
            )


def tables(quick: bool, work: Path) -> Iterator[benchlib.Table]:
    """The three parts' tables, each handed over when done."""
    times = 3 if quick else 5
    yield from benchlib.parts(
        "issue 33 speed",
        (
            ("start-up, median of 15", lambda t: startup(t, work, 15)),
            (f"the generator against C, median of {times}", lambda t: generator(t, quick, work, times)),
            (f"the runner's own pass, median of {times}", lambda t: runner_pass(t, quick, work, times)),
        ),
    )


def figures(quick: bool, work: Path) -> Iterator[str]:
    """The tables' lines (scripts/bench.py ``--only speed``)."""
    return benchlib.lines(tables(quick, work))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="small cases: a smoke run, not the targets")
    ap.add_argument("--markdown", action="store_true", help="print the tables as Markdown (docs/performance.md)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-speed.") as tmp:
        for table in tables(args.quick, Path(tmp)):
            table.print(markdown=args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
