"""The subcommands' argparse parsers: what ``--help`` shows and what reads every command line."""

from __future__ import annotations

import argparse
from types import ModuleType
from typing import Any, NoReturn

from .common import EXIT_USAGE, CliError


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors and exit 2; no abbreviations (``--n 5`` is not ``--no-comments``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise CliError(message, EXIT_USAGE)


def build(name: str, prog: str, module: ModuleType, text: str, version: str) -> argparse.ArgumentParser:
    """The parser of subcommand ``name`` (its options from ``module.add_arguments``)."""
    if name == "gen" and prog == "gen-queens":
        text = text.removesuffix(" (the same as gen-queens)")
    parser = Parser(prog=prog, description=text)
    parser.add_argument("-V", "--version", action="version", version=f"%(prog)s {version}")
    module.add_arguments(parser)
    return parser
