"""A forked child's heap, made to count under RLIMIT_AS.

RLIMIT_AS bounds the growth of a process's address space.  A child forked from a process whose malloc
heap holds free blocks (memory freed but still mapped: glibc keeps holes in the middle of its heap, and
``malloc_trim`` gives their pages back to the system without unmapping them) could allocate into those
blocks without growing, so a limit set on top of its address space would let it use the limit *plus*
every hole: a long-running process (a test worker, a notebook, a batch worker after many runs) with
200 MB of holes let a child take 115 MB under a 100 MB limit.

:func:`hold_free_blocks` allocates, in the child, every free block of malloc's heap larger than
:data:`FLOOR` before the limit is set.  The blocks are never touched, so they cost no memory (their pages
stay with the system); what the run allocates next is new address space, which the limit counts.
glibc only (``mallinfo2``, glibc 2.33); elsewhere nothing is held.  Free space inside CPython's own small
object arenas (objects of 512 bytes or less) is not held: it is the one room a child may still use
beyond its limit.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any

FLOOR = 16 * 1024  # free blocks below this are left (a heap holds many small ones; they add up to little)
MAX_TRIES = 4096  # a bound on the allocations tried, whatever the heap's shape
_FIELDS = ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")


@functools.cache
def _libc() -> Any | None:
    """glibc with ``malloc``, ``free`` and ``malloc_trim`` typed, and ``mallinfo2`` where it has it (2.33);
    None elsewhere.  ctypes is loaded here, in the child that needs it, not when a command starts."""
    import ctypes

    class MallInfo2(ctypes.Structure):
        _fields_ = [(name, ctypes.c_size_t) for name in _FIELDS]

    try:
        lib = ctypes.CDLL(None)
        lib.malloc_trim.argtypes = [ctypes.c_size_t]
        lib.malloc.restype = ctypes.c_void_p
        lib.malloc.argtypes = [ctypes.c_size_t]
        lib.free.argtypes = [ctypes.c_void_p]
        lib.free.restype = None
    except (OSError, AttributeError):
        return None
    with contextlib.suppress(AttributeError):
        lib.mallinfo2.restype = MallInfo2
    return lib


def trim() -> None:
    """Give the heap's free memory back to the system (glibc's ``malloc_trim``; elsewhere nothing)."""
    lib = _libc()
    if lib is not None:
        lib.malloc_trim(0)


def free_bytes() -> int:
    """The bytes malloc's heap holds free (its arenas' free blocks and top); 0 when unknown."""
    lib = _libc()
    return int(lib.mallinfo2().fordblks) if lib is not None and hasattr(lib, "mallinfo2") else 0


def hold_free_blocks() -> list[int]:
    """Allocate every free block of the heap above :data:`FLOOR` and return their addresses (for
    :func:`release`).  A size tried that no free block holds grows the heap or maps new memory instead:
    that allocation is freed at once and half the size is tried."""
    lib = _libc()
    if lib is None:
        return []
    held: list[int] = []
    size, tries = free_bytes(), 0
    while size >= FLOOR and tries < MAX_TRIES:
        tries += 1
        before = free_bytes()
        block = lib.malloc(size)
        if block and before - free_bytes() >= size:  # it came from a free block: hold it, try the size again
            held.append(block)
            size = min(size, free_bytes())
            continue
        if block:  # it grew the heap's top or mapped new memory: give that back (freed, the top would stay
            lib.free(block)  # grown and its free space be held next, growing the address space for good)
            lib.malloc_trim(0)
        size //= 2
    return held


def release(held: list[int]) -> None:
    """Give back the blocks :func:`hold_free_blocks` took."""
    lib = _libc()
    if lib is not None:
        for block in held:
            lib.free(block)
    held.clear()
