"""Reading what solvers print, forgiving but never silent.

Competition style (SAT Competition output rules): ``c`` comments, one ``s`` line,
``v`` lines that may wrap and end with ``0``, in any order (clasp prints ``v``
before ``s``); ``s INDETERMINATE`` (cryptominisat5) means UNKNOWN.  MiniSat style:
the result file holds ``SAT``/``UNSAT``/``INDET`` and the model.  The ``s`` line and
the model are the truth; the exit code is a cross-check, and a contradiction is an
error.  Nothing here runs a process or checks a model against clauses.
"""

from __future__ import annotations

import io
import signal
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cnfgen_queens.bounds import MAX_TOKEN
from cnfgen_queens.cnf.model_sink import ModelSink, ModelValues
from cnfgen_queens.cnf.scan import CheckStopped, Prefixed, fast_literals

from .output_lines import output_lines

if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Sequence
    from typing import BinaryIO

    import numpy as np

    from ..limits import Limits
    from .finished import Finished
    from .profiles import Profile
    from .status import Status

ANSWERS = {
    "SATISFIABLE": "SAT",
    "UNSATISFIABLE": "UNSAT",
    "UNKNOWN": "UNKNOWN",
    "INDETERMINATE": "UNKNOWN",
}
MINISAT_ANSWERS = {"SAT": "SAT", "UNSAT": "UNSAT", "INDET": "UNKNOWN"}
# (the answers are the values of :class:`.status.Status`, as plain strings: reading output loads no enum)
MEMORY_WORDS = r"out of memory|bad_alloc|cannot allocate|memory ?limit|memoryerror|allocation (?:still )?fail"
# (OpenBLAS: "Memory allocation still failed after 10 retries")
MAP_FAILED = r"failed to map segment"  # the loader's mmap refused: RLIMIT_AS, or a broken library


_COMPILED: dict[str, re.Pattern[str]] = {}


def _compiled(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled, case-insensitive, once (re is loaded when a run's stderr is read: not at start-up)."""
    if pattern not in _COMPILED:
        import re

        _COMPILED[pattern] = re.compile(pattern, re.I)
    return _COMPILED[pattern]


def says_out_of_memory(text: str, limited: bool) -> bool:
    """Whether ``text`` (a run's stderr) tells of an allocation that failed; a failed mapping of a shared
    library counts only under a memory limit (``limited``)."""
    return bool(_compiled(MEMORY_WORDS).search(text) or (limited and _compiled(MAP_FAILED).search(text)))


LIMIT_SLACK = 0.95  # a run that used this share of its time limit and gave up hit the limit


@dataclass(frozen=True)
class Claim:
    """What the output says: the answer, the model literals, and the first thing that made no sense."""

    answer: str | None  # "SAT", "UNSAT" or "UNKNOWN" (Status values) as the solver claims it; None: no answer line
    # literals of the v lines / result file, without the final 0 (read with a sink: the values they set)
    model: tuple[int, ...] | ModelValues | None
    terminated: bool  # the model ended with 0
    problem: str | None  # malformed output that is an error whatever the exit code
    garbage: str | None  # the first line that is neither c, s nor v


def _short(line: str) -> str:
    return line if len(line) <= SHORT else line[: SHORT - 3] + "..."


PIECE = 1 << 20  # bytes read at a time: a line longer than this is handled in pieces
S_LINE_MAX = 1024  # an answer line longer than this is malformed
SHORT = 80  # characters of a line quoted in a message


def parse_competition(text: str) -> Claim:
    """Parse s/v/c output (v lines may come before s, and wrap)."""
    return read_competition(io.BytesIO(text.encode("utf-8", "replace")))


def read_competition(stream: BinaryIO, sink: ModelSink | None = None, stop: Callable[[], bool] | None = None) -> Claim:
    """Parse s/v/c output from a binary stream in bounded memory: lines are read in pieces,
    comment lines skipped, never held; only the model's literals are kept, or with ``sink`` only the
    values they set (memory follows the CNF's variables, not the output: a variable set twice or
    beyond the CNF is the claim's problem, found as it is read).

    Blank and comment lines are skipped many at a time (a solver that prints 300 MB of them is read at
    the disk's speed), the reading ends at the first contradiction it can decide (a second ``s`` line
    that disagrees, a literal beyond the CNF, a variable set twice: what follows is not read), and
    ``stop`` is asked before each megabyte: when it says True the reading ends with
    :class:`.scan.CheckStopped` (the run's deadline)."""
    p = _Competition(sink)
    for piece in output_lines(stream, PIECE, p.at_line_start, stop):
        p.feed(piece)
        if p.kind is None and p.decided():  # at a line's end: the claim is the same whatever the pieces
            break
    else:
        p.feed(b"\n")  # output that ends without a newline ends its last line
    rejected = p.sink is not None and p.sink.problem is not None  # a model read no further, already wrong
    return Claim(p.answer, p.model(), p.terminated or rejected, p.problem, p.garbage)


class _Competition:
    """The state of :func:`read_competition`: what was said so far and the line under way."""

    def __init__(self, sink: ModelSink | None = None) -> None:
        self.sink = sink
        self.answer: str | None = None
        self.lits: list[int] | None = None
        self.terminated = False
        self.problem: str | None = None
        self.garbage: str | None = None
        self.kind: str | None = None  # of the line under way: "c", "s", "v", "?"; None at a line start
        self.held = b""  # the s line so far, or a v line's last token cut at a piece boundary
        self.start = b""  # the start of a line whose first word is not known yet

    def at_line_start(self) -> bool:
        """Whether no line is under way (the next byte starts one)."""
        return self.kind is None and not self.start

    def decided(self) -> bool:
        """Whether the output is already known to be malformed (nothing after it can change that)."""
        return self.problem is not None or (self.sink is not None and self.sink.problem is not None)

    def model(self) -> tuple[int, ...] | ModelValues | None:
        if self.lits is None:
            return None
        return tuple(self.lits) if self.sink is None else self.sink.values()

    def feed(self, piece: bytes) -> None:
        """One piece of a line (``readline(PIECE)``): the whole line when it ends with a newline."""
        ended = piece.endswith(b"\n")
        if self.kind is None:  # the line's start is held until its first word (or 80 bytes) is known
            self.start = (self.start + piece).lstrip()
            if not self.start:
                return  # a blank line, or blanks before the first word
            # a line's first word, complete, when it is c, s or v (a blank after it)
            if not (ended or len(self.start) > SHORT or (self.start[:1] in b"csv" and self.start[1:2].isspace())):
                return  # garbage is quoted up to SHORT characters, so it waits for them too
            piece, self.start = self.start, b""
            head = piece.split(None, 1)[0]
            if head == b"c":
                self.kind = "c"
            elif head in (b"s", b"v"):
                self.kind, piece = head.decode(), piece[1:]
            else:
                self.kind = "?"
                self.garbage = self.garbage or _short(piece.decode("utf-8", "replace").strip())
        if self.kind == "v":
            self._literals(piece, ended)
        elif self.kind == "s" and len(self.held) <= S_LINE_MAX:
            self.held += piece
        if ended:
            if self.kind == "s":
                self._answer(self.held.decode("utf-8", "replace").strip())
            self.kind, self.held = None, b""

    def _literals(self, piece: bytes, ended: bool) -> None:
        data, self.held = self.held + piece, b""
        if not ended:  # the last token may go on in the next piece
            cut = max(data.rfind(b" "), data.rfind(b"\t"))
            data, self.held = data[: cut + 1], data[cut + 1 :]
            if len(self.held) > MAX_TOKEN:  # no literal is that long: memory stays bounded
                self.problem = (
                    self.problem or f"not a literal in a v line: {self.held[:40].decode('utf-8', 'replace')!r}"
                )
                self.held = b""
        self.lits = [] if self.lits is None else self.lits
        if self.sink is not None:
            if self.problem is None and self.sink.problem is None:  # after the first problem, not read on
                self.terminated, self.problem = _into_sink(data, self.sink, self.terminated, "a v line", AFTER)
            return
        for tok in data.split():
            try:
                lit = int(tok)
            except ValueError:
                self.problem = self.problem or f"not a literal in a v line: {tok.decode('utf-8', 'replace')[:40]!r}"
                continue
            if self.terminated:
                self.problem = self.problem or AFTER
            elif lit == 0:
                self.terminated = True
            else:
                self.lits.append(lit)

    def _answer(self, word: str) -> None:
        got = ANSWERS.get(word)
        if got is None:
            self.problem = self.problem or f"unrecognised answer line {_short('s ' + word)!r}"
        elif self.answer is not None and got != self.answer:
            self.problem = self.problem or f"conflicting answer lines: 's {word}' after {self.answer}"
        else:
            self.answer = got


AFTER = "v line literals after the terminating 0"
FAST = 1 << 12  # bytes of literals read with numpy; fewer in pure Python (no numpy to import)


def _into_sink(
    data: bytes, sink: ModelSink, terminated: bool, where: str, after: str | None
) -> tuple[bool, str | None]:
    """Feed the literals of ``data`` (whole tokens of ``where``) to ``sink``: (terminated now, the first
    problem of the output; a wrong model is the sink's own ``problem``).  ``after``: the problem of
    literals after the terminating 0 (None: they are ignored).  Large data is read by numpy's reader
    when it can vouch for every token, else in Python."""
    arr = None
    if len(data) > FAST:
        arr = fast_literals(data, sink.num_vars)  # None: a token numpy cannot vouch for, or one out of range
    values: Sequence[int] | np.ndarray
    if arr is None:
        values = []
        for tok in data.split():
            try:
                values.append(int(tok))
            except ValueError:
                return terminated, f"not a literal in {where}: {tok.decode('utf-8', 'replace')[:40]!r}"
        end = values.index(0) if 0 in values else -1
    else:
        values = arr
        zeros = (arr == 0).nonzero()[0]
        end = int(zeros[0]) if zeros.size else -1
    if not len(values):
        return terminated, None
    if terminated:
        return True, after
    sink.add(values if end < 0 else values[:end])
    if sink.problem is None and 0 <= end < len(values) - 1:
        return True, after
    return end >= 0, None


def _token(tok: bytes) -> str:
    return tok[:40].decode("utf-8", "replace")


def parse_minisat(result: str | None) -> Claim:
    """Parse a MiniSat result file: ``SAT`` then the model line, ``UNSAT``, or ``INDET``."""
    return read_minisat(None if result is None else io.BytesIO(result.encode("utf-8", "replace")))


def read_minisat(
    stream: BinaryIO | None, sink: ModelSink | None = None, stop: Callable[[], bool] | None = None
) -> Claim:
    """:func:`parse_minisat` from a binary stream (None: no result file), read in pieces; with ``sink``,
    only the values the model sets are kept (as :func:`read_competition`).  ``stop`` is asked before each
    piece (as by :func:`read_competition`)."""
    first = b""
    while stream is not None:
        if stop is not None and stop():
            raise CheckStopped
        piece = stream.read(PIECE)
        if not piece:
            break
        first = (first + piece).lstrip()  # blanks before the first line: skipped a piece at a time
        if b"\n" in first or len(first) > S_LINE_MAX:  # a longer first line is no answer: not read further
            first, _, rest = first.partition(b"\n")
            stream = Prefixed(rest, stream)  # type: ignore[assignment]
            break
    if not first.strip():
        return Claim(None, None, False, None, None)
    word = first.strip().decode("utf-8", "replace")
    answer = MINISAT_ANSWERS.get(word)
    if answer is None:
        return Claim(None, None, False, f"result file starts with {_short(word)!r}, not SAT/UNSAT/INDET", None)
    assert stream is not None
    rest = stream.read(PIECE)
    if answer != "SAT":
        return Claim(answer, None, False, "result file has a model after " + word if rest.strip() else None, None)
    lits: list[int] = []
    seen = bool(rest.strip())
    held = b""
    while rest:
        if stop is not None and stop():
            raise CheckStopped
        data, rest = held + rest, stream.read(PIECE)
        cut = max(data.rfind(b" "), data.rfind(b"\n"), data.rfind(b"\t")) if rest else len(data)
        data, held = data[: cut + 1], data[cut + 1 :]
        if len(held) > MAX_TOKEN:
            return Claim(
                answer, None, False, f"not a literal in the result file: {held[:40].decode('utf-8', 'replace')!r}", None
            )
        if sink is not None:
            ended, problem = _into_sink(data, sink, False, "the result file", None)
            if problem is not None:
                return Claim(answer, sink.values(), False, problem, None)
            if ended or sink.problem is not None:  # a wrong model is read no further
                return Claim(answer, sink.values(), True, None, None)
            continue
        for tok in data.split():
            try:
                lit = int(tok)
            except ValueError:
                bad = tok.decode("utf-8", "replace")[:40]
                return Claim(answer, tuple(lits), False, f"not a literal in the result file: {bad!r}", None)
            if lit == 0:
                return Claim(answer, tuple(lits), True, None, None)
            lits.append(lit)
    if sink is not None:
        return Claim(answer, sink.values() if seen else None, False, None, None)
    return Claim(answer, tuple(lits) if seen else None, False, None, None)


def describe_exit(code: int | None) -> str:
    if code is None:
        return "no exit code"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def classify(claim: Claim, profile: Profile, run: Finished, limits: Limits, output: str) -> tuple[Status, str | None]:
    """The status ``run`` supports before the model check (its exit code, whether it was stopped at the time
    limit, its wall and CPU time; ``output``: what it printed beside the answer), with the reason when it is
    not an answer."""
    from cnfgen_queens.solvers.status import Status

    if run.timed_out:
        return Status.TIMEOUT, f"stopped at the {limits.time:g} s wall-clock limit"
    if claim.problem is not None:
        return Status.ERROR, f"malformed output: {claim.problem}"
    if claim.answer in (Status.SAT, Status.UNSAT):
        return _claimed(claim, profile, run.exit_code)
    return _unanswered(claim, profile, run, limits, output)


def _claimed(claim: Claim, profile: Profile, exit_code: int | None) -> tuple[Status, str | None]:
    """A SAT or UNSAT answer line: it stands when the exit code and the model agree with it."""
    from cnfgen_queens.solvers.status import Status

    if claim.answer == Status.SAT:
        if exit_code not in profile.sat_exit:
            return Status.ERROR, f"answer SATISFIABLE but {describe_exit(exit_code)}"
        if claim.model is None:
            return Status.ERROR, "answer SATISFIABLE but no model"
        if not claim.terminated:
            return Status.ERROR, "model not terminated by 0 (truncated output?)"
        return Status.SAT, None
    if exit_code not in profile.unsat_exit:
        return Status.ERROR, f"answer UNSATISFIABLE but {describe_exit(exit_code)}"
    if claim.model:
        return Status.ERROR, "answer UNSATISFIABLE but a model was printed"
    return Status.UNSAT, None


def _unanswered(
    claim: Claim, profile: Profile, run: Finished, limits: Limits, output: str
) -> tuple[Status, str | None]:
    """No SAT or UNSAT answer line: a limit, the memory, or an error, told apart by the exit code."""
    import signal  # a run's end: not at start-up

    from cnfgen_queens.solvers.status import Status

    exit_code = run.exit_code
    sat, unsat = exit_code in profile.sat_exit, exit_code in profile.unsat_exit
    if sat or unsat:
        what = "answer UNKNOWN" if claim.answer else "no answer line"
        return Status.ERROR, f"{what} but {describe_exit(run.exit_code)} ({'SAT' if sat else 'UNSAT'})"
    out_of_memory = says_out_of_memory(output, limits.memory is not None) or (
        limits.memory is not None
        and (
            run.exit_code in (-signal.SIGSEGV, -signal.SIGABRT, -signal.SIGKILL)
            # MiniSat catches its out-of-memory exception: INDETERMINATE on stdout, no result file
            or (profile.result_file and claim.answer is None and "INDETERMINATE" in output)
        )
    )
    if claim.answer is None and (claim.garbage or run.exit_code not in profile.unknown_exit):
        if out_of_memory:
            return Status.MEMOUT, f"out of memory ({describe_exit(run.exit_code)})"
        if claim.garbage:
            return Status.ERROR, f"unparseable output ({describe_exit(exit_code)}): {claim.garbage!r}"
        return Status.ERROR, f"no answer, {describe_exit(exit_code)}"
    used = max(run.wall, run.cpu or 0.0)
    if limits.time is not None and used >= LIMIT_SLACK * limits.time:
        return Status.TIMEOUT, f"the solver's own limit stopped it after {used:.2f} s"
    if claim.answer is None and run.exit_code != 0 and not out_of_memory:
        # a non-zero "unknown" code (clasp's 1) means a limit only when a limit was reached
        return Status.ERROR, f"no answer, {describe_exit(run.exit_code)} before any limit"
    if out_of_memory:
        return Status.MEMOUT, f"out of memory ({describe_exit(run.exit_code)})"
    if claim.answer is None:
        return Status.UNKNOWN, f"no answer line, {describe_exit(run.exit_code)}"
    return Status.UNKNOWN, None
