"""The ``instances`` section of a batch config: board sizes, encodings, ``column_alo``, and the size
checks made on the largest instances before anything is expanded or run (the grid's run count, what
gen-queens and ``task: count`` would refuse)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from cnfgen_queens.cnf.write_limits import SIZE_FROM_UNBUILT, Asker, check_output
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.solutions.api import check_held_size

from .. import encodings as registry  # `encodings` is a parameter name below
from ..errors import UsageError
from .config_check import MAX_RUNS, Check
from .variant_config import RANGE_KEYS, VariantSpec

INSTANCE_KEYS = ("n", "encodings", "column_alo", "group_size", "shuffle_seeds", "max_clauses")

# What a config may ask, checked before anything is expanded or counted (each error names its key)
MAX_N = 100_000  # board size
MAX_MEASURED_N = 200  # board size for encodings whose counts are measured by building them (pysat:*)
MAX_COUNTING = 200_000  # sum of N over every (N, encoding): counting an instance's size costs O(N)


def largest_kept(ns: tuple[int, ...], encodings: tuple[str, ...], column_alo: tuple[bool, ...], group: int | None,
                 max_clauses: int | None) -> Iterator[tuple[int, QueensFormula]]:  # fmt: skip
    """(index, formula) of the largest instance of each encoding that ``max_clauses`` keeps (sizes grow
    with N): what the checks below look at, before any run."""
    for i, name in enumerate(encodings):
        size = group if registry.get(name).takes_group_size else None
        for n in sorted(ns, reverse=True):
            formula = QueensFormula(n, name, any(column_alo), size)
            if max_clauses is None or formula.counts()[1] <= max_clauses:
                yield i, formula
                break


def count_fits(c: Check, kept: list[tuple[int, QueensFormula]]) -> None:
    """``task: count`` holds each formula in memory: the largest kept instances are checked against the cap
    (``solutions.api.check_held_size``) here, rather than stored as an ERROR row at run time."""
    for i, formula in kept:
        try:
            check_held_size(formula, escape="a smaller N for task count", option="encoding ")
        except UsageError as e:
            c.fail(f"instances.encodings[{i}]", f"task count: {e}")


BATCH = Asker("instances.shuffle_seeds", "use a smaller N, or instances.max_clauses to leave it out", SIZE_FROM_UNBUILT)


def sizes_fit(c: Check, kept: list[tuple[int, QueensFormula]], *, shuffled: bool) -> None:
    """What gen-queens refuses, the batch refuses before any run (cnf.write_limits): the largest kept
    instances within the DIMACS variable limit, the size guard, and the shuffle's memory bound."""
    for i, formula in kept:
        try:
            check_output(formula, (), shuffle=0 if shuffled else None, asker=BATCH)
        except UsageError as e:
            c.fail(f"instances.encodings[{i}]", str(e))


def grid_factors(
    ns: tuple[int, ...],
    encodings: tuple[str, ...],
    column_alo: tuple[bool, ...],
    seeds: tuple[int, ...] | None,
    solvers: tuple[object, ...],
    repeats: int,
    variant: VariantSpec | None = None,
) -> list[tuple[int, str]]:
    """The factors whose product is the grid's run count, as (count, what): the one list that both the
    size check below and ``batch --dry-run`` print (before ``max_clauses`` leaves instances out); with
    DIMACS files, :func:`with_files` of it."""
    boards = (len(ns), "N") if variant is None else (variant.placements(ns), "(N, K, seed) boards")
    factors = [boards, (len(encodings), "encodings")]
    factors += [(len(column_alo), "column_alo values")] if len(column_alo) > 1 else []
    factors += [(len(seeds), "seeds")] if seeds else []
    return [*factors, (len(solvers), "solvers"), (repeats, "repeats")]


def with_files(factors: list[tuple[int, str]], files: int) -> list[tuple[int, str]]:
    """:func:`grid_factors` of a grid that also solves ``files`` DIMACS files (instances.files): the generated
    instances (the product of the factors before solvers and repeats) and the files are one sum."""
    if not files:
        return factors
    queens = math.prod(k for k, _ in factors[:-2])
    what = f"instances ({queens} generated + {files} files)" if queens else "files"
    return [(queens + files, what), *factors[-2:]]


def shown(factors: list[tuple[int, str]]) -> str:
    """``3 N x 2 encodings x ... = R runs``: the factors and their product."""
    return f"{' x '.join(f'{k} {what}' for k, what in factors)} = {math.prod(k for k, _ in factors)} runs"


def grid_size(c: Check, factors: list[tuple[int, str]]) -> None:
    """The grid's size as a product of its factors (:func:`grid_factors`), checked before anything is
    expanded."""
    if math.prod(k for k, _ in factors) > MAX_RUNS:
        c.fail("grid", f"{shown(factors)}, over the limit of {MAX_RUNS}")


def board_sizes(c: Check, value: Any) -> tuple[int, ...]:
    if isinstance(value, dict):
        spec = c.mapping(value, "instances.n", RANGE_KEYS)
        for key in ("from", "to"):
            if key not in spec:
                c.fail(f"instances.n.{key}", "missing (a range needs from and to)")
        lo = c.integer(spec["from"], "instances.n.from", maximum=MAX_N)
        hi = c.integer(spec["to"], "instances.n.to", maximum=MAX_N)
        step = c.integer(spec.get("step", 1), "instances.n.step")
        if lo > hi:
            c.fail("instances.n", f"empty range: from {lo} > to {hi}, the grid would have no runs")
        sizes = range(lo, hi + 1, step)
        if len(sizes) > MAX_RUNS:
            c.fail("instances.n", f"{len(sizes)} board sizes: the grid would have over {MAX_RUNS} runs (the limit)")
        return tuple(sizes)
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    board_size = lambda v, p: c.integer(v, p, maximum=MAX_N)
    return c.unique_list(value, "instances.n", board_size, "board sizes (positive integers)")


def column_alo_values(c: Check, value: Any) -> tuple[bool, ...]:
    """``true``, ``false`` or a list of them (a grid axis: each instance with and without)."""
    values = value if isinstance(value, list) else [value]
    if not values or not all(isinstance(v, bool) for v in values):
        c.expected("instances.column_alo", "true, false or a list of them", value)
    if len(set(values)) != len(values):
        c.fail("instances.column_alo", f"{value} lists a value twice")
    return tuple(values)


def encoding_names(c: Check, value: Any, ns: tuple[int, ...], column_alo: bool,
                   group_size: int | None) -> tuple[str, ...]:  # fmt: skip
    """The ``encodings`` list (or ``all``), each name checked by sizing its smallest instance."""
    if value == "all":
        value = registry.names()
    if isinstance(value, list) and sum(ns) * len(value) > MAX_COUNTING:  # before sizing any instance
        c.fail(
            "instances.n",
            f"the N sum to {sum(ns)}, x {len(value)} encodings = {sum(ns) * len(value)}, over the limit of "
            f"{MAX_COUNTING} (sizing an instance costs O(N): fewer or smaller N)",
        )

    def one(name: Any, path: str) -> str:
        name = c.string(name, path)
        if name.startswith("pysat:") and max(ns) > MAX_MEASURED_N:  # before counting anything
            c.fail(path, f"{name} counts are measured by building it: N up to {MAX_MEASURED_N}, not {max(ns)}")
        try:
            takes_group = registry.get(name).takes_group_size
            QueensFormula(min(ns), name, column_alo, group_size if takes_group else None).counts()
        except ValueError as e:  # UnknownEncoding lists the valid names; a bad group size
            c.fail(path, str(e).replace("--group-size", "group_size"))
        return name

    names = c.unique_list(value, "instances.encodings", one, "encoding names (or the word all)")
    if group_size is not None and not any(registry.get(e).takes_group_size for e in names):
        c.fail("instances.group_size", f"none of {', '.join(names)} takes a group size")
    return names
