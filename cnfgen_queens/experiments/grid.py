"""The run grid: every (N x encoding x shuffle seed x solver x repeat) of a config, and every (file x solver
x repeat) of its ``instances.files``, with stable keys.

A run's key hashes exactly what determines its result (instance, solver and its
arguments, task, limits, repeat index), so adding an N or a solver to a config
keeps the keys of the runs already done, and resuming skips them.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.variants import make_variant

from ..encodings import get as get_encoding
from ..limits import DEFAULT_OUTPUT_MB
from .config import Config, SolverEntry, digest
from .file_instances import QUEENS, InstanceFile

if TYPE_CHECKING:
    from cnfgen_queens.model.formula import QueensFormula


VARIANT_FIELDS = ("torus", "place", "holes", "random_place", "random_seed", "break_symmetry")  # of a variant
FILE_FIELDS = ("family", "file", "file_hash")  # of a file instance (a generated one's key has none)


@dataclass(frozen=True)
class Instance:
    """One CNF: board size, encoding (``group_size`` only when the encoding takes it), shuffle seed; or a
    DIMACS file of ``instances.files`` (``file``: its path, n 0, ``encoding`` its label, ``family`` its
    folder's name), keyed by its GBD hash (``file_hash``) alone.

    ``variables`` and ``clauses`` are part of the key, so a changed encoding gives new keys.
    """

    n: int
    encoding: str
    column_alo: bool
    group_size: int | None
    shuffle_seed: int | None
    variables: int
    clauses: int
    torus: bool = False
    place: tuple[tuple[int, int], ...] = ()
    holes: tuple[tuple[int, int], ...] = ()
    random_place: int | None = None
    random_seed: int | None = None
    break_symmetry: bool = False
    family: str = QUEENS  # where the instance comes from: queens (generated), or a file's folder
    file: str | None = None  # the DIMACS file of instances.files (absolute); None: generated
    file_hash: str | None = None  # its GBD hash (what identifies it)

    @classmethod
    def of_file(cls, f: InstanceFile) -> Instance:
        return cls(
            0, f.label, False, None, None, f.variables, f.clauses, family=f.family, file=f.path, file_hash=f.gbd_hash
        )

    @property
    def is_variant(self) -> bool:
        return bool(self.torus or self.place or self.holes or self.random_place is not None or self.break_symmetry)

    def formula(self) -> QueensFormula:

        v = make_variant(self.n, self.place, self.holes, self.torus, self.random_place, self.random_seed)
        return QueensFormula(self.n, self.encoding, self.column_alo, self.group_size, v, self.break_symmetry)

    def params(self) -> dict[str, Any]:
        """Every field (cells as lists), the variant's only for a variant, so plain instances keep their keys;
        a file's: its GBD hash and its sizes (not its name or folder: the same file is the same instance)."""
        if self.file_hash is not None:
            return {"file_hash": self.file_hash, "variables": self.variables, "clauses": self.clauses}
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name in FILE_FIELDS:
                continue
            if f.name in VARIANT_FIELDS and not self.is_variant:
                continue
            if f.name == "break_symmetry" and not self.break_symmetry:
                continue  # only when true, so the variants before it keep their keys
            value = getattr(self, f.name)
            out[f.name] = [list(c) for c in value] if isinstance(value, tuple) else value
        return out

    @cached_property
    def key(self) -> str:
        return digest(self.params())

    @cached_property
    def label(self) -> str:
        """The encoding and what else sets this instance apart from others of its N (as ``describe`` shows)."""
        if self.file is not None:
            return f"{self.family}/{self.encoding}"
        extra = "" if self.group_size is None else f" group_size={self.group_size}"
        extra += " column_alo" if self.column_alo else ""
        extra += "" if self.shuffle_seed is None else f" seed={self.shuffle_seed}"
        extra += " torus" if self.torus else ""
        extra += f" placed={len(self.place)}" if self.place else ""
        extra += f" holes={len(self.holes)}" if self.holes else ""
        if self.random_place is not None:
            extra += f" random_place={self.random_place} random_seed={self.random_seed}"
        extra += " break_symmetry" if self.break_symmetry else ""
        return f"{self.encoding}{extra}"

    @property
    def filename(self) -> str:
        """A readable, unique cache file name: ``queens-8-commander-g3-s0-<hash>.cnf``."""
        parts = [f"queens-{self.n}", re.sub(r"[^A-Za-z0-9]+", "_", self.encoding)]
        if self.group_size is not None:
            parts.append(f"g{self.group_size}")
        if self.column_alo:
            parts.append("alo")
        if self.shuffle_seed is not None:
            parts.append(f"s{self.shuffle_seed}")
        parts += ["torus"] if self.torus else []
        parts += [f"p{len(self.place)}"] if self.place else []
        parts += [f"h{len(self.holes)}"] if self.holes else []
        parts += [f"k{self.random_place}r{self.random_seed}"] if self.random_place is not None else []
        parts += ["lex"] if self.break_symmetry else []
        return "-".join([*parts, self.key[:8]]) + ".cnf"


@dataclass(frozen=True)
class Run:
    """One solver call (or one count) on one instance under the limits."""

    instance: Instance
    solver: SolverEntry
    task: str
    time_limit: float
    memory_limit: int | None
    repeat: int = 0
    output_limit: int = DEFAULT_OUTPUT_MB
    engine: str = "auto"  # task count
    proof: bool = False  # the solver writes a DRAT proof, checked (config key proof)

    def params(self) -> dict[str, Any]:
        """What the key hashes; the output limit only when not the default, so older runs keep their keys."""
        out = {
            **self.instance.params(),
            "solver": self.solver.name,
            "args": list(self.solver.args),
            **({"profile": self.solver.normalized()["profile"]} if self.solver.profile is not None else {}),
            "task": self.task,
            "time_limit": self.time_limit,
            "memory_limit": self.memory_limit,
            "repeat": self.repeat,
        }
        if self.output_limit != DEFAULT_OUTPUT_MB:
            out["output_limit"] = self.output_limit
        if self.engine != "auto":
            out["engine"] = self.engine
        if self.proof:  # likewise
            out["proof"] = True
        return out

    @cached_property
    def key(self) -> str:
        return digest(self.params())

    def describe(self) -> str:
        what = f"file {self.instance.file}" if self.instance.file is not None else f"n={self.instance.n}"
        return f"{self.task} {what} {self.instance.label} solver={self.solver.label} repeat={self.repeat}"


def instance(
    config: Config,
    n: int,
    encoding: str,
    column_alo: bool | None = None,
    cell: tuple[int | None, int | None, bool] = (None, None, False),
) -> Instance:
    """The unshuffled instance of ``config`` at ``n`` and ``encoding``; ``cell``: the variant's random queens
    ``k``, their seed, and whether symmetry is broken; its sizes counted."""
    k, random_seed, break_symmetry = cell
    takes_group = get_encoding(encoding).takes_group_size  # group_size goes where it applies
    group = config.group_size if takes_group else None
    v = config.variant
    alo = config.column_alo[0] if column_alo is None else column_alo
    inst = Instance(n, encoding, alo, group, None, 0, 0)
    if v is not None:
        inst = replace(
            inst,
            torus=v.torus,
            place=v.place,
            holes=v.holes,
            random_place=k,
            random_seed=random_seed,
            break_symmetry=break_symmetry,
        )
    formula = inst.formula()
    variables, clauses = formula.counts()
    return replace(inst, group_size=formula.params.get("group_size"), variables=variables, clauses=clauses)


def expand(config: Config) -> tuple[list[Run], list[Instance]]:
    """(every run of ``config``, smallest N first, in a fixed order; the instances over ``max_clauses``)."""
    skipped: list[Instance] = []
    return list(iter_runs(config, skipped)), skipped


def iter_runs(config: Config, skipped: list[Instance] | None = None) -> Iterator[Run]:
    """Every run of ``config`` in :func:`expand`'s order, made as they are asked for (a caller that keeps
    few need not hold a million); the instances over ``max_clauses`` are appended to ``skipped``."""
    seeds: tuple[int | None, ...] = config.shuffle_seeds if config.shuffle_seeds is not None else (None,)
    variant = config.variant
    for n in sorted(config.ns):
        ks = variant.ks(n) if variant is not None else (None,)
        breaks = variant.break_symmetry if variant is not None else (False,)
        combos = [(k, s, b) for k in ks for s in (variant.seeds(k) if variant is not None else (None,)) for b in breaks]
        cells = ((e, a, c) for e in config.encodings for a in config.column_alo for c in combos)
        for enc, alo, cell in cells:
            counted = instance(config, n, enc, alo, cell)
            for seed in seeds:
                inst = replace(counted, shuffle_seed=seed)
                if config.max_clauses is not None and inst.clauses > config.max_clauses:
                    if skipped is not None:
                        skipped.append(inst)
                    continue
                yield from _runs_of(config, inst)
    for f in config.files:  # after the queens, in the order of their paths
        inst = Instance.of_file(f)
        if config.max_clauses is not None and inst.clauses > config.max_clauses:
            if skipped is not None:
                skipped.append(inst)
            continue
        yield from _runs_of(config, inst)


def _runs_of(config: Config, inst: Instance) -> Iterator[Run]:
    """Every run of ``inst``: each solver, each repeat."""
    for solver in config.solvers:
        first = Run(
            inst,
            solver,
            config.task,
            config.time_limit,
            config.memory_limit,
            output_limit=config.output_limit,
            engine=config.engine,
            proof=config.proof,
        )
        for rep, key in enumerate(_repeat_keys(first, config.repeats)):
            # not replace(first, repeat=rep): 5x slower, most of a million-run --dry-run
            run = Run(
                inst,
                solver,
                config.task,
                config.time_limit,
                config.memory_limit,
                rep,
                config.output_limit,
                config.engine,
                config.proof,
            )
            object.__setattr__(run, "key", key)  # what the cached property would compute
            yield run


def _repeat_keys(run: Run, repeats: int) -> list[str]:
    """The keys of ``run`` for repeat 0, 1, ...: its key's JSON text built once, the repeat index put in."""
    marker = -123456789012345  # an int no repeat index takes: it is replaced in the text
    text = json.dumps({**run.params(), "repeat": marker}, sort_keys=True, separators=(",", ":"))
    if text.count(str(marker)) != 1:  # the marker is also a solver argument: the slow way
        return [digest({**run.params(), "repeat": r}) for r in range(repeats)]
    head, tail = text.split(str(marker))
    return [hashlib.sha256(f"{head}{r}{tail}".encode()).hexdigest()[:16] for r in range(repeats)]


def build(config: Config) -> list[Run]:
    return expand(config)[0]
