"""The HTML report's measurement parts: the machines table of the overview, and the statistics of every
pair the comparison view can show (:mod:`.compare`, computed here once: the page has no scipy).

Each pair of solvers (and of encodings) up to :data:`MAX_VALUES` values a dimension gets its geometric-mean
ratio, 95% interval, Wilcoxon p-value and verdict, stored for both orders; a pair whose runs come from
more than one machine gets the refusal instead, unless the report was asked for ``--across-machines``.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from typing import Any

from ..errors import UsageError
from . import machine
from .compare import MIN_PAIRS, compare
from .store import Row

MAX_VALUES = 12  # values of a dimension whose every pair gets statistics (66 pairs)
DIMENSIONS = ("solver", "encoding")


def machines_html(rows: list[Row], machines: dict[str, machine.Machine], notes: Sequence[str] = ()) -> str:
    """The overview's machines table (empty when no run names its machine), with ``notes`` below it (the busy batch
    starts and the pinned runs: :func:`.noise.lines`)."""
    found = machine.lines_of(rows, machines)
    if not found:
        return ""
    heads = ("machine", "runs", "hosts", "load at start (median, max)", "description")
    out = ['<div class="machines-box">', f"<h2>Machines ({len(found)})</h2>", '<table class="machines"><thead><tr>']
    out += [f"<th>{h}</th>" for h in heads] + ["</tr></thead><tbody>"]
    for line in found:
        out.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in line) + "</tr>")
    out.append("</tbody></table>")
    if mixed := machine.mixing(rows, machines):
        out.append(f'<p class="note mixed">{html.escape(machine.mixed_note(mixed))}</p>')
    out += [f'<p class="note noise">{html.escape(line)}</p>' for line in notes]
    return "\n".join([*out, "</div>"])


def _entry(rows: list[Row], dim: str, a: str, b: str, time: str, across: bool) -> dict[str, Any] | None:
    try:
        c = compare(rows, f"{dim}={a}", f"{dim}={b}", time=time, across_machines=across)
    except UsageError as e:
        return {"refused": str(e).removeprefix("--compare: ")} if "machines" in str(e) else None
    return {
        "pairs": c.pairs,
        "gm": _finite(c.geomean),
        "low": _finite(c.ci_low),
        "high": _finite(c.ci_high),
        "p": _finite(c.p_value),
        "verdict": "A" if c.verdict == f"{c.a} faster" else "B" if c.verdict == f"{c.b} faster" else None,
        "machines": len(c.machines) if c.across_machines else 1,
    }


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, 6)


def _flip(e: dict[str, Any]) -> dict[str, Any]:
    if "refused" in e:
        return e

    def inverse(value: float | None) -> float | None:
        return None if value is None else round(1 / value, 6)

    swap: dict[str | None, str | None] = {"A": "B", "B": "A", None: None}
    return {
        **e,
        "gm": inverse(e["gm"]),
        "low": inverse(e["high"]),
        "high": inverse(e["low"]),
        "verdict": swap[e["verdict"]],
    }


def comparisons(rows: list[Row], time: str = "wall", across_machines: bool = False) -> dict[str, Any]:
    """``{dimension: {A: {B: statistics}}}`` for the comparison view (JSON-ready)."""
    out: dict[str, Any] = {"min_pairs": MIN_PAIRS}
    for dim in DIMENSIONS:
        values = sorted({r.solver_label if dim == "solver" else r.encoding for r in rows})
        table: dict[str, dict[str, Any]] = {}
        if len(values) <= MAX_VALUES:
            for i, a in enumerate(values):
                for b in values[i + 1 :]:
                    if (e := _entry(rows, dim, a, b, time, across_machines)) is not None:
                        table.setdefault(a, {})[b] = e
                        table.setdefault(b, {})[a] = _flip(e)
        out[dim] = table
    return out


def comparisons_script(rows: list[Row], time: str = "wall", across_machines: bool = False) -> str:
    """The statistics as a JSON script element the page's script reads."""
    text = json.dumps(comparisons(rows, time, across_machines), sort_keys=True, separators=(",", ":"), allow_nan=False)
    safe = text.replace("</", "<\\/")
    return f'<script type="application/json" id="cmp-stats">{safe}</script>'
