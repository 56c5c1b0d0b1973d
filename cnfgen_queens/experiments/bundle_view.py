"""The report a bundle carries (``report/report.md``): the report options it is made with, which ``bundle.json``
records with the command that prints the same report from the bundle's store."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import compare, machine, noise
from .bundle_read import BundleError
from .report import markdown, summarize
from .store import Row
from .summary import TIMES


@dataclass(frozen=True)
class View:
    """The report options the bundle's report is made with (``report --by KEY ... --time wall|cpu [--compare A
    B]``): the table, and the comparison of A with B after it when ``compare`` is given."""

    by: tuple[str, ...] = ()
    time: str = "wall"
    compare: tuple[str, str] | None = None
    machines: bool = False  # the machines and the load at the runs' start (shown unasked for several machines)

    def __post_init__(self) -> None:
        if self.time not in TIMES:
            raise BundleError(f"report time {self.time!r}: expected {' or '.join(TIMES)}")

    def command(self) -> str:
        """The report command that prints the bundle's ``report/report.md`` from its store."""
        pair = () if self.compare is None else ("--compare", *(shlex.quote(s) for s in self.compare))
        by = (f"--by {k}" for k in self.by)
        machines = ("--machines",) if self.machines else ()
        return " ".join(["cnfgen-queens report store.sqlite", *by, *machines, f"--time {self.time}", *pair])

    def as_dict(self) -> dict[str, Any]:
        """What ``bundle.json`` records of it (``compare`` only when given: a bundle without one is as before)."""
        out: dict[str, Any] = {"by": list(self.by), "time": self.time, "command": self.command()}
        if self.compare is not None:
            out["compare"] = list(self.compare)
        if self.machines:
            out["machines"] = True
        return out

    def text(self, rows: list[Row], db: Path) -> str:
        """``report/report.md`` of ``rows`` (stored in ``db``): what the report command prints, the table, the
        machines (:func:`.noise.section`) and the comparison (:mod:`.compare`: its runs paired as the report command
        pairs them, by ``db``'s machines)."""
        parts = [markdown(summarize(rows, by=self.by, time=self.time), self.time)]
        if self.machines or len({r.machine for r in rows if r.machine is not None}) > 1:  # as report: the guard
            parts.append(noise.section(rows, db))
        if self.compare is not None:
            platforms = machine.platform_names(machine.stored(db))
            found = compare.compare(rows, *self.compare, time=self.time, platforms=platforms)
            parts.append(compare.text(found, self.time))
        return "\n".join(p for p in parts if p)


PLAIN = View()  # the report options `report store.sqlite` has by default (batch --bundle)
