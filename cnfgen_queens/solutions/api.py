"""The policy of finding every solution, in one place: which engine, the size cap, the deadline, OEIS.

``count`` and ``solutions`` are what the CLI's ``count`` and ``enumerate``, the batch's ``task: count``
and the Python library call.  They choose the engine (:func:`choose_engine`), refuse a formula too large
to hold (:func:`check_held_size`), hold one :class:`.Deadline` for the whole request, and ``count``
returns one :class:`.Count` whose ``mismatches`` say where it disagrees with OEIS (:func:`mismatches`).
Errors the user can fix are :class:`.UsageError`, with the CLI's words (options named as flags).

Engines: ``cubes`` counts the canonical border cubes with embedded solvers (:mod:`.cube_count`), the
variants by their own cubes (:mod:`.split_count`: the torus by its symmetry group, placed queens and
blocked squares by the queens of their first free rows), and the plain board with a binary by one restart
loop per cube (:mod:`.external_cubes`); ``loop`` is the seeds' blocking-clause loop: the embedded loop in
a forked child (:mod:`.forked_loop`) for a ``pysat:`` solver, the durable restart loop
(:mod:`.external_loop`) for a binary; ``certify`` (``count --certify DIR``) counts every cube and writes
a DRAT certificate (:mod:`.certificate`).

The rules live beside it and are re-exported here, the one place callers import them from: the engine
choice in :mod:`.engine_choice`, the size cap in :mod:`.size_cap`.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Generator
from dataclasses import replace
from pathlib import Path

from cnfgen_queens.certificates.certificate import OWN_FILES as CERTIFICATE_FILES
from cnfgen_queens.certificates.certificate import certify, check_certify
from cnfgen_queens.certificates.certificate_check import (
    CHECKERS,
    CertificateRejected,
    CertifiedCount,
    check_certificate,
)
from cnfgen_queens.certificates.manifest_bounds import largest_n
from cnfgen_queens.cnf.atomic import work_dir
from cnfgen_queens.counting import cube_count, split_count
from cnfgen_queens.counting.external_cubes import count_external_cubes
from cnfgen_queens.enumeration.embedded_loop import embedded_solver, embedded_spec, enumerate_embedded, pysat_name
from cnfgen_queens.enumeration.external_loop import enumerate_external, refuse_inputs_in
from cnfgen_queens.enumeration.forked_loop import enumerate_forked
from cnfgen_queens.enumeration.records import (
    Count,
    EnumerationError,
    Found,
    GroupCount,
    refused,
)
from cnfgen_queens.enumeration.request import Report, Request, SolverChoice
from cnfgen_queens.enumeration.size_cap import COMPACT, CUBES_ESCAPE, HELD_CLAUSES, check_held_size, check_size
from cnfgen_queens.errors import UsageError, option
from cnfgen_queens.execution.where import Where
from cnfgen_queens.limits import Deadline, Limits
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.known_counts import known_counts, published_count
from cnfgen_queens.solutions.engine_choice import (
    AUTO_SPLIT_UP_TO,
    DEFAULT_SOLVER,
    ENGINES,
    auto_cubes,
    choose_engine,
    external_flags,
    given,
    loop_only_flags,
    variant_flag,
)
from cnfgen_queens.solvers import ProfileError, SolverMissing, SolverNotFound, SolverSpec, resolve
from cnfgen_queens.solvers.outcome import Checked, Status

__all__ = [  # the one door: the policy's names, the request's records, and what the layers below return
    "AUTO_SPLIT_UP_TO", "CERTIFICATE_FILES", "CHECKERS", "COMPACT", "CUBES_ESCAPE", "DEFAULT_SOLVER", "ENGINES",
    "HELD_CLAUSES", "CertificateRejected", "CertifiedCount", "Count", "EnumerationError", "Found", "GroupCount",
    "Limits", "Report", "Request", "SolverChoice", "Where", "auto_cubes", "check_certificate", "check_held_size",
    "check_size", "choose_engine", "count", "external_flags", "judged", "known_total", "mismatches",
    "refuse_inputs_in", "solutions", "variant_flag",
]  # fmt: skip


def mismatches(formula: QueensFormula, count: int, fundamental: int | None = None) -> tuple[str, ...]:
    """One line per disagreement with OEIS (:func:`.published_count`; A002562 for the orbits of the
    plain board, and for the models of its formula with ``--break-symmetry``); nothing is known for
    variants other than the plain torus (nor for the torus with ``--break-symmetry``)."""
    v, n = formula.variant, formula.n
    out: list[str] = []
    published = published_count(
        n, torus=v.torus, other_variant=bool(v.placed or v.holes), break_symmetry=formula.break_symmetry
    )
    if published is not None and count != published[0]:
        what = "torus solutions" if v.torus else "solutions"
        if formula.break_symmetry:
            out.append(
                f"MISMATCH: counted {count} solutions of N={n} with --break-symmetry (one per orbit), "
                f"OEIS {published[1]} says {published[0]}"
            )
        else:
            out.append(f"MISMATCH: counted {count} {what} for N={n}, OEIS {published[1]} says {published[0]}")
    if formula.break_symmetry:
        return tuple(out)
    if fundamental is not None and not v.active:
        orbits = known_counts().get(n, (0, None))[1]
        if orbits is not None and fundamental != orbits:
            out.append(f"MISMATCH: counted {fundamental} fundamental solutions for N={n}, OEIS A002562 says {orbits}")
    return tuple(out)


def known_total(formula: QueensFormula) -> int | None:
    """The published count of the formula's board, where one is known (a progress bar's total)."""
    v = formula.variant
    published = published_count(
        formula.n, torus=v.torus, other_variant=bool(v.placed or v.holes), break_symmetry=formula.break_symmetry
    )
    return None if published is None else published[0]


def solutions(request: Request, deadline: Deadline | None = None) -> Generator[Found, None, None]:
    """Every solution, checked, by the blocking-clause loop: the embedded loop in a forked child for a
    ``pysat:`` solver (its time and memory limits hold during a solver call), the durable restart loop
    in ``request.where.workdir`` (a temporary directory when None) for a binary.

    ``request.limits.time`` bounds the whole request (building and writing the formula too) from this call
    on, unless ``deadline`` is given; raises UsageError at once, before anything runs (the loop starts at the
    first ``next``), EnumerationError from the loop when it stops early.  Every model is checked: as a
    board in O(N) for a ``pysat:`` solver (with ``check_all``, against every clause too), against every
    clause of the CNF for a binary.  Of ``request.report``, ``on_call`` is called per solver call."""
    choose_engine(replace(request, engine="loop", where=replace(request.where, jobs=1, executor="local")))
    return _loop(request, deadline)


def _loop(request: Request, deadline: Deadline | None) -> Generator[Found, None, None]:
    """:func:`solutions` once the engine is chosen (the loop): the loop's own checks, then the loop."""
    check_held_size(request.formula, request.allow_large)
    _check_resume(request)
    if pysat_name(request.solver.name) is None:
        return _external_loop(request, _binary(request), deadline or Deadline.after(request.limits.time))
    deadline = deadline or Deadline.after(request.limits.time)
    external = external_flags(request)
    if external:
        verb = "belongs" if len(external) == 1 else "belong"
        raise UsageError(
            f"{', '.join(external)} {verb} to the external loop; a pysat: solver runs in a child of this process"
        )
    embedded_solver(request.solver.name)  # UsageError here, not an ERROR from the child
    return _embedded_loop(request, deadline)


def _embedded_loop(request: Request, deadline: Deadline) -> Generator[Found, None, None]:
    formula, solver, symmetric, check_all = request.formula, request.solver.name, request.symmetric, request.check_all

    # runs in the child: a module-level function's partial, pickled for a fresh process (forked_loop)
    loop = functools.partial(
        enumerate_embedded, formula, solver, symmetric=symmetric, deadline=deadline, check_all=check_all
    )
    yield from enumerate_forked(
        loop, deadline=deadline, memory_mb=request.limits.memory, on_call=request.report.on_call
    )


def _external_loop(request: Request, solver: SolverSpec, deadline: Deadline) -> Generator[Found, None, None]:
    """The external loop in ``request.where.workdir``, or in a temporary directory when None."""
    if request.where.workdir is None:
        with work_dir("loop") as tmp:
            where = replace(request.where, workdir=tmp, resume=False)
            yield from enumerate_external(replace(request, where=where), solver, deadline)
        return
    yield from enumerate_external(request, solver, deadline)


def count(request: Request, deadline: Deadline | None = None) -> Count:
    """Count every solution (and orbits with ``request.symmetric``) by the engine :func:`choose_engine` picks,
    until ``deadline`` (the CLI's starts with the command); ``request.limits.time`` from now when None.

    Raises UsageError for what the user must fix, before anything runs; solver trouble, a limit or a bad
    model ends the count with that status and what was counted before (never raised).  ``limit`` stops
    the loop after that many solutions (status UNKNOWN: not the total).  Of ``request.report``,
    ``progress(group, total)`` is called per finished group of cubes, ``on_solution``/``on_call`` per
    solution and solver call of the loop.  ``certify``: count every cube and write a certificate there
    (:mod:`.certificate`; engine ``certify``).  ``check_all``: evaluate every clause on every model too (else
    a board check in O(N) where the formula is ours; a binary's model is always checked against every
    clause).  A complete count says how it was checked (:func:`checked_count`); ``require_checked`` makes an
    unchecked one an ERROR.

    >>> c = count(Request(QueensFormula(8)))
    >>> (c.total, c.complete, c.engine, c.mismatches, str(c.checked))
    (92, True, 'cubes', (), 'published-count')
    """
    formula = request.formula
    deadline = deadline or Deadline.after(request.limits.time)
    if request.certify is not None:
        result = _certified(request, request.certify, deadline)
        return checked_count(formula, result, request.require_checked, certificate=request.certify)
    chosen = choose_engine(request)
    if chosen == "cubes" and pysat_name(request.solver.name) is None:
        result = _count_external_cubes(request, deadline)
    elif chosen == "cubes":
        result = _count_by_cubes(request, deadline)
    else:
        result = _count_by_loop(request, deadline)
    if result.complete:
        result = replace(result, mismatches=mismatches(formula, result.total, result.fundamental))
    return checked_count(formula, result, request.require_checked)


def _count_by_cubes(request: Request, deadline: Deadline) -> Count:
    """The embedded solver's cube engines: the plain board's border cubes, a variant's own cubes (the solver
    resolved once, for every group)."""
    formula, executor = request.formula, request.where.executor
    check_size(formula, "cubes", jobs=request.where.jobs, executor=executor)
    try:
        if formula.variant.active:
            if request.check_all:
                raise UsageError(
                    f"{option('--check-all')} does not combine with counting "
                    f"{variant_flag(formula.variant)} by cubes; {option('--engine', 'loop')} checks "
                    "every clause"
                )
            result = split_count.count_split(request, embedded_spec(request.solver.name), deadline)
        else:
            result = cube_count.count_symmetric(request, embedded_spec(request.solver.name), deadline)
    except UsageError:
        raise
    except ValueError as e:  # e.g. a malformed Dask scheduler address
        raise UsageError(f"{executor} executor: {e}") from None
    except OSError as e:  # e.g. no Dask scheduler answers at that address: the environment, exit 1
        raise OSError(f"{executor} executor: {e}") from None
    return replace(result, fundamental=result.fundamental if request.symmetric else None)


def checked_count(
    formula: QueensFormula, result: Count, require_checked: bool = False, certificate: Path | None = None
) -> Count:
    """``result`` with how it was checked: ``published-count`` when it equals the published count of the
    board (no mismatch), else ``unchecked`` (the solver's UNSAT answers, on their word).  With
    ``require_checked``, a certificate just written is checked (``certified``: check-count's check), and
    an unchecked count becomes status ERROR saying so.  A count that is not complete, or disagrees with the
    published count (its ``mismatches``: a wrong answer), is left as it is (``checked`` None)."""
    if not result.complete:
        return result
    if not result.mismatches:
        known = known_total(formula) is not None
        result = replace(result, checked=Checked.PUBLISHED if known else Checked.UNCHECKED)
    if not require_checked or result.checked in (Checked.PUBLISHED, Checked.CERTIFIED):
        return result
    why = "rests on the solver's UNSAT answers, which nothing checked"
    if result.mismatches:
        why = "disagrees with the published count"
    elif certificate is not None:
        try:
            if check_certificate(certificate).total == result.total:
                return replace(result, checked=Checked.CERTIFIED)
        except CertificateRejected as e:
            why = f"has a certificate that check-count rejects ({e})"
    else:
        why += " (no published count for this board; --certify DIR writes a certificate that is checked)"
    return replace(result, status=Status.ERROR, error=f"the count {result.total} {why}, {refused()}", refused=True)


def judged(result: Count) -> Count:
    """``result`` as the API reports it, judged as the CLI judges it (:func:`.cli.enumerate.print_count`): a
    whole count that is wrong (:attr:`.Count.wrong`) is status ERROR with that reason as its error, its total
    and ``mismatches`` kept (the CLI's exit 1); anything else as it is."""
    if result.wrong is None or not result.complete:
        return result
    return replace(result, status=Status.ERROR, error=result.wrong)


def _certified(request: Request, directory: Path, deadline: Deadline) -> Count:
    """``count --certify DIR``: every cube (no symmetry: it is not DRAT-checkable), a proof per cube."""
    formula, solver, where, engine = request.formula, request.solver.name, request.where, request.engine
    loop_only = loop_only_flags(request)
    loop_only += given((("--solver-args", request.solver.args), ("--solvers-file", request.solver.profiles)))
    if request.symmetric:
        raise UsageError(
            f"{option('--certify')} does not combine with {option('--symmetric')}: symmetry reduction "
            "is not DRAT-checkable, so a certified count searches every cube"
        )
    if engine not in ("auto", "cubes") or loop_only:
        what = option("--engine", engine) if engine not in ("auto", "cubes") else ", ".join(loop_only)
        raise UsageError(f"{option('--certify')} does not combine with {what}: it counts by cubes, one proof per cube")
    if pysat_name(solver) is None:
        raise UsageError(f"{option('--certify')} needs an embedded pysat: solver that writes DRAT proofs, not {solver}")
    check_certify(solver)
    if formula.n > largest_n():
        raise UsageError(
            f"{option('--certify')}: N={formula.n} is above N={largest_n()}, the largest N a certificate "
            "is checked for (the last published count bounds the boards it may list)"
        )
    check_size(formula, "cubes", jobs=where.jobs, executor=where.executor)
    try:
        result = certify(formula, directory, solver, where=where, deadline=deadline, progress=request.report.progress)
    except (OSError, ValueError) as e:  # e.g. no Dask scheduler at that address (OSError: exit 1)
        if isinstance(e, UsageError) or where.executor == "local":
            raise
        kind = UsageError if isinstance(e, ValueError) else OSError
        raise kind(f"{where.executor} executor: {e}") from None
    if result.complete:
        result = replace(result, mismatches=mismatches(formula, result.total))
    return result


def _check_resume(request: Request) -> None:
    """What the loop and the external cubes refuse before anything runs: ``--resume`` without a directory."""
    if request.where.resume and request.where.workdir is None:
        raise UsageError("--resume needs --out DIR")


def _binary(request: Request) -> SolverSpec:
    """The request's binary solver, resolved once for the whole command (every solver call of every loop and
    cube takes it); one that cannot be found is a UsageError (SolverMissing, an OSError, for a known solver
    that is not installed: exit 1)."""
    try:
        return resolve(request.solver.name, request.solver.profiles)
    except SolverMissing:
        raise  # the environment (an OSError): exit 1
    except (SolverNotFound, ProfileError) as e:
        raise UsageError(str(e)) from None


def _count_external_cubes(request: Request, deadline: Deadline) -> Count:
    """:func:`.external_cubes.count_external_cubes`, after the checks the loop makes (``--resume`` has a
    directory, the solver is known, the formula fits)."""
    _check_resume(request)
    solver = _binary(request)
    check_held_size(request.formula)
    result = count_external_cubes(request, solver, deadline)
    return replace(result, fundamental=result.fundamental if request.symmetric else None)


def _count_by_loop(request: Request, deadline: Deadline) -> Count:
    start = time.monotonic()
    calls = total = fundamental = 0
    on_call, on_solution, limit = request.report.on_call, request.report.on_solution, request.limit

    def called() -> None:
        nonlocal calls
        calls += 1
        if on_call is not None:
            on_call()

    found = _loop(replace(request, report=replace(request.report, on_call=called)), deadline)
    status, error, limited = Status.UNSAT, None, False
    try:
        for f in found:
            total += f.weight
            fundamental += 1
            if on_solution is not None:
                on_solution(f)
            if limit and fundamental >= limit:
                status, error, limited = Status.UNKNOWN, f"stopped at --limit {limit}", True
                break
    except EnumerationError as e:
        status, error = e.status, str(e)
    finally:
        found.close()
    return Count(
        total=total,
        fundamental=fundamental if request.symmetric else None,
        status=status,
        engine="loop",
        wall=time.monotonic() - start,
        solver_calls=calls,
        error=error,
        limited=limited,
    )
