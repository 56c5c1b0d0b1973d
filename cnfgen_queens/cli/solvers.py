"""``cnfgen-queens solvers``: every known solver, found or not, with path and version."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path

from ..solvers import ProfileError, SolverMissing, SolverNotFound, list_solvers, resolve
from ..solvers.discovery import embedded_available, embedded_names, embedded_version
from .arg_groups import add_solvers_file_argument
from .common import EXIT_ENVIRONMENT, fail


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_solvers_file_argument(p)
    p.add_argument("--json", action="store_true", help="one JSON record per solver")
    p.add_argument("--embedded", action="store_true", help="also list the embedded pysat:NAME solvers")
    p.add_argument("--path", metavar="SOLVER", help="print the binary SOLVER resolves to (for shell scripts) and exit")


def run(args: argparse.Namespace) -> int:
    import json

    if args.path:
        try:
            spec = resolve(args.path, Path(args.solvers_file) if args.solvers_file else None)
        except SolverMissing as e:  # a known solver not installed: the environment
            fail(str(e), EXIT_ENVIRONMENT)
        except (SolverNotFound, ProfileError) as e:
            fail(str(e))
        if not spec.path:
            fail(f"{args.path} is embedded (in-process): it has no binary")
        print(spec.path)
        return 0
    try:
        rows = list_solvers(Path(args.solvers_file) if args.solvers_file else None)
    except ProfileError as e:
        fail(str(e))
    embedded = []
    if args.embedded:
        for name in embedded_names():
            found = embedded_available(name)
            embedded.append((f"pysat:{name}", found, embedded_version(name) if found else None))
    if args.json:
        for row in rows:
            print(json.dumps(asdict(row)))
        for name, found, version in embedded:
            print(
                json.dumps(
                    {
                        "name": name,
                        "found": found,
                        "path": None,
                        "version": version,
                        "source": "embedded",
                        "install": "" if found else "see pysat's docs",
                    }
                )
            )
        return 0
    width = max([30] + [len(v) + 1 for v in [r.version for r in rows] + [e[2] for e in embedded] if v])
    print(f"{'name':<18} {'found':<6} {'version':<{width}} path / how to install")
    for row in rows:
        where = row.path if row.found else f"install: {row.install}"
        print(f"{row.name:<18} {'yes' if row.found else 'no':<6} {row.version or '-':<{width}} {where}")
    for name, found, version in embedded:
        note = "(embedded pysat, no binary needed)" if found else "(embedded; its backend package is missing)"
        print(f"{name:<18} {'yes' if found else 'no':<6} {version or '-':<{width}} {note}")
    return 0
