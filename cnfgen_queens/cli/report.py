"""``cnfgen-queens report DB``: PAR-2 table per (solver, encoding), CSV/JSON, cactus and time-vs-N plots."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .common import fail


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("db", metavar="DB", help="results database written by `cnfgen-queens batch`")
    p.add_argument("--markdown", metavar="OUT", help="write the table (Markdown) to OUT as well as stdout")
    p.add_argument("--csv", metavar="OUT", help="write the table as CSV")
    p.add_argument("--json", metavar="OUT", help="write the table as JSON")
    p.add_argument("--runs-csv", metavar="OUT", help="write every run (all columns) as CSV")
    p.add_argument(
        "--plot",
        metavar="FILE",
        nargs="+",
        default=[],
        help="plots; the name picks the kind (contains 'cactus' or 'time' for time vs N), "
        "the extension the format (.png .svg .pdf)",
    )
    p.add_argument("--title", help="plot title (default: the experiment name)")


def _write(path: str, text: str) -> None:
    from ..dimacs import atomic_output

    with atomic_output(Path(path)) as out:
        out.write(text.encode())


def run(args: argparse.Namespace) -> int:
    from ..dimacs import check_writable
    from ..experiments import report
    from ..experiments.store import Store, StoreError

    plots = [Path(p) for p in args.plot]
    from ..experiments.plots import plot_kind  # no matplotlib yet

    for path in plots:
        try:
            plot_kind(path)
        except ValueError as e:
            fail(str(e))
    for path in [*plots, *(Path(p) for p in (args.markdown, args.csv, args.json, args.runs_csv) if p)]:
        try:  # before any work, so a typo in the last option does not cost the whole report
            check_writable(path)
        except OSError as e:
            fail(f"cannot write {path}: {e}")
    try:
        with Store(args.db, readonly=True) as store:
            rows = store.rows()
    except StoreError as e:
        fail(str(e))
    if not rows:
        fail(f"{args.db}: no runs stored yet", 1)
    hashes = {r.config_hash for r in rows}
    if len(hashes) > 1:
        note = f"{args.db} holds runs of {len(hashes)} config versions; the table includes all"
        print(f"{args.prog}: note: {note}", file=sys.stderr)
    stats = report.summarize(rows)
    table = report.markdown(stats)
    sys.stdout.write(table)
    outputs = {
        args.markdown: table,
        args.csv: report.to_csv(stats),
        args.json: report.to_json(stats, rows),
        args.runs_csv: report.runs_csv(rows),
    }
    for path, text in outputs.items():
        if path:
            _write(path, text)
    if plots:
        from ..experiments.plots import draw

        title = args.title or ", ".join(sorted({r.experiment for r in rows}))
        for path in plots:
            try:
                draw(rows, path, title)
            except OSError as e:
                fail(f"cannot write {path}: {e.strerror or e}")
    return 0
