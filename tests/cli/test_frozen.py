"""frozen.record (the records of the modules a command's start-up loads) makes what dataclasses.dataclass makes
of the same declaration, and the functions of dataclasses work on it."""

from __future__ import annotations

import dataclasses
import pickle
import subprocess
import sys

import pytest

from cnfgen_queens import frozen
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.variants import Variant


def declare(decorate: object, field: object) -> type:
    class C:
        """A record."""

        a: int
        b: str = "x"
        c: tuple[int, ...] = field(default=(), repr=False)  # type: ignore[operator]
        d: list[int] = field(default_factory=list, compare=False)  # type: ignore[operator]

        def __post_init__(self) -> None:
            if self.a < 0:
                raise ValueError("negative")

    return decorate(C)  # type: ignore[operator,no-any-return]


@pytest.mark.parametrize("frozen_", [True, False])
def test_record_is_dataclass(frozen_: bool) -> None:
    real = declare(dataclasses.dataclass(frozen=frozen_), dataclasses.field)
    mine = declare(frozen.record(frozen=frozen_), frozen.field)
    for args, kwargs in [((1,), {}), ((1, "y"), {}), ((2,), {"c": (1,)}), ((3,), {"d": [1]}), ((), {"a": 4, "b": ""})]:
        r, m = real(*args, **kwargs), mine(*args, **kwargs)
        assert repr(r) == repr(m) and dataclasses.astuple(r) == dataclasses.astuple(m)
        assert (r == real(*args, **kwargs)) and (m == mine(*args, **kwargs)) and m != r
        assert dataclasses.asdict(dataclasses.replace(m, b="z")) == dataclasses.asdict(dataclasses.replace(r, b="z"))
        assert (hash(m) == hash(mine(*args, **kwargs))) if frozen_ else (type(m).__hash__ is None)
    assert real.__match_args__ == mine.__match_args__  # type: ignore[attr-defined]
    assert [f.name for f in dataclasses.fields(mine)] == ["a", "b", "c", "d"] and dataclasses.is_dataclass(mine)
    with pytest.raises(ValueError, match="negative"):
        mine(-1)
    for bad in ((), (1, "x", (), [], 5)):
        with pytest.raises(TypeError):
            mine(*bad)
    with pytest.raises(TypeError):
        mine(1, e=2)
    m = mine(1)
    if frozen_:
        with pytest.raises(dataclasses.FrozenInstanceError):
            m.a = 2
    else:
        m.a = 2
        assert m.a == 2


def test_records_of_the_package_behave() -> None:
    f = QueensFormula(8, "sequential", variant=Variant(placed=((0, 1),)))
    assert pickle.loads(pickle.dumps(f)) == f and f.counts() == pickle.loads(pickle.dumps(f)).counts()
    same = QueensFormula(8, "sequential", variant=Variant(placed=((0, 1),)))
    assert dataclasses.replace(f, column_alo=True).column_alo and hash(f) == hash(same)
    assert repr(QueensFormula(4)).startswith("QueensFormula(n=4, encoding='pairwise'")


def test_importing_records_loads_no_dataclasses() -> None:
    code = "import sys, cnfgen_queens.model.formula; print('dataclasses' in sys.modules, 'typing' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["False", "False"], out.stderr
