"""Enumeration loops for tests of the loop's child (tests/test_forked_loop.py): module-level, so that they are
pickled by name, in a module light to import, since the child imports it (not pytest, not the test module)."""

from __future__ import annotations

import faulthandler
import functools
import os
import signal
import time
from collections.abc import Callable, Iterator

from cnfgen_queens.enumeration.records import EnumerationError, Found
from cnfgen_queens.solvers.outcome import Status


def _two_then(stall: Callable[[], None], on_call: Callable[[], None]) -> Iterator[Found]:
    for placement in ((1, 3, 0, 2), (2, 0, 3, 1)):
        on_call()
        yield Found(placement)
    on_call()
    stall()


def two_then(stall: Callable[[], None]) -> Callable[..., Iterator[Found]]:
    """A loop that finds two boards, then calls ``stall`` (as a solver call that never returns would)."""
    return functools.partial(_two_then, stall)


def found_two(on_call: Callable[[], None]) -> Iterator[Found]:
    yield from (Found((1, 3, 0, 2)), Found((2, 0, 3, 1)))


def sleep() -> None:
    time.sleep(600)


def fail() -> None:
    raise EnumerationError("model rejected: two queens attack", Status.ERROR)


def allocate() -> None:
    blocks = [bytearray(64 << 20) for _ in range(64)]  # 4 GB, far above the limit
    raise AssertionError(len(blocks))


def crash() -> None:
    faulthandler.disable()  # pytest's would print the child's stack on the terminal
    os.kill(os.getpid(), signal.SIGSEGV)
