"""Which engine counts a request, and the option clashes that refuse it (policy of :mod:`.api`).

:func:`choose_engine` picks ``cubes`` or ``loop`` from the formula, the solver and the options given,
or raises :class:`.UsageError` in the caller's words (options named as flags, or from the Python API as its
parameters: :func:`cnfgen_queens.errors.option`).  Callers import these names
from :mod:`cnfgen_queens.solutions.api`, which re-exports them.
"""

from __future__ import annotations

from cnfgen_queens.enumeration.embedded_loop import pysat_name
from cnfgen_queens.enumeration.request import Request
from cnfgen_queens.errors import UsageError, option
from cnfgen_queens.limits import DEFAULT_OUTPUT_MB
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.variants import Variant
from cnfgen_queens.solvers.default import DEFAULT_SOLVER

__all__ = ["AUTO_SPLIT_UP_TO", "DEFAULT_SOLVER", "ENGINES", "auto_cubes", "choose_engine", "external_flags", "given",
           "loop_only_flags", "variant_flag"]  # fmt: skip
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


def external_flags(request: Request) -> list[str]:
    """The options given that only the external loop takes, as the CLI spells them."""
    limits, where, solver = request.limits, request.where, request.solver
    return given(
        (
            ("--out", where.workdir),
            ("--resume", where.resume),
            ("--solver-args", solver.args),
            ("--solvers-file", solver.profiles),
            ("--output-limit", limits.output != DEFAULT_OUTPUT_MB),
            ("--isolation", limits.isolation != "auto"),
        )
    )


def loop_only_flags(request: Request) -> list[str]:
    """The options given that only the blocking-clause loop honours (cube workers cannot)."""
    where = request.where
    return given(
        (
            ("--limit", request.limit),
            ("--out", where.workdir),
            ("--resume", where.resume),
            ("--allow-large", request.allow_large),
            ("--memory-limit", request.limits.memory),
        )
    )


def choose_engine(request: Request) -> str:
    """``"cubes"`` or ``"loop"`` for this request, or UsageError when the options cannot go together.

    ``auto`` counts by cubes with an embedded solver when nothing asks for the loop (``limit``, ``workdir``,
    ``resume``, ``allow_large``, a memory limit: the cube workers cannot honour them): on the plain board
    and the torus always, with placed queens or blocked squares up to N = :data:`AUTO_SPLIT_UP_TO` (beyond,
    up to N^2 cubes cost more solver calls than the loop's one per solution); ``cubes`` refuses what cubes
    cannot do; ``loop`` is one solver, any solver."""
    formula, engine, where, solver = request.formula, request.engine, request.where, request.solver.name
    if engine not in ENGINES:
        raise UsageError(f"unknown engine {engine!r}; valid: {', '.join(ENGINES)}")
    if formula.break_symmetry:
        return _broken(request)
    if request.symmetric and formula.variant.active:
        raise UsageError(
            f"{option('--symmetric')} does not combine with {variant_flag(formula.variant)}: it counts "
            "the orbits "
            "of the plain board's 8 board symmetries (OEIS A002562)"
        )
    parallel = given((("--jobs", where.jobs > 1), (f"--executor {where.executor}", where.executor != "local")))
    loop_only = loop_only_flags(request)
    embedded = pysat_name(solver) is not None
    if engine == "loop":
        if parallel:
            raise UsageError(
                f"{option('--engine', 'loop')} does not combine with {parallel[0]}: the loop is one "
                f"solver (use {option('--engine', 'cubes')})"
            )
        return "loop"
    if not embedded and (parallel or engine == "cubes"):
        return _external_cubes(request)
    if not (engine == "cubes" or parallel or (embedded and auto_cubes(formula) and not loop_only)):
        return "loop"
    external = external_flags(request)
    if external:  # the loop's own words: these are for an external solver, whichever the engine
        raise UsageError(f"{', '.join(external)}: for an external solver only; {solver} is embedded")
    if loop_only:
        cubes = f"{option('--jobs')}, {option('--executor')}, {option('--engine', 'cubes')}"
        raise UsageError(
            f"counting by cubes ({cubes}) does not combine with {', '.join(loop_only)}; "
            f"{option('--engine', 'loop')} runs the blocking-clause loop"
        )
    return "cubes"


def _broken(request: Request) -> str:
    """``"loop"`` for a formula with ``--break-symmetry`` (one model per orbit: the cubes, which weigh each
    board by its orbit, would count it again), or UsageError."""
    where = request.where
    refused = given(
        (
            ("--symmetric", request.symmetric),
            ("--engine cubes", request.engine == "cubes"),
            ("--jobs", where.jobs > 1),
            (f"--executor {where.executor}", where.executor != "local"),
        )
    )
    if refused:
        loop = option("--engine", "loop")
        raise UsageError(
            f"{option('--break-symmetry')} does not combine with {refused[0]}: its formula has one "
            f"model per orbit, listed by the blocking-clause loop ({loop})"
        )
    return "loop"


def _external_cubes(request: Request) -> str:
    """``"cubes"`` for a binary (:mod:`.external_cubes`: a restart loop per cube, local workers), or UsageError."""
    executor, solver, formula = request.where.executor, request.solver.name, request.formula
    remote = (f"--executor {executor}", executor != "local")
    refused = given((remote, ("--limit", request.limit), ("--allow-large", request.allow_large)))
    if refused:
        raise UsageError(
            f"counting by cubes with {solver} ({option('--jobs')}, {option('--engine', 'cubes')}) does "
            f"not combine with {', '.join(refused)}; {option('--engine', 'loop')} runs one restart "
            "loop"
        )
    if formula.variant.active:
        flag = variant_flag(formula.variant)
        raise UsageError(
            f"counting by cubes with {solver} does not combine with {flag}: its cubes are the "
            f"plain board's (use an embedded pysat: solver, or {option('--engine', 'loop')})"
        )
    return "cubes"


def auto_cubes(formula: QueensFormula) -> bool:
    """Whether ``auto`` counts ``formula`` by cubes (with an embedded solver, nothing asking for the loop)."""
    v = formula.variant
    return not (v.placed or v.holes) or formula.n <= AUTO_SPLIT_UP_TO
