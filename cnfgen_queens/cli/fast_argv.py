"""The common command lines of ``gen-queens``, ``decode`` and ``block``, read without argparse.

Importing argparse (and building a subcommand's parser) costs about as much as Python's own start-up; a
shell loop that runs ``gen-queens N``, ``solve`` and ``decode`` per instance pays it each time.  So the
forms used most (a few options, given whole: ``-o FILE``, ``--output=FILE``) are read here into the
namespace argparse would make (tests/test_fast_argv.py compares the two on a corpus of command lines);
anything else (``--help``, an unknown or repeated option, a bad value, an option glued to its value)
gives None, and argparse reads the line, with its own words for every error.
"""

from __future__ import annotations

from types import SimpleNamespace

from .common import board_size, line_length, non_negative_int

TYPE_CHECKING = False  # not typing's (not loaded at start-up; mypy takes the name as always true)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    Convert = Callable[[str], object]

_GEN_DEFAULTS: dict[str, object] = {
    "n": None, "encoding": None, "group_size": None, "column_alo": False, "block": [], "no_comments": False,
    "output": None, "allow_large": False, "format": "cnf", "shuffle": None, "list_encodings": False,
    "line_length": None, "break_symmetry": False, "place": [], "place_file": [], "block_square": [], "holes": [],
    "torus": False, "random_place": None, "seed": None, "plugin": [],
}  # fmt: skip
_INPUT_DEFAULTS: dict[str, object] = {"input": None, "n": None, "cnf": None}


class _Spec:
    """A subcommand's namespace with its defaults, the options read here and its one optional positional."""

    def __init__(
        self, defaults: dict[str, object], flags: dict[str, str], values: Mapping[str, tuple[str, Convert | None]],
        positional: tuple[str, Convert | None], exclusive: tuple[str, ...] = (),
    ) -> None:  # fmt: skip
        self.defaults, self.flags, self.values, self.positional = defaults, flags, values, positional
        self.exclusive = exclusive  # dests of a mutually exclusive group


def _choices(*allowed: str) -> Convert:
    def check(text: str) -> str:
        if text not in allowed:
            raise ValueError(text)
        return text

    return check


_OUTPUT = {"-o": ("output", None), "--output": ("output", None)}
_SIZE = {"-n": ("n", board_size), "--size": ("n", board_size), "--cnf": ("cnf", None)}
SPECS = {
    "gen": _Spec(
        _GEN_DEFAULTS,
        {f"--{d.replace('_', '-')}": d for d in ("column_alo", "no_comments", "allow_large", "break_symmetry",
                                                  "torus", "list_encodings")},
        {"-e": ("encoding", None), "--encoding": ("encoding", None),
         "--format": ("format", _choices("cnf", "opb", "mzn")),
         "--group-size": ("group_size", line_length("group size")),
         "--shuffle": ("shuffle", non_negative_int("seed")), **_OUTPUT},
        ("n", board_size),
    ),
    "decode": _Spec(
        {**_INPUT_DEFAULTS, "format": "board", "ascii": False, "output": None},
        {"--ascii": "ascii"},
        {**_SIZE, "--format": ("format", _choices("board", "positions", "json", "line", "svg", "png")), **_OUTPUT},
        ("input", None),
        ("n", "cnf"),
    ),
    "block": _Spec({**_INPUT_DEFAULTS, "symmetric": False}, {"--symmetric": "symmetric"}, _SIZE, ("input", None),
                   ("n", "cnf")),
}  # fmt: skip


def parse(name: str, argv: Sequence[str]) -> SimpleNamespace | None:
    """The namespace argparse makes of ``argv`` for subcommand ``name``, or None: argparse must read it."""
    spec = SPECS.get(name)
    if spec is None:
        return None
    values = {k: (list(v) if isinstance(v, list) else v) for k, v in spec.defaults.items()}
    seen: set[str] = set()
    args = list(argv)
    i = 0
    while i < len(args):
        token = args[i]
        i += 1
        if token.startswith("-") and token != "-":
            option, eq, glued = token.partition("=")
            if option in spec.flags and not eq:
                dest, convert, text = spec.flags[option], None, None
            elif option in spec.values and ((eq and option.startswith("--")) or (not eq and i < len(args))):
                dest, convert = spec.values[option]
                text = glued if eq else args[i]
                i += 0 if eq else 1
                if text.startswith("-") and not eq:  # argparse may take it for an option: its call
                    return None
            else:
                return None
        else:
            dest, convert, text = spec.positional[0], spec.positional[1], token
        if dest in seen:
            return None
        seen.add(dest)
        if text is None:
            values[dest] = True
            continue
        try:
            values[dest] = text if convert is None else convert(text)
        except Exception:  # the value's error: argparse words it
            return None
    if sum(dest in seen for dest in spec.exclusive) > 1:
        return None
    return SimpleNamespace(**values)
