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

import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import replace
from pathlib import Path

from cnfgen_queens.cnf.atomic import work_dir
from cnfgen_queens.errors import UsageError, option
from cnfgen_queens.limits import Deadline, Limits
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.known_counts import known_counts, published_count
from cnfgen_queens.solutions import cube_count, split_count
from cnfgen_queens.solutions.certificate import certify, check_certify
from cnfgen_queens.solutions.certificate_check import CertificateRejected, check_certificate
from cnfgen_queens.solutions.embedded_loop import embedded_solver, enumerate_embedded, pysat_name
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
from cnfgen_queens.solutions.external_cubes import count_external_cubes
from cnfgen_queens.solutions.external_loop import enumerate_external
from cnfgen_queens.solutions.forked_loop import enumerate_forked
from cnfgen_queens.solutions.manifest_bounds import largest_n
from cnfgen_queens.solutions.records import (
    Count,
    EnumerationError,
    EnumerationOptions,
    Found,
    GroupCount,
    refused,
)
from cnfgen_queens.solutions.size_cap import COMPACT, CUBES_ESCAPE, HELD_CLAUSES, check_held_size, check_size
from cnfgen_queens.solvers import ProfileError, SolverMissing, SolverNotFound, resolve
from cnfgen_queens.solvers.outcome import Checked, Status

__all__ = [  # the policy's public names: the entries below, and the rules re-exported from beside it
    "AUTO_SPLIT_UP_TO", "COMPACT", "CUBES_ESCAPE", "DEFAULT_SOLVER", "ENGINES", "HELD_CLAUSES", "auto_cubes",
    "check_held_size", "check_size", "choose_engine", "count", "external_flags", "judged", "known_total",
    "mismatches", "solutions", "variant_flag",
]  # fmt: skip


def mismatches(formula: QueensFormula, count: int, fundamental: int | None = None) -> tuple[str, ...]:
    """One line per disagreement with OEIS (:func:`.published_count`; A002562 for the orbits of the
    plain board, and for the models of its formula with ``--break-symmetry``); nothing is known for
    variants other than the plain torus (nor for the torus with ``--break-symmetry``)."""
    v, n = formula.variant, formula.n
    out: list[str] = []
    published = published_count(n, torus=v.torus, other_variant=bool(v.placed or v.holes),
                                break_symmetry=formula.break_symmetry)  # fmt: skip
    if published is not None and count != published[0]:
        what = "torus solutions" if v.torus else "solutions"
        if formula.break_symmetry:
            out.append(f"MISMATCH: counted {count} solutions of N={n} with --break-symmetry (one per orbit), "
                       f"OEIS {published[1]} says {published[0]}")  # fmt: skip
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
    published = published_count(formula.n, torus=v.torus, other_variant=bool(v.placed or v.holes),
                                break_symmetry=formula.break_symmetry)  # fmt: skip
    return None if published is None else published[0]


def solutions(
    formula: QueensFormula,
    solver: str = DEFAULT_SOLVER,
    *,
    limits: Limits | None = None,
    symmetric: bool = False,
    workdir: Path | None = None,
    resume: bool = False,
    solvers_file: Path | None = None,
    solver_args: tuple[str, ...] = (),
    allow_large: bool = False,
    on_call: Callable[[], None] | None = None,
    deadline: Deadline | None = None,
    check_all: bool = False,
) -> Generator[Found, None, None]:
    """Every solution, checked, by the blocking-clause loop: the embedded loop in a forked child for a
    ``pysat:`` solver (its time and memory limits hold during a solver call), the durable restart loop
    in ``workdir`` (a temporary directory when None) for a binary.

    ``limits.time`` bounds the whole request (building and writing the formula too) from this call on,
    unless ``deadline`` is given; raises UsageError at once, before anything runs (the loop starts at the
    first ``next``), EnumerationError from the loop when it stops early.  Every model is checked: as a
    board in O(N) for a ``pysat:`` solver (with ``check_all``, against every clause too), against every
    clause of the CNF for a binary."""
    limits = limits or Limits()
    choose_engine(formula, solver, "loop", symmetric=symmetric)  # the checks every engine makes
    check_held_size(formula, allow_large)
    _check_request(solver, solvers_file, resume, workdir)
    deadline = deadline or Deadline.after(limits.time)
    if pysat_name(solver) is not None:
        external = external_flags(limits, workdir, resume, solver_args, solvers_file)
        if external:
            verb = "belongs" if len(external) == 1 else "belong"
            raise UsageError(f"{', '.join(external)} {verb} to the external loop; a pysat: solver runs in a child "
                             "of this process")  # fmt: skip
        embedded_solver(solver)  # UsageError here, not an ERROR from the child
        return _embedded_loop(formula, solver, symmetric, deadline, limits.memory, on_call, check_all)
    options = EnumerationOptions(symmetric=symmetric, limits=limits, deadline=deadline, on_call=on_call,
                                 resume=resume, solvers_file=solvers_file, solver_args=solver_args)  # fmt: skip
    return _external_loop(formula, solver, workdir, options)


def _embedded_loop(formula: QueensFormula, solver: str, symmetric: bool, deadline: Deadline, memory: int | None,
                   on_call: Callable[[], None] | None, check_all: bool) -> Generator[Found, None, None]:  # fmt: skip
    def loop(call: Callable[[], None]) -> Iterator[Found]:  # runs in the child
        return enumerate_embedded(formula, solver, symmetric=symmetric, deadline=deadline, on_call=call,
                                  check_all=check_all)  # fmt: skip

    yield from enumerate_forked(loop, deadline=deadline, memory_mb=memory, on_call=on_call)


def _external_loop(formula: QueensFormula, solver: str, workdir: Path | None,
                   options: EnumerationOptions) -> Generator[Found, None, None]:  # fmt: skip
    if workdir is None:
        with work_dir("loop", unwind=False) as tmp:  # a generator: the consumer's handlers stay as they are
            yield from enumerate_external(formula, solver, tmp, replace(options, resume=False))
        return
    yield from enumerate_external(formula, solver, workdir, options)


def count(
    formula: QueensFormula,
    solver: str = DEFAULT_SOLVER,
    *,
    engine: str = "auto",
    limits: Limits | None = None,
    jobs: int = 1,
    executor: str = "local",
    scheduler: str | None = None,
    symmetric: bool = False,
    limit: int | None = None,
    workdir: Path | None = None,
    resume: bool = False,
    solvers_file: Path | None = None,
    solver_args: tuple[str, ...] = (),
    allow_large: bool = False,
    progress: Callable[[GroupCount, int | None], None] | None = None,
    on_solution: Callable[[Found], None] | None = None,
    on_call: Callable[[], None] | None = None,
    certify: Path | None = None,
    check_all: bool = False,
    require_checked: bool = False,
) -> Count:
    """Count every solution (and orbits with ``symmetric``) by the engine :func:`choose_engine` picks.

    Raises UsageError for what the user must fix, before anything runs; solver trouble, a limit or a bad
    model ends the count with that status and what was counted before (never raised).  ``limit`` stops
    the loop after that many solutions (status UNKNOWN: not the total).  ``progress(group, total)`` is
    called per finished group of cubes, ``on_solution``/``on_call`` per solution and solver call of the loop.
    ``certify``: count every cube and write a certificate there (:mod:`.certificate`; engine ``certify``).
    ``check_all``: evaluate every clause on every model too (else a board check in O(N) where the formula
    is ours; a binary's model is always checked against every clause).  A complete count says how it was
    checked (:func:`checked_count`); ``require_checked`` makes an unchecked one an ERROR.

    >>> c = count(QueensFormula(8))
    >>> (c.total, c.complete, c.engine, c.mismatches, str(c.checked))
    (92, True, 'cubes', (), 'published-count')
    """
    limits = limits or Limits()
    if certify is not None:
        loop_only = loop_only_flags(limits, limit, workdir, resume, allow_large)
        loop_only += given((("--solver-args", solver_args), ("--solvers-file", solvers_file)))
        result = _certified(formula, solver, certify, engine=engine, limits=limits, jobs=jobs, executor=executor,
                          scheduler=scheduler, symmetric=symmetric, progress=progress, loop_only=loop_only)  # fmt: skip
        return checked_count(formula, result, require_checked, certificate=certify)
    chosen = choose_engine(formula, solver, engine, jobs=jobs, executor=executor, symmetric=symmetric,
                           limits=limits, limit=limit, workdir=workdir, resume=resume, allow_large=allow_large,
                           solver_args=solver_args, solvers_file=solvers_file)  # fmt: skip
    deadline = Deadline.after(limits.time)
    if chosen == "cubes" and pysat_name(solver) is None:
        result = _count_external_cubes(formula, solver, workdir=workdir, jobs=jobs, limits=limits, resume=resume,
                                       solvers_file=solvers_file, solver_args=solver_args, deadline=deadline,
                                       progress=progress)  # fmt: skip
        result = replace(result, fundamental=result.fundamental if symmetric else None)
    elif chosen == "cubes":
        check_size(formula, "cubes", jobs=jobs, executor=executor)
        try:
            if formula.variant.active:
                if check_all:
                    raise UsageError(f"{option('--check-all')} does not combine with counting "
                                     f"{variant_flag(formula.variant)} by cubes; {option('--engine', 'loop')} checks "
                                     "every clause")  # fmt: skip
                result = split_count.count_split(formula, solver, jobs=jobs, executor=executor, scheduler=scheduler,
                                                 deadline=deadline, progress=progress)  # fmt: skip
            else:
                result = cube_count.count_symmetric(formula, solver, jobs=jobs, executor=executor,
                                                    scheduler=scheduler, deadline=deadline, progress=progress,
                                                    check_all=check_all)  # fmt: skip
        except UsageError:
            raise
        except ValueError as e:  # e.g. a malformed Dask scheduler address
            raise UsageError(f"{executor} executor: {e}") from None
        except OSError as e:  # e.g. no Dask scheduler answers at that address: the environment, exit 1
            raise OSError(f"{executor} executor: {e}") from None
        fundamental = result.fundamental if symmetric else None
        result = replace(result, fundamental=fundamental)
    else:
        result = _count_by_loop(formula, solver, limits=limits, deadline=deadline, symmetric=symmetric,
                                limit=limit, workdir=workdir, resume=resume, solvers_file=solvers_file,
                                solver_args=solver_args, allow_large=allow_large, on_solution=on_solution,
                                on_call=on_call, check_all=check_all)  # fmt: skip
    if result.complete:
        result = replace(result, mismatches=mismatches(formula, result.total, result.fundamental))
    return checked_count(formula, result, require_checked)


def checked_count(formula: QueensFormula, result: Count, require_checked: bool = False,
                  certificate: Path | None = None) -> Count:  # fmt: skip
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


def _certified(formula: QueensFormula, solver: str, directory: Path, *, engine: str, limits: Limits, jobs: int,
               executor: str, scheduler: str | None, symmetric: bool, loop_only: list[str],
               progress: Callable[[GroupCount, int | None], None] | None) -> Count:  # fmt: skip
    """``count --certify DIR``: every cube (no symmetry: it is not DRAT-checkable), a proof per cube."""
    if symmetric:
        raise UsageError(f"{option('--certify')} does not combine with {option('--symmetric')}: symmetry reduction "
                         "is not DRAT-checkable, so a certified count searches every cube")  # fmt: skip
    if engine not in ("auto", "cubes") or loop_only:
        what = option("--engine", engine) if engine not in ("auto", "cubes") else ", ".join(loop_only)
        raise UsageError(f"{option('--certify')} does not combine with {what}: it counts by cubes, one proof per cube")
    if pysat_name(solver) is None:
        raise UsageError(f"{option('--certify')} needs an embedded pysat: solver that writes DRAT proofs, not {solver}")
    check_certify(solver)
    if formula.n > largest_n():
        raise UsageError(f"{option('--certify')}: N={formula.n} is above N={largest_n()}, the largest N a certificate "
                         "is checked for (the last published count bounds the boards it may list)")  # fmt: skip
    check_size(formula, "cubes", jobs=jobs, executor=executor)
    try:
        result = certify(formula, directory, solver, jobs=jobs, executor=executor, scheduler=scheduler,
                         deadline=Deadline.after(limits.time), progress=progress)  # fmt: skip
    except (OSError, ValueError) as e:  # e.g. no Dask scheduler at that address (OSError: exit 1)
        if isinstance(e, UsageError) or executor == "local":
            raise
        kind = UsageError if isinstance(e, ValueError) else OSError
        raise kind(f"{executor} executor: {e}") from None
    if result.complete:
        result = replace(result, mismatches=mismatches(formula, result.total))
    return result


def _check_request(solver: str, solvers_file: Path | None, resume: bool, workdir: Path | None) -> None:
    """What the loop and the external cubes refuse before anything runs: ``--resume`` without a directory,
    a binary solver that cannot be found."""
    if resume and workdir is None:
        raise UsageError("--resume needs --out DIR")
    if pysat_name(solver) is None:
        try:
            resolve(solver, solvers_file)
        except SolverMissing:
            raise  # the environment (an OSError): exit 1
        except (SolverNotFound, ProfileError) as e:
            raise UsageError(str(e)) from None


def _count_external_cubes(formula: QueensFormula, solver: str, **options: object) -> Count:
    """:func:`.external_cubes.count_external_cubes`, after the checks the loop makes (the solver is known,
    the formula fits, ``--resume`` has a directory)."""
    _check_request(solver, options["solvers_file"], bool(options["resume"]), options["workdir"])  # type: ignore[arg-type]
    check_held_size(formula)
    return count_external_cubes(formula, solver, **options)  # type: ignore[arg-type]


def _count_by_loop(formula: QueensFormula, solver: str, *, limits: Limits, deadline: Deadline, symmetric: bool,
                   limit: int | None, on_solution: Callable[[Found], None] | None,
                   on_call: Callable[[], None] | None, **loop: object) -> Count:  # fmt: skip
    start = time.monotonic()
    calls = total = fundamental = 0

    def called() -> None:
        nonlocal calls
        calls += 1
        if on_call is not None:
            on_call()

    found = solutions(formula, solver, limits=limits, deadline=deadline, symmetric=symmetric, on_call=called,
                      **loop)  # type: ignore[arg-type]  # fmt: skip
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
    return Count(total=total, fundamental=fundamental if symmetric else None, status=status, engine="loop",
                 wall=time.monotonic() - start, solver_calls=calls, error=error, limited=limited)  # fmt: skip
