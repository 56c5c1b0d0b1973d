"""``cnfgen-queens check-count DIR``: check a count certificate and print the certified count.

Parses and prints; the checks are :mod:`cnfgen_queens.solutions.api`'s.  Exit 0 with
``certified count: K``; 1 when the certificate is rejected (the reason on stderr); 2 when DIR holds
no certificate or no DRAT checker is available.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cnfgen_queens.errors import UsageError, printable
from cnfgen_queens.solutions.api import CHECKERS, CertificateRejected, Where, check_certificate

from .arg_groups import add_executor_arguments, add_jobs_argument, add_plugin_argument, check_executor
from .common import fail
from .run_options import cap_jobs


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("directory", metavar="DIR", help="the certificate's directory (count N --certify DIR)")
    p.add_argument(
        "--checker",
        choices=CHECKERS,
        default="auto",
        help="the DRAT checker: auto (drat-trim when it is on PATH, else dratify), drat-trim, or dratify (pure Python)",
    )
    add_jobs_argument(
        p,
        default=1,
        help="check the cubes' parts (boards and proof) and the cover in J processes "
        "(--executor: local, Dask or SLURM, as count; default 1)",
    )
    add_executor_arguments(p)
    add_plugin_argument(p)  # the certificate of a plugin's encoding rebuilds its formula


def run(args: argparse.Namespace) -> int:
    cap_jobs(args)
    check_executor(args)
    try:
        where = Where(jobs=args.jobs, executor=args.executor or "local", scheduler=args.scheduler)
        result = check_certificate(Path(args.directory), args.checker, where=where)
    except UsageError as e:
        fail(str(e))
    except CertificateRejected as e:
        print(f"{args.prog}: rejected: {printable(str(e))}", file=sys.stderr)  # one line, whatever the files say
        return 1
    f = result.formula
    print(f"certified count: {result.total}")
    print(
        f"{f.describe()}; {result.cubes} cubes, {result.proofs} DRAT proofs checked by {result.checker}",
        file=sys.stderr,
    )
    return 0
