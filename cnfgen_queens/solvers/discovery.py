"""Finding solvers: PATH, the kissat binary inside the passagemath-kissat wheel, explicit paths.

``resolve(name)`` gives a :class:`SolverSpec` or raises :class:`SolverNotFound` with a
one-line message naming the solver and how to install it.  Versions come from the
solver's own ``--version`` (run as a solver is, under :func:`.process.run_process`: its own
process group, swept when it ends, killed after a timeout), else from the Debian package that
owns the binary; an answer is kept across runs (:mod:`.version_cache`).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import sysconfig
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from ..cnf.atomic import work_dir
from ..limits import NEVER, Deadline, Limits
from .process import run_process
from .profiles import BUILTIN, DEFAULT_SOLVER, EMBEDDED_PREFIX, Profile, ProfileSource, all_profiles, generic
from .version_cache import cache_key, cached_version, remember_version

VERSION_TIMEOUT = 5.0
PROBE_OUTPUT_MB = 1  # a version probe that prints more is cut off
PROBE_LIMITS = Limits(output=PROBE_OUTPUT_MB, isolation="none")
SYSTEM_DIRS = ("/usr/", "/bin/", "/sbin/", "/lib", "/opt/")  # where Debian packages put binaries
_VERSION = re.compile(r"\d+(?:\.\d+)+[\w.+~-]*")


class SolverNotFound(LookupError):
    """A solver that is not installed or not known; the message is one line.  Not known (a name that is no
    profile, not on PATH, not pysat:NAME; a path to no executable) is the user's to fix: exit 2."""


class SolverMissing(SolverNotFound, OSError):
    """A known solver (a profile, a pysat: name) that is not installed here: the environment, exit 1 (an
    OSError, as every environment failure)."""


INSTALL_SCRIPT_SOLVERS = frozenset(name for name, p in BUILTIN.items() if p.install_script)
"""The profiles ``scripts/install-solvers.sh`` installs (their ``install_script``; tests/solvers/test_exit_rules.py
reads the script)."""


@dataclass(frozen=True)
class SolverSpec:
    """A resolved solver: its profile and binary, or an embedded pysat solver (path None)."""

    name: str
    profile: Profile | None  # None for embedded solvers
    path: str | None  # the binary; None for embedded solvers
    embedded: str | None = None  # the pysat solver name

    @property
    def version(self) -> str | None:
        return self.version_within(None)

    def version_within(self, seconds: float | None) -> str | None:
        """The version, asking the binary (and dpkg) for at most ``seconds`` in all (None: VERSION_TIMEOUT
        per probe); None when it does not say in time."""
        if self.embedded is not None:
            return embedded_version(self.embedded)
        assert self.path is not None and self.profile is not None
        return binary_version(self.path, self.profile.version_args, within=seconds)


def find_binary(binary: str) -> str | None:
    """An executable on PATH (or a path to one); else where a wheel bundles it (a built-in profile of this
    binary whose ``bundled`` names the place, such as kissat in passagemath-kissat)."""
    if os.sep in binary:
        path = Path(binary).expanduser()
        return str(path.resolve()) if path.is_file() and os.access(path, os.X_OK) else None
    found = shutil.which(binary)
    if found:
        return found
    for profile in BUILTIN.values():
        if profile.binary == binary and profile.bundled is not None:
            wheel = Path(sysconfig.get_paths()["purelib"]) / profile.bundled
            if wheel.is_file() and os.access(wheel, os.X_OK):
                return str(wheel)
    return None


def resolve(solver: str, solvers_file: ProfileSource | None = None) -> SolverSpec:
    """A profile name, a path to any binary (generic profile unless its name is a profile), or pysat:NAME;
    ``solvers_file``: the user's profiles (a YAML file, or profiles already read)."""
    if solver.startswith(EMBEDDED_PREFIX):
        name = embedded_name(solver[len(EMBEDDED_PREFIX) :])
        if not embedded_available(name):
            raise SolverMissing(f"embedded solver {solver!r} is unavailable: its pysat backend is not installed")
        return SolverSpec(solver, None, None, name)
    profiles = all_profiles(solvers_file)
    if solver in profiles:
        profile = profiles[solver]
        path = find_binary(profile.binary)
        if path is None:
            script = ", or run scripts/install-solvers.sh" if solver in INSTALL_SCRIPT_SOLVERS else ""
            raise SolverMissing(
                f"solver {solver!r} not found ({profile.binary} is not on PATH); install: {profile.install}"
                f"{script}; or use the embedded default {DEFAULT_SOLVER}"
            )
        return SolverSpec(solver, profile, path)
    if os.sep in solver:
        path = find_binary(solver)
        if path is None:
            raise SolverNotFound(f"solver {solver!r}: no executable file at that path")
        base = Path(path).name
        known = profiles.get(base)
        if known is not None and known.source == "built-in":
            return SolverSpec(base, replace(known, binary=path), path)
        return SolverSpec(base, generic(path), path)
    path = shutil.which(solver)
    if path is not None:
        return SolverSpec(solver, generic(path), path)
    raise SolverNotFound(
        f"unknown solver {solver!r}: not a profile ({', '.join(profiles)}), not on PATH, "
        f"not pysat:NAME; give a path to use any SAT-competition binary"
    )


# -- embedded ---------------------------------------------------------------------


def embedded_names() -> list[str]:
    """The canonical names of pysat's solvers (those whose backend imports)."""
    from pysat.solvers import SolverNames

    return sorted(k for k in vars(SolverNames) if not k.startswith("_"))


def embedded_name(name: str) -> str:
    """The canonical pysat name for ``name`` (aliases such as cd19 accepted)."""
    from pysat.solvers import SolverNames

    for canonical, aliases in vars(SolverNames).items():
        if not canonical.startswith("_") and (name == canonical or name in aliases):
            return canonical
    raise SolverNotFound(f"unknown embedded solver 'pysat:{name}'; valid: {', '.join(embedded_names())}")


def embedded_version(name: str) -> str:
    """The backend and its version as PySAT states them, then python-sat's: "CaDiCaL 1.9.5 (python-sat 1.9.dev24)".

    PySAT names each backend in its solver class's docstring ("CaDiCaL 1.9.5 SAT solver.", "Glucose 4.1
    SAT solver."); python-sat's version alone when there is none to read (``python -OO``, a missing backend).
    """
    import pysat

    package = f"python-sat {pysat.__version__}"
    backend = _backend(name)
    m = _BACKEND_DOC.match((backend.__doc__ or "").strip()) if backend is not None else None
    if m is None:
        return package
    note = f", {m['note']}" if m["note"] else ""
    return f"{m['what']}{note} ({package})"


_BACKEND_DOC = re.compile(r"(?P<what>[^\n]+?) (?:SAT )?solver\b(?: \((?P<note>[^)\n]*)\))?")


def embedded_available(name: str) -> bool:
    """Whether pysat's solver ``name`` can be created here (some need an extra package)."""
    return _backend(name) is not None


@lru_cache(maxsize=64)
def _backend(name: str) -> type | None:
    """pysat's class for solver ``name`` when one can be created here, else None."""
    import gc

    from pysat.solvers import Solver

    hook, sys.unraisablehook = sys.unraisablehook, lambda _: None  # pysat's __del__ complains after a failure
    try:
        with Solver(name=name) as solver:
            return type(solver.solver)
    except Exception:  # pysat raises AssertionError, NoSuchSolverError, ImportError for a missing backend
        return None
    finally:
        gc.collect()
        sys.unraisablehook = hook


# -- versions -----------------------------------------------------------------------


_versions: dict[tuple[str, tuple[str, ...] | None], str | None] = {}  # what each binary said, once it answered


def binary_version(
    path: str, version_args: tuple[str, ...] | None = ("--version",), *, within: float | None = None
) -> str | None:
    """The version a binary reports (probe waited for, killed after a timeout), else its Debian package's;
    an answer is kept across runs (:mod:`.version_cache`), so a shell loop asks once.

    ``within``: the seconds every probe together may take (each at most VERSION_TIMEOUT), so that a run's
    time limit covers them; a version not found because that time ran out is None, and asked again."""
    key = (path, version_args)
    if key in _versions:
        return _versions[key]
    kept = cache_key(path, version_args)
    if kept is not None and (version := cached_version(kept)) is not None:
        _versions[key] = version
        return version
    deadline = Deadline.after(within)
    text = "" if version_args is None else probe([path, *version_args], deadline)[1]
    m = _VERSION.search(text)
    if m:
        found: str | None = m.group(0)
    else:
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        found = _debian_version(path, deadline) or first[:60] or None
    if found is None and deadline.expired():
        return None  # cut short by the caller's time, not the binary's answer: not remembered
    _versions[key] = found
    if kept is not None and found is not None:
        remember_version(kept, found)
    return found


def probe(argv: list[str], deadline: Deadline = NEVER) -> tuple[int | None, str]:
    """(exit code, stdout + stderr) of a helper run (a version probe, dpkg-query) through the runner's own
    path: its own process group, every descendant swept when it ends, killed after VERSION_TIMEOUT or at
    ``deadline``, whichever comes first; (None, "") when it cannot start, times out or prints too much."""
    left = deadline.left()
    timeout = VERSION_TIMEOUT if left is None else min(VERSION_TIMEOUT, left)
    if timeout <= 0:
        return None, ""
    with work_dir("probe") as tmp:  # locked while in use: the next run removes one a kill -9 left
        try:
            run = run_process(argv, output_dir=Path(tmp), timeout=timeout, limits=PROBE_LIMITS)
        except OSError:
            return None, ""
        if run.timed_out or run.output_exceeded:
            return None, ""
        with open(run.stdout_file or Path(tmp) / "solver.out", "rb") as f:
            out = f.read(PROBE_OUTPUT_MB << 20)
        return run.exit_code, (out + run.stderr).decode("utf-8", "replace")


def _debian_version(path: str, deadline: Deadline = NEVER) -> str | None:
    """``VERSION (debian PACKAGE)`` when dpkg owns ``path``."""
    if shutil.which("dpkg-query") is None:
        return None
    try:
        real = str(Path(path).resolve())
        if not real.startswith(SYSTEM_DIRS) and not path.startswith(SYSTEM_DIRS):
            return None  # dpkg installs nowhere else; asking costs seconds on a loaded machine
        code, owner = probe(["dpkg-query", "-S", real], deadline)
        if code != 0 and real != path:
            code, owner = probe(["dpkg-query", "-S", path], deadline)
        if code != 0:
            return None
        package = owner.split(":", 1)[0].strip()
        code, ver = probe(["dpkg-query", "-W", "-f=${Version}", package], deadline)
        return f"{ver.strip()} (debian {package})" if code == 0 and ver.strip() else None
    except OSError:
        return None


@dataclass(frozen=True)
class Listing:
    """One row of ``cnfgen-queens solvers``."""

    name: str
    found: bool
    path: str | None
    version: str | None
    source: str
    install: str


def list_solvers(solvers_file: Path | None = None) -> list[Listing]:
    """Every profile (built-in and user), found or not, with path and version."""
    rows = []
    for name, profile in all_profiles(solvers_file).items():
        path = find_binary(profile.binary)
        version = binary_version(path, profile.version_args) if path else None
        rows.append(Listing(name, path is not None, path, version, profile.source, profile.install))
    return rows
