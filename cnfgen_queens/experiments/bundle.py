"""``bundle DB -o ARTIFACT``: one archive a reader can rerun, and the reading of one back.

The archive is a ``.tar.gz`` whose members are, sorted by name:

- ``store.sqlite``: a consistent copy of the results (sqlite3's backup API), without host names, process ids
  or home paths unless ``with_host`` (then as stored);
- ``config.yaml``: the config as run (the file that wrote the store, found by the store's record or given),
  with its paths made the bundle's: ``plugins/`` (the plugins' sources), ``solvers.yaml`` (its
  ``solvers_file``), ``instances/`` (its DIMACS files, with ``with_instances``); reparsed from the bundle, it
  has the store's config hash (checked);
- ``bundle.json``: the tool's version and git commit, the config hash, each solver's profile, versions and
  binary SHA-256, each instance's GBD hash and the command that regenerates it, the machines;
- ``report/report.md`` and ``report/html/`` (the HTML report with its plots), made with the report options
  given (:class:`View`: ``report --by ... --machines --time ... --compare A B``), which
  ``bundle.json`` records;
- ``attached/NAME``: files given with ``attach`` (a study's other tables, say), as they are: carried and
  checked by the manifest, not rerun;
- ``README.md`` (how to rerun it) and ``MANIFEST`` (every other member's SHA-256).

Fixed modes, owners and times, and gzip without a name or time: the same store gives the same bytes.
:func:`verified` refuses an archive whose members disagree with its manifest, naming the member.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import shlex
import shutil
import sqlite3
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..cnf.atomic import atomic_output, work_dir
from ..cnf.same_file import refuse_alias, refuse_database
from ..errors import UsageError
from ..solvers import SolverNotFound, resolve
from ..version import __version__
from . import compare, machine, noise
from .batch import profile_of
from .config import Config, ConfigError, load, parse, read
from .grid import build
from .html_report import write
from .report import load_rows, markdown, shown_rows, summarize
from .store import Row, Store
from .summary import TIMES

# --- reading a bundle back ----------------------------------------------------------------------------------
# A bundle read back: its members checked against its MANIFEST, unpacked, its store read.

MANIFEST = "MANIFEST"
STORE = "store.sqlite"
CONFIG = "config.yaml"
INFO = "bundle.json"
MAX_MEMBER = 1 << 32  # bytes of one member read back at the most


class BundleError(UsageError):
    """A bundle that cannot be made or read: one line naming the file or member."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: str | Path) -> str | None:
    """The SHA-256 of the file at ``path`` (hex); None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except OSError:
        return None


def verified(path: Path) -> dict[str, bytes]:
    """Every member of the bundle at ``path`` (name -> bytes), each checked against the MANIFEST:
    :class:`BundleError` naming the first member that is missing, extra, changed or not a plain file."""
    members: dict[str, bytes] = {}
    try:
        with tarfile.open(path, mode="r:gz") as tar:
            for info in tar:
                name = info.name
                if not info.isfile() or name.startswith("/") or ".." in Path(name).parts or name in members:
                    raise BundleError(f"{path}: member {name!r} is not a plain file of the bundle: refused")
                if info.size > MAX_MEMBER:
                    raise BundleError(f"{path}: member {name!r} of {info.size} bytes: too large, refused")
                f = tar.extractfile(info)
                assert f is not None
                members[name] = f.read()
    except (OSError, tarfile.TarError, EOFError) as e:
        raise BundleError(f"{path}: not a readable bundle ({getattr(e, 'strerror', None) or e})") from None
    if MANIFEST not in members:
        raise BundleError(f"{path}: no {MANIFEST}: not a cnfgen-queens bundle")
    listed: dict[str, str] = {}
    for line in members[MANIFEST].decode("utf-8", "replace").splitlines():
        digest, sep, name = line.partition("  ")
        if not sep or len(digest) != 64:
            raise BundleError(f"{path}: {MANIFEST}: a line that is not 'SHA-256  NAME': {line[:80]!r}")
        listed[name] = digest
    for name in sorted(set(listed) | set(members) - {MANIFEST}):
        if name not in members:
            raise BundleError(f"{path}: member {name} is in the MANIFEST but not in the bundle: refused")
        if name not in listed:
            raise BundleError(f"{path}: member {name} is not in the MANIFEST: refused")
        if sha256(members[name]) != listed[name]:
            raise BundleError(f"{path}: member {name} does not match its SHA-256 in the MANIFEST: refused")
    return members


def is_bundle(path: Path | str) -> bool:
    """Whether ``path`` looks like a bundle (a gzip file), not a results database."""
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"\x1f\x8b"
    except OSError:
        return False


def extract(members: dict[str, bytes], into: Path) -> None:
    """Write the checked ``members`` under ``into`` (made if needed; files there of the same name replaced)."""
    for name, data in sorted(members.items()):
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


@contextmanager
def store_of(path: Path) -> Iterator[Path]:
    """A results database to read: ``path`` itself, or a bundle's ``store.sqlite`` (checked, in a work folder)."""
    if not is_bundle(path):
        yield path
        return
    members = verified(path)
    with work_dir("bundle") as folder:
        (folder / STORE).write_bytes(members[STORE])
        yield folder / STORE


def info_of(members: dict[str, bytes], path: Path) -> dict[str, Any]:
    try:
        value = json.loads(members[INFO])
    except (KeyError, ValueError):
        raise BundleError(f"{path}: no readable {INFO}: not a cnfgen-queens bundle") from None
    if not isinstance(value, dict):
        raise BundleError(f"{path}: {INFO} is not a JSON object")
    return value


# --- the report it carries ----------------------------------------------------------------------------------
# The report a bundle carries (``report/report.md``): the report options it is made with, which ``bundle.json``
# records with the command that prints the same report from the bundle's store.


@dataclass(frozen=True)
class View:
    """The report options the bundle's report is made with (``report --by KEY ... --time wall|cpu [--compare A
    B]``): the table, and the comparison of A with B after it when ``compare`` is given."""

    by: tuple[str, ...] = ()
    time: str = "wall"
    compare: tuple[str, str] | None = None
    machines: bool = False  # the machines and the load at the runs' start (shown unasked for several machines)

    def __post_init__(self) -> None:
        if self.time not in TIMES:
            raise BundleError(f"report time {self.time!r}: expected {' or '.join(TIMES)}")

    def command(self) -> str:
        """The report command that prints the bundle's ``report/report.md`` from its store."""
        pair = () if self.compare is None else ("--compare", *(shlex.quote(s) for s in self.compare))
        by = (f"--by {k}" for k in self.by)
        machines = ("--machines",) if self.machines else ()
        return " ".join(["cnfgen-queens report store.sqlite", *by, *machines, f"--time {self.time}", *pair])

    def as_dict(self) -> dict[str, Any]:
        """What ``bundle.json`` records of it (``compare`` only when given: a bundle without one is as before)."""
        out: dict[str, Any] = {"by": list(self.by), "time": self.time, "command": self.command()}
        if self.compare is not None:
            out["compare"] = list(self.compare)
        if self.machines:
            out["machines"] = True
        return out

    def text(self, rows: list[Row], db: Path) -> str:
        """``report/report.md`` of ``rows`` (stored in ``db``): what the report command prints, the table, the
        machines (:func:`.noise.section`) and the comparison (:mod:`.compare`: its runs paired as the report command
        pairs them, by ``db``'s machines)."""
        parts = [markdown(summarize(rows, by=self.by, time=self.time), self.time)]
        if self.machines or len({r.machine for r in rows if r.machine is not None}) > 1:  # as report: the guard
            parts.append(noise.section(rows, db))
        if self.compare is not None:
            platforms = machine.platform_names(machine.stored(db))
            found = compare.compare(rows, *self.compare, time=self.time, platforms=platforms)
            parts.append(compare.text(found, self.time))
        return "\n".join(p for p in parts if p)


PLAIN = View()  # the report options `report store.sqlite` has by default (batch --bundle)


# --- making a bundle -----------------------------------------------------------------------------------------
ATTACHED = "attached"  # the folder of the files given with --attach
MTIME = 946684800  # 2000-01-01: every member's time (a fixed one, not the hour the bundle was made)


@dataclass(frozen=True)
class Made:
    """What :func:`make` wrote: the archive, its size, its members."""

    path: Path
    size: int
    members: int


def _stored_configs(db: Path) -> dict[str, tuple[str, str]]:
    """config hash -> (experiment, source) of every config that wrote rows to ``db`` (a results database, else
    :class:`~.store.StoreError` naming it)."""
    with Store(db, readonly=True) as store:
        found = store.db.execute("SELECT config_hash, experiment, source FROM configs")
        return {h: (e, s) for h, e, s in found}


def find_config(db: Path, given: Path | None) -> Config:
    """The config that wrote ``db``: ``given``, else the file the store names (read where it is now), whose
    hash must be one the store holds."""
    stored = _stored_configs(db)
    if not stored:
        raise BundleError(f"{db}: no config recorded (no batch wrote it)")
    candidates = [given] if given is not None else sorted({Path(s) for _, s in stored.values()})
    for path in candidates:
        try:
            config = load(path, check_solvers=False)
        except ConfigError as e:
            if given is not None:
                raise BundleError(str(e)) from None
            continue
        if config.hash in stored:
            return config
        if given is not None:
            raise BundleError(
                f"{given}: config hash {config.hash}, not one that wrote {db} "
                f"({', '.join(sorted(stored))}): the config was changed since"
            )
    names = ", ".join(str(p) for p in candidates)
    raise BundleError(f"{db}: the config that wrote it is not found here ({names}): give it with --config")


def _bundle_config(config: Config, stage: Path, with_instances: bool) -> dict[str, Any]:
    """The config's YAML value with its paths made the bundle's, its files copied into ``stage``."""
    data, _ = read(Path(config.source))
    assert isinstance(data, dict)
    data = dict(data)
    data["results"] = "results.sqlite"
    for key in ("executor", "slurm"):  # where it runs is the rerun's choice (and a log folder is a path)
        data.pop(key, None)
    if config.plugins:
        (stage / "plugins").mkdir()
        specs = []
        for i, p in enumerate(config.plugins):
            if p.text is None:  # a module: it must be installed where the bundle is rerun
                specs.append(p.spec)
                continue
            name = f"plugins/{i}-{Path(p.target).name}"
            (stage / name).write_text(p.text, encoding="utf-8")
            specs.append(name)
        data["plugins"] = specs
    if "solvers_file" in data:
        base = Path(config.source).parent
        path = Path(str(data["solvers_file"])).expanduser()
        shutil.copyfile(path if path.is_absolute() else base / path, stage / "solvers.yaml")
        data["solvers_file"] = "solvers.yaml"
    if config.files:
        instances = dict(data["instances"])
        instances["files"] = "instances/*/*"
        data["instances"] = instances
        for f in config.files:  # for the config's reading back; kept in the archive only with_instances
            folder = stage / "instances" / f.family
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f.path, folder / Path(f.path).name)
    return data


def _command(inst: Any, config: Config) -> str:
    """The command line that writes ``inst``'s CNF (the same GBD hash: comments are not hashed)."""
    if inst.file is not None:
        return f"(a DIMACS file: instances/{inst.family}/{Path(inst.file).name}, GBD hash {inst.file_hash})"
    parts = ["gen-queens", str(inst.n), "--encoding", inst.encoding]
    parts += ["--group-size", str(inst.group_size)] if inst.group_size is not None else []
    parts += ["--column-alo"] if inst.column_alo else []
    parts += ["--shuffle", str(inst.shuffle_seed)] if inst.shuffle_seed is not None else []
    parts += ["--torus"] if inst.torus else []
    parts += [a for r, c in inst.place for a in ("--place", f"{r},{c}")]
    parts += [a for r, c in inst.holes for a in ("--block-square", f"{r},{c}")]
    if inst.random_place is not None:
        parts += ["--random-place", str(inst.random_place), "--seed", str(inst.random_seed)]
    parts += ["--break-symmetry"] if inst.break_symmetry else []
    parts += [a for i, p in enumerate(config.plugins) for a in ("--plugin", _plugin_name(i, p))]
    return " ".join(parts)


def _plugin_name(i: int, p: Any) -> str:
    return p.spec if p.text is None else f"plugins/{i}-{Path(p.target).name}"


def _solvers(config: Config, db: Path, with_host: bool) -> list[dict[str, Any]]:
    """Each solver of the config: its profile and the versions the store recorded, the binary found here
    and its SHA-256."""
    with Store(db, readonly=True) as store:
        recorded = store.solvers()
    out = []
    for entry in config.solvers:
        try:
            spec = resolve(entry.name, entry.profiles)
        except SolverNotFound:
            spec = None
        path = None if spec is None else spec.path
        out.append(
            {
                "label": entry.label,
                "config": entry.normalized(),
                "versions": sorted({v or "" for name, _, v in recorded if name == entry.label}),
                "profiles": [p for name, p, _ in recorded if name == entry.label],
                "embedded": None if spec is None else spec.embedded,
                "binary": None if path is None else (path if with_host else Path(path).name),
                "binary_sha256": None if path is None else file_sha256(path),
            }
        )
    return out


def _instances(config: Config, db: Path) -> list[dict[str, Any]]:
    """Each instance of the grid: its key, GBD hash (as the store recorded it) and the command that writes it."""
    with Store(db, readonly=True) as store:
        hashes = store.instance_hashes()
    seen: dict[str, dict[str, Any]] = {}
    for run in build(config):
        inst = run.instance
        if inst.key not in seen:
            gbd = inst.file_hash if inst.file is not None else hashes.get(inst.key)
            seen[inst.key] = {
                "key": inst.key,
                "label": f"n={inst.n} {inst.label}",
                "gbd_hash": gbd,
                "command": _command(inst, config),
            }
    return [seen[k] for k in sorted(seen)]


def _copy_store(db: Path, target: Path, with_host: bool) -> None:
    """A consistent copy of ``db`` at ``target`` (the backup API), host names, pids and home paths taken out
    unless ``with_host``, then vacuumed: the same store gives the same bytes."""
    source = sqlite3.connect(f"file:{db.resolve()}?mode=ro", uri=True)
    copy = sqlite3.connect(target, isolation_level=None)
    try:
        source.backup(copy)
        copy.execute("PRAGMA journal_mode=DELETE")
        copy.execute("DELETE FROM claims")
        if not with_host:
            home = str(Path.home())
            copy.execute("UPDATE runs SET host = NULL")
            copy.execute("UPDATE runs SET error = replace(error, ?, '~') WHERE error IS NOT NULL", (home,))
            copy.execute("UPDATE batches SET host = '', pid = 0")
            copy.execute("UPDATE configs SET source = ?", (CONFIG,))
            for key, file in list(copy.execute("SELECT instance_key, file FROM instances")):
                copy.execute("UPDATE instances SET file = ? WHERE instance_key = ?", (Path(file).name, key))
        copy.execute("VACUUM")
    except sqlite3.Error as e:
        raise BundleError(f"{db}: cannot copy the results ({e})") from None
    finally:
        source.close()
        copy.close()


README = """# A cnfgen-queens experiment bundle

Experiment {experiment!r}, config hash {hash}, {runs} runs; made by cnfgen-queens {version}{commit}.

- `store.sqlite`: the results (open with `cnfgen-queens report store.sqlite`)
- `config.yaml`: the config as run (its plugins in `plugins/`, its solver profiles in `solvers.yaml`)
- `bundle.json`: the solvers (profile, version, binary SHA-256), the instances (GBD hash and the
  command that regenerates each), the machines, the tool's version
- `report/`: the report as made from the store (`report.md`, `html/index.html`): `{report}`
- `attached/`: files attached when it was made (not rerun), if any
- `MANIFEST`: the SHA-256 of every other member

Rerun it (checks each regenerated instance's GBD hash and states every solver that differs):

    cnfgen-queens rerun BUNDLE.tar.gz --results new.sqlite            # the whole grid
    cnfgen-queens rerun BUNDLE.tar.gz --sample 3 --results new.sqlite # 3 runs per cell, chosen by a seed
    cnfgen-queens report new.sqlite --against BUNDLE.tar.gz           # reproduced, or where not
"""


def _attach(files: tuple[Path, ...], stage: Path) -> list[str]:
    """Copy ``files`` into ``stage/attached/`` under their names (two of one name, or one unreadable:
    :class:`BundleError`); the members' names."""
    names = [f"{ATTACHED}/{f.name}" for f in files]
    if len(set(names)) < len(names):
        raise BundleError(f"--attach: two files named {next(n for n in names if names.count(n) > 1)!r}")
    for f, name in zip(files, names, strict=True):
        (stage / ATTACHED).mkdir(exist_ok=True)
        try:
            shutil.copyfile(f, stage / name)
        except OSError as e:
            raise BundleError(f"--attach: cannot read {f}: {e.strerror or e}") from None
    return names


def make(
    db: Path,
    out: Path,
    *,
    config: Config,
    view: View = PLAIN,
    with_host: bool = False,
    with_instances: bool = False,
    attach: tuple[Path, ...] = (),
) -> Made:
    """Write the bundle of ``db`` (written by ``config``) to ``out`` (atomically), its report as ``view`` shows
    it, with the files ``attach`` in ``attached/``; an ``out`` that is ``db`` or a SQLite database is refused
    before any work."""
    refuse_alias(out, [db, Path(f"{db}-wal")], "-o")
    refuse_database(out, "-o")
    with work_dir("bundle") as work:
        stage = work / "bundle"  # beside the work folder's lock file, not in the archive
        stage.mkdir()
        _copy_store(db, stage / STORE, with_host)
        data = _bundle_config(config, stage, with_instances)
        import yaml

        (stage / CONFIG).write_text(yaml.safe_dump(data, sort_keys=True, allow_unicode=True), encoding="utf-8")
        try:
            again = parse(read(stage / CONFIG)[0], str(stage / CONFIG), check_solvers=False, check_sizes=False)
        except ConfigError as e:
            raise BundleError(f"the bundle's config does not read back: {e}") from None
        if again.hash != config.hash:
            raise BundleError(f"the bundle's config has hash {again.hash}, not {config.hash}: not bundled")
        if not with_instances:  # named by GBD hash in bundle.json only
            shutil.rmtree(stage / "instances", ignore_errors=True)
        rows = shown_rows(load_rows(stage / STORE))
        commit = machine.this_machine().git_commit
        info = {
            "tool": {"version": __version__, "git_commit": commit},
            "experiment": config.experiment,
            "config_hash": config.hash,
            "with_host": with_host,
            "with_instances": with_instances,
            "solvers": _solvers(config, db, with_host),
            "instances": _instances(config, db),
            "machines": {k: m.as_dict() for k, m in sorted(machine.stored(stage / STORE).items())},
            "runs": len(rows),
            "report": view.as_dict(),
            "attached": _attach(attach, stage),
        }
        (stage / INFO).write_text(json.dumps(info, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        _report(rows, stage, config.experiment, view)
        (stage / "README.md").write_text(
            README.format(
                experiment=config.experiment,
                hash=config.hash,
                runs=len(rows),
                version=__version__,
                commit=f" (commit {commit[:12]})" if commit else "",
                report=view.command(),
            ),
            encoding="utf-8",
        )
        data_bytes, count = _archive(stage)
    with atomic_output(out) as f:
        f.write(data_bytes)
    return Made(out, len(data_bytes), count)


def store_from_runs(rows: list[Row], config: Config, path: Path) -> int:
    """A results store at ``path`` holding the runs of ``config`` among ``rows`` (of a runs CSV, ``report
    --runs-csv``): the config, the runs, each instance's GBD hash (under the grid's instance key) and each
    solver's versions, as a batch records them (the machines are not in a runs CSV).  A run of ``config`` is a
    row of its hash, or of another config's with a run key of its grid (a copy of it run on part of the grid:
    the same run, kept with the hash it was stored with); how many rows are not is returned (one runs CSV may
    hold the runs of several configs)."""
    instance_of = {run.key: run.instance for run in build(config)}
    hashes = {r.config_hash for r in rows}
    mine = [r for r in rows if r.config_hash == config.hash or r.run_key in instance_of]
    if not mine:
        raise BundleError(
            f"the runs are of config hash(es) {', '.join(sorted(hashes))}, not {config.hash} "
            f"({config.source}): give the config that ran them"
        )
    left_out, rows = len(rows) - len(mine), mine
    entries = {e.label: e for e in config.solvers}
    with Store(path) as store:
        store.record_config(config.hash, config.experiment, config.source, config.normalized())
        store.add_many(rows)
        for r in rows:
            inst = instance_of.get(r.run_key)
            if inst is not None and r.gbd_hash:
                store.record_instance(inst.key, inst.file or inst.filename, r.gbd_hash)
        for label, version in sorted({(r.solver_label, r.solver_version or "") for r in rows}):
            if label in entries:
                store.record_solver(label, profile_of(entries[label]), version)
    return left_out


def _report(rows: list[Any], stage: Path, title: str, view: View) -> None:
    """``report/report.md`` and ``report/html/`` of ``rows`` as ``view`` shows them (the report command's own
    writers)."""
    (stage / "report").mkdir()
    (stage / "report" / "report.md").write_text(view.text(rows, stage / STORE), encoding="utf-8")
    write(rows, stage / "report" / "html", title=title, db=stage / STORE, time=view.time)


def _archive(stage: Path) -> tuple[bytes, int]:
    """The ``.tar.gz`` of every file under ``stage`` and its MANIFEST, sorted, with fixed metadata."""
    names = sorted(p.relative_to(stage).as_posix() for p in stage.rglob("*") if p.is_file())
    digests = {name: file_sha256(stage / name) for name in names}
    manifest = "".join(f"{digests[n]}  {n}\n" for n in names).encode()
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name in sorted([*names, MANIFEST]):
            data = manifest if name == MANIFEST else (stage / name).read_bytes()
            member = tarfile.TarInfo(name)
            member.size, member.mtime, member.mode = len(data), MTIME, 0o644
            member.uid = member.gid = 0
            member.uname = member.gname = ""
            tar.addfile(member, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0, compresslevel=9) as gz:
        gz.write(raw.getvalue())
    return out.getvalue(), len(names) + 1
