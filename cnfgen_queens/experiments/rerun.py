"""``rerun ARTIFACT --results NEW.sqlite``: a bundle's experiment run again here, by the batch.

Before any run: the bundle is checked against its manifest and unpacked beside the new results
(``NEW.sqlite.bundle/``: its config, plugins, solver profiles, instances); its config, read back, must
have the bundle's config hash; every instance is regenerated and refused when its GBD hash is not the
bundle's; every solver is found here and each difference of version or binary SHA-256 from the bundle's
is stated (:attr:`Prepared.differences`; ``rerun --strict`` refuses them).  The runs are then the
bundle's grid, or ``sample`` runs per cell chosen by a seeded draw (the same every time, so a rerun
resumes as any batch does), handed to :func:`.batch.run_batch` with :attr:`.BatchRequest.only`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..solvers import SolverNotFound, resolve
from .batch import cache_dir
from .bundle import CONFIG, INFO, BundleError, extract, file_sha256, info_of, verified
from .config import Config, ConfigError, load, read
from .grid import Run, build
from .store import Store
from .tasks import generate

SUFFIX = ".bundle"  # the unpacked bundle, beside the new results file


@dataclass(frozen=True)
class Prepared:
    """A bundle ready to rerun: the config (results: the new file), the runs to run (None: all) and every
    difference found between the bundle's solvers and this machine's."""

    config: Config
    only: frozenset[str] | None
    differences: tuple[str, ...]
    info: dict[str, Any]


def cell_of(run: Run) -> tuple[Any, ...]:
    """The cell of a run: its solver and instance, but for the shuffle seed and the repeat (what a sample draws
    among)."""
    i = run.instance
    return (
        run.task,
        run.solver.label,
        i.family,
        i.n,
        i.encoding,
        i.column_alo,
        i.group_size,
        i.file,
        i.torus,
        i.place,
        i.holes,
        i.random_place,
        i.break_symmetry,
    )


def sample(runs: list[Run], k: int, seed: int) -> frozenset[str]:
    """``k`` runs of each cell (all of a smaller one), drawn with ``seed``: the same runs every time."""
    cells: dict[str, list[str]] = {}
    for r in runs:
        cells.setdefault(repr(cell_of(r)), []).append(r.key)
    rng = random.Random(seed)
    chosen: set[str] = set()
    for name in sorted(cells):
        keys = sorted(cells[name])
        chosen.update(rng.sample(keys, min(k, len(keys))))
    return frozenset(chosen)


def _config(members: dict[str, bytes], bundle: Path, results: Path, info: dict[str, Any]) -> Config:
    """The bundle's config unpacked beside ``results``, with ``results`` as its results file; refused when its
    hash is not the bundle's."""
    folder = results.parent / f"{results.name}{SUFFIX}"
    extract(members, folder)
    data, _ = read(folder / CONFIG)
    if not isinstance(data, dict):
        raise BundleError(f"{bundle}: its {CONFIG} is not a config")
    data["results"] = str(results.resolve())
    import yaml

    own = folder / "rerun.yaml"
    own.write_text(yaml.safe_dump(data, sort_keys=True, allow_unicode=True), encoding="utf-8")
    if data.get("instances", {}).get("files") and not info.get("with_instances"):
        raise BundleError(
            f"{bundle}: its DIMACS instances are named by hash only (bundled without "
            "--with-instances): nothing to rerun them on"
        )
    try:
        config = load(own)
    except ConfigError as e:
        raise BundleError(f"{bundle}: its config cannot run here: {e}") from None
    if config.hash != info.get("config_hash"):
        raise BundleError(
            f"{bundle}: its config reads back with hash {config.hash}, not the bundle's "
            f"{info.get('config_hash')}: refused"
        )
    return config


def solver_differences(config: Config, info: dict[str, Any]) -> list[str]:
    """Each difference between the bundle's solvers and the ones found here: version, binary SHA-256, a solver
    found there and not here (one sentence each)."""
    recorded = {s["label"]: s for s in info.get("solvers", []) if isinstance(s, dict)}
    out = []
    for entry in config.solvers:
        then = recorded.get(entry.label, {})
        try:
            spec = resolve(entry.name, entry.profiles)
        except SolverNotFound as e:
            out.append(f"solver {entry.label}: not found here ({e})")
            continue
        version = spec.version or ""
        versions = then.get("versions") or []
        if versions and version not in versions:
            out.append(
                f"solver {entry.label}: version {version or '(none said)'} here, "
                f"{' or '.join(v or '(none said)' for v in versions)} in the bundle"
            )
        binary = None if spec.path is None else file_sha256(spec.path)
        if binary != then.get("binary_sha256"):
            out.append(
                f"solver {entry.label}: binary SHA-256 {(binary or 'none')[:16]} here, "
                f"{(then.get('binary_sha256') or 'none')[:16]} in the bundle"
            )
    return out


def check_instances(config: Config, info: dict[str, Any], runs: list[Run]) -> tuple[int, int]:
    """Regenerate every instance of ``runs`` into the batch's cache and record it in the new results; a GBD
    hash that is not the bundle's is refused (:class:`BundleError` naming the instance).  Returns (how many
    were checked, how many the bundle has no hash of: never generated there, the batch stopped before)."""
    wanted = {i["key"]: i for i in info.get("instances", []) if isinstance(i, dict)}
    seen: dict[str, Any] = {}
    for r in runs:
        seen.setdefault(r.instance.key, r.instance)
    cache = str(cache_dir(config).resolve())
    unknown = 0
    with Store(config.results) as store:
        for key, inst in sorted(seen.items()):
            if key not in wanted:
                raise BundleError(f"instance n={inst.n} {inst.label}: not in the bundle's list: refused")
            expected = wanted[key].get("gbd_hash")
            path, found = generate(inst, cache, expected)  # a cached copy of that hash (a resumed rerun) is reused
            if expected is None:
                unknown += 1
            elif found != expected:
                raise BundleError(
                    f"instance n={inst.n} {inst.label}: GBD hash {found} regenerated here, "
                    f"{expected} in the bundle: refused"
                )
            store.record_instance(key, inst.file or Path(path).name, found)
    return len(seen) - unknown, unknown


def prepare(
    bundle: Path, results: Path, *, k: int | None = None, seed: int = 0, log: Callable[[str], None] = print
) -> Prepared:
    """The bundle at ``bundle`` checked and unpacked, ready for :func:`.batch.run_batch` into ``results``."""
    members = verified(bundle)
    info = info_of(members, bundle)
    if INFO not in members:
        raise BundleError(f"{bundle}: no {INFO}")
    config = _config(members, bundle, results, info)
    if k is not None and config.adaptive:
        raise UsageError("--sample: the bundle's repeats are adaptive (its cells set their own repeats)")
    runs = build(config)
    only = None if k is None else sample(runs, k, seed)
    chosen = runs if only is None else [r for r in runs if r.key in only]
    count, unknown = check_instances(config, info, chosen)
    log(f"{count} instances regenerated, each with the bundle's GBD hash")
    if unknown:
        log(f"{unknown} instances regenerated unchecked: the bundle has no GBD hash of them (never run there)")
    return Prepared(config, only, tuple(solver_differences(config, info)), info)
