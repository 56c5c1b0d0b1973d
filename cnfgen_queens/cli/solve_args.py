"""The options of ``cnfgen-queens solve`` (:mod:`.solve` runs it), apart from its run: ``solve --help`` and a
command line argparse reads load none of the runner's modules."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .arg_groups import add_limit_arguments, add_plugin_argument, add_solver_arguments

if TYPE_CHECKING:
    import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="DIMACS CNF file, or - for stdin")
    add_solver_arguments(p)
    add_limit_arguments(p)
    p.add_argument(
        "--proof",
        metavar="FILE",
        help="write a DRAT proof and check it (a solver whose profile writes none is refused, naming those that do)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print one JSON record instead of competition output (with the CNF's N and shuffle lines in "
        "cnf_header, so `decode` reads it)",
    )
    p.add_argument("--no-model", action="store_true", help="omit the v lines (the model is still checked)")
    add_require_checked(p, "an UNSAT that neither a verified --proof nor OEIS (a board without solutions) backs")
    add_plugin_argument(p)  # a plugin's encoding named in the CNF's header: its size is then known


def add_require_checked(p: argparse.ArgumentParser, what: str) -> None:
    """``--require-checked``: an unchecked answer is an error (exit 1), for scripts that need certainty."""
    p.add_argument(
        "--require-checked",
        action="store_true",
        help=f"treat {what} as an error (exit 1) instead of printing it marked unchecked",
    )
