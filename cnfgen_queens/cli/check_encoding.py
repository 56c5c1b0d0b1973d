"""``cnfgen-queens check-encoding NAME``: the conformance gate of an at-most-one encoding, built-in or plugin.

Parses and prints; the checks are :mod:`cnfgen_queens.encodings.conformance`'s.  One line per property
(semantics, hygiene, propagation, parsimony, size), then the verdict; exit 0 when every property holds,
1 when one fails (its line names the counterexample), 2 for an unknown name or a plugin that cannot load.
"""

from __future__ import annotations

import argparse

from cnfgen_queens.encodings import get
from cnfgen_queens.encodings.conformance import DEFAULT_MAX_N, MAX_CHECK_N, check
from cnfgen_queens.encodings.plugins import declared_size, origin

from .arg_groups import add_plugin_argument
from .common import positive_int


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", metavar="NAME", help="the encoding (gen-queens --list-encodings lists them)")
    p.add_argument(
        "--max-n",
        type=positive_int("max n", MAX_CHECK_N),
        default=DEFAULT_MAX_N,
        metavar="N",
        help=f"check lines of 1..N inputs (default {DEFAULT_MAX_N}, at most {MAX_CHECK_N}: every one of the 2^N "
        "input assignments is tried)",
    )
    add_plugin_argument(p)


def run(args: argparse.Namespace) -> int:
    enc = get(args.name)  # UnknownEncoding: one line, exit 2
    source = None if enc.builtin else origin(enc.name)
    where = "built-in" if enc.builtin else (f"plugin {source.spec} sha256:{source.short_hash}" if source else "plugin")
    print(f"check-encoding {enc.name} ({where}), n = 1..{args.max_n}")
    report = check(enc, args.max_n, size=declared_size(enc.name))
    for line in report.lines():
        print(line)
    failed = [f.prop for f in report.failed]
    print(f"verdict: {'conforms' if not failed else 'FAILS ' + ', '.join(failed)}")
    return 1 if failed else 0
