"""What the conformance gate (:mod:`.conformance`) measures of an at-most-one encoding's clauses.

Each ``check_*`` function returns the text of its verdict or raises :class:`Bad` naming the first
counterexample; :func:`propagation_witness` and :func:`count_extensions` return what they found.
Extendability and extension counts are decided by PySAT (MiniSat 2.2) under assumptions; unit
propagation is this module's own (:func:`propagate`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import combinations, product

from .base import Clause, VarPool

Build = Callable[[list[int], VarPool], Sequence[Sequence[int]]]
Size = Callable[[int], tuple[int, int]]

FULL_PARTIAL_MAX_N = 5  # every partial assignment (3^n) up to this n; single and double true ones beyond
GROWTH_NS = (16, 32, 64, 128)  # the size rows beyond max_n; the growth class is read from the last two
EXTENSION_CAP = 64  # auxiliary extensions counted per assignment, at most


class Bad(Exception):
    """A counterexample found inside one property's check."""


class Malformed(ValueError):
    """What a build returned is not a list of clauses of non-zero ints."""


def as_clauses(out: object) -> list[Clause]:
    """``out`` (what a build returned) as a list of tuples, checked to be sequences of non-zero ints
    (:class:`Malformed` naming the first clause that is not)."""
    if isinstance(out, str | bytes) or not hasattr(out, "__iter__"):
        raise Malformed(f"build returned {type(out).__name__}, not a list of clauses")
    clauses: list[Clause] = []
    for i, clause in enumerate(out):
        if isinstance(clause, str | bytes) or not hasattr(clause, "__iter__"):
            raise Malformed(f"clause {i} is {clause!r}, not a sequence of literals")
        c = tuple(clause)
        bad = next((x for x in c if type(x) is not int or x == 0), None)  # bool is no literal either
        if bad is not None or not c:
            raise Malformed(f"clause {i} {c!r} holds {bad!r}, not a non-zero int" if c else f"clause {i} is empty")
        clauses.append(c)
    return clauses


def _clauses(build: Build, lits: Sequence[int], pool: VarPool) -> list[Clause]:
    try:
        return as_clauses(build(list(lits), pool))
    except Malformed as e:
        raise Bad(str(e)) from None


def _forms(n: int) -> list[tuple[str, list[int], int]]:
    """(what, the inputs, the pool's start) for the semantics check at ``n``."""
    forms = [
        ("inputs 1..n", list(range(1, n + 1)), n),
        ("negated inputs", [-v for v in range(1, n + 1)], n),
        ("scattered ids", [3 * k + 2 for k in range(n)], 3 * n + 4),
        ("mixed signs", [v if v % 2 else -v for v in range(1, n + 1)], n),
    ]
    if n >= 2:
        forms.append(("a literal repeated", [*range(1, n), 1], n - 1))
    return forms


def _show(lits: Sequence[int], values: dict[int, bool]) -> str:
    return " ".join(f"{'' if lit > 0 else '-'}x{abs(lit)}={int(values[abs(lit)])}" for lit in dict.fromkeys(lits))


def _literal_true(lit: int, values: dict[int, bool]) -> bool:
    return values[abs(lit)] == (lit > 0)


def check_semantics(build: Build, max_n: int) -> str:
    """The verdict text; :class:`Bad` naming the first wrong assignment."""
    from pysat.solvers import Solver

    for n in range(1, max_n + 1):
        for what, lits, top in _forms(n):
            clauses = _clauses(build, lits, VarPool(top))
            variables = sorted({abs(x) for x in lits})
            with Solver(name="minisat22", bootstrap_with=clauses) as s:
                for bits in product((False, True), repeat=len(variables)):
                    values = dict(zip(variables, bits, strict=True))
                    true = sum(_literal_true(lit, values) for lit in lits)
                    extendable = s.solve(assumptions=[v if b else -v for v, b in values.items()])
                    if extendable != (true <= 1):
                        why = "yet extendable to a model" if extendable else "yet no auxiliary assignment extends it"
                        raise Bad(f"n={n} ({what} {lits}): {_show(lits, values)} makes {true} true, {why}")
    return f"extendable iff at most one input true, n = 1..{max_n} (plain, negated, scattered, mixed, repeated)"


def check_hygiene(build: Build, max_n: int) -> str:
    for n in range(1, max_n + 1):
        for what, lits, top in (_forms(n)[0], _forms(n)[2]):
            _fresh_only(build, lits, VarPool(top), n, what)
        # two lines on one pool: the second's auxiliaries above the first's
        pool = VarPool(2 * n)
        _fresh_only(build, list(range(1, n + 1)), pool, n, "first of two lines on one pool")
        _fresh_only(build, list(range(n + 1, 2 * n + 1)), pool, n, "second of two lines on one pool")
        first = _clauses(build, list(range(1, n + 1)), VarPool(n))
        again = _clauses(build, list(range(1, n + 1)), VarPool(n))
        if first != again:
            k = next((i for i, (a, b) in enumerate(zip(first, again, strict=False)) if a != b), None)
            k = min(len(first), len(again)) if k is None else k
            one, other = (c[k] if k < len(c) else "none" for c in (first, again))
            raise Bad(f"n={n}: two calls on the same inputs differ (not deterministic) at clause {k}: {one} vs {other}")
    return f"auxiliaries only from the pool, above every input, fresh on every call; deterministic; n = 1..{max_n}"


def _fresh_only(build: Build, lits: list[int], pool: VarPool, n: int, what: str) -> None:
    start = pool.top
    clauses = _clauses(build, lits, pool)
    if pool.top < start:
        raise Bad(f"n={n} ({what}): the pool's top went down from {start} to {pool.top}")
    inputs = {abs(x) for x in lits}
    for clause in clauses:
        for x in clause:
            v = abs(x)
            if v in inputs:
                continue
            if v <= start:
                raise Bad(
                    f"n={n} ({what} {lits}): variable {v} in clause {clause} is neither an input nor taken from "
                    f"the pool (which started at {start}): it clashes with a variable in use"
                )
            if v > pool.top:
                raise Bad(
                    f"n={n} ({what} {lits}): variable {v} in clause {clause} is above the pool's top "
                    f"{pool.top}: not taken from pool.new()"
                )


def propagate(clauses: list[Clause], values: dict[int, bool]) -> dict[int, bool] | None:
    """Unit propagation from ``values``: the assignment it reaches, or None on a conflict."""
    values = dict(values)
    changed = True
    while changed:
        changed = False
        for clause in clauses:
            free = None
            count = 0
            for x in clause:
                v = values.get(abs(x))
                if v is None:
                    free, count = x, count + 1
                elif v == (x > 0):
                    break
            else:
                if count == 0:
                    return None
                if count == 1 and free is not None:
                    values[abs(free)] = free > 0
                    changed = True
    return values


def _partials(n: int) -> list[dict[int, bool | None]]:
    """The partial assignments of inputs 1..n (None: unset) with at most two true: all of them up to
    :data:`FULL_PARTIAL_MAX_N`, the ones with one or two true and the rest unset beyond."""
    if n <= FULL_PARTIAL_MAX_N:
        rows = [dict(zip(range(1, n + 1), vals, strict=True)) for vals in product((None, False, True), repeat=n)]
        return [r for r in rows if sum(v is True for v in r.values()) <= 2]
    out: list[dict[int, bool | None]] = []
    for k in (1, 2):
        for chosen in combinations(range(1, n + 1), k):
            out.append({v: (True if v in chosen else None) for v in range(1, n + 1)})
    return out


def propagation_witness(build: Build, max_n: int) -> str | None:
    """The first partial assignment from which unit propagation misses a forced input literal or a conflict
    (None: none up to ``max_n``)."""
    for n in range(2, max_n + 1):
        clauses = _clauses(build, list(range(1, n + 1)), VarPool(n))
        for partial in _partials(n):
            given = {v: b for v, b in partial.items() if b is not None}
            true = [v for v, b in given.items() if b]
            shown = ", ".join(f"x{v}={int(b)}" for v, b in sorted(given.items())) or "nothing set"
            after = propagate(clauses, given)
            if len(true) >= 2:
                if after is not None:
                    return f"n={n}: from {shown} (two true) unit propagation reaches no conflict"
            elif len(true) == 1:
                if after is None:
                    continue  # a conflict from a consistent start: semantics' to judge
                left = [v for v in range(1, n + 1) if v != true[0] and after.get(v) is not False]
                if left:
                    return f"n={n}: from {shown} unit propagation leaves x{left[0]} not false"
    return None


def count_extensions(build: Build, max_n: int) -> tuple[int, str]:
    """(the largest number of auxiliary extensions of an allowed input assignment, capped at
    :data:`EXTENSION_CAP`, and where it was found)."""
    from pysat.solvers import Solver

    worst, where = 1, ""
    for n in range(1, max_n + 1):
        pool = VarPool(n)
        clauses = _clauses(build, list(range(1, n + 1)), pool)
        aux = list(range(n + 1, pool.top + 1))
        for true in (None, *range(1, n + 1)):
            assume = [v if v == true else -v for v in range(1, n + 1)]
            found = 0
            with Solver(name="minisat22", bootstrap_with=clauses) as s:
                for v in aux:
                    s.add_clause([v, -v])  # every auxiliary known to the solver, used or not
                while found < EXTENSION_CAP and s.solve(assumptions=assume):
                    found += 1
                    model = set(s.get_model() or [])
                    if not aux:
                        break
                    s.add_clause([-v if v in model else v for v in aux])
            if found > worst:
                worst = found
                what = "every input false" if true is None else f"x{true} true, the others false"
                where = f"n={n}, {what}: {found}{'+' if found >= EXTENSION_CAP else ''} auxiliary extensions"
    return worst, where


def _growth(rows: list[tuple[int, int, int]]) -> str:
    (n1, c1, _), (n2, c2, _) = rows[-2], rows[-1]
    if c1 <= 0 or c2 <= 0:
        return "constant"
    e = math.log(c2 / c1) / math.log(n2 / n1)
    if e < 1.1:
        return "linear"
    if e < 1.35:
        return "n log n"
    if e > 1.85 and e < 2.15:
        return "quadratic"
    return f"n^{e:.2f}"


def check_size(build: Build, size: Size | None, max_n: int, growth: bool = True) -> str:
    """Built against declared counts for n = 1..``max_n`` and (``growth``) :data:`GROWTH_NS` beyond it."""
    rows = []
    for n in (*range(1, max_n + 1), *(m for m in GROWTH_NS if m > max_n and growth)):
        pool = VarPool(n)
        built = (len(_clauses(build, list(range(1, n + 1)), pool)), pool.top - n)
        if size is not None:
            declared = tuple(size(n))
            if declared != built:
                raise Bad(
                    f"n={n}: declared {declared[0]} clauses, {declared[1]} auxiliaries; built "
                    f"{built[0]} clauses, {built[1]} auxiliaries"
                )
        rows.append((n, *built))
    if len(rows) < 2:
        return "as declared" if size is not None else "measured"
    n, c, a = rows[-1]
    against = "as declared" if size is not None else "no closed form declared (counts measured)"
    return f"{against}, n = 1..{n}; clauses grow {_growth(rows)} (n = {n}: {c} clauses, {a} auxiliaries)"
