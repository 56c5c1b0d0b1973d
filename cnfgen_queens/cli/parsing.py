"""The subcommands' argparse parsers: what ``--help`` shows, and what reads every command line the fast
reader (:mod:`.fast_argv`) leaves to it (a form it does not know, any error: argparse's own words).

Loaded only then (argparse and the subcommand's option definitions cost about a Python start-up):
``cnfgen_queens.cli`` gives :class:`Parser` and :func:`build_parser` from here on first use.
"""

from __future__ import annotations

import argparse

from .common import EXIT_USAGE, CliError
from .help_cache import terminal_columns

TYPE_CHECKING = False  # not typing's: a command's start-up does not load it (mypy takes the name as always true)
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, NoReturn


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors and exit 2; no abbreviations (``--n 5`` is not ``--no-comments``); the
    width of ``--help`` found as :func:`shutil.get_terminal_size` finds it, without importing shutil."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise CliError(message, EXIT_USAGE)


class _Formatter(argparse.HelpFormatter):
    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        super().__init__(prog, indent_increment, max_help_position, terminal_columns() - 2 if width is None else width)


def build(name: str, prog: str, module: ModuleType, text: str, version: str) -> argparse.ArgumentParser:
    """The parser of subcommand ``name`` (its options from ``module.add_arguments``)."""
    if name == "gen" and prog == "gen-queens":
        text = text.removesuffix(" (the same as gen-queens)")
    parser = Parser(prog=prog, description=text)
    parser.add_argument("-V", "--version", action="version", version=f"%(prog)s {version}")
    module.add_arguments(parser)
    return parser
