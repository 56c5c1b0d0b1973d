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
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from cnfgen_queens.cnf.atomic import NotAFile, check_output_target
from cnfgen_queens.cnf.compressed import InputError
from cnfgen_queens.cnf.dimacs import n_clauses, read_header_file
from cnfgen_queens.cnf.read_once import readable
from cnfgen_queens.cnf.same_file import refuse_alias
from cnfgen_queens.errors import printable, warn
from cnfgen_queens.limits import Deadline

from ..solutions.known_answer import UNCHECKED_WHY, Judgement, judge_answer
from ..solvers import ProfileError, RunContext, SolverMissing, SolverNotFound, Status, resolve, solve
from ..solvers.outcome import EXIT_CODES, S_LINES, Checked, Outcome
from .common import EXIT_ENVIRONMENT, fail
from .model_input import echo_lines, header_echo
from .run_options import command_start, limits_from, measured
from .solve_args import add_arguments as add_arguments  # the dispatcher reads them there (--help loads no runner)

if TYPE_CHECKING:
    from cnfgen_queens.cnf.dimacs import Header

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
    return Outcome(status=Status.TIMEOUT, solver=solver, version=None, model=None, exit_code=None, wall=0.0,
                   cpu=None, peak_memory_mb=None, verified=False, stderr_tail="", proof=None,
                   error=f"time limit reached before the header was read ({shown} gave {size} bytes)")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    import json
    import shlex

    start, since = time.perf_counter(), command_start()
    solver = args.solver
    limits = limits_from(args, args.time_limit, args.memory_limit)
    solvers_file = Path(args.solvers_file) if args.solvers_file else None
    try:
        extra = shlex.split(args.solver_args)
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
        spec = resolve(solver, solvers_file)
    except SolverMissing as e:  # a known solver not installed: the environment
        fail(str(e), EXIT_ENVIRONMENT)
    except (SolverNotFound, ProfileError) as e:
        fail(str(e))

    with contextlib.ExitStack() as given:  # no spool left behind
        deadline = Deadline.after(limits.time, since=since)
        name = "<stdin>" if args.file == "-" else args.file
        try:  # stdin, a FIFO or a pipe (<(gen-queens 8)) is read once, into a file of ours
            once = given.enter_context(readable(args.file, deadline))
        except InputError as e:
            fail(str(e))
        path, whole = once.path, once.whole
        if args.file != "-" and (Path(args.file).is_char_device() or Path(args.file).is_block_device()):
            fail(f"{name}: a device, not a CNF file (an endless one could fill the memory)")
        try:
            header = _header(path, whole)
            if header is None:  # the deadline cut stdin short within its header: a TIMEOUT like any other
                outcome, judged = _cut_short(spec.name, path.stat().st_size, name), Judgement(Status.TIMEOUT, None)
            else:
                outcome = solve(path, solver, limits=limits, args=extra, proof=proof, solvers_file=solvers_file,
                                context=RunContext(name=name, deadline=deadline))  # fmt: skip
                judged = judge_answer(outcome, header, path, require_checked=args.require_checked)
        except OSError as e:  # the input's, or a file written on the way (the proof, a work file): named
            if e.filename is not None and os.path.abspath(e.filename) != os.path.abspath(path):
                fail(f"{e.filename}: {e.strerror or e}", EXIT_ENVIRONMENT)
            fail(f"cannot read {name}: {e.strerror or e}")
        except InputError as e:
            fail(str(e).replace(str(path), name))
        except (SolverNotFound, ProfileError, ValueError) as e:
            fail(str(e).replace(str(path), name))  # a spooled FIFO's copy: named as the user named it
    command_wall = time.perf_counter() - start
    checked = outcome.clauses_checked
    if checked is not None and header is not None and checked != header.num_clauses:  # the file's count was checked
        warn(f"{name}: header says {n_clauses(header.num_clauses)}, file has {checked}")
    wrong = judged.problem
    code = EXIT_CODES[Status.ERROR] if wrong else outcome.exit_status  # a wrong answer is not passed on
    if args.json:
        record = {"file": name, "solver_path": spec.path, **outcome.to_dict(), "command_wall": command_wall,
                  "cnf_header": [] if header is None else echo_lines(header)}  # fmt: skip
        if args.no_model:
            record["model"] = None
        record["checked"] = None if judged.checked is None else judged.checked.value
        record["answer"], record["verdict"] = judged.answer.value, judged.verdict.value
        if judged.wrong:
            record["wrong_answer"] = judged.wrong
        if judged.refused:
            record["refused"] = judged.refused
        print(json.dumps(record))
        if wrong:
            print(f"{args.prog}: error: {printable(f'{outcome.solver}: {wrong}')}", file=sys.stderr)
        return code
    out = [f"c cnfgen-queens solve {name}", f"c solver {outcome.solver} {outcome.version or '(version unknown)'}"
           + (f" at {spec.path}" if spec.path else " (embedded)")]  # fmt: skip
    out += [] if header is None else header_echo(header)  # N, shuffle seed and variant: decode/block need no -n
    times = f"c wall {outcome.wall:.3f} s"
    if outcome.cpu is not None:
        times += f"  cpu {outcome.cpu:.3f} s"
    if outcome.peak_memory_mb is not None:
        times += f"  peak {outcome.peak_memory_mb:.1f} MB"
    if outcome.exit_code is not None:
        times += f"  exit {outcome.exit_code}"
    out.append(times + measured(outcome.measured_by, args.isolation, spec.path is not None))
    check = f"  check {outcome.check_time:.3f} s" if outcome.check_time is not None else ""
    out.append(f"c command wall {command_wall:.3f} s{check}")
    out.append(f"c status {outcome.status}")
    if judged.checked is not None:
        why = f" ({UNCHECKED_WHY})" if outcome.status is Status.UNSAT and judged.checked is Checked.UNCHECKED else ""
        out.append(f"c checked: {judged.checked}{why}")
    if outcome.status is Status.SAT and checked is not None:
        out.append(f"c model verified against all {checked} clauses")
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
    sys.stdout.write("".join(printable(line) + "\n" for line in out))  # a name's newline stays inside its c line
    if outcome.model is not None and not args.no_model:
        sys.stdout.write(_v_lines(outcome.model))
    sys.stdout.flush()
    if outcome.status is Status.ERROR or wrong:
        print(f"{args.prog}: error: {printable(f'{outcome.solver}: {wrong or outcome.error}')}", file=sys.stderr)
    return code
