"""``solve``: run any solver (profile, path or embedded) under limits and trust nothing it says.

Every literal of the input is checked against its header while a binary solver reads it
(:mod:`.input_check`), and every SAT model against every clause before it is reported
(streaming over the file, in bounded memory, after the solver has finished); a DRAT
proof, when asked for and a checker is installed, is checked before UNSAT is
called verified.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from cnfgen_queens.cnf.dimacs import read_header_file
from cnfgen_queens.cnf.model_sink import ModelSink, ModelValues
from cnfgen_queens.cnf.read_once import held, readable
from cnfgen_queens.cnf.scan import (
    CheckStopped,
    Cnf,
    CnfFile,
    StreamCheck,
    _first_violated,
    check_stream,
    model_values,
    read_cnf,
)
from cnfgen_queens.solvers.input_file import solver_input

from ..cnf.atomic import move_into, sweep_work_dirs, work_dir
from ..errors import InputError, UsageError
from ..limits import NEVER, Deadline, Limits
from .answer import read_answer
from .cgroup import choose
from .discovery import SolverSpec, resolve
from .embedded import solve_embedded
from .finished import Finished, keep
from .input_check import InputCheck
from .outcome import Outcome, ProofState, Status
from .process import run_process
from .profiles import DEFAULT_SOLVER, ProfileSource, proof_writers
from .proof import check_drat, write_text_proof

if TYPE_CHECKING:
    from cnfgen_queens.cnf.dimacs import Header
    from cnfgen_queens.cnf.scan import Cnf, CnfFile

STDERR_TAIL = 2000  # characters of stderr kept in the outcome
# issue 30: --time-limit T ends by T + 0.5 s: SIGTERM at the deadline (a solver with a time flag of its own gets
# OWN_LIMIT_SLACK more to stop by itself), SIGKILL KILL_GRACE later (one still parsing ignores SIGTERM)
OWN_LIMIT_SLACK = 0.1
KILL_GRACE = 0.2
MODEL_CHECK_GRACE = 0.25  # seconds past the deadline a model check may take before the run is a TIMEOUT


def check_model(
    cnf: Cnf | CnfFile | Path, model: Sequence[int] | ModelValues, deadline: Deadline = NEVER
) -> tuple[tuple[int, ...] | None, str | None]:
    """The full model and None, or None and the reason it is wrong.

    ``cnf`` is parsed (:class:`Cnf`) or a file, read clause by clause in bounded memory.
    The full model lists variables 1..M, where M is the largest variable the CNF or the
    model mentions; variables the solver left out are false.  ``model`` may be given as the values
    a streamed reader set (:class:`.model_sink.ModelValues`).  A check of a file
    still under way at ``deadline`` ends with :class:`.scan.CheckStopped`.
    """
    full, error, _ = _check(cnf, model, deadline)
    return full, error


def _check(
    cnf: Cnf | CnfFile | Path, model: Sequence[int] | ModelValues, deadline: Deadline = NEVER
) -> tuple[tuple[int, ...] | None, str | None, int]:
    """:func:`check_model` and the number of clauses the model satisfied (all of them when it is right)."""

    if isinstance(cnf, Path):
        cnf = CnfFile(cnf, str(cnf))
    header = cnf.header if isinstance(cnf, Cnf) else _header(cnf)
    if isinstance(model, ModelValues):  # read as a stream: its problem (a variable set twice, ...) found then
        value, error = (None, model.problem) if model.problem else (model.value, None)
    else:
        value, error = model_values(model, header.num_vars)
    if value is None:
        return None, error, 0
    if isinstance(cnf, Cnf):
        import numpy as np

        top = int(np.abs(cnf.lits).max()) if cnf.lits.size else 0
        check = StreamCheck(_first_violated(cnf.lits, np.frombuffer(value, dtype=np.bool_)), cnf.num_clauses, top)
    else:
        check = check_stream(cnf, value, stop=None if deadline.never else lambda: deadline.expired(MODEL_CHECK_GRACE))
    if check.violated is not None:
        index, clause = check.violated
        text = " ".join(map(str, clause)) + (" 0" if check.length is None else f" ... ({check.length} literals)")
        return None, f"model violates clause {index + 1} of {header.num_clauses}: {text}", index
    top = max(check.max_var, len(value) - 2)
    return tuple(v if v < len(value) and value[v] else -v for v in range(1, top + 1)), None, check.clauses


def _header(source: CnfFile) -> Header:

    return read_header_file(source.path, None)


@dataclass(frozen=True)
class RunContext:
    """What the caller of :func:`solve` already holds, all optional.

    ``cnf``: the same clauses, in memory (as the external enumeration loop holds them): the model is checked
    against those and the body is not read again.  ``name`` names the file in messages.  ``keep_output``: a
    binary solver's output (stdout, then stderr, as bounded by ``limits.output``) is copied there
    (atomically); an embedded one prints none.  ``deadline``: when ``limits.time`` ends, when its clock
    started before the call (the command's start)."""

    cnf: Cnf | None = None
    name: str | None = None
    keep_output: Path | None = None
    deadline: Deadline | None = None


@dataclass(frozen=True)
class _Job:
    """One run as the two paths below take it: the solver, the clauses it is checked against (None until known),
    its limits (the time: what is left of ``deadline``), its arguments and where its proof goes."""

    spec: SolverSpec
    source: Cnf | CnfFile | None
    limits: Limits
    args: Sequence[str]
    proof: Path | None
    deadline: Deadline


def solve(
    cnf_path: Path,
    solver: str | SolverSpec = DEFAULT_SOLVER,
    *,
    limits: Limits = Limits(),  # noqa: B008 (frozen)
    args: Sequence[str] = (),
    proof: Path | None = None,
    solvers_file: ProfileSource | None = None,
    context: RunContext = RunContext(),
) -> Outcome:
    """Run ``solver`` on ``cnf_path`` (plain or compressed) and return a checked :class:`Outcome`; ``solver``
    is a name (resolved here, with ``solvers_file``) or a :class:`.SolverSpec` its caller resolved once.

    A binary solver starts at once while this process reads the whole file beside it, streaming in
    bounded memory (:class:`.InputCheck`): a literal beyond the header's variables (or anything else
    that is not DIMACS) stops the solver and is a DimacsError, whatever the solver answered; a SAT
    model is then checked by streaming over the file again.  Both passes end at the time limit (a
    run whose input or model was not checked by then is a TIMEOUT).  With ``context.cnf`` the model is
    checked against those clauses instead (:class:`RunContext`).  The embedded solver loads the clauses itself.
    Raises SolverNotFound (one-line message) for an unknown or missing solver, ProfileError for a
    bad solvers file, DimacsError/OSError for an unreadable CNF, UsageError when ``proof`` is asked
    of a solver that writes none.
    """
    # no deadline given: the clock starts here (reading the input and the version probe count)
    deadline = context.deadline if context.deadline is not None else Deadline.after(limits.time)
    spec = solver if isinstance(solver, SolverSpec) else resolve(solver, solvers_file)
    # a FIFO or pipe is read once, into a file of ours; the file is held open and read (by the solver too)
    # through its descriptor: the same bytes whatever happens to its name during the run
    with readable(cnf_path, deadline) as named, held(named.path) as path:
        if not named.whole:
            return _not_started(spec, None, Status.TIMEOUT, UNREAD_PIPE, "rusage")
        try:
            return _solve_held(named.path, path, _Job(spec, context.cnf, limits, args, proof, deadline), context)
        except InputError as e:  # a reader that named the descriptor (a codec's error): the name instead
            e.args = (str(e).replace(str(path), context.name or str(named.path)),)
            raise


UNREAD_PIPE = "time limit reached before the input (a FIFO or pipe) ended"


def _solve_held(named: Path, path: Path, job: _Job, context: RunContext) -> Outcome:
    """:func:`solve` of the file held at ``path`` (``named``: its name, whose extension says how it is compressed);
    ``job.source`` is the caller's parsed clauses (``context.cnf``) or None."""
    spec, name, cnf, deadline = job.spec, context.name or str(named), context.cnf, job.deadline
    read_header_file(named)  # not DIMACS, or a header beyond 2^31-1 variables: fail before the solver starts
    if spec.embedded is not None:  # its forked child reads the file
        source = cnf if cnf is not None else CnfFile(path, name)
        outcome = _solve_embedded(replace(job, source=source))
        return _validated(outcome, source, deadline)
    assert spec.profile is not None
    _sweep_once()
    with work_dir("input") as tmp, solver_input(spec.profile, path, str(tmp), deadline.expired, named) as given:
        if given is None:
            return _not_started(
                spec,
                None,
                Status.TIMEOUT,
                "time limit reached before the solver started (decompressing the input for it took it)",
                "rusage",
            )
        source = cnf if cnf is not None else CnfFile(given, name)  # the plain copy checks faster
        job = replace(job, source=source)
        if not isinstance(source, CnfFile):
            return _solve_binary(job, given, context.keep_output)
        with InputCheck(source, deadline) as check:  # every literal within the header, read beside the solver
            return _solve_binary(job, given, context.keep_output, check)


_swept = False


def _sweep_once() -> None:
    """At a process's first binary solve, remove the work directories a ``kill -9`` of an earlier
    process left in $TMPDIR (never one still in use: each is locked by its process)."""
    global _swept
    if not _swept:
        _swept = True
        sweep_work_dirs()


def _validated(outcome: Outcome, source: Cnf | CnfFile, deadline: Deadline = NEVER) -> Outcome:
    """After UNSAT or an error, read the whole file: a malformed body is a DimacsError (exit 2), whatever
    the solver made of it; a file not read whole by the deadline makes the run a TIMEOUT."""

    if outcome.status not in (Status.UNSAT, Status.ERROR) or not isinstance(source, CnfFile):
        return outcome
    start = time.perf_counter()
    try:
        check_stream(source, None, stop=lambda: deadline.expired(MODEL_CHECK_GRACE))
    except CheckStopped:
        return replace(outcome, status=Status.TIMEOUT, error=UNCHECKED_INPUT, verified=False, proof=None)
    return replace(outcome, check_time=(outcome.check_time or 0.0) + time.perf_counter() - start)


UNCHECKED_INPUT = "time limit reached before the input was read whole (every literal is checked against the header)"
UNCHECKED_MODEL = "time limit reached before the model was checked against every clause"


def _timed_check(
    cnf: Cnf | CnfFile, model: Sequence[int] | ModelValues, deadline: Deadline = NEVER
) -> tuple[tuple[int, ...] | None, str | None, float, int]:
    """(full model or None, why not, seconds, clauses checked); CheckStopped past the deadline."""
    start = time.perf_counter()
    full, error, clauses = _check(cnf, model, deadline)
    return full, error, time.perf_counter() - start, clauses


def _solve_embedded(job: _Job) -> Outcome:
    """Run the embedded solver in a process of its own and check what it says."""
    spec, cnf, limits, proof, args, deadline = job.spec, job.source, job.limits, job.proof, job.args, job.deadline
    assert cnf is not None
    if args:
        raise UsageError(f"embedded solver {spec.name} takes no solver arguments (got {shlex.join(args)})")
    assert spec.embedded is not None
    left = deadline.left()
    if left == 0:
        return _not_started(
            spec, spec.version, Status.TIMEOUT, "time limit reached before the solver started", "rusage"
        )
    run = solve_embedded(spec.embedded, cnf, limits, want_proof=proof is not None, timeout=left, grace=KILL_GRACE)
    status, error, model, verified, check_time, checked = run.status, run.error, None, False, None, None
    if status is Status.SAT:
        try:
            model, error, check_time, checked = _timed_check(cnf, run.model or (), deadline)
            status, verified = (Status.SAT, True) if model is not None else (Status.ERROR, False)
        except CheckStopped:
            status, error = Status.TIMEOUT, UNCHECKED_MODEL
    proof_state: ProofState | None = None
    if proof is not None and status is Status.UNSAT and run.proof_lines is not None:
        write_text_proof(proof, run.proof_lines)
        status, error, verified, proof_state = _check_proof(cnf, proof)
    return Outcome(
        status=status,
        solver=spec.name,
        version=spec.version,
        model=model,
        exit_code=run.exit_code if run.status in (Status.ERROR, Status.MEMOUT) else None,
        wall=run.wall,
        cpu=run.cpu,
        peak_memory_mb=run.peak_memory_mb,
        verified=verified,
        error=error,
        stderr_tail="",
        proof=proof_state,
        check_time=check_time,
        clauses_checked=checked if model is not None else None,
        model_rejected=run.status is Status.SAT and model is None,
    )


def _check_proof(cnf: Cnf | CnfFile, proof: Path) -> tuple[Status, str | None, bool, ProofState]:
    """(status, note, verified, proof state) for an UNSAT answer whose DRAT proof is at ``proof``."""

    if isinstance(cnf, CnfFile):
        cnf = read_cnf(cnf.path)  # the in-process checker needs every clause

    check = check_drat(cnf, proof)
    if check.verdict is ProofState.REJECTED:
        return Status.ERROR, f"UNSAT proof rejected: {check.detail}", False, ProofState.UNVERIFIED
    if check.verdict is ProofState.VERIFIED:
        return Status.UNSAT, None, True, ProofState.VERIFIED
    return Status.UNSAT, f"proof {check.detail}", False, ProofState.UNVERIFIED


@dataclass(frozen=True)
class _Ran:
    """A binary's finished run, as its outcome is judged: what it printed and wrote (its files in the work
    directory), its version, and the limits it ran under (the time: what was left of the deadline)."""

    run: Finished
    version: str | None
    limits: Limits
    model_file: Path | None
    proof_file: Path | None


def _solve_binary(
    job: _Job, cnf_path: Path, keep_output: Path | None = None, check: InputCheck | None = None
) -> Outcome:
    """Run the binary for what is left of ``deadline`` after its version probe (which gets at most that),
    beside ``check`` (the input check, already reading): its error stops the run and is raised."""
    spec, profile = job.spec, job.spec.profile
    assert profile is not None and spec.path is not None
    if job.proof is not None and not profile.proof:
        raise UsageError(f"solver {spec.name} writes no DRAT proof; --proof works with {proof_writers()}")
    isolation = choose(job.limits.isolation)
    measured_by = "cgroup" if isolation == "cgroup" else "rusage"
    version = spec.version_within(job.deadline.left())
    limits, left = job.limits, job.deadline.left()
    if left is not None:
        if left <= 0:
            return _not_started(
                spec,
                version,
                Status.TIMEOUT,
                "time limit reached before the solver started "
                "(reading the input and asking the solver for its version took it)",
                measured_by,
            )
        limits = replace(limits, time=left)
    with work_dir("solve") as tmp:
        model_file = Path(tmp) / "model.txt" if profile.result_file else None
        proof_file = Path(tmp) / "proof.drat" if job.proof is not None else None
        argv = profile.command(
            spec.path,
            cnf_path,
            model=model_file,
            proof=proof_file,
            time=limits.time,
            memory=limits.memory,
            args=job.args,
        )
        timeout = None
        if limits.time is not None:
            own = profile.uses_own_time_limit
            timeout = limits.time + (OWN_LIMIT_SLACK if own else 0.0)  # from this instant: left above

        if check is not None:
            check.start()
        try:
            run = run_process(
                argv,
                output_dir=Path(tmp),
                timeout=timeout,
                limits=replace(limits, isolation=isolation),
                grace=KILL_GRACE,
                abort=None if check is None else check.failed,
            )
        except OSError as e:
            if check is not None:
                check.finish()  # a bad input is the error to report, as when the solver ran
            return _not_started(
                spec, version, Status.ERROR, f"cannot start {shlex.join(argv)}: {e.strerror or e}", measured_by
            )
        if keep_output is not None:
            keep(run, keep_output, model_file)
        input_read = check is None or check.finish()  # the input's error outranks any answer: raised here
        return _judged(job, _Ran(run, version, limits, model_file, proof_file), input_read)


def _judged(job: _Job, ran: _Ran, input_read: bool) -> Outcome:
    """The outcome of a binary's run: its answer read (within the deadline), a model checked against the
    clauses, a proof moved to where it was asked and checked; an input not read to its end makes it a
    TIMEOUT (unchecked)."""
    cnf, run, profile, deadline = job.source, ran.run, job.spec.profile, job.deadline
    assert cnf is not None and profile is not None
    stderr = run.stderr.decode("utf-8", "replace")
    sink = ModelSink(cnf.num_vars if isinstance(cnf, Cnf) else _header(cnf).num_vars)  # O(V), not O(output)
    stop = None if deadline.never else lambda: deadline.expired(MODEL_CHECK_GRACE)  # the reading ends then too
    status, error, claim = read_answer(profile, run, ran.model_file, ran.limits, stderr, sink, stop)
    model, verified, check_time, checked = None, False, None, None
    if not input_read and status is not Status.TIMEOUT:
        status, error = Status.TIMEOUT, UNCHECKED_INPUT
    claim_sat = status is Status.SAT
    if status is Status.SAT:
        try:
            said = () if claim.model is None else claim.model  # an empty model may carry its problem
            model, error, check_time, checked = _timed_check(cnf, said, deadline)
            status, verified = (Status.SAT, True) if model is not None else (Status.ERROR, False)
        except CheckStopped:
            status, error, claim_sat = Status.TIMEOUT, UNCHECKED_MODEL, False
    last = next((line.strip() for line in reversed(stderr.splitlines()) if line.strip()), "")
    if status in (Status.ERROR, Status.MEMOUT) and last and error and last not in error:
        error += f" ({last[:120]})"
    if run.leftovers and status is not Status.TIMEOUT:
        error = (error + "; " if error else "") + f"killed {run.leftovers} process(es) it left running"
    proof_state: ProofState | None = None
    if job.proof is not None and ran.proof_file is not None and ran.proof_file.exists():
        move_into(ran.proof_file, job.proof)  # through the atomic layer: a symlink written through, a FIFO refused
        if status is Status.UNSAT:
            status, perr, verified, proof_state = _check_proof(cnf, job.proof)
            error = perr or error
    elif job.proof is not None and status is Status.UNSAT:
        proof_state, error = ProofState.UNVERIFIED, "the solver wrote no proof file"
    return Outcome(
        status=status,
        solver=job.spec.name,
        version=ran.version,
        model=model,
        exit_code=run.exit_code,
        wall=run.wall,
        cpu=run.cpu,
        peak_memory_mb=run.peak_memory_mb,
        verified=verified,
        error=error,
        stderr_tail=stderr[-STDERR_TAIL:] if stderr.strip() else "",
        proof=proof_state,
        check_time=check_time,
        clauses_checked=checked if model is not None else None,
        measured_by=run.measured_by,
        model_rejected=claim_sat and model is None,
    )


def _not_started(spec: SolverSpec, version: str | None, status: Status, error: str, measured_by: str) -> Outcome:
    """The outcome of a binary that never ran: ``status`` and why."""
    return Outcome.not_started(spec.name, status, error, version, measured_by)
