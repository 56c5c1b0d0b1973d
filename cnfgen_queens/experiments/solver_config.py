"""The ``solvers`` section of a batch config, with ``solvers_file`` and ``proof``: each solver as a
:class:`SolverEntry`, a name (a built-in profile, a path, ``pysat:NAME``), a profile of the config's own
(inline: an entry with a ``command``, the schema of ``--solvers-file``; or by name from ``solvers_file``),
and its extra arguments; checked by resolving each name as ``solve`` does."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from ..solvers import SolverNotFound, resolve
from ..solvers.profiles import Profile, ProfileError, embedded_facts, load_user_profiles, proof_writers, user_profile
from .config_check import Check

PROFILE_KEYS = (
    "command",
    "time_flags",
    "memory_flags",
    "proof_flags",
    "output",
    "sat_exit",
    "unsat_exit",
    "unknown_exit",
    "version_args",
    "install",
    "quirks",
    "native",
)  # a solvers file's (solvers.profiles)
SOLVER_KEYS = ("name", "args", *PROFILE_KEYS)  # with command: an inline profile


@dataclass(frozen=True)
class SolverEntry:
    """A solver as the config names it (profile, path or ``pysat:NAME``) and extra arguments; ``profile``: the
    config's own profile of that name (inline, or from its ``solvers_file``), which workers run it by."""

    name: str
    args: tuple[str, ...] = ()
    profile: Profile | None = None

    @property
    def profiles(self) -> dict[str, Profile] | None:
        """The user profile to resolve the name with (None: the built-in profiles)."""
        return None if self.profile is None else {self.name: self.profile}

    def normalized(self) -> dict[str, Any]:
        """Name and arguments, and a user profile's command and flags (only then, so older configs keep their
        hash; a changed command is another solver)."""
        out: dict[str, Any] = {"name": self.name, "args": list(self.args)}
        if self.profile is not None:
            out["profile"] = {k: v for k, v in self.profile.described().items() if k != "source"}
        return out

    @cached_property
    def label(self) -> str:
        return " ".join((self.name, *self.args))


def solver_entries(c: Check, top: dict[str, Any], source: str, *, check_solvers: bool) -> tuple[SolverEntry, ...]:
    """The ``solvers`` of the config mapping ``top`` read from ``source`` (with its ``solvers_file``), each
    resolved when ``check_solvers``."""
    from_file = _solvers_file(c, top.get("solvers_file"), source)
    solvers = c.unique_list(top["solvers"], "solvers", lambda v, p: _solver(c, v, p, from_file), "solvers")
    if check_solvers:
        _resolve_all(c, solvers)
    return solvers


def _solvers_file(c: Check, value: Any, source: str) -> dict[str, Profile]:
    """The profiles of ``solvers_file: FILE`` (the schema of ``--solvers-file``; a relative path is relative
    to the config's folder), by name; none without the key."""
    if value is None:
        return {}
    path = Path(c.string(value, "solvers_file")).expanduser()
    if not path.is_absolute() and not source.startswith("<"):  # "<config>": a mapping given from Python
        path = Path(source).parent / path
    try:
        return load_user_profiles(path)
    except ProfileError as e:
        c.fail("solvers_file", str(e))


def _solver(c: Check, value: Any, path: str, from_file: dict[str, Profile]) -> SolverEntry:
    if isinstance(value, str):
        name = c.string(value, path)
        return SolverEntry(name, profile=from_file.get(name))
    spec = c.mapping(value, path, SOLVER_KEYS)
    if "name" not in spec:
        c.fail(f"{path}.name", "missing (a solver entry needs a name)")
    name = c.string(spec["name"], f"{path}.name")
    args = spec.get("args", [])
    plain = (str, int, float)
    if not isinstance(args, list) or not all(isinstance(a, plain) and not isinstance(a, bool) for a in args):
        c.expected(f"{path}.args", "a list of strings", args)
    profile = from_file.get(name)
    inline = {k: v for k, v in spec.items() if k in PROFILE_KEYS}
    if inline:  # an inline profile: the schema of a solvers file's entry
        if "command" not in inline:
            c.fail(f"{path}.command", f"missing (an inline profile needs a command; it has {', '.join(inline)})")
        if profile is not None:
            c.fail(path, f"{name} is also a profile of solvers_file {profile.source}: name one or the other")
        try:
            profile = user_profile(f"{c.source}: {path}", name, inline)
        except ProfileError as e:
            c.fail(path, str(e).split(f"solver {name!r}: ", 1)[-1])
    return SolverEntry(name, tuple(str(a) for a in args), profile)


def _resolve_all(c: Check, solvers: tuple[SolverEntry, ...]) -> None:

    for i, entry in enumerate(solvers):
        try:
            spec = resolve(entry.name, entry.profiles)
        except SolverNotFound as e:
            c.fail(f"solvers[{i}]", f"unknown or missing solver: {e}")
        if entry.args and getattr(spec, "embedded", None) is not None:
            c.fail(f"solvers[{i}].args", f"the embedded solver {entry.name} takes no arguments")


def proof_setting(c: Check, value: Any, task: str, solvers: tuple[SolverEntry, ...]) -> bool:
    """``proof: true``: every solver of the grid must write DRAT proofs (its profile's or pysat backend's record)."""
    if not isinstance(value, bool):
        c.expected("proof", "true or false", value)
    if value and task != "solve":
        c.fail("proof", "proofs are for task solve (count --certify certifies a count)")
    for i, entry in enumerate(solvers if value else ()):
        try:
            spec = resolve(entry.name, entry.profiles)
        except SolverNotFound:
            continue  # not checked (check_solvers false): the run says why
        writes = spec.profile.proof if spec.profile is not None else embedded_facts(spec.embedded or "").proof
        if not writes:
            c.fail(
                f"solvers[{i}]", f"{entry.name} writes no DRAT proof (proof: true); those that do: {proof_writers()}"
            )
    return value
