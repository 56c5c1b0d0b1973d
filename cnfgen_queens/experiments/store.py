"""Results in one SQLite file (stdlib sqlite3): one row per finished run, committed as it lands.

WAL journal: the rows that arrive together are one transaction (and runs are claimed a block at
a time), so a SIGKILL mid-batch keeps every committed row and leaves a readable file.
Rows are committed with ``synchronous=NORMAL``
(no fsync each, which capped a batch at about 150 rows/s); a row committed :data:`SYNC_EVERY`
seconds or more after the last flush flushes the journal to the disk, with the rows before it
(closing the file does too), so a power loss loses at most the rows that came within that second
of the last flush (their runs are run again by ``--resume``), and never the file.

The schema is :data:`SCHEMA`, its ``runs`` table derived from the run's columns (:data:`.row.RUN_COLUMNS`);
``meta`` holds its version, ``configs`` the normalized config of every config hash
that wrote rows, ``instances`` the GBD hash of every cached CNF as written, ``solvers`` each solver's
profile (its command template) and version, ``machines`` each
machine the runs ran on (rows name it by fingerprint), ``batches`` each batch's start with the load
it met (:mod:`.noise`).  A
non-empty file without this schema (another program's database) is looked at
read-only and refused, never changed.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..errors import UsageError, printable
from ..solvers.outcome import Status
from ..version import __version__
from .row import COLUMNS, RUN_COLUMNS, Row, row_of, runs_table
from .row import MEASURED as MEASURED  # re-exported: the store's readers take the row's names from here
from .store_env import unwritable

OUTPUT_DIR = (
    "run-output"  # beside the results file, with ``keep_output``: <run key>.log, what the solver printed (and .result)
)
SYNC_EVERY = 1.0  # seconds between two flushes of the journal to the disk (a row added after it flushes it)
LOCK_TIMEOUT = 30.0  # seconds a writer waits for another process holding the file (SQLite's busy timeout)
SCHEMA_VERSION = "1"  # nullable columns added since then are added to older files on open
WRITER = f"cnfgen-queens {__version__}"  # meta's created_by (the first to write the file) and written_by (the last)


_INSERT = f"INSERT OR REPLACE INTO runs ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"


SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS configs (
    config_hash TEXT PRIMARY KEY, experiment TEXT NOT NULL, source TEXT NOT NULL, config TEXT NOT NULL
);
{runs_table()}
CREATE TABLE IF NOT EXISTS instances (
    instance_key TEXT PRIMARY KEY, file TEXT NOT NULL, gbd_hash TEXT NOT NULL  -- the cnf-cache, as written
    -- (a DIMACS file of instances.files: its path, as read)
);
CREATE TABLE IF NOT EXISTS solvers (  -- each solver runs ran, once per profile and version ('': none said)
    solver TEXT NOT NULL, profile TEXT NOT NULL, version TEXT NOT NULL,  -- profile: JSON, its command template
    PRIMARY KEY (solver, profile, version)
);
CREATE TABLE IF NOT EXISTS machines (  -- each machine runs ran on, once (experiments/machine.py)
    fingerprint TEXT PRIMARY KEY, info TEXT NOT NULL  -- info: JSON of machine.Machine
);
CREATE TABLE IF NOT EXISTS batches (  -- each batch's start on the local executor: the load it met (noise.py)
    started TEXT NOT NULL, host TEXT NOT NULL, pid INTEGER NOT NULL, config_hash TEXT NOT NULL, jobs INTEGER NOT NULL,
    cores INTEGER, load_avg REAL, note TEXT, pinned INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS claims (  -- a run being run by a batch process (owner: host pid), until stored
    run_key TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL, since REAL NOT NULL
);
"""


TABLES = frozenset(re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", SCHEMA))  # the tables the tool creates


def _stale(host: str, pid: int, since: float, now: float, stale_after: float) -> bool:
    """Whether a claim's owner is gone: a process of this host that no longer exists, or any claim older
    than ``stale_after`` seconds (another host's process cannot be asked)."""
    if now - since > stale_after:
        return True
    if host != socket.gethostname():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _foreign_object(objects: list[tuple[str, str]]) -> str | None:
    """The first schema object (type, name) of a store that the tool does not create, named (``a trigger wipe``):
    a trigger, a view, an index of the user's, a table not of :data:`TABLES`; None when there is none.  SQLite's
    own (``sqlite_autoindex_runs_1``, ``sqlite_stat1``: no statement can create such a name) are its own."""
    for kind, name in objects:
        if not (name.startswith("sqlite_") or (kind == "table" and name in TABLES)):
            article = "an" if kind[0] in "aeiou" else "a"
            return f"{article} {kind} {printable(name)}"
    return None


class StoreError(UsageError):
    """A results file that cannot be used (not SQLite, other schema, unwritable): the user's to fix."""


class EmptyStore(StoreError):
    """Opened read-only, a results file with nothing in it yet (no tables)."""


def _in_wal_mode(path: Path) -> bool:
    """The file's header says WAL (read and write versions 2, bytes 18-19 of the SQLite header)."""
    try:
        with open(path, "rb") as f:
            head = f.read(20)
    except OSError:
        return False
    return len(head) == 20 and head[18] == 2 and head[19] == 2


def _connect_readonly(path: Path, *, locking: bool = False) -> sqlite3.Connection:
    """A read-only connection that creates nothing beside ``path``: without a ``-wal`` file beside it the
    file holds everything and is opened immutable (a WAL-mode file opened ``mode=ro`` would get
    ``-shm`` and ``-wal`` files); with one (a store being written) the WAL is read too.  ``locking``
    (a writer about to open the file anyway): a file not (yet) in WAL mode is opened with its locks, so
    a look taken while another process creates it waits for that process instead of reading its
    half-written pages (a rollback-journal file opened ``mode=ro`` gets nothing beside it)."""
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    if not Path(f"{path}-wal").exists() and (not locking or _in_wal_mode(path)):
        uri += "&immutable=1"
    return sqlite3.connect(uri, uri=True, isolation_level=None, timeout=LOCK_TIMEOUT)


def _wal_mode(db: sqlite3.Connection) -> None:
    """``PRAGMA journal_mode=WAL``, waiting for a process that creates the same file at the same moment: SQLite
    answers "database is locked" there at once, without its busy timeout (two batches started together)."""
    end = time.monotonic() + LOCK_TIMEOUT
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() > end:
                raise
            time.sleep(0.02)


class Store:
    """The results file; ``readonly`` opens an existing file without creating or changing it."""

    def __init__(self, path: Path | str, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self.synced = 0.0  # when the journal was last flushed to the disk (time.monotonic)
        try:
            if self.path.is_dir():
                raise StoreError(f"{self.path}: a directory, not a results file")
            if readonly and self.path.exists() and not self.path.is_file():
                raise StoreError(f"{self.path}: not a regular file (a device, FIFO or socket), not a results file")
            if readonly and not self.path.is_file():
                raise StoreError(f"{self.path}: no such results file")
            if readonly or self._has_content():
                self._refuse_foreign(readonly)  # read-only look first: a foreign file is never changed
            if readonly:
                self.db = _connect_readonly(self.path)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.db = sqlite3.connect(self.path, isolation_level=None, timeout=LOCK_TIMEOUT)
                _wal_mode(self.db)
                self.db.execute("PRAGMA synchronous=NORMAL")
                self.db.executescript(f"BEGIN; {SCHEMA} COMMIT;")
                self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
                self.db.execute("INSERT OR IGNORE INTO meta VALUES ('created_by', ?)", (WRITER,))
                self.db.execute(
                    "INSERT INTO meta VALUES ('written_by', ?) ON CONFLICT(key) DO UPDATE SET "
                    "value = excluded.value WHERE value != excluded.value",
                    (WRITER,),
                )
                self._add_missing_columns()
            self.columns = {r[1] for r in self.db.execute("PRAGMA table_info(runs)")}
        except sqlite3.Error as e:  # a full disk, a read-only folder: the environment's (exit 1)
            raise unwritable(self.path, e) or StoreError(f"{self.path}: not a usable results database ({e})") from None
        except OSError as e:
            raise StoreError(f"{self.path}: {e.strerror or e}") from None

    def _has_content(self) -> bool:
        try:
            return self.path.stat().st_size > 0
        except FileNotFoundError:
            return False

    def _refuse_foreign(self, readonly: bool) -> None:
        """Refuse an SQLite file with tables but not this schema (or not SQLite), opened read-only."""
        db = _connect_readonly(self.path, locking=not readonly)
        try:
            objects = list(db.execute("SELECT type, name FROM sqlite_master ORDER BY rowid"))
            tables = {name for kind, name in objects if kind == "table"}
            if not tables and readonly:
                raise EmptyStore(f"{self.path}: not a cnfgen-queens results database (no runs table)")
            found = writer = None
            if {"meta", "runs"} <= tables:
                with contextlib.suppress(sqlite3.OperationalError):  # a meta table of other columns
                    found = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
                    writer = db.execute("SELECT value FROM meta WHERE key='written_by'").fetchone()
        finally:
            db.close()
        if found is None and tables:
            names = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
            raise StoreError(
                f"{self.path}: not a cnfgen-queens results database (its tables: {names}); "
                "left untouched: choose another results file"
            )
        if found is not None and (extra := _foreign_object(objects)):
            raise StoreError(
                f"{self.path}: holds {extra}, which cnfgen-queens never creates (it can change or hide the runs "
                "as they are written or read); left untouched: remove it, or choose another results file"
            )
        if found is not None and found[0] != SCHEMA_VERSION:
            by = repr(str(writer[0])[:100]) if writer else "cnfgen-queens 0.1.0 or earlier (its meta names no writer)"
            raise StoreError(
                f"{self.path}: results schema version {found[0]}, written by {by}; this is {WRITER}, "
                f"which reads schema version {SCHEMA_VERSION}: read it with the version that wrote it"
            )

    def _add_missing_columns(self) -> None:
        """A file of this schema version written before a nullable column was added gets the column."""
        have = {r[1] for r in self.db.execute("PRAGMA table_info(runs)")}
        for c in RUN_COLUMNS:
            if c.name not in have:
                self.db.execute(f"ALTER TABLE runs ADD COLUMN {c.name} {c.sql}")

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    def done_keys(self, *, retry_errors: bool = False) -> set[str]:
        """Run keys already stored (with ``retry_errors``, rows with status ERROR do not count)."""
        if retry_errors:
            return {r[0] for r in self.db.execute("SELECT run_key FROM runs WHERE status != ?", (Status.ERROR,))}
        return {r[0] for r in self.db.execute("SELECT run_key FROM runs")}

    def add(self, row: Row) -> None:
        """Store ``row`` (see :meth:`add_many`)."""
        self.add_many([row])

    def add_many(self, rows: list[Row]) -> None:
        """Store ``rows`` in one transaction, which also ends their claims; flushed to the disk with the rows
        before them when the last flush is :data:`SYNC_EVERY` seconds old.  A row with the same run key is
        replaced."""
        values = [tuple(getattr(row, c) for c in COLUMNS) for row in rows]
        now = time.monotonic()
        flush = now - self.synced >= SYNC_EVERY
        if flush:  # WAL with FULL: this commit fsyncs the journal, the rows committed before it too
            self.db.execute("PRAGMA synchronous=FULL")
        with self._transaction():
            self.db.executemany(_INSERT, values)
            self.db.executemany("DELETE FROM claims WHERE run_key = ?", [(row.run_key,) for row in rows])
        if flush:
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.synced = now

    def claim(self, run_key: str, *, retry_errors: bool = False, stale_after: float = 3600.0) -> bool:
        """Take ``run_key`` for this process (see :meth:`claim_many`)."""
        return bool(self.claim_many([run_key], retry_errors=retry_errors, stale_after=stale_after))

    def claim_many(self, run_keys: list[str], *, retry_errors: bool = False, stale_after: float = 3600.0) -> set[str]:
        """Take ``run_keys`` for this process in one transaction, so that another batch process on this file
        does not run them too; returns those taken: not those stored already or held by another live
        process.  A claim of a dead process of this host is taken over; one of another host after
        ``stale_after`` seconds."""
        host, pid, now = socket.gethostname(), os.getpid(), time.time()
        done = "SELECT 1 FROM runs WHERE run_key = ?" + (" AND status != 'ERROR'" if retry_errors else "")
        taken = set()
        with self._transaction():
            for run_key in run_keys:
                if self.db.execute(done, (run_key,)).fetchone():
                    continue
                held = self.db.execute("SELECT host, pid, since FROM claims WHERE run_key = ?", (run_key,)).fetchone()
                if (
                    held is not None
                    and (held[0], held[1]) != (host, pid)
                    and not _stale(held[0], held[1], held[2], now, stale_after)
                ):
                    continue
                self.db.execute("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?)", (run_key, host, pid, now))
                taken.add(run_key)
        return taken

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write transaction (taken at once: two batch processes serialize here), rolled back on any error."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def release(self, run_keys: Iterable[str] | None = None) -> None:
        """Give up this process's claims (of ``run_keys``, or all of them)."""
        host, pid = socket.gethostname(), os.getpid()
        if run_keys is None:
            self.db.execute("DELETE FROM claims WHERE host = ? AND pid = ?", (host, pid))
        else:
            self.db.executemany(
                "DELETE FROM claims WHERE run_key = ? AND host = ? AND pid = ?", [(k, host, pid) for k in run_keys]
            )

    def record_config(self, config_hash: str, experiment: str, source: str, normalized: dict[str, Any]) -> None:
        text = json.dumps(normalized, sort_keys=True)
        self.db.execute("INSERT OR IGNORE INTO configs VALUES (?, ?, ?, ?)", (config_hash, experiment, source, text))

    def record_machine(self, fingerprint: str, info: dict[str, Any]) -> None:
        """Store a machine once (rows name it by ``fingerprint``; :func:`.machine.stored` reads them back)."""
        self.db.execute("INSERT OR IGNORE INTO machines VALUES (?, ?)", (fingerprint, json.dumps(info, sort_keys=True)))

    def record_solver(self, solver: str, profile: dict[str, Any], version: str | None) -> None:
        """Store a solver of the runs once per profile (its command template and flags, as JSON) and version
        (:meth:`solvers` reads them back)."""
        text = json.dumps(profile, sort_keys=True)
        self.db.execute("INSERT OR IGNORE INTO solvers VALUES (?, ?, ?)", (solver, text, version or ""))

    def solvers(self) -> list[tuple[str, dict[str, Any], str | None]]:
        """(solver, profile, version) of every solver recorded, in a fixed order."""
        try:
            found = self.db.execute("SELECT solver, profile, version FROM solvers ORDER BY solver, profile, version")
        except sqlite3.OperationalError:  # a file read-only from before the table
            return []
        return [(name, json.loads(profile), version or None) for name, profile, version in found]

    def instance_hashes(self) -> dict[str, str]:
        """GBD hash of every cached instance file as this batch wrote it, by instance key."""
        return dict(self.db.execute("SELECT instance_key, gbd_hash FROM instances"))

    def record_instance(self, key: str, file: str, gbd_hash: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO instances VALUES (?, ?, ?)", (key, file, gbd_hash))

    def clear(self) -> int:
        """Delete every run, config and batch start (``--fresh``); returns how many runs were deleted."""
        deleted = self.db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        self.db.executescript(
            "BEGIN; DELETE FROM runs; DELETE FROM configs; DELETE FROM claims; DELETE FROM batches; COMMIT;"
        )
        return int(deleted)

    def rows(self) -> list[Row]:
        """Every run, in a fixed order (task, solver, encoding, N, seed, repeat)."""
        return list(self.each_row())

    def each_row(self, *, ordered: bool = True) -> Iterator[Row]:
        """Every run as :meth:`rows` orders them (or, not ``ordered``, as stored: no sort of the whole table),
        one at a time as SQLite reads them (none kept here)."""
        order = "task, solver, solver_args, encoding, n, group_size, column_alo, shuffle_seed, repeat, run_key"
        try:
            columns = ", ".join(c if c in self.columns else f"NULL AS {c}" for c in COLUMNS)  # an older file
            cursor = self.db.execute(f"SELECT {columns} FROM runs" + f" ORDER BY {order}" * ordered)
            yield from map(row_of, cursor)
        except sqlite3.Error as e:
            raise StoreError(f"{self.path}: cannot read runs ({e})") from None
