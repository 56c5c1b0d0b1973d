"""Instance features of a CNF, as SAT papers report them, and the queens board behind our own files.

- Size and clause lengths, the clause/variable ratio, the share of binary, ternary and Horn
  clauses (the basic SATzilla features: Xu, Hutter, Hoos, Leyton-Brown, JAIR 32, 2008).
- Literal occurrence balance: positive against negative occurrences per variable, pure variables.
- The variable-incidence graph (VIG: an edge between two variables that share a clause, weighted
  1/C(k,2) for a clause of length k) and its degrees, and its modularity Q (Newman and Girvan 2004)
  for the communities networkx finds (Louvain, Blondel et al. 2008, seeded; fast label propagation,
  Traag and Šubelj 2023, above ``LOUVAIN_EDGES``), as in Ansótegui, Giráldez-Cru and Levy,
  "The community structure of SAT formulas", SAT 2012.
- For a cnfgen-queens file (``n=N`` in the header): every VIG edge between two cells joins
  attacking cells; for small N the board's conflict graph is compared with its lines: every
  attacking pair shares exactly one line; the maximal cliques are *not* just the lines: they are the
  lines of length >= 4 plus small cliques across lines (2x2 blocks and their kin; 310 in all at N = 8).

All counting is numpy on the flat literal array of :class:`~cnfgen_queens.cnf.scan.Cnf`; networkx is
used for community detection and cliques only, each under a stated size limit.  The counts are gathered
chunk by chunk (:class:`Tally`, at the end), so that memory follows the literals read.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace
from typing import IO, TYPE_CHECKING, Any, cast

from cnfgen_queens.cnf.shuffle import unshuffle_map
from cnfgen_queens.model.board import Board

from .compressed import open_input
from .dimacs import DimacsError, Header, Warn, _stderr_warn, n_clauses, read_header
from .gbd_hash import GbdHash
from .scan import literal_chunks

if TYPE_CHECKING:
    from pathlib import Path

    import numpy as np

    from cnfgen_queens.cnf.scan import Cnf

MAX_PAIRS = 20_000_000  # literal pairs the VIG may cost before it is skipped (about 25 bytes each)
MAX_GRAPH_EDGES = 2_000_000  # VIG edges networkx may hold for community detection (about 0.6 KB each)
LOUVAIN_EDGES = 250_000  # Louvain up to this many edges, fast label propagation above
CLIQUE_N = 16  # the board's maximal cliques are enumerated up to this N
SEED = 0
STATS_CHUNK = 1 << 22  # bytes of text per chunk: few chunks (per-variable counts are added per chunk), and
# their temporaries (about 20 bytes a literal) stay under 100 MB


@dataclass(frozen=True)
class Summary:
    """Five numbers of a distribution (empty: all None)."""

    min: float | None
    max: float | None
    mean: float | None
    median: float | None
    std: float | None


@dataclass(frozen=True)
class CnfStats:
    """Everything ``cnfgen-queens stats`` prints; ``notes`` say what was skipped and why."""

    variables: int
    clauses: int
    literals: int
    used_variables: int
    clause_variable_ratio: float | None
    clause_lengths: dict[int, int]
    clause_length: Summary
    binary_fraction: float
    ternary_fraction: float
    horn_fraction: float
    positive_literals: int
    negative_literals: int
    pure_variables: int
    occurrences: Summary  # per used variable, both polarities
    positive_share: Summary  # per used variable: positive / all occurrences
    vig_edges: int | None
    vig_degree: Summary | None
    communities: int | None
    modularity: float | None
    community_method: str | None
    queens: dict[str, Any] | None
    notes: tuple[str, ...] = field(default=())
    gbd_hash: str | None = None  # the Global Benchmark Database instance hash (.gbd_hash), as batch stores it

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["clause_lengths"] = {str(k): v for k, v in self.clause_lengths.items()}
        d["notes"] = list(self.notes)
        return d


def summary(values: np.ndarray) -> Summary:
    import numpy as np

    if values.size == 0:
        return Summary(None, None, None, None, None)
    v = values.astype(np.float64)
    return Summary(float(v.min()), float(v.max()), float(v.mean()), float(np.median(v)), float(v.std()))


def clause_bounds(lits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(start, length) of each clause in the flat, 0-terminated literal array."""
    import numpy as np

    ends = np.flatnonzero(lits == 0)
    starts = np.concatenate(([0], ends[:-1] + 1)) if ends.size else ends
    return starts, ends - starts


def vig_edges(lits: np.ndarray, starts: np.ndarray, lengths: np.ndarray, num_vars: int) -> tuple[np.ndarray, ...]:
    """Unique VIG edges (lo, hi) with lo < hi and summed weights 1/C(k,2); clauses grouped by length."""
    import numpy as np

    variables = np.abs(lits).astype(np.int64)
    keys, weights = [], []
    for k in np.unique(lengths).tolist():
        if k < 2:
            continue
        sel = starts[lengths == k]
        i, j = np.triu_indices(k, 1)
        chunk = max(1, 4_000_000 // len(i))  # clauses per block: bounded temporaries
        for s in range(0, sel.size, chunk):
            block = variables[sel[s : s + chunk, None] + np.arange(k)]
            a, b = block[:, i].ravel(), block[:, j].ravel()
            keep = a != b  # a clause may repeat a variable (tautology or duplicate literal)
            lo, hi = np.minimum(a, b)[keep], np.maximum(a, b)[keep]
            block_keys, repeats = np.unique(lo * (num_vars + 1) + hi, return_counts=True)  # a repeated
            keys.append(block_keys)  # clause costs one edge, not one per copy (a compressed bomb of them)
            weights.append(repeats * (2.0 / (k * (k - 1))))
    if not keys:
        empty = np.zeros(0, np.int64)
        return empty, empty, np.zeros(0)
    unique, inverse = np.unique(np.concatenate(keys), return_inverse=True)
    summed = np.bincount(inverse, weights=np.concatenate(weights))
    return unique // (num_vars + 1), unique % (num_vars + 1), summed


def modularity(lo: np.ndarray, hi: np.ndarray, w: np.ndarray, label: np.ndarray) -> float:
    """Newman's Q of a partition (``label[v]`` per node) of a weighted graph, in numpy."""
    import numpy as np

    m = float(w.sum())
    if m == 0:
        return 0.0
    inside = np.bincount(label[lo][label[lo] == label[hi]], weights=w[label[lo] == label[hi]])
    strength = np.bincount(label[lo], weights=w, minlength=label.max() + 1) + np.bincount(
        label[hi], weights=w, minlength=label.max() + 1
    )
    return float(inside.sum() / m - ((strength / (2 * m)) ** 2).sum())


def communities(lo: np.ndarray, hi: np.ndarray, w: np.ndarray, nodes: np.ndarray) -> tuple[int, float, str]:
    """(number of communities, modularity Q, method) of the VIG, found by networkx with a fixed seed."""
    import networkx as nx
    import numpy as np

    g = nx.Graph()
    g.add_nodes_from(nodes.tolist())
    g.add_weighted_edges_from(zip(lo.tolist(), hi.tolist(), w.tolist(), strict=True))
    if lo.size <= LOUVAIN_EDGES:
        method = f"louvain (networkx, seed {SEED})"
        parts = nx.community.louvain_communities(g, weight="weight", seed=SEED)
    else:
        method = f"fast label propagation (networkx, seed {SEED}; over {LOUVAIN_EDGES:,} edges)"
        parts = list(nx.community.fast_label_propagation_communities(g, weight="weight", seed=SEED))
    del g
    label = np.zeros(int(max(nodes.max(initial=0), hi.max(initial=0))) + 1, np.int64)
    for index, part in enumerate(parts):
        label[list(part)] = index
    return len(parts), modularity(lo, hi, w, label), method


def board_size(comments: tuple[str, ...]) -> int | None:
    """N from a cnfgen-queens header (``n=N ...``), else None."""
    for c in comments:
        m = re.match(r"n=(\d+)\s", c + " ")
        if m:
            return int(m.group(1))
    return None


def queens_section(n: int, lo: np.ndarray | None, hi: np.ndarray | None, pairwise: bool) -> dict[str, Any]:
    """The board behind the file: conflict graph size, lines, and the checks (see the module doc)."""
    import numpy as np

    board = Board(n)
    lines = [line for line in board.lines() if len(line.cells) >= 2]
    conflict_edges = sum(len(line.cells) * (len(line.cells) - 1) // 2 for line in lines)
    out: dict[str, Any] = {
        "n": n,
        "cells": n * n,
        "lines_of_length_2_or_more": len(lines),
        "conflict_edges": conflict_edges,
    }
    if lo is not None and hi is not None:
        cells = (lo <= n * n) & (hi <= n * n)
        r1, c1 = np.divmod(lo[cells] - 1, n)
        r2, c2 = np.divmod(hi[cells] - 1, n)
        attack = (r1 == r2) | (c1 == c2) | (r1 - c1 == r2 - c2) | (r1 + c1 == r2 + c2)
        out["vig_cell_edges"] = int(cells.sum())
        out["vig_cell_edges_not_attacking"] = int((~attack).sum())
        if pairwise:
            out["vig_cells_equal_conflict_graph"] = bool(attack.all() and int(cells.sum()) == conflict_edges)
    if n > CLIQUE_N:
        out["cliques"] = f"not enumerated above N = {CLIQUE_N}"
        return out
    import networkx as nx

    graph = board.conflict_graph()
    line_sets = {frozenset(line.cells) for line in lines}
    maximal = {frozenset(c) for c in nx.find_cliques(graph)}
    pairs = [frozenset(e) for e in graph.edges]
    out["every_attacking_pair_on_exactly_one_line"] = all(sum(p <= s for s in line_sets) == 1 for p in pairs)
    out["maximal_cliques"] = len(maximal)
    out["lines_that_are_maximal_cliques"] = len(line_sets & maximal)
    out["maximal_cliques_that_are_lines_only"] = maximal <= line_sets
    out["largest_clique"] = max((len(c) for c in maximal), default=0)
    return out


def cnf_stats(cnf: Cnf, graph: bool = True, max_graph_edges: int = MAX_GRAPH_EDGES) -> CnfStats:
    """The features of ``cnf``; the VIG parts are skipped (with a note) beyond their size limits."""
    tally = Tally(MAX_PAIRS if graph else None)
    tally.add(cnf.lits)
    return tally_stats(cnf.header, tally, graph, max_graph_edges)


def file_stats(
    path: Path | str,
    name: str,
    graph: bool = True,
    max_graph_edges: int = MAX_GRAPH_EDGES,
    warn: Warn = _stderr_warn,
    raw: IO[bytes] | None = None,
) -> CnfStats:
    """The features of the CNF file ``path`` (plain or compressed; ``raw``: an open stream such as stdin),
    read in chunks: memory follows the literals (and the graph only within its limits), never the
    header's counts."""
    with open_input(path, warn, DimacsError, raw=raw) as f:
        hashed = _Hashed(f)  # the GBD hash of the bytes read, in the same single pass (stdin is read once)
        stream = cast(IO[bytes], hashed)
        header = read_header(stream, name)
        tally = Tally(MAX_PAIRS if graph else None)
        for lits in literal_chunks(stream, header, name, warn, chunk=STATS_CHUNK, whole=False):
            tally.add(lits)
    if tally.clauses != header.num_clauses:
        warn(f"{name}: header says {n_clauses(header.num_clauses)}, file has {tally.clauses}")
    return replace(tally_stats(header, tally, graph, max_graph_edges), gbd_hash=hashed.hash.hexdigest())


class _Hashed:
    """A reader that feeds every byte read through it to a :class:`.GbdHash`."""

    def __init__(self, f: IO[bytes]) -> None:
        self.f, self.hash = f, GbdHash()

    def read(self, size: int = -1) -> bytes:
        data = self.f.read(size)
        self.hash.update(data)
        return data

    def readline(self, size: int = -1) -> bytes:
        data = self.f.readline(size)
        self.hash.update(data)
        return data


def tally_stats(header: Header, tally: Tally, graph: bool, max_graph_edges: int) -> CnfStats:
    """The features from the counts of a whole body."""
    import numpy as np

    num_vars = header.num_vars
    clauses = tally.clauses
    hist = tally.hist
    pos, neg = tally.occurrences()
    occ = pos + neg
    notes: list[str] = []
    lo = hi = None
    edges = degree = count = q = method = None
    lits = tally.kept_literals()
    if not graph:
        notes.append("variable-incidence graph not computed (--no-graph)")
    elif lits is None:
        over = f"{tally.pairs:,} literal pairs" if tally.pairs > MAX_PAIRS else f"{tally.kept_size:,} literals"
        notes.append(f"variable-incidence graph skipped: {over} > {MAX_PAIRS:,}")
    else:
        starts, lengths = clause_bounds(lits)
        lo, hi, w = vig_edges(lits, starts, lengths, num_vars)
        edges = int(lo.size)
        nodes = np.unique(np.abs(lits[lits != 0]).astype(np.int64))
        top = int(nodes[-1]) if nodes.size else 0
        deg = np.bincount(lo, minlength=top + 1) + np.bincount(hi, minlength=top + 1)
        degree = summary(deg[nodes])
        if edges > max_graph_edges:
            notes.append(f"communities skipped: {edges:,} VIG edges > {max_graph_edges:,} (--max-graph-edges)")
        elif edges:
            count, q, method = communities(lo, hi, w, nodes)
    n = board_size(header.comments)
    queens = None
    if n is not None:
        shuffled = any(c.startswith("shuffle:") for c in header.comments)
        if shuffled and lo is not None and hi is not None:
            back = np.array(unshuffle_map(header), dtype=np.int64)
            a, b = back[lo], back[hi]
            lo, hi = np.minimum(a, b), np.maximum(a, b)
        pairwise = any(c.startswith(f"n={n} encoding=pairwise ") for c in header.comments)
        queens = queens_section(n, lo, hi, pairwise)
    lengths_of = tally.length_summary()
    return CnfStats(
        variables=num_vars,
        clauses=clauses,
        literals=tally.literals,
        used_variables=int(occ.size),
        clause_variable_ratio=clauses / num_vars if num_vars else None,
        clause_lengths=dict(zip(*(a.tolist() for a in tally.length_counts()), strict=True)),
        clause_length=Summary(*lengths_of) if lengths_of else Summary(None, None, None, None, None),
        binary_fraction=float(hist[2] / clauses) if clauses and hist.size > 2 else 0.0,
        ternary_fraction=float(hist[3] / clauses) if clauses and hist.size > 3 else 0.0,
        horn_fraction=tally.horn / clauses if clauses else 0.0,
        positive_literals=int(pos.sum()),
        negative_literals=int(neg.sum()),
        pure_variables=int(((pos == 0) ^ (neg == 0)).sum()),
        occurrences=summary(occ),
        positive_share=summary(pos / occ) if occ.size else summary(occ),
        vig_edges=edges,
        vig_degree=degree,
        communities=count,
        modularity=q,
        community_method=method,
        queens=queens,
        notes=tuple(notes),
    )


# --- the tally ----------------------------------------------------------------------------------------------
# The counts behind ``stats``, gathered chunk by chunk so that memory follows the literals read.
#
# Clause lengths are a histogram, occurrences are counted per variable in arrays that grow with the
# variables seen (never the header's count: a 21-byte file saying ``p cnf 2000000000 1`` costs
# nothing), and a variable far beyond the literals read so far is counted apart.  The flat literal
# array the variable-incidence graph needs is kept only while the graph stays under its limit
# (:data:`MAX_PAIRS` literal pairs, and as many literals: unit clauses cost no pair); past it
# the literals are dropped and the graph skipped.

DENSE_SLACK = 1 << 20  # variables counted in arrays up to 8 x the literals read + this; beyond, apart
DENSE_LENGTHS = 1 << 16  # clause lengths below this are counted in an array; longer ones apart (a dict)


def _grow(a: np.ndarray, size: int) -> np.ndarray:
    import numpy as np

    out = np.zeros(size, np.int64)
    out[: a.size] = a
    return out


class Tally:
    """Running counts of a CNF body fed as literal arrays (:func:`.scan.literal_chunks`), which may end
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
