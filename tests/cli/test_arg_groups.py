"""Shared CLI options (issue 13): one spelling, one default and one help text per option in every subcommand."""

from __future__ import annotations

import argparse

import pytest

from cnfgen_queens.cli import SUBCOMMANDS, _build, main
from cnfgen_queens.cli.arg_groups import DEFAULT_SOLVER, given_flags
from cnfgen_queens.limits import MAX_MEMORY

SHARED = ("--solver", "--solver-args", "--solvers-file", "--time-limit", "--memory-limit", "--output-limit",
          "--isolation", "--encoding", "--group-size", "--column-alo", "--place", "--place-file", "--block-square",
          "--holes", "--torus", "--random-place", "--seed", "--executor", "--scheduler", "--output")  # fmt: skip


def _options() -> dict[str, dict[str, argparse.Action]]:
    """subcommand -> long option -> its argparse action."""
    out: dict[str, dict[str, argparse.Action]] = {}
    for name in SUBCOMMANDS:
        parser, _ = _build(name, f"cnfgen-queens {name}")
        out[name] = {s: a for a in parser._actions for s in a.option_strings if s.startswith("--")}
    return out


def _signature(action: argparse.Action) -> str:
    kind = getattr(action.type, "__name__", action.type)
    return repr((action.option_strings, action.default, action.help, action.metavar, kind, action.choices))


@pytest.mark.parametrize("flag", SHARED)
def test_a_shared_option_is_the_same_everywhere(flag: str) -> None:
    found = {name: _signature(opts[flag]) for name, opts in _options().items() if flag in opts}
    assert len(found) >= 2, f"{flag} is in {sorted(found)} only"
    assert len(set(found.values())) == 1, found


def test_every_subcommand_with_a_solver_has_the_whole_group() -> None:
    groups = (("--solver", "--solver-args", "--solvers-file"),
              ("--time-limit", "--memory-limit", "--output-limit", "--isolation"),
              ("--encoding", "--group-size", "--column-alo"))  # fmt: skip
    for name, opts in _options().items():
        for group in groups:
            present = [flag for flag in group if flag in opts]
            assert present in ([], list(group)) or present == ["--solvers-file"], (name, present)


def test_repeated_constants_agree_with_their_sources() -> None:
    from cnfgen_queens.limits import MAX_MEMORY as solvers_max
    from cnfgen_queens.solvers import DEFAULT_SOLVER as solvers_default

    assert (solvers_default, solvers_max) == (DEFAULT_SOLVER, MAX_MEMORY)


def test_given_flags_counts_zero_as_given() -> None:
    args = argparse.Namespace(shuffle=0, seed=None, column_alo=False, block=[], solver=DEFAULT_SOLVER, isolation="none")
    assert given_flags(args, ("--shuffle", "--seed", "--column-alo", "--block", "--solver", "--isolation")) == [
        "--shuffle",
        "--isolation",
    ]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["gen", "8", "--format", "opb", "--shuffle", "0"], "--shuffle applies to --format cnf only"),
        (["gen", "8", "--format", "mzn", "--seed", "0"], "--seed applies to --format cnf only"),
        (["gen", "8", "--format", "opb", "-e", "pairwise"], "--encoding applies to --format cnf only"),
        (["enumerate", "5", "--isolation", "none", "--out", "d"], "--out, --isolation belong to the external loop"),
        (["count", "6", "--jobs", "2", "--solvers-file", "x.yaml"], "--solvers-file: for an external solver only"),
        (["count", "6", "-s", "kissat", "-m", "99999999999"], f"memory limit must be at most {MAX_MEMORY}"),
        (["enumerate", "6", "--group-size", "99999999"], "group size must be at most"),
    ],
)
def test_conflicts_are_one_line_usage_errors(argv: list[str], message: str, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err


def test_short_spellings_work_in_every_solver_subcommand(capsys) -> None:
    assert main(["count", "5", "-s", "pysat:minisat22", "-t", "600", "-e", "sequential"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "count: 10 (published-count)"  # OEIS A000170(5)
