"""``--help`` from a file of the user cache: what argparse printed last time for the same command line.

Importing argparse and building a subcommand's parser costs more than Python's own start-up; ``SUBCOMMAND
--help`` (the whole command line) is printed from ``help/PROG.txt`` under the user cache directory when its
first line, the key, is this run's: the package version, Python's, the width of the help (as argparse finds
it), the locale variables (argparse's words may be translated) and the size and modification time of every
module of ``cli/`` and of ``limits.py`` (the options and their help texts).  Otherwise argparse prints it and
the file is written (atomically; a cache that cannot be read or written is no error).  The same bytes either
way: tests/test_fast_argv.py compares them.
"""

from __future__ import annotations

import os
import sys

from ..user_cache import cache_dir_name, write_cache
from ..version import __version__

LOCALE = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def terminal_columns() -> int:
    """:func:`shutil.get_terminal_size`'s columns (argparse's width, plus 2): ``$COLUMNS``, else stdout's
    terminal, else 80 (shutil itself is not loaded at start-up)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def key(prog: str) -> str:
    """What the help of ``prog`` depends on, in one line."""
    parts = [prog, __version__, sys.version.split()[0], str(terminal_columns())]
    parts += [f"{name}={os.environ.get(name, '')}" for name in LOCALE]
    cli = os.path.join(_PACKAGE, "cli")
    try:
        sources = [os.path.join(cli, name) for name in sorted(os.listdir(cli)) if name.endswith(".py")]
        for path in [*sources, os.path.join(_PACKAGE, "limits.py")]:
            st = os.stat(path)
            parts.append(f"{os.path.basename(path)}:{st.st_size}:{st.st_mtime_ns}")
    except OSError:
        parts.append(f"unreadable:{os.getpid()}")  # never equal to a stored key
    return " ".join(parts).replace("\n", " ")


def _path(prog: str) -> str:
    return os.path.join(cache_dir_name(), "help", prog.replace(" ", "-").replace(os.sep, "_") + ".txt")


def cached(prog: str) -> str | None:
    """The help of ``prog`` as argparse printed it for this key, or None."""
    try:
        with open(_path(prog), encoding="utf-8") as f:
            stored = f.read()
    except (OSError, UnicodeDecodeError):
        return None
    first, _, text = stored.partition("\n")
    return text if first == key(prog) else None


def store(prog: str, text: str) -> None:
    """Keep ``text``, the help of ``prog``, for the next run."""
    from pathlib import Path

    write_cache(Path(_path(prog)), f"{key(prog)}\n{text}")


def print_cached(prog: str) -> bool:
    """Print the cached help of ``prog`` as argparse's ``--help`` does (a write error is ignored), or say False."""
    text = cached(prog)
    if text is None:
        return False
    try:  # noqa: SIM105 (contextlib.suppress: contextlib is not loaded at start-up)
        sys.stdout.write(text)
    except (AttributeError, OSError):  # as argparse's _print_message
        pass
    return True
