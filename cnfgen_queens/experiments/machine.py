"""The machine a run ran on, read in the worker that runs it (a SLURM node, not the submitting host).

What a figure needs beside it to be compared with another (BenchExec's systeminfo records the same):
the CPU model, its physical and logical cores and maximum frequency, the memory, the kernel and its C
library, the Python, PySAT and cnfgen-queens versions (with the git commit when run from a checkout),
and whether runs here are measured in cgroups (v1 or v2, as :func:`..solvers.cgroup.choose` decides
for the runner: BenchExec's measurement; each run's ``measured_by`` says whether it used them).  Read
from ``/proc`` and ``/sys`` (Linux; elsewhere, what :mod:`platform` knows), once per process.  A
machine is stored once, under its :attr:`Machine.fingerprint` (a hash of these fields, not of the host
name: identical nodes of a cluster are one machine, ``host`` tells them apart); each run row names it
and the load average when the run started.
"""

from __future__ import annotations

import functools
import hashlib
import os
import platform
import sqlite3
import typing
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from ..bounds import json_value
from ..errors import printable
from ..solvers.cgroup import choose
from ..version import __version__
from .store import Row, Store, StoreError

PROC = Path("/proc")
SYS_CPU = Path("/sys/devices/system/cpu")
CHECKOUT = Path(__file__).resolve().parents[2]  # the repository, when the package runs from a checkout


SOFTWARE_OF_OURS = ("tool_version", "git_commit")  # recorded, but not what makes two machines differ


@dataclass(frozen=True)
class Machine:
    """One machine as the ``machines`` table stores it (None: not known here)."""

    cpu_model: str | None
    physical_cores: int | None
    logical_cores: int | None
    max_mhz: float | None
    memory_mb: int | None
    kernel: str
    libc: str | None
    python: str
    pysat: str | None
    tool_version: str
    git_commit: str | None  # run from a git checkout: its HEAD
    cgroups: bool  # runs here go into cgroups (v1 or v2) through BenchExec, as the runner decides

    @functools.cached_property
    def fingerprint(self) -> str:
        """16 hex digits of the SHA-256 of the fields: equal for two hosts of the same hardware and software."""
        text = "\n".join(f"{k}={v}" for k, v in sorted(asdict(self).items()))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def platform(self) -> tuple[Any, ...]:
        """The fields a measured time depends on: all but this tool's version and commit.  Runs of one box
        before and after a commit (or an upgrade of this tool) are one machine's to the comparison guard."""
        return tuple(v for k, v in asdict(self).items() if k not in SOFTWARE_OF_OURS)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Any) -> Machine:
        """The record back from the stored JSON (keys of a later version ignored, missing ones None); ValueError
        naming the field when it is not an object or a field holds another type than its own."""
        if not isinstance(d, dict):
            raise ValueError("not a JSON object")
        values: dict[str, Any] = {f.name: d.get(f.name) for f in fields(cls)}
        kinds = _kinds()
        for name, value in values.items():
            if value is not None and type(value) not in kinds[name]:  # bool is no int here, nor an int a bool
                shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
                raise ValueError(f"its {name} holds {shown}, not {' or '.join(k.__name__ for k in kinds[name])}")
        return cls(**values)

    def describe(self) -> str:
        """One line: ``AMD EPYC, 2 cores / 2 threads, 7.8 GB, kernel 6.1.0, glibc 2.36, Python 3.11.2, ...``."""
        cores = f"{self.physical_cores or '?'} cores / {self.logical_cores or '?'} threads"
        parts = [self.cpu_model or "unknown CPU", cores]
        if self.max_mhz:
            parts.append(f"{self.max_mhz / 1000:.1f} GHz")
        if self.memory_mb:
            parts.append(f"{self.memory_mb / 1024:.1f} GB")
        parts += [f"kernel {self.kernel}", self.libc or "libc ?"]
        parts += [f"Python {self.python}", f"PySAT {self.pysat or '?'}", f"cnfgen-queens {self.tool_version}"]
        if self.git_commit:
            parts.append(f"commit {self.git_commit[:10]}")
        return ", ".join(parts)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return None


def _cpuinfo() -> tuple[str | None, int | None]:
    """(model name, physical cores) from /proc/cpuinfo (its "cpu MHz" is the current speed: not a property)."""
    text = _read(PROC / "cpuinfo") or ""
    model, cores = None, set()
    package = core = ""
    for line in [*text.splitlines(), ""]:
        key, _, value = (s.strip() for s in line.partition(":"))
        if key in ("model name", "Processor", "cpu model") and model is None:
            model = value or None
        elif key == "physical id":
            package = value
        elif key == "core id":
            core = value
        elif not line.strip() and core:
            cores.add((package, core))
            package = core = ""
    return model, len(cores) or None


def _max_mhz() -> float | None:
    """The highest ``cpuinfo_max_freq`` of any CPU (kHz in sysfs); None where the kernel exposes no cpufreq."""
    best = 0
    for path in SYS_CPU.glob("cpu[0-9]*/cpufreq/cpuinfo_max_freq"):
        try:
            best = max(best, int((_read(path) or "0").strip()))
        except ValueError:
            continue
    return best / 1000 if best else None


def _memory_mb() -> int | None:
    for line in (_read(PROC / "meminfo") or "").splitlines():
        if line.startswith("MemTotal:"):
            try:
                return int(line.split()[1]) // 1024
            except (IndexError, ValueError):
                return None
    return None


def _git_commit() -> str | None:
    """HEAD of the checkout the package runs from (a worktree's ``.git`` file followed), without running git."""
    dot_git = CHECKOUT / ".git"
    if dot_git.is_file():  # a worktree: "gitdir: <path>"
        text = (_read(dot_git) or "").strip()
        dot_git = Path(text.removeprefix("gitdir:").strip()) if text.startswith("gitdir:") else dot_git
    head = (_read(dot_git / "HEAD") or "").strip()
    if not head.startswith("ref:"):
        return head or None
    ref = head.removeprefix("ref:").strip()
    for base in (dot_git, _common_dir(dot_git)):
        if (value := (_read(base / ref) or "").strip()) != "":
            return value
        for line in (_read(base / "packed-refs") or "").splitlines():
            if line.endswith(" " + ref):
                return line.split()[0]
    return None


def _common_dir(git_dir: Path) -> Path:
    text = (_read(git_dir / "commondir") or "").strip()
    return (git_dir / text).resolve() if text else git_dir


def _pysat() -> str | None:
    try:
        import pysat
    except ImportError:
        return None
    return str(getattr(pysat, "__version__", None) or "") or None


@functools.lru_cache(maxsize=1)
def this_machine() -> Machine:
    """This process's machine (read once per process: a worker reads it at its first run)."""
    model, physical = _cpuinfo()
    libc, version = platform.libc_ver()
    return Machine(
        cpu_model=model or platform.processor() or None,
        physical_cores=physical,
        logical_cores=os.cpu_count(),
        max_mhz=_max_mhz(),
        memory_mb=_memory_mb(),
        kernel=platform.release(),
        libc=f"{libc} {version}" if libc else None,
        python=platform.python_version(),
        pysat=_pysat(),
        tool_version=__version__,
        git_commit=_git_commit(),
        cgroups=choose("auto") == "cgroup",  # what the runner does: v1 (as root) counts as much as v2
    )


def load_average() -> float | None:
    """The 1-minute load average now (None where the system has none)."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def busy(rows: list[Row], machines: dict[str, Machine]) -> int:
    """How many runs started with the load average at or above their machine's logical cores."""
    return sum(
        1
        for r in rows
        if r.load_avg is not None
        and r.machine in machines
        and (cores := machines[r.machine].logical_cores)
        and r.load_avg >= cores
    )


@functools.cache
def _kinds() -> dict[str, tuple[type, ...]]:
    """The types each field of :class:`Machine` may hold besides None (a float field: an int too), from its hints."""
    out: dict[str, tuple[type, ...]] = {}
    for name, hint in typing.get_type_hints(Machine).items():
        base = next((t for t in typing.get_args(hint) if t is not type(None)), hint)
        out[name] = (int, float) if base is float else (base,)
    return out


def stored(path: Path | str) -> dict[str, Machine]:
    """The machines of a results database by fingerprint (none for a runs CSV or a file older than the table)."""
    if str(path).lower().endswith(".csv"):
        return {}
    with Store(path, readonly=True) as store:
        try:
            found = list(store.db.execute("SELECT fingerprint, info FROM machines ORDER BY fingerprint"))
        except sqlite3.OperationalError:  # written before the table
            return {}
    out = {}
    for fingerprint, info in found:
        try:
            out[fingerprint] = Machine.from_dict(json_value(info))
        except (ValueError, TypeError) as e:  # TypeError: info not text (an integer, a blob)
            raise StoreError(
                f"{path}: the machines table's record of {printable(repr(fingerprint)[:40])} is not "
                f"a machine as cnfgen-queens writes it ({printable(str(e))[:100]})"
            ) from None
    return out


def lines_of(rows: list[Row], machines: dict[str, Machine]) -> list[tuple[str, str, str, str, str]]:
    """(fingerprint, runs, hosts, load at the runs' start: median and max, description) of each machine
    the rows name, in fingerprint order."""
    by: dict[str, list[Row]] = {}
    for r in rows:
        if r.machine is not None:
            by.setdefault(r.machine, []).append(r)
    out = []
    for fingerprint, runs in sorted(by.items()):
        hosts = sorted({r.host or "?" for r in runs})
        loads = sorted(r.load_avg for r in runs if r.load_avg is not None)
        load = f"{loads[len(loads) // 2]:g}, {loads[-1]:g}" if loads else ""
        known = machines.get(fingerprint)
        described = known.describe() if known is not None else "(not in the machines table)"
        shown = ", ".join(hosts[:3]) + (f" and {len(hosts) - 3} more" if len(hosts) > 3 else "")
        shown, described = (printable(c).replace("|", "\\|") for c in (shown, described))  # from a file: one cell
        out.append((fingerprint, str(len(runs)), shown, load, described))
    return out


def section(rows: list[Row], machines: dict[str, Machine]) -> str:
    """The report's machines section (Markdown): each machine with its runs, hosts and load at the runs'
    start, then the lines of the table whose runs come from more than one machine.  Empty when no run
    names its machine (a store written before the column)."""
    found = lines_of(rows, machines)
    if not found:
        return ""
    unknown = sum(r.machine is None for r in rows)
    older = f" ({unknown} runs stored before machines were recorded)" if unknown else ""
    head = "| machine | runs | hosts | load at start (median, max) | description |"
    lines = [f"machines: {len(found)}{older}", "", head, "|---|--:|---|--:|---|"]
    lines += ["| " + " | ".join(line) + " |" for line in found]
    if loaded := busy(rows, machines):
        lines += [
            "",
            f"{loaded} of {len(rows)} runs started with the load average at or above their machine's "
            "cores: their times carry the other processes' load",
        ]
    if mixed := mixing(rows, machines):
        lines += ["", mixed_note(mixed)]
    return "\n".join(lines) + "\n"


def mixed_note(mixed: list[str]) -> str:
    return f"{len(mixed)} line(s) mix runs of more than one machine (their times are not one machine's): " + "; ".join(
        mixed
    )


def platform_names(machines: dict[str, Machine]) -> dict[str, str]:
    """Each machine's fingerprint -> the first fingerprint of its :attr:`Machine.platform`: what the comparison
    guard and the mixed-line note compare (a new commit of this tool is no new machine)."""
    first: dict[tuple[Any, ...], str] = {}
    for fingerprint, m in sorted(machines.items()):
        first.setdefault(m.platform, fingerprint)
    return {fingerprint: first[m.platform] for fingerprint, m in machines.items()}


def one_per_platform(rows: list[Row], machines: dict[str, Machine]) -> list[Row]:
    """``rows`` with each machine named by the first fingerprint of its platform (:func:`platform_names`)."""
    same = platform_names(machines)
    if all(k == v for k, v in same.items()):
        return rows
    return [replace(r, machine=same[r.machine]) if r.machine in same else r for r in rows]


def mixing(rows: list[Row], machines: dict[str, Machine]) -> list[str]:
    """The table's lines (task, solver, encoding) whose runs come from more than one machine."""
    seen: dict[tuple[str, str, str], set[str]] = {}
    for r in one_per_platform(rows, machines):
        if r.machine is not None:
            seen.setdefault((r.task, r.solver_label, r.encoding), set()).add(r.machine)
    return [
        f"{task} {solver} {encoding} ({len(m)} machines)"
        for (task, solver, encoding), m in sorted(seen.items())
        if len(m) > 1
    ]
