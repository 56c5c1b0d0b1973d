"""``cnfgen-queens report DB``: PAR-2 table per (solver, encoding), CSV/JSON, cactus, time-vs-N and scatter plots."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cnfgen_queens.cnf.same_file import refuse_alias, refuse_database, refuse_repeated

from ..errors import UsageError, printable
from ..experiments import against, compare, machine, noise, rejudge, report, runs_read, spread
from ..experiments.bundle import store_of
from ..experiments.html_report import OUTPUT_DIR, HtmlTargetError, check_target, write
from ..experiments.plots import check_path, draw, scatter_pairs
from ..experiments.report import load_rows
from ..experiments.spread import NOISY_CV
from ..experiments.verdict import Verdict
from .common import check_output_path, fail, output, write_failed

if TYPE_CHECKING:
    from ..experiments.store import Row
    from ..experiments.summary import GroupStats

PLOT_HELP = "the extension picks the format (.png .svg .pdf); repeatable"


class _PlotGone(argparse.Action):
    """The old ``--plot FILE ...`` (kind guessed from the name; it swallowed the DB): a clear error."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        fail("--plot is replaced by one flag per kind: --cactus FILE, --time-vs-n FILE, --scatter A B FILE")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "db", metavar="DB", help="results database written by `cnfgen-queens batch`, or a CSV written by --runs-csv"
    )
    p.add_argument("--markdown", metavar="OUT", help="write the table (Markdown) to OUT as well as stdout")
    p.add_argument("--csv", metavar="OUT", help="write the table as CSV")
    p.add_argument("--json", metavar="OUT", help="write the table as JSON")
    p.add_argument("--runs-csv", metavar="OUT", help="write every run (all columns) as CSV")
    p.add_argument(
        "--cactus",
        metavar="FILE",
        action="append",
        default=[],
        help=f"cactus plot: runs solved against time, a panel per solver; {PLOT_HELP}",
    )
    p.add_argument(
        "--time-vs-n",
        metavar="FILE",
        action="append",
        default=[],
        help=f"median time against N, a panel per encoding, a line per solver; {PLOT_HELP}",
    )
    p.add_argument(
        "--scatter",
        nargs=3,
        metavar=("A", "B", "FILE"),
        action="append",
        default=[],
        help=f"solver A against solver B, one point per instance (log-log, diagonal, limit lines); {PLOT_HELP}",
    )
    p.add_argument(
        "--html",
        metavar="DIR",
        help="write a page to read in a browser: the table, the plots, every run (sort, filter) and a "
        "comparison of two solvers or encodings; DIR is made (or an earlier report there replaced) in one rename",
    )
    p.add_argument("--plot", nargs="*", action=_PlotGone, help=argparse.SUPPRESS)
    p.add_argument("--title", help="plot title (default: the experiment name)")
    p.add_argument(
        "--by",
        action="append",
        choices=report.BY_KEYS,
        default=[],
        help="a table per value of this run column (n: per board size; solver: the label with its arguments); "
        "lines are ranked within each; repeatable",
    )
    p.add_argument(
        "--where",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="only the runs whose column FIELD has this value as the table prints it, case-insensitive "
        "(n=1000, column_alo=true, 'solver=kissat --sat'); repeatable: all must hold",
    )
    p.add_argument(
        "--compare",
        nargs=2,
        metavar=("A", "B"),
        help="is A faster than B: two solvers, two encodings or FIELD=VALUE of any run column, paired over the "
        "instances both ran; geometric-mean time ratio with its 95%% confidence interval, Wilcoxon signed-rank "
        "test and a verdict",
    )
    p.add_argument(
        "--against",
        metavar="OLD",
        help="did these runs reproduce OLD (a results database or a bundle): per cell the runs whose answer "
        "changed (wrong answers first), the time ratio with its 95%% interval and Wilcoxon test, what differs "
        "in provenance; its first line says reproduced, or where not",
    )
    p.add_argument(
        "--rejudge",
        action="store_true",
        help="read the solver output the batch kept (keep_output) again with today's parser and judge, and list "
        "every run whose verdict would change",
    )
    p.add_argument(
        "--across-machines",
        action="store_true",
        help="let --compare and the HTML comparison view pair runs of different machines (refused by default; "
        "the output then says so)",
    )
    p.add_argument(
        "--machines",
        action="store_true",
        help="the machines the runs ran on, with the load at their start (shown unasked when there are several)",
    )
    p.add_argument(
        "--spread",
        action="store_true",
        help="per configuration and instance with repeats: median, interquartile range, 95%% confidence interval "
        "of the median (order statistics; 6 or more repeats), coefficient of variation; noisy cells marked",
    )
    p.add_argument(
        "--noisy",
        type=_fraction,
        default=NOISY_CV,
        metavar="CV",
        help=f"coefficient of variation above which a cell is noisy (default {NOISY_CV:g})",
    )
    p.add_argument(
        "--time",
        choices=("wall", "cpu"),
        default="wall",
        help="the time the table and plots use (default wall; cpu is steadier on a loaded machine)",
    )


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value < 10:
        raise argparse.ArgumentTypeError(f"{text}: expected a coefficient of variation above 0 (0.1 for 10%)")
    return value


@dataclass
class _Seen:
    """What one pass over the runs notes for the lines around the table: how many, their config hashes, their
    machines."""

    runs: int = 0
    hashes: set[str] = field(default_factory=set)
    machines: set[str] = field(default_factory=set)
    columns: tuple[str, ...] = ()  # no column named by the user

    def add(self, row: Row) -> None:
        self.route(row, Verdict.UNSOLVED)([None])

    def route(self, row: Row, judged: Verdict) -> Callable[[list[float | None]], None]:
        """Notes ``row``'s config hash and machine; the function that counts the runs like it."""
        self.hashes.add(row.config_hash)
        if row.machine is not None:
            self.machines.add(row.machine)

        def take(times: list[float | None]) -> None:
            self.runs += len(times)

        return take


def _sections(
    args: argparse.Namespace,
    rows: Iterable[Row],
    seen: _Seen,
    spreads: spread.Spreads | None,
    pairing: compare.Pairing | None,
) -> str:
    """What follows the table: the machines (--machines, or when the runs come from several; every run read
    again), the spread over repeats (--spread), the comparison (--compare), the last two from the pass made."""
    parts = []
    try:
        if (args.machines or len(seen.machines) > 1) and (found := noise.section(list(rows), args.db)):
            parts.append(found)  # shown unasked for several machines: the guard
        if spreads is not None:
            cells = spreads.cells()
            parts.append(spread.markdown(cells, args.noisy, args.time) if cells else "spread: no run has repeats\n")
        if args.rejudge:
            parts.append(rejudge.markdown(rejudge.rejudge(Path(args.db), rows)))
        if pairing is not None:
            parts.append(compare.text(pairing.result(), args.time))
    except UsageError as e:
        fail(str(e))
    return "".join("\n" + p for p in parts)


def _against(args: argparse.Namespace, rows: Iterable[Row]) -> against.Against | None:
    """``--against OLD``: the comparison of the runs with OLD's (None without the option)."""
    if not args.against:
        return None
    try:
        with store_of(Path(args.against)) as old_db:
            old = report.shown_rows(load_rows(old_db))
            machines = (machine.stored(args.db), machine.stored(old_db))
        return against.against(list(rows), old, machines, args.time)
    except UsageError as e:
        fail(str(e))


def _write(path: str, text: str) -> None:
    """``text`` into ``path`` (atomically; a device or FIFO written into); a failed write exits 1, one line."""
    with output(path) as out:
        out.write(text.encode())


def _check_outputs(db: str, flags: Sequence[tuple[str, Path]]) -> None:
    """Before any work: no output is the results file, a SQLite database, another output, or unwritable."""
    refuse_repeated(flags)
    for flag, path in flags:
        refuse_alias(path, [db], flag)
        refuse_database(path, flag)
        check_output_path(path)  # a FIFO or device is written into; output() refuses a FIFO nobody reads


def _rows(args: argparse.Namespace, *, listed: bool) -> Iterable[Row]:
    """The runs that match ``--where``, with the text every output shows escaped (a name holding a newline is one
    cell): of a runs CSV (``--runs-csv``; told apart by the extension) as a list, of a results database read
    from the file on each pass over them (:class:`.runs_read.Runs`: a million runs are never all held), or as a
    list when an output reads them all (``listed``)."""
    try:
        if args.db.lower().endswith(".csv"):
            return report.where(report.shown_rows(load_rows(args.db)), args.where)
        runs = runs_read.Runs(args.db, args.where, ordered=listed)  # one pass needs no order: its answers have none
        return list(runs) if listed else runs
    except UsageError as e:
        fail(str(e))


def _one_pass(
    args: argparse.Namespace, rows: Iterable[Row]
) -> tuple[report.Summary, _Seen, spread.Spreads | None, compare.Pairing | None]:
    """One pass over ``rows``: the table's lines, what is seen around them, the spread and the comparison asked
    for; a row refused on the way (a store from outside) ends the command in one line."""
    summary, seen = report.Summary(by=args.by, time=args.time), _Seen()
    spreads = spread.Spreads(args.time) if args.spread else None
    pairing = None
    try:
        if args.compare:
            platforms = machine.platform_names(machine.stored(args.db))  # a new commit is no new machine
            pairing = compare.Pairing(
                *args.compare, time=args.time, across_machines=args.across_machines, platforms=platforms
            )
        takers = [t for t in (summary, seen, spreads, pairing) if t is not None]
        if isinstance(rows, runs_read.Runs):
            rows.tally(takers, args.time)
        else:
            for r in rows:
                for taker in takers:
                    taker.add(r)
    except UsageError as e:
        fail(str(e))
    return summary, seen, spreads, pairing


Plot = tuple[str, Path, tuple[str, str] | None]  # kind, file, the two solvers of a scatter plot


def run(args: argparse.Namespace) -> int:
    plots = _plots_asked(args)
    rows = _rows(args, listed=bool(plots or args.html or args.json or args.runs_csv))  # outputs of every run
    summary, seen, spreads, pairing = _one_pass(args, rows)
    if not seen.runs:
        fail(f"{args.db}: no runs stored yet" if not args.where else f"{args.db}: no run matches --where", 1)
    listed = rows if isinstance(rows, list) else []  # (read in full above when a plot is drawn)
    for kind, _, pair in plots:
        if kind == "scatter" and pair is not None:
            try:
                scatter_pairs(listed, *pair)
            except ValueError as e:
                fail(str(e))
    if len(seen.hashes) > 1:
        note = f"{printable(args.db)} holds runs of {len(seen.hashes)} config versions; the table includes all"
        print(f"{args.prog}: note: {note}", file=sys.stderr)
    stats = summary.stats()
    reproduced = _against(args, rows)  # its headline the first line of the output
    head = "" if reproduced is None else against.markdown(reproduced, args.time) + "\n"
    table = head + report.markdown(stats, args.time) + _sections(args, rows, seen, spreads, pairing)
    sys.stdout.write(table)
    sys.stdout.flush()
    _write_tables(args, table, stats, listed)
    _draw_plots(args, plots, listed)
    if args.html:
        _html(args, listed, None if reproduced is None else against.html_section(reproduced, args.time))
    if missing := report.missing_note(stats):  # last: after the files written, or the error that stopped them
        print(f"{args.prog}: note: {printable(missing)}", file=sys.stderr)
    return 0


def _plots_asked(args: argparse.Namespace) -> list[Plot]:
    """The plots asked for, after every output path (plots, tables, the HTML page) is checked: none may be
    the store, its sidecars or another output."""
    plots: list[Plot] = [
        *(("cactus", Path(f), None) for f in args.cactus),
        *(("time-vs-n", Path(f), None) for f in args.time_vs_n),
        *(("scatter", Path(f), (a, b)) for a, b, f in args.scatter),
    ]
    for _, path, _ in plots:
        try:
            check_path(path)
        except ValueError as e:
            fail(str(e))
    kinds = ("markdown", "csv", "json", "runs_csv")
    tables = [(f"--{k.replace('_', '-')}", Path(p)) for k in kinds if (p := getattr(args, k))]
    _check_outputs(args.db, [*((f"--{kind}", p) for kind, p, _ in plots), *tables])
    if args.html:
        others = [*(p for _, p, _ in plots), *(p for _, p in tables)]
        try:
            check_target(Path(args.html), [Path(args.db), *_sidecars(args.db), *others])
        except HtmlTargetError as e:
            fail(str(e))
    return plots


def _write_tables(args: argparse.Namespace, table: str, stats: list[GroupStats], listed: list[Row]) -> None:
    """The table files asked for, each text made only when asked for (every run as CSV is most of a large
    report's time)."""
    outputs = {
        args.markdown: ("table", lambda: table),
        args.csv: ("table (CSV)", lambda: report.to_csv(stats)),
        args.json: ("table (JSON)", lambda: report.to_json(stats, listed, args.time)),
        args.runs_csv: (f"{len(listed)} runs (CSV)", lambda: report.runs_csv(listed)),
    }
    for path, (what, text) in outputs.items():
        if path:
            _write(path, text())
            print(f"wrote {printable(path)}: {what}", file=sys.stderr)


def _draw_plots(args: argparse.Namespace, plots: list[Plot], listed: list[Row]) -> None:
    if not plots:
        return
    title = _title(args, listed)
    for kind, path, pair in plots:
        try:
            draw(listed, kind, path, title, pair, args.time)
        except OSError as e:
            if e.filename is None:  # a full disk, a FIFO with no reader: exit 1
                write_failed(path, e)
            fail(f"cannot write {path}: {e.strerror or e}")
        what = f"scatter plot {pair[0]} vs {pair[1]}" if pair else f"{kind} plot"
        print(printable(f"wrote {path}: {what}"), file=sys.stderr)


def _sidecars(db: str) -> list[Path]:
    """The files beside a results database that the HTML report reads (WAL, kept run output)."""
    path = Path(db)
    return [path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm"), path.parent / OUTPUT_DIR]


def _title(args: argparse.Namespace, rows: list[Row]) -> str:
    """The plots' and the page's title: --title, else the experiments' names; one line."""
    return printable(args.title or ", ".join(sorted({r.experiment for r in rows})))


def _html(args: argparse.Namespace, rows: list[Row], reproduced: str | None) -> None:
    title = _title(args, rows)
    try:
        done = write(
            rows,
            Path(args.html),
            title=title,
            db=Path(args.db),
            time=args.time,
            across_machines=args.across_machines,
            against=reproduced,
        )
    except OSError as e:  # a file of the directory when the error names one
        fail(f"cannot write {e.filename if isinstance(e.filename, str) else args.html}: {e.strerror or e}")
    linked = f", {done.outputs} linked to their output" if done.outputs else ""
    where = printable(str(Path(args.html) / "index.html"))
    print(f"wrote {where}: {done.runs} runs, plots {', '.join(done.plots)}{linked}", file=sys.stderr)
