"""The durable restart loop around an external solver binary (``enumerate``/``count --solver kissat``).

Files in the work directory: ``run.json`` (what the solutions mean: N, symmetric, the
variant), ``base.cnf`` (the formula, written once by the generator's writer),
``current.cnf`` (the base plus every blocking clause so far, rewritten before each call)
and ``solutions.txt``.  Each solution is appended durably (flush + fsync) before the next
solver call, and the blocking clauses are re-derived from that file, so ``resume`` after
a crash or ``kill -9`` loses nothing and repeats nothing.

Up to :data:`HOLD_BYTES` of ``base.cnf`` the base formula stays in memory (its bytes, and its
literals for the model check), so a round writes ``current.cnf`` without reading anything
back, and the runner checks the solver's model against the clauses it already holds.  A
larger base is never held: each round copies it from ``base.cnf`` and the runner checks
the model by streaming ``current.cnf``, so memory stays bounded whatever N.  The time limit
covers writing both files, not only the solver calls.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, cast

from cnfgen_queens.bounds import json_value
from cnfgen_queens.cnf.atomic import atomic_output, sweep_temporaries
from cnfgen_queens.cnf.dimacs import Header
from cnfgen_queens.cnf.owned import lock_dir, open_owned, refuse_links
from cnfgen_queens.cnf.same_file import refuse_alias
from cnfgen_queens.cnf.scan import Cnf, read_cnf
from cnfgen_queens.cnf.writer import write_cnf
from cnfgen_queens.enumeration.accept import Acceptor
from cnfgen_queens.enumeration.records import EnumerationError, Found
from cnfgen_queens.enumeration.request import Request
from cnfgen_queens.errors import UsageError
from cnfgen_queens.limits import NEVER, Deadline
from cnfgen_queens.model.board import Placement
from cnfgen_queens.model.decode import Clause, DecodeError, as_line, parse_line
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.solvers import RunContext, solve
from cnfgen_queens.solvers.discovery import SolverSpec
from cnfgen_queens.solvers.outcome import Status

if TYPE_CHECKING:
    from cnfgen_queens.cnf.scan import Cnf

SOLUTIONS = "solutions.txt"
OWN_FILES = ("run.json", "base.cnf", "current.cnf", SOLUTIONS, "done")  # replaced, or appended to (solutions)
CUBE_DIRS = "groups/*/cube-*"  # count by cubes: one loop per cube (external_cubes.cube_dir)
HOLD_BYTES = 64 * 2**20  # a base.cnf up to this size is held in memory (about 3x its size), larger is streamed
COPY_CHUNK = 16 * 2**20  # bytes copied from base.cnf between looks at the clock


class _TimedFile:
    """A binary file whose writes raise EnumerationError (TIMEOUT) once ``deadline`` has passed."""

    def __init__(self, f: BinaryIO, deadline: Deadline, what: str) -> None:
        self.f, self.deadline, self.what, self.written = f, deadline, what, 0

    def write(self, data: bytes | memoryview) -> int:
        if self.deadline.expired():
            raise EnumerationError(
                f"time limit reached while writing {self.what} ({self.written:,} bytes written)", Status.TIMEOUT
            )
        self.written += len(data)
        return self.f.write(data)


def read_solutions(path: Path, n: int, symmetric: bool = False) -> list[Placement]:
    """Placements of a solutions file (in its work directory, never through a link), checked: valid,
    N x N, no repeats (no two in one orbit when ``symmetric``).  A torn last line (no newline, from a
    crash mid-write) is truncated away.  The file is read line by line, each line at most as long as a
    placement of N queens can be: memory follows the solutions, never the bytes of a damaged or hostile
    file."""
    try:
        fd = open_owned(path, path.parent, os.O_RDONLY)
    except FileNotFoundError:
        return []
    out: list[Placement] = []
    accept = Acceptor(n, str(path), symmetric=symmetric)
    longest = 12 * n + 64  # N columns of up to 10 digits and their blanks, and some slack
    torn = None
    with open(fd, "rb") as f:
        for i, raw in enumerate(iter(lambda: f.readline(longest + 1), b""), 1):
            if not raw.endswith(b"\n"):
                if len(raw) > longest:
                    raise UsageError(f"{path}:{i}: a line longer than {longest} bytes, not a placement of {n} queens")
                torn = f.tell() - len(raw)
                break
            line = raw.decode(errors="replace")
            if not line.strip():
                continue
            try:
                p = parse_line(line, n)
            except DecodeError as e:
                raise UsageError(f"{path}:{i}: {e}") from None
            if p in accept.seen:
                raise UsageError(f"{path}:{i}: {line.strip()!r} repeats an earlier solution")
            accept.record(Found(p))
            out.append(p)
    if torn is not None:
        fd = open_owned(path, path.parent, os.O_RDWR)
        try:
            os.ftruncate(fd, torn)
            os.fsync(fd)
        finally:
            os.close(fd)
    return out


def refuse_inputs_in(workdir: Path, inputs: Iterable[tuple[str, str | Path | None]]) -> None:
    """Raise OutputIsInput when a file the loop writes in ``workdir`` (:data:`OWN_FILES`, at the top and in
    every cube's directory) is the same file as one of ``inputs`` ((flag, path) pairs; None skipped), by
    :func:`~cnfgen_queens.cnf.same_file.refuse_alias`; PlantedLink when one of them is a link.
    Files under other names in ``workdir`` are no concern of the loop's."""
    own = [*OWN_FILES, *(f"{CUBE_DIRS}/{name}" for name in OWN_FILES)]
    refuse_alias(workdir, [(flag, path) for flag, path in inputs if path is not None], "--out", own=own)
    refuse_links(workdir, own)


def _check_run(workdir: Path, formula: QueensFormula, symmetric: bool, resume: bool) -> None:
    """Record what the directory's solutions mean (N, symmetric) and refuse a mismatched resume."""
    meta = workdir / "run.json"
    want: dict[str, object] = {"n": formula.n, "symmetric": symmetric}
    if formula.variant.active:  # only then, so plain runs keep their run.json
        want["variant"] = formula.variant.header_lines()
    if formula.break_symmetry:  # likewise
        want["break_symmetry"] = True
    if resume and meta.exists():
        try:
            have = json_value(meta.read_text())
        except ValueError:
            raise UsageError(f"{meta} is not JSON") from None
        if not isinstance(have, dict):
            raise UsageError(f"{meta} is not the record of a run (a JSON object with n and symmetric)")
        if {k: have.get(k) for k in (*want, "variant", "break_symmetry")} != {
            "variant": None,
            "break_symmetry": None,
            **want,
        }:
            raise UsageError(f"{workdir} holds a run with {have}, not {want}: resume with those options")
        return
    with atomic_output(meta, owned=workdir) as f:
        f.write((json.dumps(want) + "\n").encode())


def _append_durably(path: Path, line: str) -> None:
    fd = open_owned(path, path.parent, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        with open(fd, "a", encoding="ascii") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())
    except OSError as e:  # a full disk: the file is named, not "output"
        raise OSError(e.errno, e.strerror, e.filename or str(path)) from None


class WorkFormula:
    """The base formula, written once to ``base.cnf``, plus the blocking clauses so far.

    :meth:`write` gives the bytes ``merge base.cnf blocks`` would (the base's comment lines, the
    corrected ``p cnf`` line, the base body, one line per blocking clause); :meth:`cnf` the same
    clauses parsed, for the runner's model check, when the base is held (at most ``hold`` bytes),
    else None (the runner then streams the file).  ``deadline`` bounds every write.
    """

    def __init__(self, formula: QueensFormula, base: Path, deadline: Deadline = NEVER, hold: int = HOLD_BYTES) -> None:

        self.num_vars, self.base_clauses = formula.counts()
        self.path, self.deadline = base, deadline
        with atomic_output(base, owned=base.parent) as f:
            out = cast(BinaryIO, _TimedFile(f, deadline, base.name))  # the writer only calls write()
            write_cnf(out, formula, formula.header_comments("cnfgen-queens enumerate"))
        self.block_lines: list[bytes] = []
        self.block_lits: list[int] = []
        self.base: Cnf | None = None
        self.held = base.stat().st_size <= hold
        if not self.held:
            with open(base, "rb") as f:
                head = f.read(64 * 2**10)
                while b"\np cnf " not in b"\n" + head:  # comments longer than a read (the c p show line)
                    f.seek(0)
                    head = f.read(2 * len(head))
            self.comments = head[: (b"\n" + head).index(b"\np cnf ")]
            self.body_at = head.index(b"\n", len(self.comments)) + 1
            return
        data = base.read_bytes()  # read once, kept: no copy of the writer's output in memory on the way
        p_line = 0 if data.startswith(b"p cnf ") else data.index(b"\np cnf ") + 1
        self.comments = data[:p_line]
        self.body = memoryview(data)[data.index(b"\n", p_line) + 1 :]  # a view: the bytes are not copied
        self.base = read_cnf(base)  # its literals, parsed once

    def add(self, clauses: list[Clause]) -> None:
        for clause in clauses:
            self.block_lines.append((" ".join(map(str, clause)) + " 0\n").encode())
            self.block_lits.extend((*clause, 0))

    def write(self, path: Path) -> None:
        total = self.base_clauses + len(self.block_lines)
        with atomic_output(path, owned=path.parent) as raw:
            f = _TimedFile(raw, self.deadline, path.name)
            f.write(self.comments + f"p cnf {self.num_vars} {total}\n".encode())
            if self.held:
                f.write(self.body)
            else:
                with open(self.path, "rb") as src:
                    src.seek(self.body_at)
                    while chunk := src.read(COPY_CHUNK):
                        f.write(chunk)
            f.write(b"".join(self.block_lines))

    def cnf(self) -> Cnf | None:
        if self.base is None:
            return None
        import numpy as np

        lits = np.concatenate((self.base.lits, np.array(self.block_lits, dtype=np.int32)))
        return Cnf(Header(self.num_vars, self.base_clauses + len(self.block_lines)), lits)


def enumerate_external(request: Request, solver: SolverSpec, deadline: Deadline = NEVER) -> Iterator[Found]:
    """Restart loop over files in ``request.where.workdir`` (resumed with ``where.resume``) with the binary
    ``solver``, the request's solver resolved once (see the module docstring); ``deadline`` bounds the whole
    loop, ``request.limits`` each solver call, ``request.report.on_call`` is called before each."""

    workdir = request.where.workdir
    if workdir is None:
        raise ValueError("the external loop needs a work directory (request.where.workdir)")
    try:
        workdir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"cannot use {workdir} as the work directory: {e.strerror or e}") from None
    refuse_links(workdir, OWN_FILES)  # before anything is read or written
    with lock_dir(workdir) as still_ours:  # one process at a time: two loops in one directory would mix their solutions
        yield from _loop(request, solver, deadline, still_ours)


def _loop(request: Request, solver: SolverSpec, deadline: Deadline, still_ours: Callable[[], None]) -> Iterator[Found]:
    """The loop of :func:`enumerate_external`; ``still_ours()`` before each write into the work directory by
    name (PlantedLink once it is another directory)."""
    workdir, formula, name = cast(Path, request.where.workdir), request.formula, request.solver.name
    sol_path = workdir / SOLUTIONS
    for own in ("run.json", "base.cnf", "current.cnf"):  # left by a kill -9 of an earlier run here
        sweep_temporaries(workdir / own)
    if sol_path.exists() and sol_path.stat().st_size and not request.where.resume:
        raise UsageError(f"{sol_path} already holds solutions: use --resume, or another --out directory")
    _check_run(workdir, formula, request.symmetric, request.where.resume)
    found = read_solutions(sol_path, formula.n, request.symmetric) if request.where.resume else []
    accept = Acceptor(formula.n, name, variant=formula.variant, symmetric=request.symmetric)
    os.close(open_owned(sol_path, workdir, os.O_WRONLY | os.O_CREAT))
    earlier = [Found(p, accept.weight(p)) for p in found]
    yield from earlier  # read back from solutions.txt: theirs before anything can time out
    work = WorkFormula(formula, workdir / "base.cnf", deadline)
    for f in earlier:
        accept.record(f)
        work.add(accept.blocks(f))
    current = workdir / "current.cnf"
    while True:
        still_ours()
        work.write(current)
        left = deadline.left()
        if left is not None and left <= 0:
            raise EnumerationError("time limit reached", Status.TIMEOUT)
        if request.report.on_call:
            request.report.on_call()
        call = request.limits if left is None else replace(request.limits, time=left)  # the deadline: the whole loop
        out = solve(current, solver, limits=call, args=request.solver.args, context=RunContext(cnf=work.cnf()))
        if out.status == Status.UNSAT:
            return
        if out.status == Status.TIMEOUT and left is not None:  # the loop's own limit, what is left of it given
            raise EnumerationError(f"time limit reached ({name} was stopped at it)", Status.TIMEOUT)
        if out.status != Status.SAT:
            detail = out.error or out.stderr_tail.strip().splitlines()[-1:] or ""
            raise EnumerationError(f"{name}: {out.status.value} {detail}".strip(), out.status)
        new = accept(out.model or ())
        still_ours()
        _append_durably(sol_path, as_line(new.placement))
        work.add(accept.blocks(new))
        yield new
