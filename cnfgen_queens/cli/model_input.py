"""Shared by ``decode`` and ``block``: read solver output (or solve's JSON record), find N, undo a
shuffle, check the board."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cnfgen_queens.bounds import MAX_LINE, json_value, once_only
from cnfgen_queens.cnf.compressed import InputError, open_input
from cnfgen_queens.cnf.dimacs import MAX_VAR, DimacsError, Header, open_body, read_header_file
from cnfgen_queens.cnf.model_sink import ModelSink, ModelValues
from cnfgen_queens.cnf.scan import Prefixed
from cnfgen_queens.cnf.shuffle import KEY, ShuffleError, header_shuffle, header_shuffle_map, unshuffle_map
from cnfgen_queens.model.board import Placement
from cnfgen_queens.model.decode import DecodeError, variant_placement
from cnfgen_queens.model.variants import HEADER_HOLES, HEADER_PLACED, HEADER_TORUS, VariantError, from_header

from ..errors import warn
from ..solvers.parse import Claim, parse_competition, parse_minisat, read_competition, read_minisat
from .common import Exit, board_size, fail

if TYPE_CHECKING:
    import argparse
    import contextlib
    from collections.abc import Callable, Iterator
    from typing import IO

    import numpy as np

    from cnfgen_queens.cnf.dimacs import Header
    from cnfgen_queens.model.variants import Variant

EXIT_NO_SOLUTION = 1
MINISAT_FIRST = ("SAT", "UNSAT", "INDET")
ECHO = "c cnf-header "  # `solve` repeats the CNF's size, N and shuffle lines after this prefix


def add_input_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "input",
        nargs="?",
        metavar="FILE",
        help="solver output: s/v lines (SAT-competition solvers, `cnfgen-queens solve`), a minisat "
        "result file or the record of `cnfgen-queens solve --json`; '-' or nothing for stdin",
    )
    size = p.add_mutually_exclusive_group()
    size.add_argument(
        "-n",
        "--size",
        dest="n",
        type=board_size,
        metavar="N",
        help="board size (default: from the c lines of `cnfgen-queens solve`)",
    )
    size.add_argument(
        "--cnf",
        metavar="CNF",
        help="the CNF that was solved (gives N, undoes gen-queens --shuffle; checked against solve's c lines)",
    )


def header_echo(header: Header) -> list[str]:
    """The lines `solve` prints so that decode/block need neither -n nor --cnf: size, N, shuffle seed, variant."""

    keep = [c for c in header.comments if c.startswith(("n=", KEY, HEADER_PLACED, HEADER_HOLES, HEADER_TORUS))]
    if not keep:
        return []
    return [f"{ECHO}p cnf {header.num_vars} {header.num_clauses}", *(ECHO + c for c in keep)]


def echo_lines(header: Header) -> list[str]:
    """:func:`header_echo` without the prefix: the ``cnf_header`` list of solve's JSON record."""
    return [line[len(ECHO) :] for line in header_echo(header)]


def echoed_header(text: str) -> Header | None:
    """The CNF header that `solve` echoed into its output (see :func:`header_echo`), or None."""

    lines = [line[len(ECHO) :].strip() for line in text.splitlines() if line.startswith(ECHO)]
    if not lines or not lines[0].startswith("p cnf "):
        return None
    try:
        num_vars, num_clauses = (int(t) for t in lines[0].split()[2:4])
    except ValueError:
        return None
    return Header(num_vars, num_clauses, tuple(lines[1:]))


def opb_to_dimacs(text: str) -> str:
    """sat4j-style v lines of an OPB answer (``v x1 -x2``, no final 0) as DIMACS literals ending in 0."""
    lines = text.splitlines()
    v_lines = [i for i, line in enumerate(lines) if line.split()[:1] == ["v"]]
    words = [w for i in v_lines for w in lines[i].split()[1:]]
    if not words or not all(_opb_literal(w) for w in words):
        return text
    for i in v_lines:
        lines[i] = "v " + " ".join(_opb_literal(w) for w in lines[i].split()[1:])
    return "\n".join([*lines, "v 0"]) + "\n"


def _opb_literal(word: str) -> str:
    """The DIMACS literal of an OPB one (``x12`` -> ``12``, ``-x3`` -> ``-3``), or "" for any other word."""
    m = re.fullmatch(r"(-?)x(\d+)", word)
    return m[1] + m[2] if m else ""


@dataclass(frozen=True)
class Decoded:
    placement: Placement


JSON_ANSWERS = {"SAT": "SATISFIABLE", "UNSAT": "UNSATISFIABLE"}


def json_answer(data: bytes, name: str) -> str:
    """The record of ``solve --json`` as the competition output ``solve`` prints: its ``cnf_header``
    lines (N, shuffle, variant), the s line and one v line."""
    try:
        record = json_value(data)
    except ValueError as e:
        fail(f"{name}: starts with '{{' but is not JSON ({e}); decode reads solver output or `solve --json`")
    if not isinstance(record, dict) or not isinstance(record.get("status"), str):
        fail(f"{name}: a JSON value that is not the record of `cnfgen-queens solve --json` (no status)")
    status, model, error = record["status"], record.get("model"), record.get("error")
    if status not in JSON_ANSWERS:
        fail(f"{name}: solve's record says {status}" + (f": {error}" if error else ""), EXIT_NO_SOLUTION)
    cnf_header = record.get("cnf_header") or []
    lines = [ECHO + str(line) for line in cnf_header] if isinstance(cnf_header, list) else []
    lines.append(f"s {JSON_ANSWERS[status]}")
    if model is not None:
        if not isinstance(model, list) or not all(type(x) is int for x in model):
            fail(f"{name}: the model of solve's record is not a list of integer literals", EXIT_NO_SOLUTION)
        lines.append("v " + " ".join(map(str, [*model, 0])))
    return "\n".join(lines) + "\n"


def _read_json(head: bytes, f: IO[bytes], name: str) -> str:
    """solve's JSON record (one line, at most :data:`cnfgen_queens.bounds.MAX_LINE` bytes) as text."""
    data = head + f.read(max(0, MAX_LINE + 1 - len(head)))
    if len(data) > MAX_LINE:
        raise InputError(f"{name}: a JSON record longer than {MAX_LINE} bytes (64 MiB), not solve's")
    return json_answer(data, name)


def _size_from_header(header: Header, path: str) -> int:
    n = header.board_size()
    if n == 0:
        fail(f"{path}: the header says n=0, which is no board size; use -n N")
    if n is not None:
        return n
    fail(f"{path}: no 'n=N' or 'p show' comment to take N from; use -n N")


def _quoted(line: str) -> str:
    return repr(line if len(line) <= 60 else line[:57] + "...")


def _mismatch(cnf: Header, echoed: Header, name: str) -> str | None:
    """How the --cnf header differs from the one solve echoed (N, variables, shuffle, variant), or None.
    The clause count may differ: merge adds clauses to the CNF that was solved."""
    mine, said = cnf.board_size(), echoed.board_size()
    if mine != said:
        return f"N = {mine}, but {name} comes from a CNF with N = {said}"
    if cnf.num_vars != echoed.num_vars:
        return f"{cnf.num_vars} variables, but {name} comes from a CNF with {echoed.num_vars}"
    ours, theirs = echo_lines(cnf)[1:], echo_lines(echoed)[1:]
    for a, b in zip([*ours, ""], [*theirs, ""], strict=False):
        if a != b:
            return f"its header has {_quoted(a)} where the c lines of {name} have {_quoted(b)}"
    return None


def _size(args: argparse.Namespace, text: str, name: str) -> tuple[int, Header | None, str]:
    """(N, the CNF header or None, where N came from): -n, --cnf, or the c lines `solve` echoed; -n and
    --cnf must agree with those lines."""

    echoed = echoed_header(text)
    if args.cnf:
        path = getattr(args, "cnf_file", None) or args.cnf  # a FIFO's copy (load), named as given
        try:
            header = read_header_file(path)
            if header_shuffle(header) is not None and not _holds(path, header, header.num_vars):
                fail(f"{args.cnf}: its shuffle header names {header.num_vars} variables, more than the file holds")
        except OSError as e:
            fail(f"cannot read {args.cnf}: {e.strerror or e}")
        except DimacsError as e:
            fail(str(e).replace(path, args.cnf))
        differ = _mismatch(header, echoed, name) if echoed is not None else None
        if differ:
            fail(
                f"--cnf {args.cnf}: {differ}; it is not the CNF that was solved (drop --cnf: solve's c lines "
                "give N and the shuffle)"
            )
        return _size_from_header(header, args.cnf), header, f"--cnf {args.cnf}"
    if args.n is not None:
        said = echoed.board_size() if echoed else None
        if said is not None and said != args.n:
            fail(f"-n {args.n}, but {name} comes from a CNF with N = {said} (drop -n: solve's c lines give N)")
        return args.n, echoed, f"-n {args.n}"
    if echoed is None:
        fail(f"{name}: no N: give -n N or --cnf CNF (the output of `cnfgen-queens solve` carries N itself)")
    return _size_from_header(echoed, name), echoed, f"the c lines of {name}"


def _variant_from_header(header: Header, path: str, n: int) -> Variant:
    """The variant the CNF's header records (placed queens, blocked squares, torus)."""

    try:
        variant = from_header(header.comments)
        variant.validate(n)
    except VariantError as e:
        fail(f"{path}: bad variant comment: {e}")
    return variant


SMALL_ANSWER = 1 << 20  # answers up to this size are parsed whole; larger ones keep only the cell literals


def _holds(path: str, header: Header, size: int) -> bool:
    """Whether the CNF's body holds at least ``size`` bytes (read at most that far)."""

    with open_body(path, header) as f:
        while size > 0 and (got := len(f.read(min(size, 1 << 22)))):
            size -= got
    return size <= 0


def _streamed(head: bytes, f: IO[bytes], cells: Callable[[np.ndarray], np.ndarray]) -> Claim:
    """The claim of a large answer, read as a stream: only the values of the board's cells are kept (each
    set once: memory follows the board, never the output, whatever its lines' lengths)."""
    first = head.lstrip().split(None, 1)[:1]
    stream = Prefixed(head, f)
    sink = ModelSink(MAX_VAR, keep=cells)
    if first and first[0].decode("utf-8", "replace") in MINISAT_FIRST:
        return read_minisat(stream, sink)  # type: ignore[arg-type]
    return read_competition(stream, sink)  # type: ignore[arg-type]


def load(args: argparse.Namespace, *, clauses_only: bool) -> Decoded:
    """The checked placement in the solver output; exits 1 with 'no solution' on UNSAT, printed on stdout
    unless ``clauses_only`` (block: stdout carries clauses only, to be appended with ``>> blocks.cnf``).
    A FIFO or pipe (the answer, or --cnf) is read once, into a file of ours (:func:`.read_once.readable`)."""
    import contextlib

    with contextlib.ExitStack() as spooled:
        args = type(args)(**vars(args))  # a copy: the caller's stays as given
        args.input_file, args.cnf_file = _once(spooled, args.input), _once(spooled, args.cnf)
        return _load(args, clauses_only)


def _once(spooled: contextlib.ExitStack, given: str | None) -> str | None:
    """The file to read for the input ``given`` (a FIFO's or pipe's copy, kept until ``spooled`` closes)."""
    if given in (None, "-") or not once_only(given):
        return given
    from cnfgen_queens.cnf.read_once import NoWriter, readable  # a FIFO's work directory: only for one

    try:
        return str(spooled.enter_context(readable(given)).path)
    except NoWriter as e:
        fail(str(e))


def _load(args: argparse.Namespace, clauses_only: bool) -> Decoded:
    """:func:`load`, its inputs read from ``args.input_file`` and ``args.cnf_file`` (named as given)."""
    name = "<stdin>" if args.input in (None, "-") else args.input
    raw = sys.stdin.buffer if args.input in (None, "-") else None
    try:
        f = open_input(name if raw is not None else args.input_file, warn, raw=raw)
        head = f.read(SMALL_ANSWER)
        if head.lstrip()[:1] == b"{":  # the record of `solve --json`, as the text `solve` prints
            head = _read_json(head, f, name).encode()
        # N from --cnf, -n or the c lines `solve` echoed at the top of its output
        n, header, source = _size(args, head.decode("utf-8", "replace"), name)
        backward = forward = variant = None
        if header is not None:
            variant = _variant_from_header(header, args.cnf or name, n)
            try:
                backward, forward = unshuffle_map(header), header_shuffle_map(header)
            except ShuffleError as e:
                fail(str(e))
        if len(head) < SMALL_ANSWER:
            text = opb_to_dimacs(head.decode("utf-8", "replace"))
            first = next((line.strip() for line in text.splitlines() if line.strip()), "")
            claim = parse_minisat(text) if first in MINISAT_FIRST else parse_competition(text)
        else:  # only the cells' values are kept: memory follows the board
            claim = _streamed(head, f, _cells(n, forward))
    except OSError as e:
        fail(f"cannot read {name}: {e.strerror or e}")
    except InputError as e:
        fail(str(e) if raw is not None else str(e).replace(args.input_file, name))
    _refuse_no_model(args, claim, name, n, clauses_only)
    true = _true_variables(claim, name)
    if backward is not None:
        true = (backward[v] for v in true if v < len(backward))
    try:
        return Decoded(variant_placement(n, true, variant))
    except DecodeError as e:
        fail(f"{name}: not a solution: {e}{_hint(source, header)}", EXIT_NO_SOLUTION)


def _refuse_no_model(args: argparse.Namespace, claim: Claim, name: str, n: int, clauses_only: bool) -> None:
    """End the command when the output holds no model to decode: UNSAT (printed as the answer), a problem,
    an UNKNOWN or SAT answer without v lines; warn of v lines without an s line."""
    if claim.problem:
        fail(f"{name}: {claim.problem}", EXIT_NO_SOLUTION)
    if claim.answer == "UNSAT":
        if getattr(args, "format", None) == "json" and not clauses_only:
            import json

            print(json.dumps({"n": n, "columns": None}))  # the shape of a board's record: no board
        else:
            print("no solution", file=sys.stderr if clauses_only else sys.stdout)
        raise Exit(EXIT_NO_SOLUTION)
    if claim.model is None:
        what = "no model (no v lines, no SAT result)"
        if claim.answer == "SAT":
            what = "the answer is SAT, but the output carries no model (no v lines: `solve --no-model`?)"
        elif claim.answer == "UNKNOWN":
            what = "UNKNOWN answer"
        fail(f"{name}: {what}", EXIT_NO_SOLUTION)
    if claim.answer is None:
        warn(f"{name}: v lines without an s line; decoding them anyway")


def _true_variables(claim: Claim, name: str) -> Iterator[int]:
    """The variables the model sets true; a variable set both ways ends the command."""
    assert claim.model is not None
    if isinstance(claim.model, ModelValues):  # read as a stream: a variable set twice is its problem
        if claim.model.problem:
            fail(f"{name}: {claim.model.problem}", EXIT_NO_SOLUTION)
        return claim.model.true_variables()
    lits = set(claim.model)
    clash = next((v for v in lits if v > 0 and -v in lits), None)
    if clash is not None:
        fail(f"{name}: the model sets variable {clash} both true and false", EXIT_NO_SOLUTION)
    return (v for v in claim.model if v > 0)


def _cells(n: int, forward: list[int] | None) -> Callable[[np.ndarray], np.ndarray]:
    """Which variables of the file are cells of the board (after a shuffle, their new names)."""
    if forward is not None:
        names = sorted(forward[v] for v in range(1, n * n + 1))

        def shuffled(var: np.ndarray) -> np.ndarray:
            import numpy as np

            return np.isin(var, names)

        return shuffled
    return lambda var: var <= n * n


def _hint(source: str, header: Header | None) -> str:
    """What a wrong board size or an undone shuffle would explain, for an invalid board."""
    if header is None:
        return f" (is {source} the CNF's N? a shuffled CNF needs --cnf CNF instead of -n)"
    return f" (N from {source})"
