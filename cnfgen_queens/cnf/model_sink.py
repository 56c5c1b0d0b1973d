"""A model read as a stream (a solver's ``v`` lines, a result file, a model on stdin).

Each literal sets one variable once, so a model holds at most V values: the sink keeps one byte
a variable, grown to the largest variable seen (never the header's count), and the first literal
that sets a variable again, or names a variable beyond the CNF's, is the model's problem, found
while streaming.  Memory follows the variables, never the bytes of the output.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    import numpy as np

UNSEEN, TRUE, FALSE = 0, 1, 2
_TRUE_ONLY = bytes([0, 1] + [0] * 254)  # state -> value: 1 where true, 0 elsewhere (bytes.translate)
SMALL = 64  # literals added in pure Python; more with numpy


@dataclass(frozen=True)
class ModelValues:
    """A streamed model: ``value`` holds 1 at each true variable and ends with a 0 sentinel (what
    :func:`.scan.check_stream` checks), ``literals`` how many literals set it, ``problem`` why the
    model is wrong (a variable set twice, or beyond the CNF's), which makes it a rejected model, as
    a model that violates a clause is.  Its length is ``literals``, so an empty model is falsy, as
    an empty tuple of literals is."""

    value: bytearray
    literals: int
    problem: str | None = None

    def __len__(self) -> int:
        return self.literals

    def true_variables(self) -> Iterator[int]:
        """The variables set true, in increasing order."""
        find, at = self.value.find, 0
        while (at := find(1, at + 1)) > 0:
            yield at


class ModelSink:
    """Collects the literals of one model; ``problem`` is the first that makes no sense.

    ``keep``: a filter on variables (a numpy bool mask of an int64 array): only those it keeps are
    recorded and checked (``decode`` keeps the board's cells).
    """

    def __init__(self, num_vars: int, keep: Callable[[np.ndarray], np.ndarray] | None = None) -> None:
        self.num_vars, self.keep = num_vars, keep
        self.state = bytearray(1)  # UNSEEN, TRUE or FALSE by variable
        self.top = 0
        self.literals = 0
        self.problem: str | None = None

    def add(self, lits: Sequence[int] | np.ndarray) -> None:
        """Record nonzero literals (a list or an int64 array); nothing more once there is a problem."""
        if self.problem is not None or not len(lits):
            return
        if len(lits) <= SMALL and self.keep is None:
            for lit in lits:
                self._one(int(lit))
                if self.problem is not None:
                    return
            return
        self._many(lits)

    def _grow(self, var: int) -> None:
        if var >= len(self.state):
            size = min(self.num_vars + 1, max(var + 1, 2 * len(self.state)))
            self.state.extend(bytes(size - len(self.state)))

    def _one(self, lit: int) -> None:
        var = -lit if lit < 0 else lit
        if var > self.num_vars:
            self.problem = f"model mentions variable {var}, but the CNF has {self.num_vars}"
            return
        self._grow(var)
        now, was = (TRUE if lit > 0 else FALSE), self.state[var]
        if was:
            self.problem = f"model sets variable {var} {'twice' if was == now else 'both true and false'}"
            return
        self.state[var] = now
        self.top = max(self.top, var)
        self.literals += 1

    def _many(self, lits: Sequence[int] | np.ndarray) -> None:
        import numpy as np

        try:
            arr = np.asarray(lits, dtype=np.int64)
        except OverflowError:  # a literal beyond int64 (read by Python): beyond the CNF as well
            self._huge(lits)
            return
        var = np.abs(arr)
        var[var < 0] = np.iinfo(np.int64).max  # -2^63 has no int64 absolute value: beyond the CNF too
        if self.keep is not None:
            kept = self.keep(var)
            arr, var = arr[kept], var[kept]
        if not arr.size:  # nothing kept, or nothing before a literal beyond the CNF's variables
            return
        beyond = np.flatnonzero(var > self.num_vars)
        if beyond.size:  # the literals before it are recorded first: the problem names the first one
            self._many(arr[: int(beyond[0])])
            if self.problem is None:
                self._one(int(arr[beyond[0]]))
            return
        top = int(var.max())
        self._grow(top)
        state = np.frombuffer(self.state, dtype=np.uint8)
        try:
            order = np.argsort(var, kind="stable")
            ordered = var[order]
            again = np.flatnonzero(ordered[1:] == ordered[:-1])
            seen = np.flatnonzero(state[var] != UNSEEN)
            if again.size or seen.size:  # replay up to the first repeat: its message names it exactly
                ends = [int(order[again + 1].min())] if again.size else []  # the later of two equal
                first = min([*ends, *([int(seen[0])] if seen.size else [])])
                bad = arr[: first + 1].tolist()
            else:
                state[var] = np.where(arr > 0, TRUE, FALSE)
                bad = None
        finally:
            del state  # release the buffer: the bytearray may grow again
        if bad is not None:
            for lit in bad:
                self._one(lit)
                if self.problem is not None:
                    return
            return
        self.top = max(self.top, top)
        self.literals += int(arr.size)

    def _huge(self, lits: Sequence[int] | np.ndarray) -> None:
        """:meth:`_many` on literals some of which do not fit int64: those before the first beyond the CNF
        are recorded, then that one is the problem (a filter sees each clamped to int64, which it judges as
        it would the literal: beyond every variable)."""
        import numpy as np

        keep, top = self.keep, 2**63 - 1
        if keep is not None:
            kept = keep(np.array([min(top, abs(int(lit))) for lit in lits], dtype=np.int64))
            lits = [lit for lit, k in zip(lits, kept.tolist(), strict=True) if k]
        cut = next((i for i, lit in enumerate(lits) if abs(int(lit)) > self.num_vars), len(lits))
        self.keep = None  # what the filter kept is judged as it is
        try:
            self._many(lits[:cut])
        finally:
            self.keep = keep
        if self.problem is None and cut < len(lits):
            self._one(int(lits[cut]))

    def values(self) -> ModelValues:
        """The model recorded: 1 at each true variable, a 0 sentinel after the largest variable seen."""
        value = bytearray(self.state[: self.top + 1].translate(_TRUE_ONLY)) + b"\0"
        return ModelValues(value, self.literals, self.problem)
