"""Solver profiles: how to call a solver, where its answer appears, its own limit flags, its quirks.

A command template is a list of tokens with placeholders ``{solver}`` (the binary),
``{cnf}``, ``{model}`` (a result file, MiniSat style), ``{proof}``, ``{time}``
(whole seconds, rounded up), ``{memory}`` (MB), ``{flags}`` (the profile's limit and
proof flags that apply) and ``{args}`` (the user's extra arguments).  A token whose
placeholder has no value (no proof asked, no limit) is dropped, so write
``--time={time}`` as one token.  Output styles: ``competition`` (``s``/``v`` lines,
SAT-competition rules) and ``minisat`` (``SAT``/``UNSAT``/``INDET`` plus the model in
the result file).

Every fact the code needs about a solver is a field of its record here: :class:`Profile` for a binary
(its command, limit and proof flags, exit codes, the compressed formats it reads itself, where a wheel
bundles it, whether ``scripts/install-solvers.sh`` installs it), :class:`EmbeddedFacts` for a ``pysat:``
backend (DRAT proofs, incremental use); no other module names a solver.  :data:`DEFAULT_SOLVER` (in
:mod:`.default`, read by every command, the API and the docs) is the one default.
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..bounds import MAX_TEXT, read_text
from ..errors import UsageError
from .default import DEFAULT_SOLVER

RESULT_FILE_STYLE = "minisat"  # SAT/UNSAT/INDET and the model in a result file
OUTPUT_STYLES = ("competition", RESULT_FILE_STYLE)  # the first: s/v lines on stdout
PLACEHOLDER = re.compile(r"\{(solver|cnf|model|proof|time|memory|flags|args)\}")
DEFAULT_TEMPLATE = ("{solver}", "{flags}", "{args}", "{cnf}")
EMBEDDED_PREFIX = "pysat:"  # pysat:NAME, an embedded solver; no profile's name


class ProfileError(UsageError):
    """A user profile that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class Profile:
    """How to run one solver and read its answer."""

    name: str
    binary: str  # executable name looked up on PATH, or a path
    template: tuple[str, ...] = DEFAULT_TEMPLATE
    time_flags: tuple[str, ...] = ()  # the solver's own time limit (the runner enforces one anyway)
    memory_flags: tuple[str, ...] = ()
    proof_flags: tuple[str, ...] = ()  # flags that make it write text DRAT to {proof}
    proof: bool = False  # writes DRAT with --proof
    output: str = "competition"
    sat_exit: frozenset[int] = frozenset({10})
    unsat_exit: frozenset[int] = frozenset({20})
    unknown_exit: frozenset[int] = frozenset({0})
    version_args: tuple[str, ...] | None = ("--version",)
    install: str = "put it on PATH"
    quirks: str = ""
    source: str = "built-in"
    native: tuple[tuple[str, str | None], ...] = ()  # compressed suffixes it reads itself, and the tool it
    # pipes through (which must be on PATH; None: built in); any other compressed input is decompressed for it
    bundled: str | None = None  # where a Python wheel puts the binary, relative to site-packages
    install_script: bool = False  # scripts/install-solvers.sh installs it (tests/solvers/test_exit_rules.py reads both)

    def command(
        self,
        solver: str,
        cnf: Path,
        *,
        model: Path | None = None,
        proof: Path | None = None,
        time: float | None = None,
        memory: int | None = None,
        args: Sequence[str] = (),
    ) -> list[str]:
        """The argument vector for one run."""
        values: dict[str, str | None] = {
            "solver": solver,
            "cnf": str(cnf),
            "model": str(model) if model is not None else None,
            "proof": str(proof) if proof is not None else None,
            "time": str(max(1, math.ceil(time))) if time is not None else None,
            "memory": str(int(memory)) if memory is not None else None,
        }
        flags: list[str] = []
        if time is not None:
            flags += self.time_flags
        if memory is not None:
            flags += self.memory_flags
        if proof is not None:
            flags += self.proof_flags
        template = list(self.template)
        if "{flags}" not in template:
            template.insert(1, "{flags}")
        if "{args}" not in template:
            template.insert(template.index("{flags}") + 1, "{args}")
        out: list[str] = []
        for token in template:
            if token == "{flags}":
                out += [_fill(t, values) for t in flags if _fill(t, values) is not None]  # type: ignore[misc]
            elif token == "{args}":
                out += list(args)
            elif (filled := _fill(token, values)) is not None:
                out.append(filled)
        return out

    @property
    def uses_own_time_limit(self) -> bool:
        return bool(self.time_flags) or any("{time}" in t for t in self.template)

    @property
    def result_file(self) -> bool:
        """Whether it writes its answer and model to a result file ({model}, output style minisat)."""
        return self.output == RESULT_FILE_STYLE

    def native_tool(self, suffix: str) -> tuple[bool, str | None]:
        """(whether it reads ``suffix`` files itself, the tool it needs on PATH for them or None)."""
        for known, tool in self.native:
            if known == suffix:
                return True, tool
        return False, None

    def described(self) -> dict[str, object]:
        """What the results store keeps of a profile: its command template and flags, as plain JSON values."""
        return {
            "binary": self.binary,
            "command": list(self.template),
            "time_flags": list(self.time_flags),
            "memory_flags": list(self.memory_flags),
            "proof_flags": list(self.proof_flags),
            "output": self.output,
            "sat_exit": sorted(self.sat_exit),
            "unsat_exit": sorted(self.unsat_exit),
            "unknown_exit": sorted(self.unknown_exit),
            "native": [s for s, _ in self.native],
            "source": self.source,
        }


def _fill(token: str, values: Mapping[str, str | None]) -> str | None:
    """``token`` with its placeholders filled, or None when one has no value."""
    missing = False

    def sub(m: re.Match[str]) -> str:
        nonlocal missing
        value = values.get(m.group(1))
        if value is None:
            missing = True
            return ""
        return value

    filled = PLACEHOLDER.sub(sub, token)
    return None if missing else filled


def _p(name: str, **kw: object) -> Profile:
    return Profile(name=name, binary=str(kw.pop("binary", name)), **kw)  # type: ignore[arg-type]


APT = "apt-get install {}"
PIPED = ((".gz", "gzip"), (".bz2", "bzip2"), (".xz", "xz"))  # measured here: kissat 4.0.4, CaDiCaL 1.5.3, MiniSat
ZLIB = ((".gz", None),)  # 2.2.1, PicoSAT 965, CryptoMiniSat 5 (zlib), clasp 3 (none)
BUILTIN: dict[str, Profile] = {
    p.name: p
    for p in [
        _p(
            "kissat",
            template=("{solver}", "{flags}", "{args}", "{cnf}", "{proof}"),
            time_flags=("--time={time}",),
            proof_flags=("--no-binary",),
            proof=True,
            native=PIPED,
            bundled="sage_wheels/bin/kissat",
            install_script=True,
            install="pip install passagemath-kissat (bundles the binary), or build github.com/arminbiere/kissat",
            quirks="own time limit prints 's UNKNOWN', exit 0",
        ),
        _p(
            "cadical",
            template=("{solver}", "{flags}", "{args}", "{cnf}", "{proof}"),
            time_flags=("-t", "{time}"),
            proof_flags=("--no-binary",),
            proof=True,
            install=APT.format("cadical"),
            native=PIPED,
            install_script=True,
            quirks="own time limit prints only 'c UNKNOWN', exit 0; Debian's --version says 'sc2021'",
        ),
        _p(
            "minisat",
            template=("{solver}", "{flags}", "{args}", "{cnf}", "{model}"),
            output="minisat",
            time_flags=("-cpu-lim={time}",),
            memory_flags=("-mem-lim={memory}",),
            version_args=None,
            native=ZLIB,
            install_script=True,
            install=APT.format("minisat"),
            quirks="model only in the result file (SAT/UNSAT/INDET); no --version",
        ),
        _p(
            "picosat",
            time_flags=("-L", "{time}"),
            install=APT.format("picosat"),
            native=PIPED[:2],
            install_script=True,
            quirks="exits 0 on errors and prints them on stdout; -R writes RUP, not DRAT",
        ),
        _p(
            "cryptominisat5",
            time_flags=("--maxtime", "{time}"),
            unknown_exit=frozenset({0, 15}),
            native=ZLIB,
            install_script=True,
            install=APT.format("cryptominisat"),
            quirks="'s INDETERMINATE' with exit 15; proofs are FRAT",
        ),
        _p(
            "clasp",
            time_flags=("--time-limit={time}",),
            sat_exit=frozenset({10, 30}),
            unknown_exit=frozenset({0, 1}),
            install=APT.format("clasp"),
            install_script=True,
            quirks="prints v lines before the s line; exit 30 when the model is proved unique; own time limit exits 1",
        ),
        _p(
            "glucose",
            template=("{solver}", "-model", "{flags}", "{args}", "{cnf}"),
            time_flags=("-cpu-lim={time}",),
            memory_flags=("-mem-lim={memory}",),
            proof_flags=("-certified", "-certified-output={proof}"),
            proof=True,
            version_args=None,
            install="build github.com/audemard/glucose (not in Debian), or use pysat:glucose4",
            quirks="prints no model without -model",
        ),
        _p(
            "lingeling",
            time_flags=("-T", "{time}"),
            install="build github.com/arminbiere/lingeling (or use pysat:lingeling)",
        ),
    ]
}


@dataclass(frozen=True)
class EmbeddedFacts:
    """What the code needs to know of an embedded ``pysat:`` backend (its name is pysat's)."""

    proof: bool = False  # writes a DRAT proof (pysat's with_proof): solve --proof, count --certify
    incremental: bool = True  # takes clauses after a solve (the enumeration loop blocks each model)
    binary: str | None = None  # the built-in profile of the same solver as a binary


EMBEDDED: dict[str, EmbeddedFacts] = {  # by prefix of pysat's canonical name; any other: the defaults
    "cadical195": EmbeddedFacts(proof=True),
    "cadical153": EmbeddedFacts(proof=True),
    "cadical103": EmbeddedFacts(proof=True),
    "glucose4": EmbeddedFacts(proof=True),
    "glucose3": EmbeddedFacts(proof=True),
    "lingeling": EmbeddedFacts(proof=True),
    "kissat": EmbeddedFacts(incremental=False, binary="kissat"),
}


def embedded_facts(name: str) -> EmbeddedFacts:
    """The facts of pysat backend ``name`` (canonical: cadical195, glucose42, ...)."""
    return next((facts for prefix, facts in EMBEDDED.items() if name.startswith(prefix)), EmbeddedFacts())


def proof_writers() -> str:
    """The solvers that write DRAT proofs, in words for an error message (from the records above)."""
    binaries = [name for name, p in BUILTIN.items() if p.proof]
    embedded = [f"pysat:{name}" for name, facts in EMBEDDED.items() if facts.proof]
    return ", ".join([*binaries, *embedded])


def generic(binary: str) -> Profile:
    """The SAT-competition profile for any other binary: ``BINARY [args] CNF``, s/v lines, exit 10/20."""
    return Profile(
        name=Path(binary).name,
        binary=binary,
        version_args=None,
        source="generic",
        install="check the path",
        quirks="generic SAT-competition output",
    )


# -- user profiles (YAML) ---------------------------------------------------------

_KEYS = {"command", "time_flags", "memory_flags", "proof_flags", "output", "sat_exit", "unsat_exit",
         "unknown_exit", "version_args", "install", "quirks", "native"}  # fmt: skip
COMPRESSED = (".gz", ".bz2", ".xz")  # what ``native`` may name (the suffixes cnf.compressed reads)


def load_user_profiles(path: Path) -> dict[str, Profile]:
    """Profiles from a YAML file ``solvers: {NAME: {command: ..., ...}}`` (see configs/solvers.yaml)."""
    import yaml

    try:
        data = yaml.safe_load(read_text(path, MAX_TEXT, "solvers file", ProfileError))
    except (OSError, UnicodeDecodeError) as e:
        raise ProfileError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
    except yaml.YAMLError as e:
        raise ProfileError(f"{path}: not valid YAML: {str(e).splitlines()[0]}") from None
    except RecursionError:  # as the batch's config (experiments.config): deeper than the parser goes
        raise ProfileError(f"{path}: nested too deeply") from None
    if not isinstance(data, dict) or not isinstance(data.get("solvers"), dict):
        raise ProfileError(f"{path}: expected a mapping 'solvers: {{NAME: {{command: ...}}}}'")
    return {str(name): user_profile(str(path), str(name), spec) for name, spec in data["solvers"].items()}


def user_profile(source: str, name: str, spec: object) -> Profile:
    """The profile ``name`` of ``spec`` (a mapping of a solvers file's schema) read from ``source``."""
    if name.startswith(EMBEDDED_PREFIX) or not name.strip():
        raise ProfileError(
            f"{source}: solver {name!r}: a profile's name cannot be empty or start with "
            f"{EMBEDDED_PREFIX} (the embedded solvers' names)"
        )
    where = f"{source}: solver {name!r}"
    if not isinstance(spec, dict):
        raise ProfileError(f"{where}: expected a mapping with at least 'command'")
    unknown = set(map(str, spec)) - _KEYS
    if unknown:
        raise ProfileError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}; valid: {', '.join(sorted(_KEYS))}")
    binary, template = _template(where, spec)
    output = str(spec.get("output", "competition"))
    if output not in OUTPUT_STYLES:
        raise ProfileError(f"{where}: output must be one of {', '.join(OUTPUT_STYLES)}, got {output!r}")
    if output == "minisat" and not any("{model}" in t for t in template):
        raise ProfileError(f"{where}: output 'minisat' needs a {{model}} placeholder in 'command'")
    profile = Profile(name=name, binary=binary, template=template, output=output, source=source)
    kw = _optional_keys(where, spec)
    kw["proof"] = bool(kw.get("proof_flags")) or any("{proof}" in t for t in template)
    return replace(profile, **kw)  # type: ignore[arg-type]


def _template(where: str, spec: dict[object, object]) -> tuple[str, tuple[str, ...]]:
    """The binary and the argument template of a profile's ``command``, its placeholders checked."""
    command = spec.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ProfileError(f"{where}: 'command' must be a string like 'mysolver {{args}} {{cnf}}'")
    tokens = _split(where, "command", command)
    binary, template = tokens[0], ("{solver}", *tokens[1:])
    for token in template:
        for m in re.finditer(r"\{([^{}]*)\}", token):
            if not PLACEHOLDER.fullmatch(m.group(0)):
                raise ProfileError(f"{where}: unknown placeholder {m.group(0)} in 'command'")
    if not any("{cnf}" in t for t in template):
        raise ProfileError(f"{where}: 'command' has no {{cnf}} placeholder")
    return binary, template


def _optional_keys(where: str, spec: dict[object, object]) -> dict[str, object]:
    """The profile's fields given by the optional keys of ``spec``, each checked."""
    kw: dict[str, object] = {}
    for key in ("time_flags", "memory_flags", "proof_flags", "version_args"):
        if key in spec:
            value = spec[key]
            if value is not None and not isinstance(value, str):
                raise ProfileError(f"{where}: {key!r} must be a string")
            kw[key] = tuple(_split(where, key, value)) if value is not None else (None if key == "version_args" else ())
    for key in ("sat_exit", "unsat_exit", "unknown_exit"):
        if key in spec:
            value = spec[key]
            if not isinstance(value, list) or not all(isinstance(v, int) for v in value):
                raise ProfileError(f"{where}: {key!r} must be a list of integers")
            kw[key] = frozenset(value)
    for key in ("install", "quirks"):
        if key in spec:
            kw[key] = str(spec[key])
    if "native" in spec:
        value = spec["native"]
        if not isinstance(value, list) or not all(v in COMPRESSED for v in value):
            raise ProfileError(
                f"{where}: 'native' must be a list of {', '.join(COMPRESSED)} (the compressed formats it reads itself)"
            )
        kw["native"] = tuple((v, None) for v in dict.fromkeys(value))
    return kw


def _split(where: str, key: str, text: str) -> list[str]:
    """Shell-like words of ``text``; an unbalanced quote is a ProfileError naming the key."""
    try:
        return shlex.split(text)
    except ValueError as e:
        raise ProfileError(f"{where}: {key!r} cannot be split into words: {str(e).lower()} in {text!r}") from None


ProfileSource = Path | Mapping[str, Profile]
"""Where user profiles come from: a YAML file (``--solvers-file``) or profiles already read (a config's own)."""


def all_profiles(solvers_file: ProfileSource | None = None) -> dict[str, Profile]:
    """Built-in profiles, overridden and extended by the user's: a YAML file, or profiles already read
    (a batch's inline ones and its ``solvers_file``)."""
    profiles = dict(BUILTIN)
    if isinstance(solvers_file, Path):
        profiles.update(load_user_profiles(solvers_file))
    elif solvers_file is not None:
        profiles.update(solvers_file)
    return profiles


__all__ = [
    "BUILTIN",
    "DEFAULT_SOLVER",
    "EMBEDDED",
    "EMBEDDED_PREFIX",
    "OUTPUT_STYLES",
    "EmbeddedFacts",
    "Profile",
    "ProfileError",
    "all_profiles",
    "embedded_facts",
    "generic",
    "load_user_profiles",
    "proof_writers",
    "user_profile",
]
