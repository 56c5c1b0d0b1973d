"""The ``instances:`` variant keys of a batch config, validated (see :mod:`cnfgen_queens.model.variants`).

```yaml
instances:
  n: [20, 30, 50]
  encodings: [pairwise]
  torus: false                    # wrapped diagonals
  place: ["1,1", [3, 2]]          # queens placed in advance, 1-based ROW,COLUMN
  holes: ["2,5"]                  # blocked squares
  random_place_fraction: {from: 0, to: 0.8, step: 0.1}   # K = round(fraction * N); or
  # random_place: [0, 5, 10]      # K itself
  random_seeds: {from: 0, to: 19} # one instance per seed (required with random placement)
  break_symmetry: [false, true]   # lex-leader clauses (gen-queens --break-symmetry); true, false or both
```

Every (N, K, seed) is generated while the config is checked, so an impossible
placement is an error naming the key, not a failed run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cnfgen_queens.errors import UsageError
from cnfgen_queens.model.lex_leader import board_group
from cnfgen_queens.model.variants import VariantError, make_variant, parse_cell

from .config_check import Check as _Check

VARIANT_KEYS = ("torus", "place", "holes", "random_place", "random_place_fraction", "random_seeds", "break_symmetry")
RANGE_KEYS = ("from", "to", "step")
MAX_RANGE = 100_000  # entries of one from/to/step range


@dataclass(frozen=True)
class VariantSpec:
    """The ``instances:`` variant keys: cells 0-based; random placement by K or by K/N, with seeds."""

    torus: bool = False
    place: tuple[tuple[int, int], ...] = ()
    holes: tuple[tuple[int, int], ...] = ()
    random_place: tuple[int, ...] | None = None
    random_fraction: tuple[float, ...] | None = None
    random_seeds: tuple[int, ...] | None = None
    break_symmetry: tuple[bool, ...] = (False,)  # one value, or both as a grid axis

    def ks(self, n: int) -> tuple[int | None, ...]:
        """The random-placement sizes for board size ``n`` (None: no random placement)."""
        if self.random_fraction is not None:
            return tuple(dict.fromkeys(int(f * n + 0.5) for f in self.random_fraction))
        return self.random_place if self.random_place is not None else (None,)

    def seeds(self, k: int | None) -> tuple[int | None, ...]:
        return (None,) if k is None or self.random_seeds is None else self.random_seeds

    def placements(self, ns: tuple[int, ...]) -> int:
        """The (N, K, seed) instances this spec makes of the board sizes ``ns``."""
        return len(self.break_symmetry) * sum(len(ks) * len(self.seeds(ks[0])) for ks in map(self.ks, ns))

    def normalized(self) -> dict[str, Any]:
        extra = {"break_symmetry": list(self.break_symmetry)} if self.break_symmetry != (False,) else {}
        return extra | {
            "torus": self.torus,
            "place": [list(c) for c in self.place],
            "holes": [list(c) for c in self.holes],
            "random_place": None if self.random_place is None else list(self.random_place),
            "random_place_fraction": None if self.random_fraction is None else list(self.random_fraction),
            "random_seeds": None if self.random_seeds is None else list(self.random_seeds),
        }


def _range(c: _Check, value: dict[str, Any], path: str, number: bool) -> list[Any]:
    spec = c.mapping(value, path, RANGE_KEYS)
    for key in ("from", "to"):
        if key not in spec:
            c.fail(f"{path}.{key}", "missing (a range needs from and to)")
    if number:
        lo, hi = (_fraction(c, spec[k], f"{path}.{k}") for k in ("from", "to"))
        step = spec.get("step", 0.1)
        if isinstance(step, bool) or not isinstance(step, int | float) or not 0 < step <= 1:
            c.expected(f"{path}.step", "a number in (0, 1]", step)
        if lo > hi:
            c.fail(path, f"empty range: from {lo} > to {hi}, the grid would have no runs")
        count = int((hi - lo) / step + 1e-9) + 1  # counted before any value is made
        if count > MAX_RANGE:
            c.fail(path, f"{count} entries (step {step:g}), more than {MAX_RANGE}")
        return [round(lo + i * step, 10) for i in range(count)]
    lo, hi = c.integer(spec["from"], f"{path}.from", 0), c.integer(spec["to"], f"{path}.to", 0)
    step = c.integer(spec.get("step", 1), f"{path}.step")
    if lo > hi:
        c.fail(path, f"empty range: from {lo} > to {hi}, the grid would have no runs")
    if (hi - lo) // step + 1 > MAX_RANGE:
        c.fail(path, f"more than {MAX_RANGE} entries")
    return list(range(lo, hi + 1, step))


def _fraction(c: _Check, value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        c.expected(path, "a number between 0 and 1", value)
    return float(value)


def _list(c: _Check, inst: dict[str, Any], key: str, number: bool = False) -> tuple[Any, ...] | None:
    if key not in inst:
        return None
    path = f"instances.{key}"
    value = inst[key]
    if isinstance(value, dict):
        value = _range(c, value, path, number)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        value = [value]
    item = (lambda v, p: _fraction(c, v, p)) if number else (lambda v, p: c.integer(v, p, 0))
    what = "fractions (0..1)" if number else "integers (>= 0)"
    return c.unique_list(value, path, item, what)


def _cells(c: _Check, inst: dict[str, Any], key: str) -> tuple[tuple[int, int], ...]:

    value = inst.get(key, [])
    path = f"instances.{key}"
    if not isinstance(value, list):
        c.expected(path, 'a list of squares ("ROW,COLUMN" or [ROW, COLUMN], 1-based)', value)
    out = []
    for i, v in enumerate(value):
        if isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            v = f"{v[0]},{v[1]}"
        if not isinstance(v, str):
            c.expected(f"{path}[{i}]", '"ROW,COLUMN" or [ROW, COLUMN]', v)
        try:
            out.append(parse_cell(v))
        except VariantError as e:
            c.fail(f"{path}[{i}]", str(e))
    return tuple(out)


def variant_spec(c: _Check, inst: dict[str, Any], ns: tuple[int, ...]) -> VariantSpec | None:
    """The validated variant keys of ``instances`` (None when there are none)."""

    if not any(k in inst for k in VARIANT_KEYS):
        return None
    torus = inst.get("torus", False)
    if not isinstance(torus, bool):
        c.expected("instances.torus", "true or false", torus)
    ks, fractions = _list(c, inst, "random_place"), _list(c, inst, "random_place_fraction", number=True)
    seeds = _list(c, inst, "random_seeds")
    if ks is not None and fractions is not None:
        c.fail("instances.random_place_fraction", "give random_place or random_place_fraction, not both")
    if (ks is not None or fractions is not None) != (seeds is not None):
        c.fail("instances.random_seeds", "random placement needs random_seeds, and random_seeds needs random_place")
    breaks = inst.get("break_symmetry", False)
    breaks = breaks if isinstance(breaks, list) else [breaks]
    if not breaks or not all(isinstance(b, bool) for b in breaks) or len(set(breaks)) != len(breaks):
        c.expected("instances.break_symmetry", "true, false or a list of both", inst.get("break_symmetry"))
    spec = VariantSpec(torus, _cells(c, inst, "place"), _cells(c, inst, "holes"), ks, fractions, seeds, tuple(breaks))
    key = "random_place_fraction" if fractions is not None else "random_place" if ks is not None else "place"
    values = len(fractions or ks or ())
    if len(ns) * values > 10 * MAX_RANGE:  # before computing the K of each N
        c.fail(f"instances.{key}", f"{len(ns)} N x {values} values: more than {10 * MAX_RANGE} to size")
    if spec.placements(ns) > MAX_RANGE:  # before generating any
        c.fail(f"instances.{key}", f"{spec.placements(ns)} (N, K, seed) placements, more than {MAX_RANGE}")
    for n in ns:
        for k in spec.ks(n):
            for seed in spec.seeds(k):
                try:
                    v = make_variant(n, spec.place, spec.holes, torus, k, seed)
                except VariantError as e:
                    c.fail(f"instances.{key}", f"n={n}: {e}")
                if True in spec.break_symmetry:
                    try:
                        board_group(n, v)
                    except UsageError as e:
                        c.fail("instances.break_symmetry", f"n={n}: {e}")
    return spec
