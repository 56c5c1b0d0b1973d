"""``cnfgen-queens bundle DB -o ARTIFACT``: pack a results database with what produced it (experiments.bundle)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..errors import UsageError, printable
from ..experiments.bundle import find_config, make
from ..experiments.config import Config
from .common import fail


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("db", metavar="DB", help="the results database (SQLite) a batch wrote")
    p.add_argument("-o", "--artifact", required=True, metavar="ARTIFACT", help="the bundle to write (.tar.gz)")
    p.add_argument(
        "--config",
        metavar="CONFIG.yaml",
        help="the config that wrote DB (default: the file the store names, if it is still that config)",
    )
    add_bundle_options(p)


def add_bundle_options(p: argparse.ArgumentParser) -> None:
    """The options ``bundle`` and ``batch --bundle`` share."""
    p.add_argument(
        "--with-host", action="store_true", help="keep host names, process ids and paths (left out by default)"
    )
    p.add_argument(
        "--with-instances",
        action="store_true",
        help="put the DIMACS files of instances.files in the bundle (by default they are named by GBD hash only)",
    )


def write_bundle(db: Path, out: Path, args: argparse.Namespace, config: object = None) -> None:
    """Make the bundle of ``db`` at ``out`` and say so on stderr; one line and exit 2 when it cannot."""
    start = time.monotonic()
    try:
        found = (
            config
            if isinstance(config, Config)
            else find_config(db, Path(args.config) if getattr(args, "config", None) else None)
        )
        made = make(db, out, config=found, with_host=args.with_host, with_instances=args.with_instances)
    except UsageError as e:
        fail(str(e))
    except OSError as e:
        fail(f"cannot write {out}: {e.strerror or e}", 1)
    seconds = time.monotonic() - start
    print(printable(f"wrote {out}: {made.members} members, {made.size} bytes ({seconds:.1f} s)"), file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    write_bundle(Path(args.db), Path(args.artifact), args)
    return 0
