"""Solving with PySAT (Ignatiev, Morgado, Marques-Silva, SAT 2018): no solver binary needed.

The pysat solver runs in a fresh process of its own (:mod:`.fresh_process`), supervised like a
binary (own session, wall-clock limit, SIGTERM/SIGKILL, RLIMIT_AS, Ctrl-C), with the answer sent
back pickled.  In-process limits do not work: CaDiCaL 1.9.5 holds the GIL while
solving, so a timer thread's ``interrupt()`` never runs; pysat's SIGINT path leaves
the interpreter to segfault at the next garbage collection (python-sat 1.9.dev17);
and conflict-budget chunks cost CaDiCaL 4x the plain solve on N=100.

What the child needs (numpy for reading the file, pysat) is loaded before its memory limit and its
clock: its RLIMIT_AS and its measured time are then the solver's own (reading, building, solving),
not numpy's load (OpenBLAS reserves per-thread buffers when it loads, about 100 MB of address space
here, which a child under ``-m 100`` could not get).
"""

from __future__ import annotations

import pickle
import time
from dataclasses import dataclass, replace
from itertools import chain
from typing import TYPE_CHECKING

from cnfgen_queens.cnf.dimacs import open_cnf, read_header
from cnfgen_queens.cnf.scan import Cnf, literal_chunks

from ..limits import Limits
from .fresh_process import run_python
from .outcome import Status
from .parse import describe_exit, says_out_of_memory
from .process import GRACE, Finished

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    import numpy as np

    from cnfgen_queens.cnf.scan import Cnf, CnfFile

Answer = tuple[Status, tuple[int, ...] | None, tuple[str, ...] | str | None]  # (SAT|UNSAT|ERROR, model, proof|error)


@dataclass(frozen=True, kw_only=True)
class EmbeddedRun:
    status: Status  # SAT / UNSAT / TIMEOUT / MEMOUT / ERROR (model not yet checked)
    model: tuple[int, ...] | None
    wall: float
    cpu: float | None
    peak_memory_mb: float | None
    error: str | None
    proof_lines: tuple[str, ...] | None
    exit_code: int | None = None
    read_time: float | None = None  # wall seconds the child spent reading the file (0: parsed already), not in ``wall``


class _Timed:
    """The items of ``items``, with the wall and CPU seconds spent making them (not those of their consumer)."""

    def __init__(self, items: Iterable[np.ndarray]) -> None:
        self.items, self.wall, self.cpu = iter(items), 0.0, 0.0

    def __iter__(self) -> _Timed:
        return self

    def __next__(self) -> np.ndarray:
        wall, cpu = time.monotonic(), time.process_time()
        try:
            return next(self.items)
        finally:
            self.wall += time.monotonic() - wall
            self.cpu += time.process_time() - cpu


def _answer(name: str, cnf: Cnf | CnfFile, want_proof: bool, read: _Timed) -> Answer:
    """Build the pysat solver from ``read`` (the clauses of ``cnf``), solve, and return the answer (in the
    forked child)."""
    from pysat.solvers import Solver

    try:
        solver = Solver(name=name, with_proof=want_proof)
    except NotImplementedError as e:
        return Status.ERROR, None, f"pysat:{name}: {e}"
    except Exception as e:  # a missing backend: AssertionError, ImportError, NoSuchSolverError
        return Status.ERROR, None, f"pysat:{name} is unavailable: {e}"
    with solver:
        add_clauses(solver.add_clause, (chunk.tolist() for chunk in read))
        if solver.solve():
            return Status.SAT, tuple(solver.get_model() or ()), None
        return Status.UNSAT, None, tuple(solver.get_proof() or ()) if want_proof else None


PIECE = 1 << 16  # literals handed over at a time: the lists built here stay small whatever the clauses


def add_clauses(add: Callable[[Iterable[int]], object], pieces: Iterable[list[int]]) -> None:
    """``add`` each 0-terminated clause of ``pieces`` (literal lists; a clause may go on over several): a
    clause within one piece as a slice of it, one that goes on as a stream (pysat's solvers take any
    iterable and copy it literal by literal), so that no list of a long clause is ever built here.

    >>> got = []
    >>> add_clauses(lambda c: got.append(list(c)), [[1, -2, 0, 3], [4], [5, 0, 6, 0], []])
    >>> got
    [[1, -2], [3, 4, 5], [6]]
    """
    stream = iter(pieces)
    lits: list[int] | None = next(stream, None)
    while lits is not None:
        begin = 0
        for i, lit in enumerate(lits):
            if lit == 0:
                add(lits[begin:i])
                begin = i + 1
        if begin < len(lits):
            spill = _Spill(lits[begin:], stream)
            add(spill)
            lits = spill.rest
        else:
            lits = next(stream, None)


class _Spill:
    """A clause that goes on beyond its piece, as an iterable: its head, then the next pieces up to their 0;
    ``rest``: what follows that 0 in its piece, once read (None: the pieces ended first)."""

    def __init__(self, head: list[int], stream: Iterator[list[int]]) -> None:
        self.head, self.stream = head, stream
        self.rest: list[int] | None = None

    def __iter__(self) -> Iterator[int]:
        return chain.from_iterable(self._lists())  # the literals walked in C, list by list

    def _lists(self) -> Iterator[list[int]]:
        head, self.head = self.head, []
        yield head
        for lits in self.stream:
            if 0 not in lits:
                yield lits
                continue
            end = lits.index(0)
            yield lits[:end]
            self.rest = lits[end + 1 :]
            return


def _literal_arrays(cnf: Cnf | CnfFile) -> Iterator[np.ndarray]:
    """The clauses' literals, 0-terminated, in arrays of bounded size (a long clause over several): the parsed
    ones in slices, or read from the file chunk by chunk (in the child, so that reading counts against the
    time limit and the parent holds nothing)."""

    if isinstance(cnf, Cnf):
        for start in range(0, cnf.lits.size, PIECE):
            yield cnf.lits[start : start + PIECE]
        return

    with open_cnf(cnf.path, None) as f:
        yield from literal_chunks(f, read_header(f, cnf.name), cnf.name, whole=False)


def load_solver_modules() -> None:
    """Import what the child uses, so that it inherits it loaded (lazily: only a solve pays for it)."""
    import numpy  # noqa: F401
    import pysat.solvers  # noqa: F401


def _pickled_answer(name: str, cnf: Cnf | CnfFile, want_proof: bool) -> bytes:
    """The answer, with the seconds (wall, CPU) spent reading the file: the run's time less these is the
    solver's (building and solving), whether the clauses came parsed or the child read them."""
    read = _Timed(_literal_arrays(cnf))
    return pickle.dumps((_answer(name, cnf, want_proof, read), read.wall, read.cpu))


def solve_embedded(
    name: str,
    cnf: Cnf | CnfFile,
    limits: Limits,
    want_proof: bool = False,
    *,
    timeout: float | None = None,
    grace: float = GRACE,
) -> EmbeddedRun:
    """Solve ``cnf`` with pysat's solver ``name`` in a fresh, supervised process (:mod:`.fresh_process`), for
    ``limits.time`` seconds (``timeout``: what is left of them); SIGKILL ``grace`` seconds after SIGTERM."""
    run = run_python(
        _pickled_answer,
        (name, cnf, want_proof),
        timeout=limits.time if timeout is None else timeout,
        memory_mb=limits.memory,
        grace=grace,
    )
    err = run.stderr.decode("utf-8", "replace").strip()
    if run.timed_out:
        return _embedded_run(run, Status.TIMEOUT, error=f"stopped at the {limits.time:g} s wall-clock limit")
    if run.exit_code != 0 or not run.stdout:
        limited = limits.memory is not None
        memout = says_out_of_memory(err, limited) or (limited and run.exit_code < 0)
        last = err.splitlines()[-1] if err else ""
        why = f"pysat:{name} {describe_exit(run.exit_code)}{': ' + last if last else ''}"
        return _embedded_run(run, Status.MEMOUT if memout else Status.ERROR, error=why)
    (status, model, extra), read_wall, read_cpu = pickle.loads(run.stdout)  # our own child's bytes
    error = extra if isinstance(extra, str) else None
    proof = extra if isinstance(extra, tuple) else None
    run = replace(
        run, wall=max(0.0, run.wall - read_wall), cpu=None if run.cpu is None else max(0.0, run.cpu - read_cpu)
    )
    return _embedded_run(run, status, model=model, error=error, proof_lines=proof, read_time=read_wall)


def _embedded_run(
    run: Finished,
    status: Status,
    *,
    model: tuple[int, ...] | None = None,
    error: str | None = None,
    proof_lines: tuple[str, ...] | None = None,
    read_time: float | None = None,
) -> EmbeddedRun:
    return EmbeddedRun(
        status=status,
        model=model,
        wall=run.wall,
        cpu=run.cpu,
        peak_memory_mb=run.peak_memory_mb,
        error=error,
        proof_lines=proof_lines,
        exit_code=run.exit_code,
        read_time=read_time,
    )
