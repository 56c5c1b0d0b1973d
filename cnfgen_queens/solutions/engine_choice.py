"""Which engine counts a request, and the option clashes that refuse it (policy of :mod:`.api`).

:func:`choose_engine` picks ``cubes`` or ``loop`` from the formula, the solver and the options given,
or raises :class:`.UsageError` in the caller's words (options named as flags, or from the Python API as its
parameters: :func:`cnfgen_queens.errors.option`).  Callers import these names
from :mod:`cnfgen_queens.solutions.api`, which re-exports them.
"""

from __future__ import annotations

from pathlib import Path

from cnfgen_queens.errors import UsageError, option
from cnfgen_queens.limits import DEFAULT_OUTPUT_MB, Limits
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.variants import Variant
from cnfgen_queens.solutions.embedded_loop import pysat_name

DEFAULT_SOLVER = "pysat:cadical195"
ENGINES = ("auto", "cubes", "loop")  # and "certify", the engine of count --certify
AUTO_SPLIT_UP_TO = 32  # N up to which auto counts placed queens and blocked squares by cubes (<= N^2 cubes)


def variant_flag(variant: Variant) -> str:
    """The option that made ``variant`` (for messages)."""
    if variant.placed:
        return option("--random-place" if variant.random_k else "--place")
    return option("--block-square" if variant.holes else "--torus")


def given(pairs: tuple[tuple[str, object], ...]) -> list[str]:
    """The flags of ``(flag, value)`` pairs whose value was given (not None, False, empty), as the caller
    names them (``--executor dask`` is the flag with its value)."""
    return [option(*flag.split(" ", 1)) for flag, value in pairs if value not in (None, False, (), "")]


def external_flags(limits: Limits, workdir: Path | None, resume: bool, solver_args: tuple[str, ...],
                   solvers_file: Path | None) -> list[str]:  # fmt: skip
    """The options given that only the external loop takes, as the CLI spells them."""
    return given((("--out", workdir), ("--resume", resume), ("--solver-args", solver_args),
                  ("--solvers-file", solvers_file), ("--output-limit", limits.output != DEFAULT_OUTPUT_MB),
                  ("--isolation", limits.isolation != "auto")))  # fmt: skip


def loop_only_flags(limits: Limits, limit: int | None, workdir: Path | None, resume: bool,
                    allow_large: bool) -> list[str]:  # fmt: skip
    """The options given that only the blocking-clause loop honours (cube workers cannot)."""
    return given((("--limit", limit), ("--out", workdir), ("--resume", resume), ("--allow-large", allow_large),
                  ("--memory-limit", limits.memory)))  # fmt: skip


def choose_engine(
    formula: QueensFormula,
    solver: str = DEFAULT_SOLVER,
    engine: str = "auto",
    *,
    jobs: int = 1,
    executor: str = "local",
    symmetric: bool = False,
    limits: Limits | None = None,
    limit: int | None = None,
    workdir: Path | None = None,
    resume: bool = False,
    allow_large: bool = False,
    solver_args: tuple[str, ...] = (),
    solvers_file: Path | None = None,
) -> str:
    """``"cubes"`` or ``"loop"`` for this request, or UsageError when the options cannot go together.

    ``auto`` counts by cubes with an embedded solver when nothing asks for the loop (``limit``, ``workdir``,
    ``resume``, ``allow_large``, a memory limit: the cube workers cannot honour them): on the plain board
    and the torus always, with placed queens or blocked squares up to N = :data:`AUTO_SPLIT_UP_TO` (beyond,
    up to N^2 cubes cost more solver calls than the loop's one per solution); ``cubes`` refuses what cubes
    cannot do; ``loop`` is one solver, any solver."""
    if engine not in ENGINES:
        raise UsageError(f"unknown engine {engine!r}; valid: {', '.join(ENGINES)}")
    limits = limits or Limits()
    if formula.break_symmetry:
        return _broken(formula, engine, symmetric, jobs, executor)
    if symmetric and formula.variant.active:
        raise UsageError(f"{option('--symmetric')} does not combine with {variant_flag(formula.variant)}: it counts "
                         "the orbits "
                         "of the plain board's 8 board symmetries (OEIS A002562)")  # fmt: skip
    parallel = given((("--jobs", jobs > 1), (f"--executor {executor}", executor != "local")))
    loop_only = loop_only_flags(limits, limit, workdir, resume, allow_large)
    embedded = pysat_name(solver) is not None
    if engine == "loop":
        if parallel:
            raise UsageError(f"{option('--engine', 'loop')} does not combine with {parallel[0]}: the loop is one "
                             f"solver (use {option('--engine', 'cubes')})")  # fmt: skip
        return "loop"
    if not embedded and (parallel or engine == "cubes"):
        return _external_cubes(formula, solver, executor, limit, allow_large)
    if not (engine == "cubes" or parallel or (embedded and auto_cubes(formula) and not loop_only)):
        return "loop"
    external = external_flags(limits, workdir, resume, solver_args, solvers_file)
    if external:  # the loop's own words: these are for an external solver, whichever the engine
        raise UsageError(f"{', '.join(external)}: for an external solver only; {solver} is embedded")
    if loop_only:
        cubes = f"{option('--jobs')}, {option('--executor')}, {option('--engine', 'cubes')}"
        raise UsageError(f"counting by cubes ({cubes}) does not combine with {', '.join(loop_only)}; "
                         f"{option('--engine', 'loop')} runs the blocking-clause loop")  # fmt: skip
    return "cubes"


def _broken(formula: QueensFormula, engine: str, symmetric: bool, jobs: int, executor: str) -> str:
    """``"loop"`` for a formula with ``--break-symmetry`` (one model per orbit: the cubes, which weigh each
    board by its orbit, would count it again), or UsageError."""
    refused = given((("--symmetric", symmetric), ("--engine cubes", engine == "cubes"), ("--jobs", jobs > 1),
                     (f"--executor {executor}", executor != "local")))  # fmt: skip
    if refused:
        raise UsageError(f"--break-symmetry does not combine with {refused[0]}: its formula has one model per "
                         "orbit, listed by the blocking-clause loop (--engine loop)")  # fmt: skip
    return "loop"


def _external_cubes(formula: QueensFormula, solver: str, executor: str, limit: int | None, allow_large: bool) -> str:
    """``"cubes"`` for a binary (:mod:`.external_cubes`: a restart loop per cube, local workers), or UsageError."""
    remote = (f"--executor {executor}", executor != "local")
    refused = given((remote, ("--limit", limit), ("--allow-large", allow_large)))
    if refused:
        raise UsageError(f"counting by cubes with {solver} ({option('--jobs')}, {option('--engine', 'cubes')}) does "
                         f"not combine with {', '.join(refused)}; {option('--engine', 'loop')} runs one restart "
                         "loop")  # fmt: skip
    if formula.variant.active:
        flag = variant_flag(formula.variant)
        raise UsageError(f"counting by cubes with {solver} does not combine with {flag}: its cubes are the "
                         f"plain board's (use an embedded pysat: solver, or {option('--engine', 'loop')})")  # fmt: skip
    return "cubes"


def auto_cubes(formula: QueensFormula) -> bool:
    """Whether ``auto`` counts ``formula`` by cubes (with an embedded solver, nothing asking for the loop)."""
    v = formula.variant
    return not (v.placed or v.holes) or formula.n <= AUTO_SPLIT_UP_TO
