"""Solving, enumerating and counting a formula, with the CLI's solvers, engines, limits and records."""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any

from cnfgen_queens.cnf.atomic import work_dir
from cnfgen_queens.cnf.compressed import InputError
from cnfgen_queens.cnf.dimacs import read_header_file
from cnfgen_queens.cnf.read_once import readable
from cnfgen_queens.cnf.shuffle import unshuffle_map
from cnfgen_queens.errors import UsageError, python_words
from cnfgen_queens.limits import Limits
from cnfgen_queens.model import decode as _decode
from cnfgen_queens.model.variants import from_header
from cnfgen_queens.solutions import api as _solutions
from cnfgen_queens.solutions.api import Count, Found
from cnfgen_queens.solutions.known_answer import Verdict, judge_answer
from cnfgen_queens.solvers import ProfileError, RunContext, SolverMissing, SolverNotFound
from cnfgen_queens.solvers import solve as run_solver
from cnfgen_queens.solvers.outcome import Checked, Outcome, Status

from .arguments import edge
from .boards import Board, board_of
from .formula import Formula, formula_of

DEFAULT_SOLVER = _solutions.DEFAULT_SOLVER  # what solve, enumerate_solutions and count use


@dataclass(frozen=True)
class Solved:
    """What ``solve`` found: the checked ``Outcome`` the CLI's
    ``solve`` prints (a SAT model has been checked against every clause) and its board (None unless
    SAT, or when a file's header names no N); ``checked`` says how the answer was checked, as the CLI's
    ``c checked:`` line does (None: no answer).  An answer the CLI rejects (an UNSAT contradicting a
    published count; an unchecked UNSAT with ``require_checked``) has status ERROR and the reason as
    ``outcome.error``; ``answer`` is still what the solver said and ``verdict`` is the judgement a batch
    stores (solved, wrong, unsolved).

    Examples:
        >>> import cnfgen_queens as cq
        >>> out = cq.solve(cq.queens(5, "ladder"))
        >>> str(out.status), out.outcome.verified, out.board.n, out.wall > 0, out.measured_by in ("rusage", "cgroup")
        ('SAT', True, 5, True, True)
        >>> str(out.checked), str(cq.solve(cq.queens(3)).checked), str(out.verdict)
        ('model-verified', 'published-count', 'solved')
    """

    outcome: Outcome
    board: Board | None
    checked: Checked | None = None
    answer: Status | None = None
    verdict: Verdict | None = None

    @property
    def status(self) -> Status:
        return self.outcome.status

    @property
    def model(self) -> tuple[int, ...] | None:
        return self.outcome.model

    @property
    def wall(self) -> float:
        return self.outcome.wall

    @property
    def cpu(self) -> float | None:
        return self.outcome.cpu

    @property
    def peak(self) -> float | None:
        """Peak memory in MB."""
        return self.outcome.peak_memory_mb

    @property
    def measured_by(self) -> str:
        return self.outcome.measured_by


@edge
def solve(
    formula_or_path: Formula | str | PathLike[str] | Any,
    solver: str = DEFAULT_SOLVER,
    *,
    time_limit: float | None = None,
    memory_limit: int | None = None,
    solver_args: Sequence[str] | str = (),
    solvers_file: str | Path | None = None,
    require_checked: bool = False,
) -> Solved:
    """Run ``solver`` (``pysat:NAME``, a profile such as ``kissat``, or a path) on a formula, a CNF file or a
    ``pysat.formula.CNF``, as ``cnfgen-queens solve`` does, and check its answer (``board`` is None for a
    file whose header names no N, and for a PySAT CNF).

    Limits and solver failures end in the outcome's status (TIMEOUT, MEMOUT, ERROR), never raised, and are
    the command line's (the embedded solver runs in a process of its own, started as the command line starts
    it, whatever this program holds).  UsageError for what the CLI refuses (exit 2: an unknown solver, a file that is no
    CNF); FileNotFoundError (an OSError, as any file that cannot be opened) for a missing file; TypeError for
    anything else than the three inputs; ``solver_args``: words, or one string split as a shell splits it
    (``"-verb=0 --seed=1"``); SolverMissing, an OSError, for a known solver that is not
    installed (the CLI's exit 1).
    The answer is judged as the CLI judges it (:func:`.known_answer.judge_answer`): a wrong UNSAT, or
    with ``require_checked`` an unchecked one, is status ERROR.

    Examples:
        >>> import cnfgen_queens as cq
        >>> out = cq.solve(cq.queens(3))
        >>> str(out.status), out.board
        ('UNSAT', None)
    """
    with python_words():
        limits = Limits(time_limit, memory_limit)
        extra = _path(solvers_file)
        formula = formula_or_path if isinstance(formula_or_path, Formula) else None
        try:
            with work_dir("formula") as tmp, contextlib.ExitStack() as once:
                if formula is not None:
                    path = tmp / f"queens-{formula.n}.cnf"
                    formula.write(path)
                elif _is_pysat_cnf(formula_or_path):
                    path = tmp / "pysat.cnf"
                    _write_pysat_cnf(formula_or_path, path)
                elif isinstance(formula_or_path, str | PathLike):  # a FIFO or pipe: read once, into a file of ours
                    path = once.enter_context(readable(Path(formula_or_path))).path
                    _readable(path)
                else:
                    raise TypeError(_what_solve_takes(formula_or_path))
                name = formula.command if formula is not None else None
                outcome = run_solver(
                    path,
                    solver,
                    limits=limits,
                    args=tuple(solver_args),
                    solvers_file=extra,
                    context=RunContext(name=name),
                )
                judged = judge_answer(outcome, read_header_file(path, None), path, require_checked=require_checked)
                outcome = judged.accepted(outcome)
                said = (judged.checked, judged.answer, judged.verdict)
                if outcome.model is None or judged.problem is not None:  # no model, or one that is no board
                    return Solved(outcome, None, *said)
                if formula is not None:
                    return Solved(outcome, board_of(formula, outcome.true_vars()), *said)
                return Solved(outcome, _file_board(path, outcome), *said)
        except SolverMissing:
            raise  # the environment: an OSError
        except (SolverNotFound, ProfileError, InputError) as e:
            raise UsageError(str(e)) from None


def _readable(path: Path) -> None:
    """Python's own OSError (FileNotFoundError, IsADirectoryError, PermissionError) for an input that cannot
    be opened, naming the parameter and the path; the command line says the same in one line, exit 2."""
    try:
        with open(path, "rb"):
            pass
    except OSError as e:
        raise type(e)(e.errno, f"formula_or_path: {str(e.strerror).lower()}", e.filename) from None


def _is_pysat_cnf(value: object) -> bool:
    """A ``pysat.formula.CNF`` (or a subclass), without importing PySAT to ask."""
    return any(c.__module__ == "pysat.formula" and c.__name__ == "CNF" for c in type(value).__mro__)


def _write_pysat_cnf(cnf: Any, path: Path) -> None:
    """The clauses of a PySAT CNF as a DIMACS file (its ``nv`` counts a variable no clause mentions)."""
    clauses = [list(c) for c in cnf.clauses]
    if not all(type(lit) is int and lit != 0 for c in clauses for lit in c):
        raise UsageError("solve() takes a PySAT CNF of non-zero integer literals")
    nv = max([int(cnf.nv), *(abs(lit) for c in clauses for lit in c)])
    with open(path, "w") as f:
        f.write(f"p cnf {nv} {len(clauses)}\n")
        f.writelines(" ".join(map(str, [*c, 0])) + "\n" for c in clauses)


def _what_solve_takes(value: object) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return f"solve() takes a formula, not a board size: pass cq.queens({value})"
    return (
        "solve() takes a formula made by cq.queens(n), a CNF file's path or a pysat.formula.CNF, "
        f"got {type(value).__name__}"
    )


def _file_board(path: Path, outcome: Outcome) -> Board | None:
    """The board of a file's model, through its header (N, shuffle, variant); None when it names no N."""
    header = read_header_file(path, None)
    n = header.board_size()
    if outcome.model is None or n is None:
        return None
    backward = unshuffle_map(header)
    true: Iterable[int] = outcome.true_vars()
    if backward is not None:
        true = (backward[v] for v in true if v < len(backward))
    variant = from_header(header.comments)
    return Board(_decode.variant_placement(n, true, variant if variant.active else None))


@edge
def enumerate_solutions(
    formula: Formula,
    solver: str = DEFAULT_SOLVER,
    *,
    solver_args: Sequence[str] | str = (),
    solvers_file: str | Path | None = None,
    symmetric: bool = False,
    time_limit: float | None = None,
    memory_limit: int | None = None,
    limit: int | None = None,
    allow_large: bool = False,
) -> Iterator[Board]:
    """Every solution, checked, by the blocking-clause loop (``cnfgen-queens enumerate``); with
    ``symmetric`` one per orbit of the 8 board symmetries.  ``time_limit`` bounds the whole loop.
    ``solver_args`` and ``solvers_file`` (a binary's extra arguments and the YAML of the user's profiles)
    as for :func:`solve`.

    Raises UsageError at once, before anything runs; EnumerationError (a RuntimeError) from the loop when
    it stops early (the solutions before it have been yielded).

    Examples:
        >>> import cnfgen_queens as cq
        >>> sorted(b.line for b in cq.enumerate_solutions(cq.queens(4)))
        ['2 4 1 3', '3 1 4 2']
    """
    with python_words():
        formula = formula_of(formula, "enumerate_solutions")
        choice = _solutions.SolverChoice(solver, tuple(solver_args), _path(solvers_file))
        limits = Limits(time_limit, memory_limit)
        request = _solutions.Request(
            formula.formula, choice, limits=limits, symmetric=symmetric, allow_large=allow_large
        )
        found = _solutions.solutions(request)
        return _boards(found, limit)


def _boards(found: Generator[Found, None, None], limit: int | None) -> Iterator[Board]:
    try:
        for k, f in enumerate(found, 1):
            yield Board(f.placement)
            if limit and k >= limit:
                return
    finally:
        found.close()


@edge
def count(
    formula: Formula,
    solver: str = DEFAULT_SOLVER,
    *,
    solver_args: Sequence[str] | str = (),
    solvers_file: str | Path | None = None,
    engine: str = "auto",
    jobs: int = 1,
    symmetric: bool = False,
    time_limit: float | None = None,
    memory_limit: int | None = None,
    limit: int | None = None,
    executor: str = "local",
    scheduler: str | None = None,
    allow_large: bool = False,
    certify: str | Path | None = None,
    check_all: bool = False,
    require_checked: bool = False,
) -> Count:
    """Count every solution (``cnfgen-queens count``): by cubes (``engine="cubes"``, what ``auto`` picks with
    an embedded solver: the plain board's canonical border cubes, the torus by its symmetry group, placed
    queens and blocked squares by their first free rows up to N = 32) or the blocking-clause loop.

    Returns the ``Count`` the CLI prints: ``total``, ``fundamental``
    (with ``symmetric``), ``status`` (UNSAT: complete), ``mismatches`` with OEIS.  A count that disagrees
    with the published count is wrong, as the CLI judges it (``count: K (wrong)``, exit 1): status ERROR with
    the reason as ``error``, ``total`` and ``mismatches`` kept.  ``certify``: a
    directory for a DRAT certificate (``count --certify``; ``cnfgen-queens check-count`` checks it);
    ``check_all``: evaluate every clause on every model (``--check-all``).  ``checked`` says how a complete
    count was checked; ``require_checked`` (``--require-checked``) makes an unchecked one status ERROR.
    ``solver_args`` and ``solvers_file`` as for :func:`solve` (a binary solver's; ``count --solver-args``,
    ``--solvers-file``).

    Examples:
        >>> import cnfgen_queens as cq
        >>> c = cq.count(cq.queens(6), symmetric=True)
        >>> c.total, c.fundamental, c.complete
        (4, 1, True)
        >>> cq.count(cq.queens(13, torus=True)).total  # OEIS A007705
        4524
    """
    with python_words():
        formula = formula_of(formula, "count")
        choice = _solutions.SolverChoice(solver, tuple(solver_args), _path(solvers_file))
        request = _solutions.Request(
            formula.formula,
            choice,
            engine=engine,
            limits=Limits(time_limit, memory_limit),
            where=_solutions.Where(jobs=jobs, executor=executor, scheduler=scheduler),
            symmetric=symmetric,
            limit=limit,
            allow_large=allow_large,
            certify=None if certify is None else Path(certify),
            check_all=check_all,
            require_checked=require_checked,
        )
        result = _solutions.count(request)
        return _solutions.judged(result)


def _path(value: str | Path | None) -> Path | None:
    return None if value is None else Path(value)
