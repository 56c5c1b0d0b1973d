"""``cnfgen-queens bundle DB -o ARTIFACT``: pack a results database with what produced it (experiments.bundle)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..cnf.atomic import work_dir
from ..cnf.same_file import refuse_alias
from ..errors import UsageError, printable
from ..experiments.bundle import View, find_config, make, store_from_runs
from ..experiments.config import Config, load
from ..experiments.report import load_rows
from ..experiments.summary import BY_KEYS, TIMES
from .common import fail


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "db",
        metavar="DB",
        help="the results database (SQLite) a batch wrote, or a runs CSV of `report --runs-csv` (with --config)",
    )
    p.add_argument("-o", "--artifact", required=True, metavar="ARTIFACT", help="the bundle to write (.tar.gz)")
    p.add_argument(
        "--config",
        metavar="CONFIG.yaml",
        help="the config that wrote DB (default: the file the store names, if it is still that config); of a "
        "runs CSV, its runs are bundled (the rows of other configs are left out)",
    )
    p.add_argument(
        "--by",
        action="append",
        choices=BY_KEYS,
        default=[],
        help="the bundle's report: a table per value of this run column, as `report --by` (recorded in the "
        "bundle); repeatable",
    )
    p.add_argument(
        "--time", choices=TIMES, default="wall", help="the time the bundle's report uses, as `report --time`"
    )
    p.add_argument(
        "--machines",
        action="store_true",
        help="the bundle's report: the machines and the load at the runs' start after the table, as `report "
        "--machines` (recorded in the bundle)",
    )
    p.add_argument(
        "--compare",
        nargs=2,
        metavar=("A", "B"),
        help="the bundle's report: the comparison of A with B after the table, as `report --compare A B` prints "
        "it (recorded in the bundle)",
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
    p.add_argument(
        "--attach",
        action="append",
        default=[],
        type=Path,
        metavar="FILE",
        help="carry FILE in the bundle as attached/NAME (a study's other tables, say; not rerun); repeatable",
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
        pair = getattr(args, "compare", None)  # batch --bundle: the defaults
        view = View(
            tuple(getattr(args, "by", ())),
            getattr(args, "time", "wall"),
            None if pair is None else tuple(pair),
            getattr(args, "machines", False),
        )
        made = make(
            db,
            out,
            config=found,
            view=view,
            with_host=args.with_host,
            with_instances=args.with_instances,
            attach=tuple(getattr(args, "attach", ())),
        )
    except UsageError as e:
        fail(str(e))
    except OSError as e:
        fail(f"cannot write {out}: {e.strerror or e}", 1)
    seconds = time.monotonic() - start
    print(printable(f"wrote {out}: {made.members} members, {made.size} bytes ({seconds:.1f} s)"), file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    if not args.db.lower().endswith(".csv"):
        write_bundle(Path(args.db), Path(args.artifact), args)
        return 0
    if not args.config:  # a runs CSV names no config file
        fail(f"{args.db}: a runs CSV: give the config that ran its runs with --config")
    try:
        refuse_alias(Path(args.artifact), [args.db], "-o")
        config = load(args.config, check_solvers=False, check_sizes=False)
        rows = load_rows(args.db)
        with work_dir("bundle-runs") as folder:
            others = store_from_runs(rows, config, folder / "results.sqlite")
            if others:
                print(f"{args.db}: {others} run(s) of other configs left out", file=sys.stderr)
            write_bundle(folder / "results.sqlite", Path(args.artifact), args, config)
    except UsageError as e:
        fail(str(e))
    return 0
