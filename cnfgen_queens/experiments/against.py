"""``report NEW --against OLD``: did NEW (a rerun) reproduce OLD (a store or a bundle)?

Runs are paired by run key (the same instance, solver, arguments, limits and repeat).  Per cell (task,
solver, encoding and the other configuration columns: all N, shuffle seeds and repeats of it):

- every run whose answer changed (solved to timeout, SAT to UNSAT, a count, anything to wrong), a
  wrong answer on either side listed first;
- the time ratio NEW / OLD paired over the cell's instances, its 95% interval and the Wilcoxon test:
  :func:`.compare.compare` of the two sides (the one place that computes them), across machines;
- what differs in provenance: the machines (platform), the solvers' versions, this tool's version and commit.

The first line says ``reproduced`` (every paired run gave OLD's answer) or where not.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from html import escape
from typing import Any

from ..errors import UsageError, printable
from ..solvers.outcome import Status
from . import compare
from .machine import Machine
from .report import cell
from .store import Row
from .verdict import Verdict, verdict

SIDES = ("new", "old")  # what the paired rows' experiment column is set to for compare()
CELL_KEYS = ("task", "solver_label", "encoding", "column_alo", "group_size", "family", "break_symmetry")


@dataclass(frozen=True)
class Change:
    """One run whose answer changed: its cell and instance, the answer in OLD and in NEW."""

    cell: str
    instance: str
    repeat: int
    old: str
    new: str

    @property
    def wrong(self) -> bool:
        return self.old.startswith("wrong") or self.new.startswith("wrong")


@dataclass(frozen=True)
class Against:
    """What ``--against`` found."""

    paired: int  # runs of NEW with a run of OLD
    unpaired: int  # runs of NEW without one
    changes: tuple[Change, ...]
    cells: tuple[tuple[str, compare.Comparison | None], ...]
    provenance: tuple[str, ...]

    @property
    def headline(self) -> str:
        if not self.changes:
            slower = [name for name, c in self.cells if c is not None and c.verdict != "no difference at 95%"]
            times = f"; times differ at 95% in {len(slower)} cell(s): {', '.join(slower)}" if slower else ""
            return f"reproduced: all {self.paired} paired runs gave the same answers{times}"
        where = sorted({c.cell for c in self.changes})
        wrong = sum(c.wrong for c in self.changes)
        return (
            f"not reproduced: {len(self.changes)} of {self.paired} runs changed answer"
            + (f" ({wrong} with a wrong answer)" if wrong else "")
            + f", in {', '.join(where)}"
        )


def answer(row: Row) -> str:
    """A run's answer as compared: SAT or UNSAT (or the count) when solved, ``wrong (...)``, else its status."""
    judged = verdict(row)
    said = row.status.value if row.task != "count" else f"count {row.count}"
    if judged is Verdict.WRONG:
        return f"wrong ({said})"
    if judged is Verdict.SOLVED:
        return said
    if row.status in (Status.SAT, Status.UNSAT):  # an answer that came after the time limit
        return f"{said} past the time limit"
    return row.status.value.lower()


def _cell_name(row: Row) -> str:
    parts = [f"{row.solver_label} {row.encoding}"]
    parts += ["column_alo"] if row.column_alo else []
    parts += [f"group_size={row.group_size}"] if row.group_size is not None else []
    parts += [f"family={row.family}"] if row.family not in (None, "queens") else []
    parts += ["break_symmetry"] if row.break_symmetry else []
    parts += [f"task {row.task}"] if row.task != "solve" else []
    return " ".join(parts)


def _instance(row: Row) -> str:
    seed = "" if row.shuffle_seed is None else f" seed={row.shuffle_seed}"
    return f"n={row.n}{seed}" if row.family in (None, "queens") else f"{row.encoding} ({row.gbd_hash})"


def against(
    new: list[Row], old: list[Row], machines: tuple[dict[str, Machine], dict[str, Machine]], time: str = "wall"
) -> Against:
    """Compare the runs ``new`` with ``old`` (see the module's docstring); ``machines`` of each side's store."""
    by_key = {r.run_key: r for r in old}
    pairs = [(r, by_key[r.run_key]) for r in new if r.run_key in by_key]
    if not pairs:
        raise UsageError("--against: no run of the results is in OLD (another experiment, or another config)")
    changes = [
        Change(_cell_name(n), _instance(n), n.repeat, answer(o), answer(n)) for n, o in pairs if answer(n) != answer(o)
    ]
    changes.sort(key=lambda c: (not c.wrong, c.cell, c.instance, c.repeat))
    cells: dict[str, list[Row]] = {}
    for n, o in pairs:
        for side, r in zip(SIDES, (n, o), strict=True):
            cells.setdefault(_cell_name(n), []).append(dataclasses.replace(r, experiment=side))
    compared: list[tuple[str, compare.Comparison | None]] = []
    for name in sorted(cells):
        try:
            found = compare.compare(cells[name], *(f"experiment={s}" for s in SIDES), time=time, across_machines=True)
        except UsageError:  # nothing paired both solved
            found = None
        compared.append((name, found))
    return Against(
        len(pairs), len(new) - len(pairs), tuple(changes), tuple(compared), tuple(_provenance(pairs, machines))
    )


def _provenance(pairs: list[tuple[Row, Row]], machines: tuple[dict[str, Machine], dict[str, Machine]]) -> list[str]:
    """Each difference of machine (platform), solver version and tool version between the sides' runs."""
    out = []
    sides = [[p[i] for p in pairs] for i in (0, 1)]
    known = [
        [machines[i][r.machine] for r in {r.machine: r for r in sides[i]}.values() if r.machine in machines[i]]
        for i in (0, 1)
    ]
    platforms = [{m.platform: m for m in ms} for ms in known]
    if set(platforms[0]) != set(platforms[1]):
        for i, word in ((1, "OLD"), (0, "NEW")):
            out += [
                f"machine in {word} only: {m.describe()}"
                for p, m in sorted(platforms[i].items(), key=str)
                if p not in platforms[1 - i]
            ]
    for what, get in (("cnfgen-queens version", "tool_version"), ("git commit", "git_commit")):
        values = [sorted({str(getattr(m, get)) for m in ms}) for ms in known]
        if values[0] != values[1]:
            out.append(f"{what}: {', '.join(values[1]) or '?'} in OLD, {', '.join(values[0]) or '?'} in NEW")
    versions: list[dict[str, set[str]]] = [{}, {}]
    for i in (0, 1):
        for r in sides[i]:
            versions[i].setdefault(r.solver_label, set()).add(r.solver_version or "(none said)")
    for label in sorted(versions[0]):
        if versions[0][label] != versions[1].get(label, set()):
            then, now = (", ".join(sorted(versions[i].get(label, set()))) for i in (1, 0))
            out.append(f"solver {label}: version {then} in OLD, {now} in NEW")
    return out


def markdown(a: Against, time: str = "wall") -> str:
    """The comparison for the terminal and Markdown: the headline first, then the changes (wrong first), the
    time ratios per cell and the provenance."""
    lines = [a.headline, ""]
    if a.unpaired:
        lines += [f"{a.unpaired} runs of the results have no run in OLD (not compared)", ""]
    if a.changes:
        lines += ["| cell | instance | repeat | OLD | NEW |", "|---|---|--:|---|---|"]
        lines += [
            f"| {cell(c.cell)} | {cell(c.instance)} | {c.repeat} | {cell(c.old)} | {cell(c.new)} |" for c in a.changes
        ]
        lines.append("")
    lines += [f"| cell | pairs | {time} time NEW / OLD | 95% CI | Wilcoxon p | verdict |", "|---|--:|--:|---|--:|---|"]
    for name, c in a.cells:
        lines.append(_ratio_line(name, c))
    lines.append("")
    lines += [f"provenance: {printable(p)}" for p in a.provenance] or [
        "provenance: the same machines, solver versions and tool version"
    ]
    return "\n".join(lines) + "\n"


def _ratio_line(name: str, c: compare.Comparison | None) -> str:
    if c is None or c.geomean is None:
        return f"| {cell(name)} | 0 | | | | no pair solved on both sides |"
    ci = "" if c.ci_low is None or c.ci_high is None else f"x{c.ci_low:.3g} to x{c.ci_high:.3g}"
    p = "" if c.p_value is None else f"{c.p_value:.3g}"
    word = {"new faster": "NEW faster", "old faster": "OLD faster"}.get(c.verdict, c.verdict)
    return f"| {cell(name)} | {c.pairs} | x{c.geomean:.3g} | {ci} | {p} | {word} |"


def as_dict(a: Against) -> dict[str, Any]:
    """The comparison as JSON values (the HTML tab's data)."""
    return {
        "headline": a.headline,
        "changes": [dataclasses.asdict(c) | {"wrong": c.wrong} for c in a.changes],
        "cells": [{"cell": n, **(c.as_dict() if c else {})} for n, c in a.cells],
        "provenance": list(a.provenance),
    }


def html_section(a: Against, time: str = "wall") -> str:
    """The comparison as the HTML report's tab ``#against``: the headline, the changed runs, the ratios, the
    provenance (every text escaped)."""
    e = escape

    def table(head: list[str], lines: list[list[str]]) -> str:
        cells = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in line) + "</tr>" for line in lines)
        return (
            f"<table><thead><tr>{''.join(f'<th>{e(h)}</th>' for h in head)}</tr></thead><tbody>{cells}</tbody></table>"
        )

    parts = [f'<h2 class="against-headline">{e(a.headline)}</h2>']
    if a.changes:
        changed = [[c.cell, c.instance, str(c.repeat), c.old, c.new] for c in a.changes]
        parts.append(
            "<h3>Runs whose answer changed</h3>" + table(["cell", "instance", "repeat", "OLD", "NEW"], changed)
        )
    ratios = [_ratio_line(name, c).strip("| ").split(" | ") for name, c in a.cells]
    head = ["cell", "pairs", f"{time} time NEW / OLD", "95% CI", "Wilcoxon p", "verdict"]
    parts.append("<h3>Time per cell</h3>" + table(head, ratios))
    shown = list(a.provenance) or ["the same machines, solver versions and tool version"]
    parts.append("<h3>Provenance</h3><ul>" + "".join(f"<li>{e(p)}</li>" for p in shown) + "</ul>")
    return "\n".join(parts)
