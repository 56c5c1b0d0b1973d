"""The counts behind ``stats``, gathered chunk by chunk so that memory follows the literals read.

Clause lengths are a histogram, occurrences are counted per variable in arrays that grow with the
variables seen (never the header's count: a 21-byte file saying ``p cnf 2000000000 1`` costs
nothing), and a variable far beyond the literals read so far is counted apart.  The flat literal
array the variable-incidence graph needs is kept only while the graph stays under its limit
(:data:`.stats.MAX_PAIRS` literal pairs, and as many literals: unit clauses cost no pair); past it
the literals are dropped and the graph skipped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

DENSE_SLACK = 1 << 20  # variables counted in arrays up to 8 x the literals read + this; beyond, apart
DENSE_LENGTHS = 1 << 16  # clause lengths below this are counted in an array; longer ones apart (a dict)


def _grow(a: np.ndarray, size: int) -> np.ndarray:
    import numpy as np

    out = np.zeros(size, np.int64)
    out[: a.size] = a
    return out


class Tally:
    """Running counts of a CNF body fed as literal arrays (:func:`.chunks.literal_chunks`), which may end
    inside a clause: the clause under way is counted by its length and positive literals so far, so a
    clause of any length costs no memory."""

    def __init__(self, keep_pairs: int | None) -> None:
        import numpy as np

        self.hist = np.zeros(0, np.int64)  # clauses by length, below DENSE_LENGTHS
        self.long: dict[int, int] = {}  # clauses by length, the longer ones (a clause of millions costs no array)
        self.horn = 0  # clauses with at most one positive literal
        self.literals = 0
        self.pos = np.zeros(1, np.int64)  # occurrences by variable (index 0 unused)
        self.neg = np.zeros(1, np.int64)
        self.far: list[np.ndarray] = []  # literals of variables beyond the arrays
        self.keep_pairs = keep_pairs  # None: keep no literals (no graph)
        self.pairs = 0
        self.kept_size = 0  # literals and terminators seen: the kept array's length (bounded by keep_pairs too)
        self.kept: list[np.ndarray] | None = [] if keep_pairs is not None else None
        self.open_length = 0  # literals of the clause under way (begun in an earlier array)
        self.open_positive = 0  # its positive literals

    def add(self, lits: np.ndarray) -> None:
        """Count one array of literals (its first clause may have begun in the last array, its last clause
        may go on in the next)."""
        import numpy as np

        ends = np.flatnonzero(lits == 0)
        body = lits[lits != 0].astype(np.int64)
        self.literals += int(body.size)
        self._occurrences(body)
        if not ends.size:
            self.open_length += int(lits.size)
            self.open_positive += int(np.count_nonzero(lits > 0))
            self._keep(lits, np.zeros(0, np.int64))
            return
        starts = np.empty_like(ends)
        starts[0] = 0
        starts[1:] = ends[:-1] + 1
        lengths = ends - starts
        positives = np.add.reduceat((lits > 0).astype(np.int64), starts)  # an empty clause: reads its 0
        lengths[0] += self.open_length
        positives[0] += self.open_positive
        tail = lits[int(ends[-1]) + 1 :]
        self.open_length, self.open_positive = int(tail.size), int(np.count_nonzero(tail > 0))
        self.horn += int(((positives <= 1) | (lengths == 0)).sum())
        longer = lengths >= DENSE_LENGTHS
        for k in lengths[longer].tolist():
            self.long[k] = self.long.get(k, 0) + 1
        hist = np.bincount(lengths[~longer]) if longer.any() else np.bincount(lengths)
        if hist.size > self.hist.size:
            self.hist = _grow(self.hist, hist.size)
        self.hist[: hist.size] += hist
        self._keep(lits, hist, lengths[longer])

    def _occurrences(self, body: np.ndarray) -> None:
        import numpy as np

        if not body.size:
            return
        var = np.abs(body)
        top = int(var.max())
        cap = 8 * self.literals + DENSE_SLACK
        if top >= self.pos.size and self.pos.size < cap:
            size = min(cap, max(top + 1, 2 * self.pos.size))
            self.pos, self.neg = _grow(self.pos, size), _grow(self.neg, size)
        near = var < self.pos.size
        if not near.all():
            self.far.append(body[~near])
            body, var = body[near], var[near]
        self.pos += np.bincount(var[body > 0], minlength=self.pos.size)
        self.neg += np.bincount(var[body < 0], minlength=self.neg.size)

    def _keep(self, lits: np.ndarray, hist: np.ndarray, longer: np.ndarray | None = None) -> None:
        import numpy as np

        if self.keep_pairs is None:
            return
        k = np.arange(hist.size, dtype=np.int64)
        self.pairs += int((hist * k * (k - 1) // 2).sum())
        self.pairs += sum(n * (n - 1) // 2 for n in ([] if longer is None else longer.tolist()))
        self.kept_size += int(lits.size)
        if self.kept is not None and (self.pairs > self.keep_pairs or self.kept_size > self.keep_pairs):
            self.kept = None  # the graph will be skipped: hold nothing for it
        if self.kept is not None:
            self.kept.append(lits.astype(np.int32))

    @property
    def clauses(self) -> int:
        return int(self.hist.sum()) + sum(self.long.values())

    def length_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """(lengths, clauses of each), the lengths increasing, only those of some clause."""
        import numpy as np

        short = np.flatnonzero(self.hist)
        longer = sorted(self.long)
        lengths = np.concatenate((short, np.array(longer, dtype=np.int64)))
        counts = np.concatenate((self.hist[short], np.array([self.long[k] for k in longer], dtype=np.int64)))
        return lengths, counts

    def kept_literals(self) -> np.ndarray | None:
        """The whole body as one 0-terminated array, when it was kept (the graph is within its limit)."""
        import numpy as np

        if self.kept is None:
            return None
        return np.concatenate(self.kept) if self.kept else np.zeros(0, np.int32)

    def occurrences(self) -> tuple[np.ndarray, np.ndarray]:
        """(positive, negative) occurrences of every variable that occurs, in no particular order."""
        import numpy as np

        pos, neg = self.pos[1:], self.neg[1:]
        used = (pos + neg) > 0
        pos, neg = pos[used], neg[used]
        if not self.far:
            return pos, neg
        far = np.concatenate(self.far)
        var, inverse = np.unique(np.abs(far), return_inverse=True)
        far_pos = np.bincount(inverse, weights=far > 0, minlength=var.size).astype(np.int64)
        far_neg = np.bincount(inverse, weights=far < 0, minlength=var.size).astype(np.int64)
        inside = var < self.pos.size  # counted apart early, inside the arrays once they grew
        if inside.any():
            dense_pos, dense_neg = self.pos.copy(), self.neg.copy()
            np.add.at(dense_pos, var[inside], far_pos[inside])
            np.add.at(dense_neg, var[inside], far_neg[inside])
            used = (dense_pos[1:] + dense_neg[1:]) > 0
            pos, neg = dense_pos[1:][used], dense_neg[1:][used]
        return np.concatenate((pos, far_pos[~inside])), np.concatenate((neg, far_neg[~inside]))

    def length_summary(self) -> tuple[float, float, float, float, float] | None:
        """(min, max, mean, median, std) of the clause lengths, from the histogram; None without clauses."""
        import numpy as np

        count = self.clauses
        if not count:
            return None
        lengths, counts = self.length_counts()
        k = lengths.astype(np.float64)
        mean = float((k * counts).sum() / count)
        std = float(np.sqrt((counts * (k - mean) ** 2).sum() / count))
        cumulative = np.cumsum(counts)
        lo = int(lengths[np.searchsorted(cumulative, (count - 1) // 2, side="right")])
        hi = int(lengths[np.searchsorted(cumulative, count // 2, side="right")])
        return float(lengths[0]), float(lengths[-1]), mean, (lo + hi) / 2, std
