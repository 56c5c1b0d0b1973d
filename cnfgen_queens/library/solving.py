"""Solving, enumerating and counting a formula, with the CLI's solvers, engines, limits and records."""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from cnfgen_queens.cli.common import positive_int
from cnfgen_queens.cnf.atomic import work_dir
from cnfgen_queens.cnf.compressed import InputError
from cnfgen_queens.cnf.dimacs import read_header_file
from cnfgen_queens.cnf.shuffle import unshuffle_map
from cnfgen_queens.errors import UsageError
from cnfgen_queens.limits import Limits
from cnfgen_queens.model import decode as _decode
from cnfgen_queens.model.variants import from_header
from cnfgen_queens.solutions import api as _solutions
from cnfgen_queens.solutions.records import Count, Found
from cnfgen_queens.solvers import ProfileError, SolverMissing, SolverNotFound
from cnfgen_queens.solvers import solve as run_solver
from cnfgen_queens.solvers.outcome import Outcome, Status

from .arguments import checked
from .boards import Board, board_of
from .formula import Formula

DEFAULT_SOLVER = _solutions.DEFAULT_SOLVER  # what solve, enumerate and count use


@dataclass(frozen=True)
class Solved:
    """What ``solve`` found: the checked ``Outcome`` the CLI's
    ``solve`` prints (a SAT model has been checked against every clause) and its board (None unless
    SAT, or when a file's header names no N).

    Examples:
        >>> import cnfgen_queens as cq
        >>> out = cq.solve(cq.queens(5, "ladder"))
        >>> str(out.status), out.outcome.verified, out.board.n, out.wall > 0, out.measured_by in ("rusage", "cgroup")
        ('SAT', True, 5, True, True)
    """

    outcome: Outcome
    board: Board | None

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


def solve(
    formula_or_path: Formula | str | Path,
    solver: str = DEFAULT_SOLVER,
    *,
    time_limit: float | None = None,
    memory_limit: int | None = None,
    solver_args: Sequence[str] = (),
    solvers_file: str | Path | None = None,
) -> Solved:
    """Run ``solver`` (``pysat:NAME``, a profile such as ``kissat``, or a path) on a formula or a CNF file,
    as ``cnfgen-queens solve`` does, and check its answer.

    Limits and solver failures end in the outcome's status (TIMEOUT, MEMOUT, ERROR), never raised;
    UsageError for what the CLI refuses (exit 2: an unknown solver, an input that cannot be read or is no
    CNF); SolverMissing, an OSError, for a known solver that is not installed (the CLI's exit 1).

    Examples:
        >>> import cnfgen_queens as cq
        >>> out = cq.solve(cq.queens(3))
        >>> str(out.status), out.board
        ('UNSAT', None)
    """
    limits = Limits(time_limit, memory_limit)
    extra = Path(solvers_file) if solvers_file is not None else None
    try:
        if isinstance(formula_or_path, Formula):
            with work_dir("formula") as tmp:
                path = tmp / f"queens-{formula_or_path.n}.cnf"
                formula_or_path.write(path)
                outcome = run_solver(path, solver, limits=limits, args=tuple(solver_args), solvers_file=extra,
                                     name=formula_or_path.command)  # fmt: skip
            board = None
            if outcome.model is not None:
                board = board_of(formula_or_path, outcome.true_vars())
            return Solved(outcome, board)
        path = Path(formula_or_path)
        _readable(path)
        outcome = run_solver(path, solver, limits=limits, args=tuple(solver_args), solvers_file=extra)
        return Solved(outcome, _file_board(path, outcome))
    except SolverMissing:
        raise  # the environment: an OSError
    except (SolverNotFound, ProfileError, InputError) as e:
        raise UsageError(str(e)) from None


def _readable(path: Path) -> None:
    """UsageError, as the CLI's exit 2, for an input that cannot be opened (missing, a directory, no permission)."""
    try:
        with open(path, "rb"):
            pass
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None


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


def solutions(
    formula: Formula,
    solver: str = DEFAULT_SOLVER,
    *,
    symmetric: bool = False,
    time_limit: float | None = None,
    memory_limit: int | None = None,
    limit: int | None = None,
    allow_large: bool = False,
) -> Iterator[Board]:
    """Every solution, checked, by the blocking-clause loop (``cnfgen-queens enumerate``); with
    ``symmetric`` one per orbit of the 8 board symmetries.  ``time_limit`` bounds the whole loop.

    Raises UsageError at once, before anything runs; EnumerationError (a RuntimeError) from the loop when
    it stops early (the solutions before it have been yielded).

    Examples:
        >>> import cnfgen_queens as cq
        >>> sorted(b.line for b in cq.enumerate_solutions(cq.queens(4)))
        ['2 4 1 3', '3 1 4 2']
    """
    if limit is not None:
        limit = checked(positive_int("limit"), limit, "limit")
    found = _solutions.solutions(formula.formula, solver, limits=Limits(time_limit, memory_limit),
                                 symmetric=symmetric, allow_large=allow_large)  # fmt: skip
    return _boards(found, limit)


def _boards(found: Generator[Found, None, None], limit: int | None) -> Iterator[Board]:
    try:
        for k, f in enumerate(found, 1):
            yield Board(f.placement)
            if limit and k >= limit:
                return
    finally:
        found.close()


def count(
    formula: Formula,
    solver: str = DEFAULT_SOLVER,
    *,
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
) -> Count:
    """Count every solution (``cnfgen-queens count``): by cubes (``engine="cubes"``, what ``auto`` picks with
    an embedded solver: the plain board's canonical border cubes, the torus by its symmetry group, placed
    queens and blocked squares by their first free rows up to N = 32) or the blocking-clause loop.

    Returns the ``Count`` the CLI prints: ``total``, ``fundamental``
    (with ``symmetric``), ``status`` (UNSAT: complete), ``mismatches`` with OEIS.  ``certify``: a
    directory for a DRAT certificate (``count --certify``; ``cnfgen-queens check-count`` checks it);
    ``check_all``: evaluate every clause on every model (``--check-all``).

    Examples:
        >>> import cnfgen_queens as cq
        >>> c = cq.count(cq.queens(6), symmetric=True)
        >>> c.total, c.fundamental, c.complete
        (4, 1, True)
        >>> cq.count(cq.queens(13, torus=True)).total  # OEIS A007705
        4524
    """
    if limit is not None:
        limit = checked(positive_int("limit"), limit, "limit")
    return _solutions.count(formula.formula, solver, engine=engine, limits=Limits(time_limit, memory_limit),
                            jobs=checked(positive_int("jobs"), jobs, "jobs"), executor=executor, scheduler=scheduler,
                            symmetric=symmetric, limit=limit, allow_large=allow_large,
                            certify=None if certify is None else Path(certify), check_all=check_all)  # fmt: skip
