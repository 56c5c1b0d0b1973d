"""``cnfgen-queens solve FILE|-``: run a SAT solver, check its answer, print SAT-competition output.

Exit codes follow the SAT competition: 10 SAT, 20 UNSAT, 0 unknown or a limit
reached, 1 solver error, 2 usage error.  A wrong answer is a solver error (1, ``s UNKNOWN``), as
``batch`` judges it: a model that violates a clause or whose queens are no board of the header's N and
variant, or UNSAT for an unchanged file whose header describes a board with a published positive count
(:mod:`..solutions.known_answer`; ``--json`` gives its ``answer``, ``verdict`` and ``checked`` as a batch stores
them).  A ``c checked:`` line says how the answer was checked (``model-verified``, ``proof-verified``,
``published-count`` or ``unchecked``); ``--require-checked`` makes an unchecked UNSAT an error too.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from cnfgen_queens.cnf.atomic import NotAFile, check_output_target
from cnfgen_queens.cnf.compressed import InputError
from cnfgen_queens.cnf.dimacs import Header, n_clauses, read_header_file
from cnfgen_queens.cnf.read_once import readable
from cnfgen_queens.cnf.same_file import refuse_alias
from cnfgen_queens.errors import printable, warn
from cnfgen_queens.limits import Deadline, Limits

from ..solutions.known_answer import UNCHECKED_WHY, Judgement, judge_answer
from ..solvers import ProfileError, RunContext, SolverMissing, SolverNotFound, SolverSpec, Status, resolve, solve
from ..solvers.outcome import EXIT_CODES, S_LINES, Checked, Outcome
from .common import EXIT_ENVIRONMENT, fail
from .model_input import echo_lines, header_echo
from .run_options import command_start, limits_from, measured
from .solve_args import add_arguments as add_arguments  # the dispatcher reads them there (--help loads no runner)

V_LINE = 78  # characters per v line, as kissat and cadical wrap


def _v_lines(model: tuple[int, ...]) -> str:
    lines, line = [], "v"
    for tok in (*map(str, model), "0"):
        if len(line) + 1 + len(tok) > V_LINE:
            lines.append(line)
            line = "v"
        line += " " + tok
    lines.append(line)
    return "\n".join(lines) + "\n"


def _header(path: Path, whole: bool) -> Header | None:
    """The CNF header of ``path``; None when the file is not ``whole`` (stdin cut short by the deadline) and
    its header is not all there: a TIMEOUT, not a malformed file."""
    try:
        return read_header_file(path, None)  # solve() warns (once) about a misnamed file
    except ValueError:
        if whole:
            raise
        return None


def _cut_short(solver: str, size: int, name: str) -> Outcome:
    """The outcome of a run whose stdin (or FIFO, pipe) the time limit cut short before its header was read:
    no solver ran."""
    shown = "stdin" if name == "<stdin>" else name
    error = f"time limit reached before the header was read ({shown} gave {size} bytes)"
    return Outcome.not_started(solver, Status.TIMEOUT, error)


@dataclass(frozen=True)
class SolveRequest:
    """One ``solve`` as its options ask it, checked at the door: the input as the user named it (``-``:
    stdin), the solver resolved once, its limits and extra arguments, the proof file."""

    file: str
    spec: SolverSpec
    limits: Limits
    args: tuple[str, ...] = ()
    proof: Path | None = None

    @property
    def name(self) -> str:
        """The input in messages and c lines."""
        return "<stdin>" if self.file == "-" else self.file


@dataclass(frozen=True)
class Solved:
    """What ``solve`` prints: the solver's outcome, its judgement, the input's header (None: stdin cut short
    within it) and the command's wall time."""

    outcome: Outcome
    judged: Judgement
    header: Header | None
    command_wall: float = 0.0

    @property
    def wrong(self) -> str | None:
        """Why the answer is not accepted (a wrong one, or one --require-checked refuses), or None."""
        return self.judged.problem


def run(args: argparse.Namespace) -> int:
    start, since = time.perf_counter(), command_start()
    request = solve_request(args)
    with contextlib.ExitStack() as given:  # no spool left behind
        deadline = Deadline.after(request.limits.time, since=since)
        solved = _solve(request, given, deadline, args.require_checked)
    solved = replace(solved, command_wall=time.perf_counter() - start)
    checked = solved.outcome.clauses_checked
    header = solved.header
    if checked is not None and header is not None and checked != header.num_clauses:  # the file's count was checked
        warn(f"{request.name}: header says {n_clauses(header.num_clauses)}, file has {checked}")
    code = EXIT_CODES[Status.ERROR] if solved.wrong else solved.outcome.exit_status  # a wrong answer is not passed on
    outcome = solved.outcome
    if args.json:
        print(json.dumps(json_record(request, solved, args.no_model)))
        if solved.wrong:
            _error(args.prog, outcome.solver, solved.wrong)
        return code
    lines = c_lines(request, solved, args.isolation)
    sys.stdout.write("".join(printable(line) + "\n" for line in lines))  # a name's newline stays inside its c line
    if outcome.model is not None and not args.no_model:
        sys.stdout.write(_v_lines(outcome.model))
    sys.stdout.flush()
    if outcome.status is Status.ERROR or solved.wrong:
        _error(args.prog, outcome.solver, solved.wrong or outcome.error)
    return code


def _error(prog: str, solver: str, why: str | None) -> None:
    print(f"{prog}: error: {printable(f'{solver}: {why}')}", file=sys.stderr)


def solve_request(args: argparse.Namespace) -> SolveRequest:
    """The options as one :class:`SolveRequest`; a bad value is a one-line error (exit 2; 1 for a known solver
    that is not installed here), in the order the options are checked."""
    limits = limits_from(args, args.time_limit, args.memory_limit)
    solvers_file = Path(args.solvers_file) if args.solvers_file else None
    try:
        extra = tuple(shlex.split(args.solver_args))
    except ValueError as e:
        fail(f"--solver-args: {e}")
    proof = Path(args.proof) if args.proof else None
    if proof is not None:
        refuse_alias(proof, [args.file, args.solvers_file], "--proof")
        try:
            check_output_target(proof)  # a file: the proof is read back (checked) and moved into place
        except NotAFile as e:
            fail(f"--proof: {e}")
        except OSError as e:
            fail(f"cannot write {proof}: {e}")
    try:
        spec = resolve(args.solver, solvers_file)
    except SolverMissing as e:  # a known solver not installed: the environment
        fail(str(e), EXIT_ENVIRONMENT)
    except (SolverNotFound, ProfileError) as e:
        fail(str(e))
    return SolveRequest(args.file, spec, limits, extra, proof)


def _solve(request: SolveRequest, given: contextlib.ExitStack, deadline: Deadline, require_checked: bool) -> Solved:
    """Read the input (once: stdin, a FIFO or a pipe is spooled into a file ``given`` removes), run the solver
    on it and judge its answer; an input or a file written on the way that fails is a one-line error."""
    name = request.name
    try:  # stdin, a FIFO or a pipe (<(gen-queens 8)) is read once, into a file of ours
        once = given.enter_context(readable(request.file, deadline))
    except InputError as e:
        fail(str(e))
    path = once.path
    if request.file != "-" and (Path(request.file).is_char_device() or Path(request.file).is_block_device()):
        fail(f"{name}: a device, not a CNF file (an endless one could fill the memory)")
    try:
        header = _header(path, once.whole)
        if header is None:  # the deadline cut stdin short within its header: a TIMEOUT like any other
            cut = _cut_short(request.spec.name, path.stat().st_size, name)
            return Solved(cut, Judgement(Status.TIMEOUT, None), None)
        outcome = solve(
            path,
            request.spec,
            limits=request.limits,
            args=request.args,
            proof=request.proof,
            context=RunContext(name=name, deadline=deadline),
        )
        return Solved(outcome, judge_answer(outcome, header, path, require_checked=require_checked), header)
    except OSError as e:  # the input's, or a file written on the way (the proof, a work file): named
        if e.filename is not None and os.path.abspath(e.filename) != os.path.abspath(path):
            fail(f"{e.filename}: {e.strerror or e}", EXIT_ENVIRONMENT)
        fail(f"cannot read {name}: {e.strerror or e}")
    except InputError as e:
        fail(str(e).replace(str(path), name))
    except (SolverNotFound, ProfileError, ValueError) as e:
        fail(str(e).replace(str(path), name))  # a spooled FIFO's copy: named as the user named it


def json_record(request: SolveRequest, solved: Solved, no_model: bool) -> dict[str, object]:
    """``solve --json``'s record: the outcome's fields, the judgement as a batch stores it, the header."""
    outcome, judged, header = solved.outcome, solved.judged, solved.header
    record = {
        "file": request.name,
        "solver_path": request.spec.path,
        **outcome.to_dict(),
        "command_wall": solved.command_wall,
        "cnf_header": [] if header is None else echo_lines(header),
    }
    if no_model:
        record["model"] = None
    record["checked"] = None if judged.checked is None else judged.checked.value
    record["answer"], record["verdict"] = judged.answer.value, judged.verdict.value
    if judged.wrong:
        record["wrong_answer"] = judged.wrong
    if judged.refused:
        record["refused"] = judged.refused
    return record


def c_lines(request: SolveRequest, solved: Solved, isolation: str) -> list[str]:
    """The ``c`` lines and the ``s`` line of a run: the solver, the header's board, times, then the answer."""
    outcome, spec = solved.outcome, request.spec
    out = [
        f"c cnfgen-queens solve {request.name}",
        f"c solver {outcome.solver} {outcome.version or '(version unknown)'}"
        + (f" at {spec.path}" if spec.path else " (embedded)"),
    ]
    out += [] if solved.header is None else header_echo(solved.header)  # N, shuffle seed, variant: decode needs no -n
    out.append(_times(outcome) + measured(outcome.measured_by, isolation, spec.path is not None))
    check = f"  check {outcome.check_time:.3f} s" if outcome.check_time is not None else ""
    out.append(f"c command wall {solved.command_wall:.3f} s{check}")
    return out + _answer_lines(solved, request.proof)


def _answer_lines(solved: Solved, proof: Path | None) -> list[str]:
    """The answer's ``c`` lines (status, how it was checked, the proof, errors) and its ``s`` line."""
    outcome, judged, wrong = solved.outcome, solved.judged, solved.wrong
    out = [f"c status {outcome.status}"]
    if judged.checked is not None:
        why = f" ({UNCHECKED_WHY})" if outcome.status is Status.UNSAT and judged.checked is Checked.UNCHECKED else ""
        out.append(f"c checked: {judged.checked}{why}")
    if outcome.status is Status.SAT and outcome.clauses_checked is not None:
        out.append(f"c model verified against all {outcome.clauses_checked} clauses")
    if outcome.proof is not None:
        out.append(f"c proof {proof} {outcome.proof}")
    elif proof is not None and outcome.status is Status.SAT:
        out.append(f"c proof {proof} not checked: the answer is SAT and the verified model is its certificate")
    if outcome.error:
        out.append(f"c {'error' if outcome.status is Status.ERROR else 'note'}: {outcome.error}")
    if wrong and wrong != outcome.error:  # a model that fails the clause check: its error, said once
        out.append(f"c error: {wrong}")
    if outcome.status is Status.ERROR and outcome.stderr_tail:
        out += [f"c stderr: {line}" for line in outcome.stderr_tail.splitlines()[-5:]]
    out.append(f"s {'UNKNOWN' if wrong else S_LINES.get(outcome.status, 'UNKNOWN')}")
    return out


def _times(outcome: Outcome) -> str:
    """The ``c wall`` line: wall, CPU, peak memory and exit code, those that were measured."""
    times = f"c wall {outcome.wall:.3f} s"
    if outcome.cpu is not None:
        times += f"  cpu {outcome.cpu:.3f} s"
    if outcome.peak_memory_mb is not None:
        times += f"  peak {outcome.peak_memory_mb:.1f} MB"
    if outcome.exit_code is not None:
        times += f"  exit {outcome.exit_code}"
    return times
