"""``report --html DIR``: a self-contained page to read a results database in a browser, as BenchExec's table.

The directory holds ``index.html`` (the summary per (solver, encoding) with PAR-2 and the
cactus, time-vs-N and scatter plots, open at once whatever the size of the store), ``runs.js``
(every run, loaded by the page only when its table or the comparison view is opened, so a
100,000-row store does not slow the overview) and the plots (SVG, or PNG over
:data:`SVG_MAX_RUNS` runs, where an SVG of every point would be slower to draw than to read).
The page's script and style are ours (``html/report.js``, ``html/report.css``), inlined: no
server, no network.  The table of runs sorts by any column and filters by any column (text, or
``>``, ``<``, ``=``, ``A..B`` for numbers), a page at a time; the comparison view puts two
solvers (or two encodings) side by side per instance, with the speed-up and the runs where
their answers or verdicts disagree.  A run whose output the batch kept (``keep_output: true``:
a file ``run-output/<run key>.log`` beside the results file) links to it.

The whole directory is built in a temporary directory beside ``DIR`` (``.DIR.PID.XXXXXXXX.tmp``;
one a ``kill -9`` left is removed by the next report there, once its process is gone) and renamed
into place when ``DIR`` is new.  An existing ``DIR`` must be empty or an earlier report: its
``index.html`` lists the files the report wrote (``<meta name="cnfgen-queens-files">``), and only those
are replaced or removed, each renamed in (the page last), never through a link planted there; a file
the user added is kept.  Same database, same bytes.
"""

from __future__ import annotations

import html
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import resources
from operator import attrgetter
from pathlib import Path
from typing import Any

from ..cnf.owned import open_owned, refuse_links, refuse_planted
from ..cnf.same_file import refuse_alias
from ..errors import UsageError
from . import noise, report
from .compare import PAIR_KEYS
from .file_instances import QUEENS, generated
from .html_publish import fsync, publish, sweep_builds
from .html_stats import DIMENSIONS, comparisons_script, machines_html
from .machine import one_per_platform, stored
from .plots import draw, scatter_pairs
from .row import COLUMN
from .store import OUTPUT_DIR, Row
from .verdict import verdict

GENERATOR = "cnfgen-queens report --html"  # the mark of a directory this module wrote (in index.html)
FILES_META = "cnfgen-queens-files"  # the files it wrote there, space-separated (in index.html)
SVG_MAX_RUNS = 20_000
# The page's runs (runs.js) carry these columns, in order: a run's column (its facts: .row.RUN_COLUMNS) or one of the
# page's own (instance: the run's instance in words; output: the link to its kept output).  Its runs table shows
# SHOWN, in order (those of OPTIONAL where any run has one); its comparison view pairs runs on .compare.PAIR_KEYS.
PAGE_COLUMNS = (
    "instance",
    "task",
    "n",
    "encoding",
    "group_size",
    "column_alo",
    "shuffle_seed",
    "variant",
    "repeat",
    "solver",
    "status",
    "verdict",
    "wall",
    "cpu",
    "peak_memory_mb",
    "measured_by",
    "gbd_hash",
    "count",
    "time_limit",
    "run_key",
    "output",
    "break_symmetry",
    "cores",
    "family",
)
SHOWN = (
    "instance",
    "encoding",
    "n",
    "variant",
    "solver",
    "status",
    "verdict",
    "wall",
    "cpu",
    "peak_memory_mb",
    "measured_by",
    "gbd_hash",
    "family",
    "cores",
    "output",
)
OPTIONAL = ("cores", "output")


class HtmlTargetError(UsageError):
    """A report directory that would overwrite an input or a directory that is not a report."""


@dataclass(frozen=True)
class Written:
    """What :func:`write` put in the directory."""

    directory: Path
    runs: int
    plots: tuple[str, ...]
    outputs: int  # runs linked to their kept output


def check_target(target: Path, inputs: Iterable[Path]) -> None:
    """Refuse a ``target`` that is, holds or lies inside an input, a file, or a directory not ours."""
    inputs = list(inputs)
    where = target.resolve()
    for path in inputs:
        given = path.resolve()
        if where == given or where in given.parents or given in where.parents:
            raise HtmlTargetError(f"--html {target}: {path} is an input of the report; choose another directory")
    if where.exists() and not where.is_dir():
        raise HtmlTargetError(f"--html {target}: exists and is not a directory")
    if where.is_dir() and any(where.iterdir()) and not _is_report(where):
        raise HtmlTargetError(f"--html {target}: a directory that is not a report of ours; left untouched")
    if where.is_dir():  # an input among its files (device and inode), or a link planted there, is refused
        own = ["index.html", "runs.js", *_own_files(where)]
        refuse_alias(where, inputs, "--html", own=own)
        refuse_links(where, own)
        refuse_planted(where, ".", own)  # a folder where a file of ours is: refused before any work
    if not where.parent.is_dir():
        raise HtmlTargetError(f"--html {target}: directory {where.parent} does not exist")
    if not os.access(where.parent, os.W_OK):
        raise HtmlTargetError(f"--html {target}: cannot create files in {where.parent}")


def _head(directory: Path) -> str:
    try:
        fd = open_owned(directory / "index.html", directory, os.O_RDONLY)  # never a link's target
    except OSError:
        return ""
    with open(fd, "rb") as f:
        return f.read(4000).decode("utf-8", "replace")


def _is_report(directory: Path) -> bool:
    return f'content="{GENERATOR}"' in _head(directory)


def _own_files(directory: Path) -> list[str]:
    """The files an earlier report wrote in ``directory`` (plain names; none listed by an older version)."""
    head = _head(directory)
    start = head.find(f'<meta name="{FILES_META}" content="')
    if start < 0:
        return []
    listed = head[start:].split('content="', 1)[1].split('"', 1)[0].split()
    return [name for name in listed if name not in (".", "..") and "/" not in name]


def write(
    rows: list[Row],
    target: Path,
    *,
    title: str,
    db: Path,
    time: str = "wall",
    across_machines: bool = False,
    against: str | None = None,
) -> Written:
    """Build the report of ``rows`` (read from ``db``) and put it at ``target`` in one rename; the comparison
    view pairs runs of different machines only ``across_machines``; ``against``: the HTML of ``report
    --against`` (:func:`.against.html_section`), a tab of its own (``index.html#against``)."""
    kept = _kept_outputs(db)
    link_base = os.path.relpath(db.resolve().parent / OUTPUT_DIR, target.resolve())
    parent = target.resolve().parent
    sweep_builds(parent, target.name)
    build = Path(tempfile.mkdtemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=parent))
    try:
        plots = _plots(rows, build, title, time)
        outputs = _write_runs(rows, build / "runs.js", kept, link_base)
        machines = stored(db)  # a comparison pairs runs of one platform: a new commit is no new machine
        extra = (
            machines_html(rows, machines, noise.lines(rows, noise.stored(db))),
            comparisons_script(one_per_platform(rows, machines), time, across_machines),
            "" if against is None else f'<section id="against" hidden>{against}</section>',
            columns_script(rows, outputs),
        )
        files = ["index.html", *sorted(os.listdir(build))]  # every file the report writes, listed in its page
        page = _page(rows, title, plots, time, outputs, extra, files)
        (build / "index.html").write_text(page, encoding="utf-8")
        for f in [*build.iterdir(), build]:
            f.chmod(0o755 if f == build else 0o644)
            fsync(f)
        publish(build, target.resolve(), files, _own_files(target.resolve()))
        fsync(parent)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise
    return Written(target, len(rows), tuple(p for p, _ in plots), outputs)


def _kept_outputs(db: Path) -> set[str]:
    try:
        return {name[: -len(".log")] for name in os.listdir(db.resolve().parent / OUTPUT_DIR) if name.endswith(".log")}
    except OSError:
        return set()


def variant_text(variant: str | None) -> str:
    """A short label of a row's variant JSON (``torus placed=2 holes=1 random=3/7``); empty for plain N-queens."""
    if variant is None:
        return ""
    v = json.loads(variant)
    parts = ["torus"] if v.get("torus") else []
    parts += [f"placed={len(v['place'])}"] if v.get("place") else []
    parts += [f"holes={len(v['holes'])}"] if v.get("holes") else []
    parts += [f"random={v['random_place']}/{v.get('random_seed')}"] if v.get("random_place") is not None else []
    return " ".join(parts)


def instance_text(r: Row) -> str:
    """The instance of a run, readable: ``queens-8 pairwise g3 alo s1 torus break_symmetry #2`` (repeat only
    when > 0); a DIMACS file's: ``FAMILY/NAME`` (its folder and name)."""
    parts = [f"queens-{r.n}", r.encoding] if generated(r.family) else [f"{r.family}/{r.encoding}"]
    parts += [f"g{r.group_size}"] if r.group_size is not None else []
    parts += ["alo"] if r.column_alo else []
    parts += [f"s{r.shuffle_seed}"] if r.shuffle_seed is not None else []
    parts += [variant_text(r.variant)] if variant_text(r.variant) else []
    parts += ["break_symmetry"] if r.break_symmetry else []
    parts += [f"#{r.repeat}"] if r.repeat else []
    return " ".join(parts) + (" (count)" if r.task == "count" else "")


def _num(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


# a value of the page's runs other than the run's column as stored (output: the writer's)
_PAGE_VALUES: dict[str, Callable[[Row], Any]] = {
    "instance": instance_text,
    "variant": lambda r: variant_text(r.variant),
    "solver": attrgetter("solver_label"),
    "status": lambda r: r.status.value,
    "verdict": lambda r: verdict(r).value,
    "wall": lambda r: _num(r.wall),
    "cpu": lambda r: _num(r.cpu),
    "peak_memory_mb": lambda r: _num(r.peak_memory_mb),
    "break_symmetry": lambda r: bool(r.break_symmetry),
    "family": lambda r: r.family or QUEENS,
}


def _write_runs(rows: list[Row], path: Path, kept: set[str], link_base: str) -> int:
    """runs.js: one call ``cnfgenRuns({columns, rows})`` (:data:`PAGE_COLUMNS`), a row a line (JSON, so any text is
    safe)."""

    def output(r: Row) -> str | None:  # the link to the run's kept output
        return f"{link_base}/{r.run_key}.log".replace(os.sep, "/") if r.run_key in kept else None

    values = [output if name == "output" else _PAGE_VALUES.get(name, attrgetter(name)) for name in PAGE_COLUMNS]
    at, linked = PAGE_COLUMNS.index("output"), 0
    with path.open("w", encoding="utf-8") as out:
        out.write(f'cnfgenRuns({{"columns": {json.dumps(list(PAGE_COLUMNS))},\n"rows": [\n')
        for i, r in enumerate(rows):
            line = [f(r) for f in values]
            linked += line[at] is not None
            out.write(("," if i else "") + json.dumps(line, separators=(",", ":")) + "\n")
        out.write("]});\n")
    return linked


def columns_script(rows: list[Row], outputs: int) -> str:
    """What the page's script reads of the runs' columns, as a JSON script element: the runs table's (:data:`SHOWN`:
    heading, number or not, decimals shown) and the columns the comparison view pairs runs on, per dimension (the
    other configuration columns, and the repeat: runs are paired repeat by repeat; encodings whatever their group
    size)."""
    any_of = {"output": outputs > 0, "cores": any(r.cores is not None for r in rows)}
    shown = []
    for name in SHOWN:
        if name in OPTIONAL and not any_of[name]:
            continue
        c = COLUMN.get(name)  # None: the page's own, text
        facts = {"heading": c.heading, "numeric": c.numeric, "decimals": c.decimals} if c else {"heading": name}
        shown.append({"name": name, "numeric": False, "decimals": None, **facts})
    pairs = {
        dim: [k for k in PAIR_KEYS if k != dim and (dim, k) != ("encoding", "group_size")] + ["repeat"]
        for dim in DIMENSIONS
    }
    safe = json.dumps({"shown": shown, "pairs": pairs}, separators=(",", ":")).replace("</", "<\\/")
    return f'<script type="application/json" id="run-columns">{safe}</script>'


def _plots(rows: list[Row], build: Path, title: str, time: str) -> list[tuple[str, str]]:
    """(file, caption) of each plot drawn into ``build``: cactus, time vs N, and the first two solvers' scatter."""
    ext = ".svg" if len(rows) <= SVG_MAX_RUNS else ".png"
    out = [
        (f"cactus{ext}", "Cactus: runs solved against time, a panel per solver, a line per encoding."),
        (f"time-vs-n{ext}", "Median time against N, a panel per encoding, a line per solver; x: unsolved."),
    ]
    out = out[: 1 + any(generated(r.family) for r in rows)]  # DIMACS files alone: no N to plot against
    for (name, _), kind in zip(out, ("cactus", "time-vs-n"), strict=False):
        draw(rows, kind, build / name, title, None, time)
    solvers = sorted({r.solver_label for r in rows})
    for i, a in enumerate(solvers):
        for b in solvers[i + 1 :]:
            try:
                scatter_pairs(rows, a, b)
            except UsageError:
                continue
            draw(rows, "scatter", build / f"scatter{ext}", title, (a, b), time)
            return [*out, (f"scatter{ext}", f"{a} against {b}, one point per instance (log-log).")]
    return out


NUM = ' class="num"'


def _summary(rows: list[Row], time: str) -> str:
    head, cells, text = report.columns(report.summarize(rows, time=time), time)
    lines = ['<table class="summary sortable"><thead><tr>']
    lines += [f'<th data-num="{int(i >= text)}">{html.escape(h)}</th>' for i, h in enumerate(head)]
    lines.append("</tr></thead><tbody>")
    for line in cells:
        tds = (f"<td{NUM * (i >= text)}>{html.escape(c)}</td>" for i, c in enumerate(line))
        lines.append("<tr>" + "".join(tds) + "</tr>")
    lines.append("</tbody></table>")
    return "\n".join(lines)


def _asset(name: str) -> str:
    return resources.files("cnfgen_queens.experiments").joinpath("html", name).read_text(encoding="utf-8")


def _page(
    rows: list[Row],
    title: str,
    plots: list[tuple[str, str]],
    time: str,
    outputs: int,
    extra: tuple[str, str, str, str],
    files: list[str],
) -> str:
    limits = sorted({r.time_limit for r in rows if r.time_limit is not None})
    ns = [r.n for r in rows if generated(r.family)]
    solvers, encodings = len({r.solver_label for r in rows}), len({r.encoding for r in rows if generated(r.family)})
    dimacs = len({r.gbd_hash for r in rows if not generated(r.family)})
    facts = [
        f"{len(rows):,} runs",
        f"{solvers} solver{'s' * (solvers != 1)}",
        f"{encodings} encoding{'s' * (encodings != 1)}",
        f"N = {min(ns, default=0)}..{max(ns, default=0)}" + (f", {dimacs} DIMACS file(s)" if dimacs else ""),
        "time limit " + (", ".join(f"{t:g} s" for t in limits) or "none"),
        f"{len({r.config_hash for r in rows})} config version(s)",
        f"{outputs:,} runs with kept output",
    ]
    figures = "\n".join(
        f'<figure><a href="{p}"><img src="{p}" alt="{html.escape(c)}"></a><figcaption>{html.escape(c)}</figcaption>'
        "</figure>"
        for p, c in plots
    )
    par2 = f"mean over runs of the {time} time of a solved run and twice the time limit of an unsolved one"
    script = _asset("report.js").replace("</", "<\\/")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="generator" content="{GENERATOR}">
<meta name="{FILES_META}" content="{html.escape(" ".join(files))}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>
{_asset("report.css")}</style>
</head>
<body data-runs="{len(rows)}" data-time="{time}">
<header>
<h1>{html.escape(title)}</h1>
<p class="facts">{html.escape(" · ".join(facts))}</p>
<nav>
<button type="button" data-tab="overview" class="active">Overview</button>
<button type="button" data-tab="runs">Runs ({len(rows):,})</button>
<button type="button" data-tab="compare">Compare</button>
{'<button type="button" data-tab="against">Against</button>' if extra[2] else ""}
</nav>
</header>
<main>
<section id="overview">
<div class="summary-box">
<h2>Per solver and encoding</h2>
<p class="note">PAR-2: {html.escape(par2)}. Solved and wrong are each run's verdict. Click a heading to sort.</p>
{_summary(rows, time)}
</div>
{extra[0]}
<div class="plots">
{figures}
</div>
</section>
<section id="runs" hidden>
<div class="controls">
<label>Filter every column <input type="search" id="filter-all" placeholder="text"></label>
<span class="hint">Per column: text, or &gt;1, &lt;=0.5, =8, 8..12 for numbers. Click a heading to sort.</span>
<span class="pager"><button type="button" class="prev">&lt;</button> <span class="page-info"></span>
<button type="button" class="next">&gt;</button></span>
</div>
<p class="loading">Loading the runs…</p>
<table id="runs-table"><thead></thead><tbody></tbody></table>
</section>
<section id="compare" hidden>
<div class="controls">
<label>Compare <select id="cmp-dim"><option value="solver">two solvers</option>
<option value="encoding">two encodings</option></select></label>
<label>A <select id="cmp-a"></select></label>
<label>B <select id="cmp-b"></select></label>
<label><input type="checkbox" id="cmp-only"> only disagreements</label>
<span class="pager"><button type="button" class="prev">&lt;</button> <span class="page-info"></span>
<button type="button" class="next">&gt;</button></span>
</div>
<p class="cmp-summary"></p>
<p class="cmp-verdict"></p>
<p class="loading">Loading the runs…</p>
<table id="cmp-table"><thead></thead><tbody></tbody></table>
</section>
{extra[2]}
</main>
{extra[3]}
{extra[1]}
<script>
{script}</script>
</body>
</html>
"""
