"""Reading what solvers print, forgiving but never silent.

Competition style (SAT Competition output rules): ``c`` comments, one ``s`` line,
``v`` lines that may wrap and end with ``0``, in any order (clasp prints ``v``
before ``s``); ``s INDETERMINATE`` (cryptominisat5) means UNKNOWN.  MiniSat style:
the result file holds ``SAT``/``UNSAT``/``INDET`` and the model.  The ``s`` line and
the model are the truth; the exit code is a cross-check, and a contradiction is an
error.  Nothing here runs a process or checks a model against clauses.
"""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass

from .outcome import Limits, Status
from .profiles import Profile

ANSWERS = {"SATISFIABLE": "SAT", "UNSATISFIABLE": "UNSAT", "UNKNOWN": "UNKNOWN", "INDETERMINATE": "UNKNOWN"}
MINISAT_ANSWERS = {"SAT": "SAT", "UNSAT": "UNSAT", "INDET": "UNKNOWN"}
MEMORY_WORDS = re.compile(r"out of memory|bad_alloc|cannot allocate|memory ?limit|memoryerror|allocation fail", re.I)
LIMIT_SLACK = 0.95  # a run that used this share of its time limit and gave up hit the limit


@dataclass(frozen=True)
class Claim:
    """What the output says: the answer, the model literals, and the first thing that made no sense."""

    answer: str | None  # "SAT" | "UNSAT" | "UNKNOWN" | None (no answer line)
    model: tuple[int, ...] | None  # literals of the v lines / result file, without the final 0
    terminated: bool  # the model ended with 0
    problem: str | None  # malformed output that is an error whatever the exit code
    garbage: str | None  # the first line that is neither c, s nor v


def _short(line: str) -> str:
    return line if len(line) <= 80 else line[:77] + "..."


def parse_competition(text: str) -> Claim:
    """Parse s/v/c output (v lines may come before s, and wrap)."""
    answer: str | None = None
    lits: list[int] | None = None
    terminated = False
    problem = garbage = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or (line[0] == "c" and (len(line) == 1 or line[1] in " \t")):
            continue
        head, _, rest = line.partition(" ")
        if head == "s":
            word = rest.strip()
            got = ANSWERS.get(word)
            if got is None:
                problem = problem or f"unrecognised answer line {_short(line)!r}"
            elif answer is not None and got != answer:
                problem = problem or f"conflicting answer lines: 's {word}' after {answer}"
            else:
                answer = got
        elif head == "v":
            lits = [] if lits is None else lits
            for tok in rest.split():
                try:
                    lit = int(tok)
                except ValueError:
                    problem = problem or f"not a literal in a v line: {tok!r}"
                    continue
                if terminated:
                    problem = problem or "v line literals after the terminating 0"
                elif lit == 0:
                    terminated = True
                else:
                    lits.append(lit)
        else:
            garbage = garbage or _short(line)
    return Claim(answer, None if lits is None else tuple(lits), terminated, problem, garbage)


def parse_minisat(result: str | None) -> Claim:
    """Parse a MiniSat result file: ``SAT`` then the model line, ``UNSAT``, or ``INDET``."""
    if result is None or not result.strip():
        return Claim(None, None, False, None, None)
    first, _, rest = result.strip().partition("\n")
    answer = MINISAT_ANSWERS.get(first.strip())
    if answer is None:
        return Claim(None, None, False, f"result file starts with {_short(first)!r}, not SAT/UNSAT/INDET", None)
    if answer != "SAT":
        return Claim(answer, None, False, "result file has a model after " + first if rest.strip() else None, None)
    lits: list[int] = []
    terminated = False
    for tok in rest.split():
        try:
            lit = int(tok)
        except ValueError:
            return Claim(answer, tuple(lits), False, f"not a literal in the result file: {tok!r}", None)
        if lit == 0:
            terminated = True
            break
        lits.append(lit)
    return Claim(answer, tuple(lits) if rest.strip() else None, terminated, None, None)


def describe_exit(code: int | None) -> str:
    if code is None:
        return "no exit code"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def classify(
    claim: Claim,
    profile: Profile,
    exit_code: int,
    *,
    timed_out: bool,
    limits: Limits,
    wall: float,
    cpu: float | None,
    output: str,
) -> tuple[Status, str | None]:
    """The status a run supports before the model check, with the reason when it is not an answer."""
    sat, unsat = exit_code in profile.sat_exit, exit_code in profile.unsat_exit
    if timed_out:
        return Status.TIMEOUT, f"stopped at the {limits.time:g} s wall-clock limit"
    if claim.problem is not None:
        return Status.ERROR, f"malformed output: {claim.problem}"
    if claim.answer == "SAT":
        if not sat:
            return Status.ERROR, f"answer SATISFIABLE but {describe_exit(exit_code)}"
        if claim.model is None:
            return Status.ERROR, "answer SATISFIABLE but no model"
        if not claim.terminated:
            return Status.ERROR, "model not terminated by 0 (truncated output?)"
        return Status.SAT, None
    if claim.answer == "UNSAT":
        if not unsat:
            return Status.ERROR, f"answer UNSATISFIABLE but {describe_exit(exit_code)}"
        if claim.model:
            return Status.ERROR, "answer UNSATISFIABLE but a model was printed"
        return Status.UNSAT, None
    if sat or unsat:
        what = "answer UNKNOWN" if claim.answer else "no answer line"
        return Status.ERROR, f"{what} but {describe_exit(exit_code)} ({'SAT' if sat else 'UNSAT'})"
    out_of_memory = bool(MEMORY_WORDS.search(output)) or (
        limits.memory is not None
        and (
            exit_code in (-signal.SIGSEGV, -signal.SIGABRT, -signal.SIGKILL)
            # MiniSat catches its out-of-memory exception: INDETERMINATE on stdout, no result file
            or (profile.output == "minisat" and claim.answer is None and "INDETERMINATE" in output)
        )
    )
    if claim.answer is None and (claim.garbage or exit_code not in profile.unknown_exit):
        if out_of_memory:
            return Status.MEMOUT, f"out of memory ({describe_exit(exit_code)})"
        if claim.garbage:
            return Status.ERROR, f"unparseable output ({describe_exit(exit_code)}): {claim.garbage!r}"
        return Status.ERROR, f"no answer, {describe_exit(exit_code)}"
    used = max(wall, cpu or 0.0)
    if limits.time is not None and used >= LIMIT_SLACK * limits.time:
        return Status.TIMEOUT, f"the solver's own limit stopped it after {used:.2f} s"
    if claim.answer is None and exit_code != 0 and not out_of_memory:
        # a non-zero "unknown" code (clasp's 1) means a limit only when a limit was reached
        return Status.ERROR, f"no answer, {describe_exit(exit_code)} before any limit"
    if out_of_memory:
        return Status.MEMOUT, f"out of memory ({describe_exit(exit_code)})"
    if claim.answer is None:
        return Status.UNKNOWN, f"no answer line, {describe_exit(exit_code)}"
    return Status.UNKNOWN, None
