"""Shared fixtures (the helpers they use are in helpers.py).

Every test is bounded (pytest-timeout, ``timeout`` in pyproject.toml) and checked to leave no process
it started through ``subprocess`` running, even when it fails (:func:`_no_process_left`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="session", autouse=True)
def _own_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Measured counts (pysat:* encodings) go to a directory of this session, never the user's cache;
    processes the tests start inherit it."""
    from cnfgen_queens.encodings.pysat_card import CACHE_ENV, flush

    previous = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(tmp_path_factory.mktemp("cache"))
    yield
    flush()  # what this process measured, written here now: at exit (atexit) it would go to the user's cache
    if previous is None:
        os.environ.pop(CACHE_ENV, None)
    else:
        os.environ[CACHE_ENV] = previous


@pytest.fixture(autouse=True)
def _no_plugin_left() -> Iterator[None]:
    """Each encoding a test registers in this process (``register_encoding``, a config's ``plugins:`` read
    in-process) is forgotten when it ends: one left registered gave the worker's later tests 17 encodings where
    16 are built in, and put its import under their memory limits (CI)."""
    from cnfgen_queens.encodings import plugin_loading, plugins

    names, loaded = set(plugins.REGISTRY), dict(plugin_loading._loaded)
    yield
    for name in set(plugins.REGISTRY) - names:
        if not plugins.REGISTRY[name].builtin:  # the built-ins register on first use
            plugins.unregister(name)
    plugin_loading._loaded.clear()
    plugin_loading._loaded.update(loaded)


@pytest.fixture(autouse=True)
def _no_process_left(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each process a test starts with ``subprocess`` is gone when it ends: one still running (with its
    group, when it leads one) is killed, and the test errors in teardown."""
    started: list[subprocess.Popen[Any]] = []
    init = subprocess.Popen.__init__

    def tracked(self: subprocess.Popen[Any], *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        started.append(self)

    monkeypatch.setattr(subprocess.Popen, "__init__", tracked)
    yield
    left = [p for p in started if p.poll() is None]
    for p in left:
        try:
            if os.getpgid(p.pid) == p.pid:
                os.killpg(p.pid, signal.SIGKILL)
            else:
                p.kill()
        except ProcessLookupError:
            pass
        p.wait(30)
    assert not left, f"processes left running: {[p.args for p in left]}"


@pytest.fixture
def sigint_raises() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt in this process during the test, whatever the caller set
    (pytest run with SIGINT ignored, as ``nohup`` or a script's background job does, or blocked); SIGTERM
    and SIGHUP, which some runners block too, are delivered (their handlers are the test's to set)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        signal.signal(signal.SIGINT, previous)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A results database holding the hand-made rows of helpers.HAND (report and plot tests)."""
    from helpers import HAND, write_store

    return write_store(tmp_path / "hand.sqlite", HAND)


@pytest.fixture(params=["compiled", "pure"])
def compiled(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each of the two paths in turn: the compiled part (cnfgen_queens/cnf/_native.c; skipped where it is not
    built, failed under CI) and the pure-Python/numpy path (``CNFGEN_QUEENS_PURE=1`` for the processes a test
    starts, :data:`cnfgen_queens.cnf.native.NATIVE` None in this one)."""
    from helpers import need_tool

    from cnfgen_queens.cnf import native

    if request.param == "compiled":
        if native.NATIVE is None:
            need_tool("the compiled part is not built (pip install -e . with a C compiler)")
        monkeypatch.delenv(native.PURE_VARIABLE, raising=False)
    else:
        monkeypatch.setattr(native, "NATIVE", None)
        monkeypatch.setenv(native.PURE_VARIABLE, "1")
    return str(request.param)


_forks_beside_threads: list[str] = []  # the threads running at each os.fork of this process while a test ran
_os_fork = os.fork


def _threads() -> int:
    """This process's threads, as CPython 3.12+ counts them to warn of a fork (/proc/self/stat; 1 elsewhere)."""
    try:
        with open("/proc/self/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[17])
    except (OSError, ValueError, IndexError):
        return 1


def _fork_noting_threads() -> int:
    """``os.fork``, noting the threads that run, counted as CPython counts them: in the parent, after the fork
    (a C library's at-fork handler may end its threads, as OpenBLAS's does).  multiprocessing's fork start
    method calls it too."""
    pid = _os_fork()
    threads = _threads() if pid else 1
    if threads > 1:
        named = [t.name for t in threading.enumerate()]
        hidden = threads - len(named)  # pytest-xdist's IO thread (started with _thread), a C library's
        _forks_beside_threads.append(", ".join(named + [f"{hidden} that threading does not list"] * (hidden > 0)))
    return pid


os.fork = _fork_noting_threads


def _forks_on_purpose(item: pytest.Item) -> bool:
    """Whether the test forks beside threads on purpose: its mark ``forks_beside_threads``, :func:`fork_paths`."""
    marked = item.get_closest_marker("forks_beside_threads") is not None
    return marked or "fork_paths" in getattr(item, "fixturenames", ())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that forks beside threads on purpose (:func:`_no_fork_while_threads_run`) expects Python's warning."""
    for item in items:
        if _forks_on_purpose(item):
            item.add_marker(pytest.mark.filterwarnings("ignore:This process .*is multi-threaded:DeprecationWarning"))


@pytest.fixture
def fork_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """The package's fork path (the fork pool) taken in this process, as a command's process takes it,
    whatever threads run here: in a pytest-xdist worker its IO thread, started with ``_thread``, runs beside every test
    (:func:`.process.fork_is_safe`), and an earlier test may have left one (Dask's IO loop, after a client that
    could not connect); the forks are beside them, on purpose, and the test does not depend on what ran before it."""
    from cnfgen_queens.execution import fork_pool

    monkeypatch.setattr(fork_pool, "fork_is_safe", lambda: True)


@pytest.fixture(autouse=True)
def _no_fork_while_threads_run(request: pytest.FixtureRequest) -> Iterator[None]:
    """No ``os.fork`` of this process while another thread runs (a lock that thread holds stays held for ever
    in the child: malloc's, logging's, the import lock).  Python 3.12 and later warn of it, but CPython drops
    the DeprecationWarning when a filter makes it an error (a ``filterwarnings`` "error" would hide it), so the
    forks are counted here as CPython counts them, on every Python version: every thread of the process, those
    :mod:`threading` does not list too (pytest-xdist's IO thread).  A test that forks beside threads on purpose
    says so with ``@pytest.mark.forks_beside_threads`` or the :func:`fork_paths` fixture.  (A ``preexec_fn``
    also runs Python between fork and exec, as the tests' :func:`helpers.default_signals` does; Python does not
    warn of it, nor does this.)"""
    _end_dask_offload_thread()
    _forks_beside_threads.clear()
    yield
    seen, _forks_beside_threads[:] = list(_forks_beside_threads), []
    if seen and not _forks_on_purpose(request.node):
        pytest.fail(f"{len(seen)} fork(s) while other threads ran (threads: {seen[0]})")


def _end_dask_offload_thread() -> None:
    """Dask's offload thread (``distributed.utils``), started by a test's client in this process, would run for
    the rest of the session, and every later test would fork beside it (or, as the package does then, start
    fresh processes instead): it is ended before each test, a new executor in its place (no thread until used)."""
    from concurrent.futures import ThreadPoolExecutor

    utils = sys.modules.get("distributed.utils")
    executor = getattr(utils, "_offload_executor", None)
    if executor is not None and getattr(executor, "_threads", None):
        executor.shutdown(wait=True)
        utils._offload_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="Dask-Offload")  # type: ignore[union-attr]
