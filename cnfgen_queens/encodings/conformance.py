"""The conformance gate of an at-most-one encoding: ``cnfgen-queens check-encoding NAME``, ``cq.check_encoding``.

Five properties, each measured and given one verdict line (:class:`Finding`), a failure naming its
counterexample:

- **semantics**: for n = 1..``max_n`` inputs, every assignment of the inputs extends to a model of the
  clauses iff at most one input is true; the inputs given as ``1..n``, as negated literals, as scattered
  ids (gaps between them, other variables below the pool's start) and with a literal repeated (a true
  repeated literal counts twice: it must be refused, liffiton/minicard issue 3).  Extendability is
  decided by PySAT (MiniSat 2.2) under assumptions.
- **hygiene**: every clause is a sequence of non-zero ints; every variable that is not an input was handed
  out by the pool during that call (above every input and every variable in use, none reused across two
  calls on one pool: pysathq/pysat issues 140 and 207); the same inputs give the same clauses (determinism).
- **propagation**: whether unit propagation alone, from each partial assignment of the inputs with at most
  two true (every one up to n = 5, the single and double true ones beyond), derives every input
  literal the constraint forces (one true input: every other false) and every conflict (two true);
  compared with the record's ``propagation_complete``, a witness when it fails.
- **parsimony**: for each allowed assignment (none true, or one), the number of assignments of the
  auxiliaries that extend it (counted up to :data:`EXTENSION_CAP`); 1 for each means model counts are
  preserved without projection; compared with the record's ``parsimonious`` when stated.
- **size**: clauses and auxiliaries built for n = 1..``max_n`` and 16..128, against the record's closed
  form when it declares one, with the growth class of the clause count.

:func:`quick_check` is what registering a plugin runs: semantics and hygiene (and a declared size) up to
n = 6, propagation and parsimony measured up to n = 10 when not claimed, once per (name, source hash) in
this process (not on disk: it takes milliseconds; a worker process runs it again).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import UsageError
from .base import Encoding
from .measures import (
    Bad,
    Build,
    Size,
    check_hygiene,
    check_semantics,
    check_size,
    count_extensions,
    propagation_witness,
)

DEFAULT_MAX_N = 10
MAX_CHECK_N = 16  # the largest max_n: semantics tries all 2^n assignments of each form at each n
QUICK_MAX_N = 6


class Refused(UsageError):
    """An encoding that failed the gate; the message names the property and the counterexample."""


@dataclass(frozen=True)
class Finding:
    """One property's verdict: ``ok`` and the line that says what was measured (or the counterexample)."""

    prop: str
    ok: bool
    text: str

    def line(self) -> str:
        return f"{self.prop + ':':<13} {'ok  ' if self.ok else 'FAIL'}  {self.text}"


@dataclass(frozen=True)
class Report:
    """Every property's verdict for one encoding, and what was measured."""

    name: str
    max_n: int
    findings: tuple[Finding, ...]
    propagation_complete: bool | None  # measured (None: not measured, the clauses being wrong)
    parsimonious: bool | None

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self.findings)

    @property
    def failed(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if not f.ok)

    def lines(self) -> list[str]:
        return [f.line() for f in self.findings]


@dataclass(frozen=True)
class Measured:
    """What :func:`quick_check` measured up to n = 6."""

    propagation_complete: bool
    parsimonious: bool


def _agrees(claim: bool | None, measured: bool) -> bool:
    """Whether a claim stands: a "yes" fails on a counterexample; a "no" is never refuted by a check up to
    some n (the property may fail beyond it, as product's parsimony does from n = 7)."""
    return measured or claim is not True


def _beyond(claim: bool | None, measured: bool) -> str:
    return "; the claim of no may hold beyond this n" if claim is False and measured else ""


def _yes(flag: bool | None) -> str:
    return "not stated" if flag is None else ("yes" if flag else "no")


def check(enc: Encoding, max_n: int = DEFAULT_MAX_N, *, build: Build | None = None, size: Size | None = None) -> Report:
    """Every property of ``enc``'s gate for n = 1..``max_n`` (``build``/``size`` default to the record's)."""
    if build is None:
        build = enc.__call__
    if size is None and enc.size_declared:
        size = enc.count
    findings: list[Finding] = []
    complete = parsimonious = None

    def run(prop: str, fn: Callable[[], Finding]) -> None:
        try:
            findings.append(fn())
        except Bad as e:
            findings.append(Finding(prop, False, str(e)))

    run("semantics", lambda: Finding("semantics", True, check_semantics(build, max_n)))
    run("hygiene", lambda: Finding("hygiene", True, check_hygiene(build, max_n)))
    if all(f.ok for f in findings):

        def propagation() -> Finding:
            nonlocal complete
            witness = propagation_witness(build, max_n)
            complete = witness is None
            said = f"claims {_yes(enc.propagation_complete)}, measured {_yes(complete)} (n = 2..{max_n})"
            said += _beyond(enc.propagation_complete, complete) if complete else f": {witness}"
            return Finding("propagation", _agrees(enc.propagation_complete, complete), said)

        def parsimony() -> Finding:
            nonlocal parsimonious
            worst, where = count_extensions(build, max_n)
            parsimonious = worst == 1
            said = f"claims {_yes(enc.parsimonious)}, measured {_yes(parsimonious)}"
            if parsimonious:
                said += f": one auxiliary extension per allowed assignment, n = 1..{max_n} (counts need no projection)"
                said += _beyond(enc.parsimonious, parsimonious)
            else:
                said += f" (counts need the projection onto the cells): {where}"
            return Finding("parsimony", _agrees(enc.parsimonious, parsimonious), said)

        run("propagation", propagation)
        run("parsimony", parsimony)
    else:
        findings += [Finding(p, False, "not measured: the clauses are wrong") for p in ("propagation", "parsimony")]
    run("size", lambda: Finding("size", True, check_size(build, size, max_n)))
    return Report(enc.name, max_n, tuple(findings), complete, parsimonious)


_quick_done: dict[tuple[str, str], Measured] = {}


def quick_check(name: str, build: Build, sha256: str | None, size: Size | None = None) -> Measured:
    """Semantics and hygiene (and a declared ``size``) up to n = 6, propagation and parsimony measured up to
    n = 10 (``check-encoding``'s default, so that a claim measured here stands there; milliseconds); once
    per (name, source hash) in this process.  Raises :class:`Refused` naming the counterexample."""
    key = (name, sha256) if sha256 else None
    if key is not None and key in _quick_done:
        return _quick_done[key]
    try:
        check_semantics(build, QUICK_MAX_N)
        check_hygiene(build, QUICK_MAX_N)
        if size is not None:
            check_size(build, size, QUICK_MAX_N, growth=False)
    except Bad as e:
        raise Refused(f"refused by the conformance gate: {e} (check-encoding {name} tells more)") from None
    complete = propagation_witness(build, DEFAULT_MAX_N) is None
    measured = Measured(complete, count_extensions(build, DEFAULT_MAX_N)[0] == 1)
    if key is not None:
        _quick_done[key] = measured
    return measured
