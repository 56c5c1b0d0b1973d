"""Finished futures of a process pool, handed to the main thread without it ever taking a future's lock.

A signal's exception (:func:`~cnfgen_queens.errors.stop_on_signals`) can land anywhere in the main thread's
Python code, also inside ``threading.Condition.__enter__`` just after it took a future's lock (``done()``,
``result()``, ``concurrent.futures.wait``): the lock then stays held, the pool's manager thread waits for it
for ever when it sets that future's result, and the command never exits.  So the main thread calls no method
of a future: a thread of ours registers each future's done-callback, the callback (in the pool's thread)
puts the future and its outcome on a :class:`queue.SimpleQueue`, and the main thread takes them from there,
in C code that holds no lock of Python's when it is interrupted.
"""

from __future__ import annotations

import queue
import threading
from concurrent.futures import Future
from typing import Any

WAIT_STEP = 0.2  # seconds of one wait for a future that has not finished yet


class Landing:
    """The futures given to :meth:`watch`, each with its outcome once it has finished."""

    def __init__(self) -> None:
        self._watched: queue.SimpleQueue[Future[Any] | None] = queue.SimpleQueue()
        self._landed: queue.SimpleQueue[tuple[Future[Any], bool, Any]] = queue.SimpleQueue()
        self._outcomes: dict[Future[Any], tuple[bool, Any]] = {}
        self._thread: threading.Thread | None = None

    def watch(self, future: Future[Any]) -> Future[Any]:
        """``future``, watched.  The thread that registers the callbacks starts at the first (after the pool's
        first submit, which forks its workers while this process has no other thread)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._register, daemon=True, name="landing")
            self._thread.start()
        self._watched.put(future)
        return future

    def _register(self) -> None:
        while (future := self._watched.get()) is not None:
            future.add_done_callback(self._land)

    def _land(self, future: Future[Any]) -> None:
        try:
            self._landed.put((future, True, future.result()))
        except BaseException as e:  # its exception, or CancelledError
            self._landed.put((future, False, e))

    def take(self, timeout: float = 0.0) -> list[Future[Any]]:
        """The futures that finished since the last call, waiting at most ``timeout`` seconds for the first."""
        took: list[Future[Any]] = []
        try:
            future, ok, value = self._landed.get(timeout=timeout) if timeout > 0 else self._landed.get_nowait()
            while True:
                self._outcomes[future] = (ok, value)
                took.append(future)
                future, ok, value = self._landed.get_nowait()
        except queue.Empty:
            return took

    def ready(self, futures: list[Any]) -> list[Any]:
        """The futures of ``futures`` that have finished."""
        self.take()
        return [f for f in futures if f in self._outcomes]

    def result(self, future: Future[Any]) -> Any:
        """The value of ``future`` (waited for when it has not finished yet), or its exception raised."""
        while future not in self._outcomes:
            self.take(WAIT_STEP)
        ok, value = self._outcomes.pop(future)
        if not ok:
            raise value
        return value

    def close(self) -> None:
        """End the thread that registers the callbacks."""
        if self._thread is not None:
            self._watched.put(None)
