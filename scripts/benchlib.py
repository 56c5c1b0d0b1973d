"""One way for the benchmark scripts to time, repeat, record the load and print (issue 33 item 6).

A figure is the median of K runs taken side by side: the cases of one comparison alternate within
each round (A B, B A, A B, ...), so a change of load during the run hits both sides alike and the
ratio holds even when the absolute times move.  The table records the load average at its start and
at its end, and prints each figure beside its reference and the ratio of the two::

    import benchlib

    table = benchlib.Table("start-up")
    runs = benchlib.side_by_side({"gen-queens 8": ["gen-queens", "8"], "floor": [sys.executable, "-c", "pass"]}, 15)
    table.add("gen-queens 8", runs["gen-queens 8"].wall, "s", reference=runs["floor"].wall,
              against="python -c pass", goal="<= 2x")
    table.print()               # or table.print(markdown=True) for docs/performance.md

``call(fn)`` and ``in_process(fn)`` time a function in this process the same way.
``measure(argv)`` runs one command and returns its wall time, the CPU time of it and every process it
waited for, its own peak memory (VmHWM, polled: the coordinator without its workers) and the peak of
the largest process in its tree (``ru_maxrss`` from ``wait4``).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

BIN = Path(sys.executable).parent  # the console scripts next to this interpreter (a PATH lookup may find a shim)


@dataclass(frozen=True)
class Sample:
    """One run of one command."""

    wall: float  # seconds
    cpu: float  # seconds of user + system time, the command and every process it waited for
    peak_mb: float  # the command's own peak resident memory (VmHWM, polled; 0 when it ended too soon to read)
    # the largest peak of any process of its tree (ru_maxrss of wait4; Linux counts in it the RSS the launching
    # process had when the command was exec'd, so launch benchmarks from a small process: a script, not a test)
    tree_peak_mb: float
    code: int  # exit status (negative: killed by that signal)
    stdout: str = ""  # what it printed, when asked for (capture=True)


@dataclass(frozen=True)
class Repeated:
    """K samples of one case; the figures are their medians."""

    samples: tuple[Sample, ...]

    @property
    def wall(self) -> float:
        return statistics.median(s.wall for s in self.samples)

    @property
    def cpu(self) -> float:
        return statistics.median(s.cpu for s in self.samples)

    @property
    def peak_mb(self) -> float:
        return statistics.median(s.peak_mb for s in self.samples)

    @property
    def tree_peak_mb(self) -> float:
        return statistics.median(s.tree_peak_mb for s in self.samples)


def load() -> float:
    """The load average of the last minute."""
    return os.getloadavg()[0]


def _vm_hwm_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            return max((int(line.split()[1]) for line in f if line.startswith("VmHWM:")), default=0)
    except (OSError, ValueError):
        return 0


def measure(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    capture: bool = False,
    check: bool = True,
    timeout: float | None = None,
    poll: float = 0.02,
    stdin: int | None = None,
) -> Sample:
    """Run ``argv`` once (stdin ``/dev/null`` unless a descriptor is given, stderr kept for the error
    message); see ``Sample``.

    With ``check`` a non-zero exit other than a SAT solver's 10 and 20 ends the benchmark with the
    command's stderr: a figure of a failed run is no figure."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL if stdin is None else stdin,
            stdout=out if capture else subprocess.DEVNULL,
            stderr=err,
            env=None if env is None else dict(env),
            cwd=cwd,
        )
        peak_kb, status, usage = 0, 0, None
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            peak_kb = max(peak_kb, _vm_hwm_kb(proc.pid))
            if timeout is not None and time.perf_counter() - start > timeout:
                proc.kill()
                _, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(poll)
        wall = time.perf_counter() - start
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode(errors="replace") if capture else ""
        if check and code not in (0, 10, 20):
            err.seek(0)
            said = err.read().decode(errors="replace").strip()[-400:]
            raise SystemExit(f"benchmark command failed (exit {code}): {' '.join(argv)}\n{said}")
    return Sample(wall, usage.ru_utime + usage.ru_stime, peak_kb / 1024, usage.ru_maxrss / 1024, code, text)


def call(fn: Callable[[], object]) -> Sample:
    """Run ``fn()`` once in this process: its wall time, the CPU time of this process and of the children
    it waited for meanwhile, this process's peak memory so far (``ru_maxrss``; a peak never goes down, so
    measure memory in a fresh process with :func:`measure` when it matters)."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    fn()
    wall = time.perf_counter() - start
    own2, children2 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = sum(
        getattr(after, f) - getattr(before, f)
        for before, after in ((own, own2), (children, children2))
        for f in ("ru_utime", "ru_stime")
    )
    return Sample(wall, cpu, own2.ru_maxrss / 1024, max(own2.ru_maxrss, children2.ru_maxrss) / 1024, 0)


def in_process(fn: Callable[[], object]) -> Callable[[], Sample]:
    """A case of :func:`side_by_side` that calls ``fn`` in this process (see :func:`call`)."""
    return lambda: call(fn)


Case = Sequence[str] | Callable[[], Sample]


def side_by_side(cases: Mapping[str, Case], repeats: int, **options: object) -> dict[str, Repeated]:
    """Each case ``repeats`` times, the cases alternating within each round and their order reversed
    every other round; a case is an argv (run by ``measure`` with ``options``) or a function that
    returns a ``Sample``."""
    names = list(cases)
    got: dict[str, list[Sample]] = {name: [] for name in names}
    for i in range(repeats):
        for name in names if i % 2 == 0 else reversed(names):
            case = cases[name]
            got[name].append(case() if callable(case) else measure(case, **options))  # type: ignore[arg-type]
    return {name: Repeated(tuple(samples)) for name, samples in got.items()}


def human(value: float, unit: str) -> str:
    """``value`` in ``unit`` with a precision that suits its size: 0.0123 s -> '12.3 ms'."""
    if unit == "s" and abs(value) < 0.9995:  # not "1e+03 ms"
        return f"{value * 1000:.3g} ms"
    if abs(value) >= 100:
        return f"{value:,.0f} {unit}".strip()
    return f"{value:.3g} {unit}".strip()


@dataclass
class Figure:
    """One line of a table: a measured value, what it is compared with, and the goal it is held to."""

    name: str
    value: float
    unit: str
    reference: float | None = None
    against: str = ""  # what the reference is ("python -c pass", "docs/performance.md, load 7", ...)
    goal: str = ""
    note: str = ""

    @property
    def ratio(self) -> float | None:
        return None if not self.reference else self.value / self.reference


@dataclass
class Table:
    """Figures of one run, with the load average at its start and at its end."""

    title: str
    figures: list[Figure] = field(default_factory=list)
    load_start: float = field(default_factory=load)
    started: float = field(default_factory=time.time)

    def add(self, name: str, value: float, unit: str, **more: object) -> Figure:
        figure = Figure(name, value, unit, **more)  # type: ignore[arg-type]
        self.figures.append(figure)
        return figure

    def rows(self) -> list[list[str]]:
        out = []
        for f in self.figures:
            reference = "" if f.reference is None else human(f.reference, f.unit)
            if f.against:
                reference = f"{reference} ({f.against})" if reference else f.against
            ratio = "" if f.ratio is None else f"x{f.ratio:.2f}"
            out.append([f.name, human(f.value, f.unit), reference, ratio, f.goal, f.note])
        return out

    def render(self, *, markdown: bool = False) -> str:
        head = ["figure", "value", "reference", "ratio", "goal", "note"]
        rows = self.rows()
        keep = [i for i in range(len(head)) if i < 2 or any(r[i] for r in rows)]
        head, rows = [head[i] for i in keep], [[r[i] for i in keep] for r in rows]
        footer = (
            f"{self.title}: python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
            f"{self.load_start:.2f} at the start, {load():.2f} at the end, {time.time() - self.started:.0f} s"
        )
        if markdown:
            lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
            lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in r) + " |" for r in rows]
            return "\n".join([*lines, "", footer])
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
        lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in [head, *rows]]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join([*lines, footer])

    def print(self, *, markdown: bool = False) -> None:
        print(self.render(markdown=markdown), flush=True)


Part = tuple[str, Callable[[Table], None]]


def parts(title: str, each: Sequence[Part]) -> Iterator[Table]:
    """A table per ``(name, fill)`` part, titled ``title: name``, each handed over as soon as it is filled."""
    for name, fill in each:
        table = Table(f"{title}: {name}")
        fill(table)
        yield table


def lines(tables: Iterable[Table]) -> Iterator[str]:
    """The tables' rendered lines, one table after the other (for scripts/bench.py's one run)."""
    for table in tables:
        yield from table.render().splitlines()
