"""Loading plugins: a ``.py`` file or a module (``--plugin``, a batch's ``plugins:``), the entry-point group
``cnfgen_queens.encodings``, and the same plugins in a worker process.

Each source is imported once per process; what its import registers (:func:`.plugins.register_encoding`) is
credited to it (:func:`.plugins.origin`: the ``c plugin:`` header line, ``--list-encodings``).  A file is
read, hashed (SHA-256) and run as a module of its own (``cnfgen_queens_plugin_STEM_HASH``), so that two
files of one name do not collide.  A spawned, Dask or SLURM worker gets the plugins the submitting
process loaded with each task (:func:`with_plugins`): a file's source travels with it (the worker need not
see the path), a module is imported by name (it must be installed there); a forked worker has them already.
Every failure is one :class:`.plugins.PluginError` line naming the plugin; what a failed import had
registered is taken back.
"""

from __future__ import annotations

import hashlib
import os
import sys
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from . import plugins
from .plugins import ENTRY_POINT_GROUP, PluginError, PluginSource, unregister

_loaded: dict[str, PluginSource] = {}  # target -> the source loaded from it (files and modules, in order)
_entry_points_loaded = False


def load_plugin(spec: str, base: str | None = None) -> PluginSource:
    """Import the plugin ``spec``, a ``.py`` file (relative to ``base`` when given, else to the working
    directory) or a module name, once per source; its import registers its encodings.

    Raises:
        PluginError: a file that cannot be read, a module not found, an import that raises, a name clash,
            an encoding that fails the quick check (one line each, naming the plugin).
    """
    if spec.endswith(".py") or os.sep in spec or "/" in spec:
        path = os.path.abspath(os.path.join(base, spec) if base and not os.path.isabs(spec) else spec)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise PluginError(f"plugin {spec}: cannot read it: {e.strerror or e}") from None
        return _load_file(spec, path, data)
    return _load_module(spec)


def load_plugins(specs: Sequence[str], base: str | None = None) -> list[PluginSource]:
    """:func:`load_plugin` of each spec, in order."""
    return [load_plugin(spec, base) for spec in specs]


def _load_file(spec: str, path: str, data: bytes) -> PluginSource:
    sha = hashlib.sha256(data).hexdigest()
    known = _loaded.get(path)
    if known is not None and known.sha256 == sha:
        return known
    same = next((s for s in _loaded.values() if s.sha256 == sha and s.text is not None), None)
    if same is not None:  # the same source by another path (a worker's copy)
        return same
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise PluginError(f"plugin {spec}: not UTF-8 Python source") from None
    stem = os.path.splitext(os.path.basename(path))[0]
    module_name = f"cnfgen_queens_plugin_{''.join(c if c.isalnum() else '_' for c in stem)}_{sha[:12]}"

    def run() -> None:
        module = types.ModuleType(module_name)
        module.__file__ = path
        sys.modules[module_name] = module
        try:
            exec(compile(text, path, "exec"), module.__dict__)
        except BaseException:
            sys.modules.pop(module_name, None)
            raise

    return _importing_as(PluginSource(spec, path, sha, text), run)


def _load_module(spec: str) -> PluginSource:
    import importlib
    import importlib.util

    if not spec.replace(".", "_").isidentifier():
        raise PluginError(f"plugin {spec}: neither a .py file nor a module name")
    known = _loaded.get(spec)
    if known is not None:
        return known
    try:
        found = importlib.util.find_spec(spec)
    except (ImportError, ValueError) as e:
        raise PluginError(f"plugin {spec}: cannot import it: {type(e).__name__}: {e}") from None
    if found is None:
        raise PluginError(f"plugin {spec}: no such module (a file needs its .py; a module must be importable)")
    data = b""
    if found.origin and os.path.isfile(found.origin):
        with open(found.origin, "rb") as f:
            data = f.read()
    source = PluginSource(spec, spec, hashlib.sha256(data).hexdigest())
    return _importing_as(source, lambda: importlib.import_module(spec))


def _importing_as(source: PluginSource, run: Callable[[], object]) -> PluginSource:
    """Run ``run`` (the plugin's import) with registrations credited to ``source``; an error becomes one
    line and undoes what the import registered."""
    before = len(plugins._importing)
    plugins._current.append(source)
    try:
        run()
    except PluginError as e:
        _undo(before)
        said = str(e) if str(e).startswith(f"plugin {source.spec}") else f"plugin {source.spec}: {e}"
        raise PluginError(said) from None
    except SystemExit as e:
        _undo(before)
        raise PluginError(f"plugin {source.spec}: its import called exit({e.code})") from None
    except Exception as e:
        _undo(before)
        raise PluginError(f"plugin {source.spec}: its import failed: {type(e).__name__}: {e}") from None
    finally:
        plugins._current.pop()
    names = tuple(plugins._importing[before:])
    del plugins._importing[before:]
    done = PluginSource(source.spec, source.target, source.sha256, source.text, names)
    for name in names:
        plugins._origin[name] = done
    _loaded[source.target] = done
    return done


def _undo(before: int) -> None:
    for name in plugins._importing[before:]:
        unregister(name)
    del plugins._importing[before:]


def load_entry_points() -> None:
    """Import each module of the entry-point group ``cnfgen_queens.encodings`` once (their imports register
    their encodings); one that fails is a PluginError naming it."""
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        module = ep.value.split(":")[0].strip()
        try:
            _load_module(module)
        except PluginError as e:
            raise PluginError(f"{e} (entry point {ep.name!r} of group {ENTRY_POINT_GROUP})") from None


def loaded() -> tuple[PluginSource, ...]:
    """The plugin files and modules loaded in this process, in the order loaded (what workers load too)."""
    return tuple(_loaded.values())


def ensure(sources: Sequence[PluginSource]) -> None:
    """Load in this process (a worker) the plugins the submitting process had: a file from its shipped
    source (the path need not exist here), a module by name."""
    for src in sources:
        if src.target in _loaded and _loaded[src.target].sha256 == src.sha256:
            continue
        if src.text is not None:
            _load_file(src.spec, src.target, src.text.encode("utf-8"))
        else:
            _load_module(src.target)


@dataclass(frozen=True)
class WithPlugins:
    """``fn(*args)`` after :func:`ensure` of ``sources``: a task for a worker process (picklable)."""

    sources: tuple[PluginSource, ...]
    fn: Callable[..., Any]

    def load(self) -> None:
        """Its plugins, loaded in this process (once: a second load finds them loaded)."""
        ensure(self.sources)

    def __call__(self, *args: Any) -> Any:
        self.load()
        return self.fn(*args)


def with_plugins(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` as a task that loads this process's plugins first in the worker that runs it (``fn`` itself
    when none are loaded)."""
    sources = loaded()
    return WithPlugins(sources, fn) if sources else fn
