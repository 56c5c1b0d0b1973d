"""What a solver binary is given: a compressed CNF as it is when the solver reads that format, else a
decompressed temporary file (streamed, so memory stays bounded).

Which formats each solver reads is its profile's ``native`` field (:mod:`.profiles`, measured there).
A tool a solver pipes through must be on PATH.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from cnfgen_queens.cnf.compressed import by_name, sniff
from cnfgen_queens.cnf.dimacs import open_cnf

from .profiles import Profile


def reads_natively(profile: Profile, path: Path, named: Path | None = None) -> bool:
    """Whether the solver of ``profile`` reads ``path`` as it is (``named``'s extension, ``path``'s own when
    None, and its bytes agree)."""
    magic = sniff(path)
    if magic is None:
        return True  # plain text: every solver reads it
    reads, tool = profile.native_tool(magic.suffix)
    if by_name(named or path) is not magic or not reads:
        return False
    return tool is None or shutil.which(tool) is not None


@contextmanager
def solver_input(
    profile: Profile, path: Path, tmpdir: str, stop: Callable[[], bool] | None = None, named: Path | None = None
) -> Iterator[Path | None]:
    """``path`` itself, or a decompressed copy in ``tmpdir`` when the solver cannot read it; None when
    ``stop()`` said so before the copy was whole (a time limit).  ``named``: the input's name when ``path``
    is a held descriptor (:func:`.read_once.held`); a compressed one the solver reads itself is given as a
    link in ``tmpdir`` with its extension (the solvers go by it) to ``path``."""
    if reads_natively(profile, path, named):
        if named is None or named == path or sniff(path) is None:
            yield path
        else:
            link = Path(tmpdir) / ("input" + "".join(named.suffixes[-2:]))
            link.symlink_to(path)
            yield link
        return

    plain, whole = Path(tmpdir) / "input.cnf", True
    with open_cnf(path, None) as src, open(plain, "wb") as dst:
        while whole and (data := src.read(1 << 20)):
            dst.write(data)
            whole = stop is None or not stop()
    yield plain if whole else None
