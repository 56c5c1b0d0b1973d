"""The options several subcommands share, each defined once: one spelling, one default, one help text.

solver (``solve``, ``enumerate``, ``count``), limits (the same three), encoding (``gen``,
``enumerate``, ``count``), executor (``count``, ``batch``), ``-o`` (``gen``, ``decode``, ``merge``)
and the variants (:mod:`.variant_args`);
and :func:`given_flags`, the one check behind "FLAG does not apply here" errors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..solvers.default import DEFAULT_SOLVER  # the package's __init__ only: parsing imports no solver module
from .common import fail, line_length, positive_float, positive_int

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Iterable

DEFAULT_ENCODING = "pairwise"

ISOLATION_HELP = (
    "cgroup: each solver run in its own cgroup (BenchExec): every descendant killed, CPU time and peak "
    "memory of the whole tree; none: process group and rusage; auto (default): cgroup where available"
)


def add_solver_arguments(p: argparse.ArgumentParser) -> None:
    """``-s/--solver``, ``--solver-args``, ``--solvers-file`` (one help text in every command:
    tests/cli/test_arg_groups.py)."""
    g = p.add_argument_group("solver")
    g.add_argument(
        "-s",
        "--solver",
        default=DEFAULT_SOLVER,
        metavar="NAME|PATH",
        help="pysat:NAME (embedded: no binary), a profile name (cnfgen-queens solvers lists them) or the path "
        f"to a binary (default: {DEFAULT_SOLVER})",
    )
    g.add_argument(
        "--solver-args",
        default="",
        metavar='"..."',
        help='extra arguments for an external solver, one string: --solver-args="--seed=1 --sat"',
    )
    add_solvers_file_argument(g)


def add_solvers_file_argument(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--solvers-file YAML`` (also in ``solvers``, which lists them)."""
    p.add_argument(
        "--solvers-file",
        metavar="YAML",
        help="user solver profiles, YAML (its format: the documentation's page Solvers and limits)",
    )


def time_limit_type() -> Callable[[str], float]:
    """The check of a time limit (``--time-limit``, the API's ``time_limit``): positive seconds up to MAX_TIME."""
    from cnfgen_queens.limits import MAX_TIME

    return positive_float("time limit", MAX_TIME)


def memory_limit_type() -> Callable[[str], int]:
    """The check of a memory limit (``--memory-limit``, the API's ``memory_limit``): MB that solvers accept."""
    from cnfgen_queens.limits import MAX_MEMORY

    return positive_int("memory limit", MAX_MEMORY, " MB (what solvers accept)")


def add_limit_arguments(p: argparse.ArgumentParser) -> None:
    """``-t/--time-limit S``, ``-m/--memory-limit MB``, ``--output-limit MB``, ``--isolation`` (one help text in
    every command, so none names another command's loop)."""
    g = p.add_argument_group("limits")
    g.add_argument(
        "-t",
        "--time-limit",
        type=time_limit_type(),
        default=None,
        metavar="S",
        help="wall-clock seconds for the whole command, a solver's --version probe too (a command that calls a "
        "solver again and again gives each call what is left)",
    )
    g.add_argument(
        "-m",
        "--memory-limit",
        type=memory_limit_type(),
        default=None,
        metavar="MB",
        help="address-space limit in MB (RLIMIT_AS) of the solver: a binary's process, or the forked child a "
        "pysat: solver runs in",
    )
    g.add_argument(
        "--output-limit",
        type=positive_int("output limit"),
        default=None,
        metavar="MB",
        help="stop a solver that prints more than MB (stdout + stderr; default 1024): ERROR 'output limit'",
    )
    g.add_argument("--isolation", choices=("auto", "cgroup", "none"), default="auto", help=ISOLATION_HELP)


def add_encoding_arguments(p: argparse.ArgumentParser) -> None:
    """``-e/--encoding``, ``--group-size``, ``--column-alo``, ``--plugin``.  The first two default to None (meaning
    pairwise and the encoding's own group size), so that a command can tell whether they were given."""
    g = p.add_argument_group("encoding")
    g.add_argument(
        "-e",
        "--encoding",
        default=None,
        metavar="NAME",
        help=f"at-most-one encoding (default: {DEFAULT_ENCODING}; gen-queens --list-encodings lists them)",
    )
    g.add_argument(
        "--group-size",
        type=line_length("group size"),
        default=None,
        metavar="K",
        help="group size of the commander (default 3) and bimander (default 2) encodings",
    )
    g.add_argument("--column-alo", action="store_true", help="add the redundant at-least-one per column")
    add_plugin_argument(g)


PLUGIN_HELP = (
    "load the encodings of a plugin (repeatable): a .py file or an importable module that calls "
    "cnfgen_queens.register_encoding when imported (the documentation's page Your own encoding, solver and "
    "instances); installed packages' are found without it"
)


def add_plugin_argument(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--plugin FILE.py|MODULE`` (repeatable): every command that takes an encoding name."""
    p.add_argument("--plugin", action="append", default=[], metavar="FILE.py|MODULE", help=PLUGIN_HELP)


def add_executor_arguments(p: argparse.ArgumentParser) -> None:
    """``--executor local|dask|slurm`` and ``--scheduler ADDR`` (``count``, ``batch``); see :func:`check_executor`.

    No default here: ``batch`` falls back to its config's executor, ``count`` to local."""
    g = p.add_argument_group("executor")
    g.add_argument(
        "--executor",
        choices=("local", "dask", "slurm"),
        help="where the work runs: local processes (the default, or batch's config's executor), Dask (a "
        "LocalCluster of --jobs workers, or the cluster of --scheduler), or Dask workers started as SLURM "
        "jobs (--jobs of them; see the documentation's page Batch experiments and reports: On a cluster (SLURM))",
    )
    g.add_argument("--scheduler", metavar="ADDR", help="a running Dask scheduler (tcp://host:8786) for --executor dask")


def check_executor(args: argparse.Namespace) -> None:
    if args.scheduler and args.executor != "dask":
        fail("--scheduler needs --executor dask")


def add_output_argument(p: argparse.ArgumentParser) -> None:
    """``-o/--output FILE`` (``gen``, ``decode``, ``merge``), as :func:`.common.output` writes it."""
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write FILE atomically instead of stdout; FILE.gz, .bz2 or .xz is compressed",
    )


def encoding_of(args: argparse.Namespace) -> str:
    return args.encoding or DEFAULT_ENCODING


DEFAULTS = {"--isolation": "auto", "--solver": DEFAULT_SOLVER}  # options whose default is a value


def given_flags(args: argparse.Namespace, flags: Iterable[str]) -> list[str]:
    """Those of ``flags`` (long spellings) set to something other than their default, in the order given."""
    return [flag for flag in flags if _is_set(getattr(args, flag.lstrip("-").replace("-", "_")), DEFAULTS.get(flag))]


def _is_set(value: object, default: object) -> bool:
    if value is None or value is False or (isinstance(value, str | list) and not value):
        return False  # 0 (a seed, a K) is set: compare by identity, not by truth
    return default is None or value != default


def add_jobs_argument(p: argparse.ArgumentParser, default: int | None, help: str) -> None:
    """``-j/--jobs J``: parallel processes; what runs in parallel (and so the default) is the command's."""
    p.add_argument("-j", "--jobs", type=positive_int("jobs"), default=default, metavar="J", help=help)
