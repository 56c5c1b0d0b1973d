"""The check of every literal of a solver's input against its header, run beside the solver.

A binary solver reads the file while this process reads it too (another core, the same page cache):
the solver starts at once instead of after our pass, and our pass costs wall time only when it is
slower than the solver.  Nothing is checked less: the answer is used only after both have finished,
and when the check finds the input is not DIMACS (a literal beyond the header, a stray token) the
solver is stopped and the input error is what the run reports.  The check ends at the run's
deadline, so a time limit holds on an input of any size.
"""

from __future__ import annotations

import threading
from types import TracebackType

from cnfgen_queens.cnf.scan import CheckStopped, CnfFile, check_stream

from ..limits import Deadline


class InputCheck:
    """A thread that reads ``source`` whole (:func:`.scan.check_stream`), stopping at ``deadline``.

    :meth:`start` it just before the solver (not earlier: it would hold the GIL while this process
    still imports the runner and asks the solver for its version); ``failed`` is set once the input
    is known to be bad (give it to the solver's runner as its ``abort``); :meth:`finish` waits for
    the check and raises its error.  Used as a context manager: leaving it stops the thread at its
    next chunk and waits for it.
    """

    def __init__(self, source: CnfFile, deadline: Deadline) -> None:
        self.source, self.deadline = source, deadline
        self.failed = threading.Event()
        self.complete = False  # the whole input was read and is DIMACS
        self._stop = threading.Event()
        self._done = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="cnfgen-queens-input-check", daemon=True)

    def __enter__(self) -> InputCheck:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        if self._thread.ident is not None:
            self._thread.join()

    def start(self) -> None:
        self._thread.start()

    def _stopped(self) -> bool:
        return self._stop.is_set() or self.deadline.expired()

    def _run(self) -> None:
        try:
            check_stream(self.source, None, stop=self._stopped)
            self.complete = True
        except CheckStopped:
            pass
        except BaseException as e:  # DimacsError above all; anything else is re-raised by finish()
            self._error = e
            self.failed.set()
        finally:
            self._done.set()

    def finish(self) -> bool:
        """Wait for the check, at most until the deadline; raise what it found wrong; True when it read the
        whole input (False: the deadline came first)."""
        if self._thread.ident is None:
            self.start()
        self._done.wait(self.deadline.left())
        self._stop.set()  # past the deadline: the check ends at its next chunk
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self.complete
