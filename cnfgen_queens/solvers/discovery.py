"""Finding solvers: PATH, the kissat binary inside the passagemath-kissat wheel, explicit paths.

``resolve(name)`` gives a :class:`SolverSpec` or raises :class:`SolverNotFound` with a
one-line message naming the solver and how to install it.  Versions come from the
solver's own ``--version`` (waited for, with a timeout), else from the Debian package
that owns the binary.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from .profiles import Profile, all_profiles, generic

EMBEDDED_PREFIX = "pysat:"
VERSION_TIMEOUT = 5.0
SYSTEM_DIRS = ("/usr/", "/bin/", "/sbin/", "/lib", "/opt/")  # where Debian packages put binaries
_VERSION = re.compile(r"\d+(?:\.\d+)+[\w.+~-]*")


class SolverNotFound(LookupError):
    """A solver that is not installed or not known; the message is one line."""


@dataclass(frozen=True)
class SolverSpec:
    """A resolved solver: its profile and binary, or an embedded pysat solver (path None)."""

    name: str
    profile: Profile | None  # None for embedded solvers
    path: str | None  # the binary; None for embedded solvers
    embedded: str | None = None  # the pysat solver name

    @property
    def version(self) -> str | None:
        if self.embedded is not None:
            return embedded_version(self.embedded)
        assert self.path is not None and self.profile is not None
        return binary_version(self.path, self.profile.version_args)


def wheel_kissat() -> Path:
    """Where passagemath-kissat puts its kissat binary."""
    return Path(sysconfig.get_paths()["purelib"]) / "sage_wheels" / "bin" / "kissat"


def find_binary(binary: str) -> str | None:
    """An executable on PATH (or a path to one); kissat also inside the passagemath-kissat wheel."""
    if os.sep in binary:
        path = Path(binary).expanduser()
        return str(path.resolve()) if path.is_file() and os.access(path, os.X_OK) else None
    found = shutil.which(binary)
    if found:
        return found
    if binary == "kissat":
        wheel = wheel_kissat()
        if wheel.is_file() and os.access(wheel, os.X_OK):
            return str(wheel)
    return None


def resolve(solver: str, solvers_file: Path | None = None) -> SolverSpec:
    """A profile name, a path to any binary (generic profile unless its name is a profile), or pysat:NAME."""
    if solver.startswith(EMBEDDED_PREFIX):
        name = embedded_name(solver[len(EMBEDDED_PREFIX) :])
        if not embedded_available(name):
            raise SolverNotFound(f"embedded solver {solver!r} is unavailable: its pysat backend is not installed")
        return SolverSpec(solver, None, None, name)
    profiles = all_profiles(solvers_file)
    if solver in profiles:
        profile = profiles[solver]
        path = find_binary(profile.binary)
        if path is None:
            raise SolverNotFound(
                f"solver {solver!r} not found ({profile.binary} is not on PATH); install: {profile.install}, "
                f"or run scripts/install-solvers.sh; or use the embedded default pysat:cadical195"
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
    import pysat

    return f"python-sat {pysat.__version__}"


@lru_cache(maxsize=64)
def embedded_available(name: str) -> bool:
    """Whether pysat's solver ``name`` can be created here (some need an extra package)."""
    import gc

    from pysat.solvers import Solver

    hook, sys.unraisablehook = sys.unraisablehook, lambda _: None  # pysat's __del__ complains after a failure
    try:
        with Solver(name=name):
            return True
    except Exception:  # pysat raises AssertionError, NoSuchSolverError, ImportError for a missing backend
        return False
    finally:
        gc.collect()
        sys.unraisablehook = hook


# -- versions -----------------------------------------------------------------------


@lru_cache(maxsize=64)
def binary_version(path: str, version_args: tuple[str, ...] | None = ("--version",)) -> str | None:
    """The version a binary reports (probe waited for, killed after a timeout), else its Debian package's."""
    text = ""
    if version_args is not None:
        try:
            done = subprocess.run(
                [path, *version_args], capture_output=True, timeout=VERSION_TIMEOUT, stdin=subprocess.DEVNULL
            )
            text = (done.stdout + done.stderr).decode("utf-8", "replace")
        except (OSError, subprocess.SubprocessError):
            text = ""
    m = _VERSION.search(text)
    if m:
        return m.group(0)
    package = _debian_version(path)
    if package:
        return package
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return first[:60] or None


def _debian_version(path: str) -> str | None:
    """``VERSION (debian PACKAGE)`` when dpkg owns ``path``."""
    if shutil.which("dpkg-query") is None:
        return None
    try:
        real = str(Path(path).resolve())
        if not real.startswith(SYSTEM_DIRS) and not path.startswith(SYSTEM_DIRS):
            return None  # dpkg installs nowhere else; asking costs seconds on a loaded machine
        owner = subprocess.run(["dpkg-query", "-S", real], capture_output=True, timeout=VERSION_TIMEOUT, text=True)
        if owner.returncode != 0 and real != path:
            owner = subprocess.run(["dpkg-query", "-S", path], capture_output=True, timeout=VERSION_TIMEOUT, text=True)
        if owner.returncode != 0:
            return None
        package = owner.stdout.split(":", 1)[0].strip()
        ver = subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, timeout=VERSION_TIMEOUT, text=True
        )
        return f"{ver.stdout.strip()} (debian {package})" if ver.returncode == 0 and ver.stdout.strip() else None
    except (OSError, subprocess.SubprocessError):
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
