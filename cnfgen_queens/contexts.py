"""``contextmanager``: :func:`contextlib.contextmanager` whose generator is closed at once when a signal cuts
its ``__enter__`` or ``__exit__`` short.

Both are Python code, so a signal's exception (Ctrl-C, or :class:`~cnfgen_queens.errors.Terminated`) can land
in them after the generator has made its resource and yielded but before the caller's ``with`` is set up, or
before ``__exit__`` has resumed the generator.  The generator is then left suspended, and its cleanup runs
whenever the garbage collector closes it: out of order, after an outer block has closed what the cleanup
needs (``gen-queens 500 -o`` left its temporary file after Ctrl-C under load: the directory's descriptor
was closed first).  Here the generator is closed in the same step, before the exception goes on.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import Any, ParamSpec, TypeVar

T = TypeVar("T")
P = ParamSpec("P")


class _ClosedOnSignal(contextlib._GeneratorContextManager):
    def __enter__(self) -> Any:
        try:
            return super().__enter__()
        except BaseException:
            self.gen.close()  # a no-op when the generator ended by itself (it raised, or never yielded)
            raise

    def __exit__(self, kind: Any, value: Any, tb: Any) -> bool | None:
        try:
            return super().__exit__(kind, value, tb)
        except BaseException:
            self.gen.close()  # the same when the generator raised or passed the exception on
            raise


def contextmanager(func: Callable[P, Iterator[T]]) -> Callable[P, contextlib.AbstractContextManager[T]]:
    """:func:`contextlib.contextmanager`, closing the generator when a signal lands in ``__enter__`` or
    ``__exit__`` (see the module's docstring)."""

    @functools.wraps(func)
    def helper(*args: P.args, **kwds: P.kwargs) -> contextlib.AbstractContextManager[T]:
        return _ClosedOnSignal(func, args, kwds)  # type: ignore[arg-type]

    return helper
