"""Hostile input for every reader and option (issue 24, item 9), generated with Hypothesis.

Each example runs the real command in a process of its own, with its own ``$TMPDIR``, and asserts:
an exit code from the documented set (0 success, 1 environment, 2 usage, 10/20 SAT/UNSAT), an error
is one line on stderr and a sentence (no traceback, no catch-all "set CNFGEN_QUEENS_DEBUG"), peak
RSS under :data:`PEAK_MB`, CPU time under :data:`CPU_SECONDS` (the command's and its waited-for children's:
what a loaded machine does not stretch), done before the hang guard :data:`WALL_GUARD`, no file or process
left, inputs unchanged.

The fast part (a few examples per reader) runs by default; ``-m slow`` runs many more examples and
the large inputs (compressed bombs, long lines).
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import hashlib
import itertools
import lzma
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import CLI_ENTRY, board_line, default_signals, is_solution, living_in_group, need_solver

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

EXIT_CODES = {0, 1, 2, 10, 20}  # README: exit codes
PEAK_MB = 600  # peak RSS of one command on hostile input
CPU_SECONDS = 30  # CPU time of one command on hostile input (the slowest, a batch --dry-run: about 3 s)
WALL_GUARD = 240  # seconds: a hang guard, killed past it (a loaded machine stretched 4 s to 22 s, issue 31)
SETTLE = 3.0  # seconds the command's group may take to empty after it exits: nothing left once the next starts
ADDRESS_SPACE = 4 << 30  # RLIMIT_AS of the command: a runaway reader dies in seconds, not at 24 GB
FAST = settings(
    max_examples=4,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
LONG = settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

VALID = b"c a comment\np cnf 4 3\n1 -2 0\n2 3 -4 0\n-1 4 0\n"
ANSWER = b"s SATISFIABLE\nv -1 2 -3 -4 -5 -6 -7 8 9 -10 -11 -12 -13 -14 15 -16 0\n"


@dataclass(frozen=True)
class Outcome:
    code: int
    err: str
    peak_mb: float
    seconds: float
    cpu: float = 0.0  # user + system seconds of the command and the children it waited for
    out: str = ""  # what it printed on stdout


def run_cli(argv: list[str], cwd: Path, stdin: bytes = b"") -> Outcome:
    """The CLI on ``argv`` in a process of its own (new session: killed with its group at the time bound)."""
    spool = cwd / "spool"
    spool.mkdir(exist_ok=True)
    env = {**os.environ, "TMPDIR": str(spool)}
    env.pop("CNFGEN_QUEENS_DEBUG", None)
    with open(cwd / ".err", "w+b") as err, open(cwd / ".in", "w+b") as inp, open(cwd / ".out", "w+b") as out:
        inp.write(stdin)
        inp.seek(0)
        start = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-c", CLI_ENTRY, *argv],
            cwd=cwd,
            env=env,
            stdin=inp,
            stdout=out,
            stderr=err,
            start_new_session=True,
            preexec_fn=_bounded,
        )
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > WALL_GUARD:
                os.killpg(proc.pid, signal.SIGKILL)
            time.sleep(0.01)
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, with its rusage
        seconds = time.monotonic() - start
        err.seek(0)
        text = err.read().decode(errors="replace")
        out.seek(0)
        printed = out.read(1 << 20).decode(errors="replace")
    settled = time.monotonic() + SETTLE  # a helper that ends with the command may take a moment to notice
    while (left := living_in_group(proc.pid)) and time.monotonic() < settled:
        time.sleep(0.01)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    assert not left, f"processes left in the group of {argv}: {left}"
    return Outcome(proc.returncode, text, usage.ru_maxrss / 1024, seconds, usage.ru_utime + usage.ru_stime, printed)


def _bounded() -> None:
    import resource

    default_signals()
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def snapshot(paths: list[Path]) -> dict[Path, str]:
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths if p.is_file()}


def check(
    outcome: Outcome,
    argv: list[str],
    before: dict[Path, str],
    cwd: Path,
    allowed: set[str],
    said: tuple[str, ...] = ("error:",),
) -> None:
    """The properties every hostile run must have (``said``: the words one of which its one line holds)."""
    what = f"{argv}: exit {outcome.code}, stderr {outcome.err!r}"
    assert outcome.code in EXIT_CODES, what
    assert outcome.seconds < WALL_GUARD, f"{what}: killed after {WALL_GUARD} s"
    assert outcome.cpu < CPU_SECONDS, f"{what}: {outcome.cpu:.1f} s of CPU"
    assert outcome.peak_mb < PEAK_MB, f"{what}: peak {outcome.peak_mb:.0f} MB"
    if outcome.code in (1, 2):
        # one line of error, the last; before it only warnings the run gave on its way (a blocks file's '%'
        # line, then the base's bad literal: found by the fuzzer in a full run)
        lines = outcome.err.splitlines()
        assert lines and "Traceback" not in outcome.err, what
        assert all(": warning: " in line for line in lines[:-1]), what
        assert "CNFGEN_QUEENS_DEBUG" not in outcome.err and any(w in lines[-1] for w in said), what
    assert snapshot(list(before)) == before, f"{what}: an input changed"
    assert sorted(p.name for p in (cwd / "spool").iterdir()) == [], f"{what}: left in $TMPDIR"
    left = {p.name for p in cwd.iterdir()} - allowed - {p.name for p in before} - {"spool", ".err", ".in", ".out"}
    assert not left, f"{what}: left {left}"


# -- what hostile input is made of ---------------------------------------------------------------

EXTREME_INTS = st.sampled_from(
    [0, 1, -1, 2**31 - 1, -(2**31), 2**31, 2**32, 2**63 - 1, -(2**63), 2**64, 10**30, 46340, 46341]
)
INTS = st.one_of(st.integers(-50, 50), EXTREME_INTS)


@st.composite
def dimacs_text(draw: st.DrawFn) -> bytes:
    """DIMACS-like text: a header (maybe lying, maybe extreme), clauses of small and extreme literals,
    comments, odd whitespace, sometimes no final 0 or newline."""
    parts = []
    if draw(st.booleans()):
        parts.append(f"p cnf {draw(INTS)} {draw(INTS)}")
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["clause", "clause", "clause", "comment", "junk", "p"]))
        if kind == "clause":
            lits = draw(st.lists(INTS.filter(lambda x: x != 0), max_size=6))
            parts.append(" ".join(map(str, lits)) + (" 0" if draw(st.booleans()) or not lits else ""))
        elif kind == "comment":
            parts.append("c " + draw(st.text(max_size=20)))
        elif kind == "p":
            parts.append(f"p {draw(st.sampled_from(['cnf', 'wcnf', 'CNF', '']))} {draw(INTS)} {draw(INTS)}")
        else:
            parts.append(draw(st.sampled_from(["%", "\t", "", "0", "-", "1e3", "0x10", "\x00", "\r", "s SAT"])))
    sep = draw(st.sampled_from(["\n", "\r\n", " \n", "\n\n"]))
    return (sep.join(parts) + draw(st.sampled_from(["\n", "", "\n%\n0\n"]))).encode("utf-8", "surrogateescape")


@st.composite
def mutated(draw: st.DrawFn, base: bytes = VALID) -> bytes:
    """``base`` with bytes flipped, inserted, deleted, a cut, or a line repeated."""
    data = bytearray(base)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "insert", "delete", "cut", "repeat"]))
        at = draw(st.integers(0, max(0, len(data) - 1)))
        if op == "flip" and data:
            data[at] = draw(st.integers(0, 255))
        elif op == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif op == "delete" and data:
            del data[at]
        elif op == "cut":
            del data[at:]
        else:
            line = bytes(data[at:]).split(b"\n", 1)[0] + b"\n"
            data[at:at] = line * draw(st.integers(1, 50))
    return bytes(data)


HOSTILE = st.one_of(dimacs_text(), mutated(), st.binary(max_size=200))
COMPRESS = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}


def cnf_file(tmp: Path, data: bytes, suffix: str) -> Path:
    path = tmp / f"in.cnf{suffix}"
    path.write_bytes(COMPRESS[suffix](data) if suffix else data)
    return path


# -- the readers ---------------------------------------------------------------------------------


@FAST
@given(data=HOSTILE, suffix=st.sampled_from(["", "", ".gz", ".xz", ".bz2"]))
def test_stats_on_hostile_dimacs(tmp_path_factory: pytest.TempPathFactory, data: bytes, suffix: str) -> None:
    tmp = tmp_path_factory.mktemp("stats")
    path = cnf_file(tmp, data, suffix)
    argv = ["stats", path.name, "--json"]
    check(run_cli(argv, tmp), argv, snapshot([path]), tmp, set())


@FAST
@given(data=HOSTILE)
def test_solve_on_hostile_dimacs(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    tmp = tmp_path_factory.mktemp("solve")
    path = cnf_file(tmp, data, "")
    argv = ["solve", path.name, "--time-limit", "20"]
    check(run_cli(argv, tmp), argv, snapshot([path]), tmp, set())


@FAST
@given(base=HOSTILE, blocks=HOSTILE)
def test_merge_on_hostile_dimacs(tmp_path_factory: pytest.TempPathFactory, base: bytes, blocks: bytes) -> None:
    tmp = tmp_path_factory.mktemp("merge")
    cnf, extra = cnf_file(tmp, base, ""), tmp / "blocks.txt"
    extra.write_bytes(blocks)
    argv = ["merge", cnf.name, extra.name, "-o", "out.cnf"]
    check(run_cli(argv, tmp), argv, snapshot([cnf, extra]), tmp, {"out.cnf"})


@FAST
@given(answer=st.one_of(mutated(ANSWER), st.binary(max_size=100)), cnf=st.one_of(st.none(), mutated(VALID)))
def test_decode_and_block_on_hostile_answers(
    tmp_path_factory: pytest.TempPathFactory, answer: bytes, cnf: bytes | None
) -> None:
    tmp = tmp_path_factory.mktemp("decode")
    ans = tmp / "answer.txt"
    ans.write_bytes(answer)
    inputs = [ans]
    where = ["-n", "4"]
    if cnf is not None:
        inputs.append(cnf_file(tmp, cnf, ""))
        where = ["--cnf", inputs[-1].name]
    before = snapshot(inputs)
    for argv in (["decode", ans.name, *where], ["block", ans.name, *where]):
        check(run_cli(argv, tmp), argv, before, tmp, set())


@FAST
@given(
    text=st.one_of(
        st.lists(st.tuples(INTS, INTS).map(lambda rc: f"{rc[0]},{rc[1]}"), max_size=5).map("\n".join),
        st.text(max_size=40),
    ),
    option=st.sampled_from(["--holes", "--place-file", "--block"]),
)
def test_gen_options_reading_files(tmp_path_factory: pytest.TempPathFactory, text: str, option: str) -> None:
    tmp = tmp_path_factory.mktemp("gen")
    path = tmp / "cells.txt"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    argv = ["gen", "6", option, path.name, "-o", "out.cnf"]
    check(run_cli(argv, tmp), argv, snapshot([path]), tmp, {"out.cnf"})


YAML_SCALARS = st.one_of(
    EXTREME_INTS.map(str),
    st.sampled_from(
        [
            ".inf",
            "-.inf",
            ".nan",
            "1e308",
            "1e-320",
            "-0.0",
            "0.0",
            "1.0e+400",
            "0x7fffffff",
            "null",
            "true",
            "[]",
            "{}",
            "'8'",
            "1_000_000_000_000",
            "9" * 40,
            "*a",
            "\x00",
        ]
    ),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)
YAML_KEYS = ["instances.n", "limits.time", "limits.memory", "limits.output", "repeats", "instances.max_clauses",
             "instances.group_size", "instances.random_place_fraction.step", "instances.random_seeds.to",
             "instances.shuffle_seeds"]  # fmt: skip


@FAST
@given(key=st.sampled_from(YAML_KEYS), value=YAML_SCALARS)
def test_batch_config_extremes(tmp_path_factory: pytest.TempPathFactory, key: str, value: str) -> None:
    tmp = tmp_path_factory.mktemp("yaml")
    fields = {"instances.n": "[6]", "limits.time": "5", "instances.random_place_fraction.step": "0.5",
              "instances.random_seeds.to": "1"}  # fmt: skip
    fields[key] = value
    extra = "".join(
        f"  {k.split('.')[1]}: {fields[k]}\n"
        for k in fields
        if k.startswith("instances.") and k.count(".") == 1 and k != "instances.n"
    )
    text = (
        f"instances:\n  n: {fields['instances.n']}\n  encodings: [pairwise]\n{extra}"
        f"  random_place_fraction: {{from: 0, to: 0.5, step: {fields['instances.random_place_fraction.step']}}}\n"
        f"  random_seeds: {{from: 0, to: {fields['instances.random_seeds.to']}}}\n"
        f"solvers: [pysat:cadical195]\nrepeats: {fields.get('repeats', '1')}\n"
        f"limits: {{time: {fields['limits.time']}"
        + "".join(f", {k.split('.')[1]}: {fields[k]}" for k in ("limits.memory", "limits.output") if k in fields)
        + "}\nresults: out/r.sqlite\n"
    )
    cfg = tmp / "c.yaml"
    cfg.write_bytes(text.encode("utf-8", "surrogateescape"))
    argv = ["batch", cfg.name, "--dry-run"]
    check(run_cli(argv, tmp), argv, snapshot([cfg]), tmp, set())


# -- solver output (issue 30: a v line of > 64 literals whose first is beyond the CNF crashed solve) ----

N_OUT = 5  # the board of the solver-output fuzz: pairwise, 25 variables, all cells
SOLUTION_5 = [1, 8, 15, 17, 24]  # queens at (0,0) (1,2) (2,4) (3,1) (4,3), row by row: a solution of N = 5
OUTPUT_SETTINGS = settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@st.composite
def v_tokens(draw: st.DrawFn) -> list[str]:
    """The tokens of a model: runs of literals (in range, beyond the CNF, far beyond, repeated), the true
    solution, extreme values, zeros and garbage, in any order."""
    tokens: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["run", "run", "solution", "one", "zero", "garbage"]))
        if kind == "run":
            start = draw(
                st.one_of(
                    st.integers(1, N_OUT**2 + 2),
                    st.integers(N_OUT**2 + 1, 300),
                    st.sampled_from([N_OUT**2 + 1, 2**31 - 1, 2**31, 2**63, 10**30]),
                )
            )
            sign = draw(st.sampled_from([1, -1, 0]))  # 0: alternating
            tokens += [
                str(v if sign == 1 or (sign == 0 and v % 2) else -v)
                for v in range(start, start + draw(st.integers(1, 300)))
            ]
        elif kind == "solution":
            tokens += [str(v if v in SOLUTION_5 else -v) for v in range(1, N_OUT**2 + 1)]
        elif kind == "one":
            tokens.append(str(draw(INTS)))
        elif kind == "zero":
            tokens.append("0")
        else:
            tokens.append(draw(st.sampled_from(["x", "-", "--1", "1.5", "0x10", "+3", "\x00", "v", "s", "1e3"])))
    return tokens


@st.composite
def solver_outputs(draw: st.DrawFn) -> tuple[bytes, int]:
    """What a lying or broken solver prints (s, v, c and garbage lines; v lines wrapped anywhere, or one huge
    line) and its exit code."""
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["s", "v", "v", "c", "garbage"]))
        if kind == "s":
            lines.append(
                "s "
                + draw(
                    st.sampled_from(
                        [
                            "SATISFIABLE",
                            "UNSATISFIABLE",
                            "UNKNOWN",
                            "INDETERMINATE",
                            "SAT",
                            "",
                            "SATISFIABLE SATISFIABLE",
                        ]
                    )
                )
            )
        elif kind == "v":
            tokens = draw(v_tokens()) + (["0"] if draw(st.booleans()) else [])
            width = draw(st.sampled_from([1, 7, 64, 65, 10**6, 10**6]))  # tokens a line: 64 is the sink's SMALL
            lines += ["v " + " ".join(tokens[i : i + width]) for i in range(0, len(tokens), width)]
        elif kind == "c":
            lines.append("c " + draw(st.text(max_size=20)))
        else:
            lines.append(draw(st.sampled_from(["%", "v", "s", "0", "SATISFIABLE", "\x00\xff", "vv 1 0"])))
    text = draw(st.sampled_from(["\n", "\r\n", " \n"])).join(lines) + draw(st.sampled_from(["\n", ""]))
    return text.encode("utf-8", "surrogateescape"), draw(st.sampled_from([10, 20, 0, 1, 10, 20]))


def fake_solver(tmp: Path, output: bytes, code: int) -> Path:
    """A solver script that prints ``output`` and exits with ``code``, whatever it is asked."""
    (tmp / "answer.out").write_bytes(output)
    script = tmp / "fake.sh"
    script.write_text(f'#!/bin/sh\ncat "{tmp / "answer.out"}"\nexit {code}\n')
    script.chmod(0o755)
    return script


def is_queens_model(model: tuple[int, ...]) -> bool:
    """Whether the true cells of ``model`` place N_OUT queens no two of which attack (checked here, not by
    the tool)."""
    return is_solution(board_line(model, N_OUT), N_OUT)


@pytest.fixture(scope="module")
def q5_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from cnfgen_queens.cli import gen_main

    path = tmp_path_factory.mktemp("q5") / "q5.cnf"
    assert gen_main([str(N_OUT), "-o", str(path)]) == 0
    return path


def test_the_solution_of_the_output_fuzz_is_one() -> None:
    assert is_queens_model(tuple(SOLUTION_5)) and not is_queens_model((1, 2, 15, 17, 24))


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(output=solver_outputs())
def test_the_readers_judge_any_solver_output(q5_path: Path, output: tuple[bytes, int]) -> None:
    """solve's readers (both styles), model sink, classification and model check, in this process: a status
    and, for anything but a verified solution, a reason; never an exception."""
    import io

    from cnfgen_queens.cnf.model_sink import ModelSink
    from cnfgen_queens.limits import Limits
    from cnfgen_queens.solvers import parse
    from cnfgen_queens.solvers.finished import Finished
    from cnfgen_queens.solvers.outcome import Status
    from cnfgen_queens.solvers.profiles import Profile
    from cnfgen_queens.solvers.runner import check_model

    text, code = output
    for style, read in (("competition", parse.read_competition), ("minisat", parse.read_minisat)):
        claim = read(io.BytesIO(text), ModelSink(N_OUT**2))
        run = Finished(
            exit_code=code, wall=0.1, cpu=0.1, peak_memory_mb=None, stdout=b"", stderr=b"", timed_out=False, leftovers=0
        )
        status, reason = parse.classify(claim, Profile("fake", "fake", output=style), run, Limits(), "")
        assert reason or status in (Status.SAT, Status.UNSAT, Status.UNKNOWN), (style, status, claim)
        if status is Status.SAT:
            full, error = check_model(q5_path, claim.model if claim.model is not None else ())
            assert (full is None) != (error is None) and (full is None or is_queens_model(full)), (style, claim)


@OUTPUT_SETTINGS
@given(output=solver_outputs())
def test_solve_judges_any_solver_output(
    tmp_path_factory: pytest.TempPathFactory, q5_path: Path, output: tuple[bytes, int]
) -> None:
    """The runner on a fake solver that prints the output: a verified solution, or a rejection with a reason;
    UNSAT never accepted (N = 5 has solutions)."""
    from cnfgen_queens.solvers.outcome import Status
    from cnfgen_queens.solvers.runner import solve

    got = solve(q5_path, str(fake_solver(tmp_path_factory.mktemp("out"), *output)))
    assert got.status in (Status.SAT, Status.UNKNOWN, Status.ERROR), got
    if got.status is Status.SAT:
        assert got.verified and got.model is not None and is_queens_model(got.model), got
    else:
        assert got.error or got.status is Status.UNKNOWN, got


@FAST
@given(output=solver_outputs())
def test_solve_cli_on_hostile_solver_output(
    tmp_path_factory: pytest.TempPathFactory, q5_path: Path, output: tuple[bytes, int]
) -> None:
    """The command: one verdict line that agrees with the exit code, a one-line error, no traceback."""
    tmp = tmp_path_factory.mktemp("solve-out")
    cnf = tmp / q5_path.name
    cnf.write_bytes(q5_path.read_bytes())
    script = fake_solver(tmp, *output)
    argv = ["solve", cnf.name, "--solver", str(script)]
    ran = run_cli(argv, tmp)
    check(ran, argv, snapshot([cnf, script]), tmp, {"answer.out"})
    verdicts = [line for line in ran.out.splitlines() if line.startswith("s ")]
    assert verdicts == [{10: "s SATISFIABLE", 20: "s UNSATISFIABLE"}.get(ran.code, "s UNKNOWN")], (ran, output)
    assert ran.code != 20, (ran, output)


# -- files from outside: a damaged results store, a forged certificate manifest (issue 30, item 10) ---

WORDS = {  # what the tool writes in these columns (USAGE: an older count's); anything else is a damaged store
    "status": {"SAT", "UNSAT", "UNKNOWN", "TIMEOUT", "MEMOUT", "ERROR", "USAGE"},
    "verdict": {"solved", "wrong", "unsolved"},
    "checked": {"model-verified", "proof-verified", "published-count", "certified", "unchecked"},
    "task": {"solve", "count"},
}
SECONDS = {"time_limit", "wall", "cpu", "peak_memory_mb", "check_time", "total_wall", "load_avg"}  # finite, >= 0
RANGES = {"n": (1, 46340), "group_size": (1, 46340)}  # gen-queens' cap (a bool column: 0..1, by its type)
SQL_VALUES = st.one_of(
    st.none(),
    INTS,
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.binary(max_size=6),
    st.sampled_from(
        [
            "SAT",
            "MAYBE",
            "solved",
            "count",
            "[]",
            "{}",
            '["-x", 1]',
            '{"torus": true}',
            "5",
            "1.5",
            "inf",
            "-0",
            "a\nb\tc",
            "x | y |",
            "[[[[[[[[[[]]]]]]]]]]",
        ]
    ),
)


@st.composite
def store_damage(draw: st.DrawFn) -> tuple[str, str, object, bool]:
    """(kind, column, value, every row): a column dropped or renamed, or a value set in one row or all."""
    from cnfgen_queens.experiments.row import COLUMNS

    column = draw(st.sampled_from([c for c in COLUMNS if c != "run_key"]))
    kind = draw(st.sampled_from(["set", "set", "set", "drop", "rename"]))
    return kind, column, draw(SQL_VALUES) if kind == "set" else None, draw(st.booleans())


def _damaged(db: Path, tmp: Path, damage: tuple[str, str, object, bool]) -> Path:
    import shutil
    import sqlite3

    kind, column, value, every = damage
    copy = tmp / "r.sqlite"
    shutil.copy(db, copy)
    with contextlib.closing(sqlite3.connect(copy)) as c, c:  # closed here: a close later would checkpoint into it
        try:
            if kind == "drop":
                c.execute(f"ALTER TABLE runs DROP COLUMN {column}")
            elif kind == "rename":
                c.execute(f"ALTER TABLE runs RENAME COLUMN {column} TO {column}_was")
            else:
                c.execute(f"UPDATE runs SET {column} = ?" + ("" if every else " WHERE rowid = 1"), (value,))
        except (sqlite3.Error, OverflowError):  # the table or SQLite refuses it (2^64): no such store can exist
            hypothesis.reject()
    return copy


def _readable(copy: Path, damage: tuple[str, str, object, bool]) -> bool:
    """Whether the damaged store is one ``report`` must read: every column it reads there, every value of
    its type and in its domain (judged here from the schema and what the tool writes, not by the tool)."""
    import dataclasses
    import json
    import math
    import sqlite3

    from cnfgen_queens.experiments.row import Row, column_types

    kind, column, _, _ = damage
    if kind != "set":  # a column added since schema 1 (with a default) may be missing: an older store
        return next(f for f in dataclasses.fields(Row) if f.name == column).default is not dataclasses.MISSING
    base, nullable = column_types()[column]
    with contextlib.closing(sqlite3.connect(copy)) as c:
        stored = c.execute(f"SELECT DISTINCT typeof({column}), {column} FROM runs").fetchall()
    for kind_of, value in stored:
        if kind_of == "null":
            if nullable:
                continue
            return False
        allowed = {int: ["integer"], bool: ["integer"], float: ["integer", "real"]}.get(base, ["text"])
        if kind_of not in allowed:
            return False
        if column in WORDS and value not in WORDS[column]:
            return False
        if column in SECONDS and not (math.isfinite(value) and value >= 0):
            return False
        low, high = RANGES.get(column, (0, 1) if base is bool else (0 if base in (int, float) else None, None))
        if low is not None and (value < low or (high is not None and value > high)):
            return False
        if column in ("solver_args", "variant"):
            try:
                parsed = json.loads(value)
            except (ValueError, RecursionError):
                return False
            shaped = isinstance(parsed, list) and all(isinstance(a, str) for a in parsed)
            if not (shaped if column == "solver_args" else isinstance(parsed, dict)):
                return False
    return True


def _a_table(printed: str) -> None:
    """Whatever a store holds, the report is lines of text, and its table one cell a value on every line."""
    lines = printed.splitlines()
    assert all(line.isprintable() for line in lines), printed
    table = [line.replace("\\|", "") for line in lines if line.startswith("|")]
    assert table and len({line.count("|") for line in table[:2]}) == 1, printed
    assert all(line.count("|") == table[0].count("|") for line in table), printed


FACT_COLUMNS = {"wall", "status", "count", "verdict", "n", "time_limit", "verified", "task", "variant", "family"}
"""The columns whose values judge a stored run solved or not (:func:`.runs_check.contradiction` reads them)."""


@FAST
@given(damage=store_damage())
@example(damage=("set", "break_symmetry", -1, False))  # a bool column holds 0..1 (the oracle's found slip)
def test_report_on_a_damaged_store(
    tmp_path_factory: pytest.TempPathFactory, db: Path, damage: tuple[str, str, object, bool]
) -> None:
    """A results store is a file from outside: damaged anyhow, ``report`` refuses it in one line naming the
    column (exit 2), or reads it and prints a table; never a traceback, never a table of a value it cannot
    hold (a status MAYBE counted as UNSAT, a wall time of -5 s)."""
    tmp = tmp_path_factory.mktemp("store")
    copy = _damaged(db, tmp, damage)
    argv = ["report", copy.name]
    outcome = run_cli(argv, tmp)
    check(outcome, argv, snapshot([copy]), tmp, {"r.sqlite-wal", "r.sqlite-shm"})  # SQLite's, beside a WAL store
    if _readable(copy, damage) and outcome.code == 2 and damage[1] in FACT_COLUMNS:
        # of its type and in its domain, but a solved run it now contradicts (no time, a time above its limit,
        # UNSAT on a board with solutions, ...): refused in one line naming the row's contradicting column
        assert re.search(r"column \w+ holds .*(but the run is solved|, but N = \d+ has)", outcome.err), outcome.err
        assert outcome.out == "" and outcome.err.count("\n") <= 1
    elif _readable(copy, damage):
        assert outcome.code == 0, (damage, outcome.err)
        _a_table(outcome.out)
    else:
        assert outcome.code == 2 and f"column {damage[1]}" in outcome.err, (damage, outcome.err)
        assert outcome.out == ""


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), INTS, st.floats(allow_nan=False), st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=4)),
    max_leaves=12,
)
DEEP, LONG_LIST = "@@deep@@", "@@long@@"  # placeholders, written as JSON text after json.dumps
MANIFEST_PATHS = [("n",), ("encoding",), ("column_alo",), ("group_size",), ("variant",), ("formula_sha256",),
                  ("total",), ("format",), ("cubes",), ("cubes", 0), ("cubes", 0, "cube"), ("cubes", 0, "count"),
                  ("cubes", 1, "solutions"), ("cubes", 1, "proof"), ()]  # fmt: skip


Forgery = tuple[tuple[object, ...], str, object, int]


@st.composite
def manifest_damage(
    draw: st.DrawFn, nesting: tuple[int, ...] = (3, 1000, 100_000), sizes: tuple[int, ...] = (10, 1000, 100_000)
) -> Forgery:
    """(where, how, value, size): a field of the manifest (``()``: the whole of it) replaced by any JSON, by
    JSON nested ``size`` deep or by a list of ``size`` items, or deleted."""
    where = draw(st.sampled_from(MANIFEST_PATHS))
    how = draw(st.sampled_from(["value", "value", "deep", "long", "delete"] if where else ["value", "deep", "long"]))
    size = draw(st.sampled_from(nesting if how == "deep" else sizes))
    return where, how, draw(JSON_VALUES) if how == "value" else None, size


def _forged(cert: Path, tmp: Path, damage: Forgery) -> Path:
    import copy
    import json
    import shutil

    where, how, value, size = damage
    d = tmp / "cert"
    shutil.copytree(cert, d)
    doc = json.loads((d / "manifest.json").read_text())
    new = {"value": value, "deep": DEEP, "long": LONG_LIST}.get(how)
    if not where:
        doc = new
    else:
        doc = copy.deepcopy(doc)
        holder: object = doc
        for step in where[:-1]:
            holder = holder[step]  # type: ignore[index]
        if how == "delete":
            del holder[where[-1]]  # type: ignore[attr-defined]
        else:
            holder[where[-1]] = new  # type: ignore[index]
    text = json.dumps(doc).replace(f'"{DEEP}"', "[" * size + "]" * size)
    text = text.replace(f'"{LONG_LIST}"', json.dumps([7] * size))
    (d / "manifest.json").write_text(text)
    return d


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real certificate of N = 5 (10 boards, OEIS A000170)."""
    from cnfgen_queens.cli import main

    d = tmp_path_factory.mktemp("certificate") / "c5"
    assert main(["count", "5", "--certify", str(d), "--quiet"]) == 0
    return d


@FAST
@given(damage=manifest_damage())
def test_check_count_on_a_forged_manifest(
    tmp_path_factory: pytest.TempPathFactory, certificate: Path, damage: Forgery
) -> None:
    """A manifest of any JSON (wrong types, sizes, nesting) is refused in one line (exit 1: a field that is
    not what the check reads, naming it; exit 2: not a certificate at all), within the harness's time and
    memory; it never certifies a count other than the true one."""
    tmp = tmp_path_factory.mktemp("manifest")
    d = _forged(certificate, tmp, damage)
    argv = ["check-count", "cert"]
    outcome = run_cli(argv, tmp)
    check(
        outcome,
        argv,
        snapshot(sorted(p for p in d.rglob("*") if p.is_file())),
        tmp,
        {"cert"},
        said=("error:", "rejected:"),
    )
    assert outcome.code in (0, 1, 2), (damage, outcome.err)
    if outcome.code == 0:
        assert outcome.out == "certified count: 10\n", (damage, outcome.out)
    else:
        assert outcome.out == "" and ("rejected:" in outcome.err or "error:" in outcome.err), outcome.err


# -- counting flags, two or three at once (issue 42) ---------------------------------------------

COUNT_FLAGS = {  # count's options, one value each ({cert}: the certificate's directory)
    "torus": ["--torus"], "break-symmetry": ["--break-symmetry"], "certify": ["--certify", "cert"],
    "symmetric": ["--symmetric"], "jobs": ["--jobs", "2"], "solver": ["--solver", "minisat"],
    "place": ["--place", "1,2"], "hole": ["--block-square", "3,3"], "loop": ["--engine", "loop"],
    "cubes": ["--engine", "cubes"], "check-all": ["--check-all"], "encoding": ["--encoding", "sequential"],
    "column-alo": ["--column-alo"],
}  # fmt: skip
PUBLISHED = {  # (N, torus, break_symmetry): OEIS A000170, A007705, A002562
    (5, False, False): 10, (6, False, False): 4, (5, True, False): 10, (6, True, False): 0,
    (5, False, True): 2, (6, False, True): 1,
}  # fmt: skip


def true_count(n: int, flags: set[str]) -> int:
    """By brute force over the permutations, independent of the package: the boards of the variant, or with
    --break-symmetry its orbits under the maps of the board (the square's 8, the torus's group) that keep the
    placed queen and the blocked square."""
    from brute_force import orbits, solutions, square_maps, torus_maps

    torus = "torus" in flags
    placed = {(0, 1)} if "place" in flags else set()
    holes = {(2, 2)} if "hole" in flags else set()
    boards = [b for b in solutions(n, torus) if set(enumerate(b)) >= placed and not set(enumerate(b)) & holes]
    if "break-symmetry" not in flags or not boards:  # no board, no orbit: the group (9! maps at N = 3) unbuilt
        return len(boards)
    maps = torus_maps(n) if torus else square_maps(n)
    kept = [f for f in maps if {f(q) for q in placed} == placed and {f(h) for h in holes} == holes]
    return len(orbits(boards, kept))


def count_with_flags(tmp: Path, n: int, flags: set[str]) -> None:
    """``count N`` with ``flags``: a one-line error, exit 2, with nothing written; or the true count (OEIS where
    published) and, with --certify, a certificate that check-count accepts, of that count."""
    argv = ["count", str(n), "--quiet", *(a for f in sorted(flags) for a in COUNT_FLAGS[f])]
    outcome = run_cli(argv, tmp)
    check(outcome, argv, {}, tmp, {"cert"})
    what = f"{argv}: exit {outcome.code}, stdout {outcome.out!r}, stderr {outcome.err!r}"
    assert outcome.code in (0, 2), what
    if outcome.code == 2:
        assert outcome.out == "" and not (tmp / "cert").exists(), what  # refused before any work
        return
    truth = true_count(n, flags)
    published = PUBLISHED.get((n, "torus" in flags, "break-symmetry" in flags))
    if not flags & {"place", "hole"} and published is not None:
        assert truth == published, (n, flags)  # the oracle agrees with OEIS
    counted = [line for line in outcome.out.splitlines() if line.startswith("count: ")]
    assert [line.split()[1] for line in counted] == [str(truth)], what
    if "certify" in flags:
        checked = run_cli(["check-count", "cert"], tmp)
        assert (checked.code, checked.out) == (0, f"certified count: {truth}\n"), (argv, checked.err)


@FAST
@example(n=6, flags={"break-symmetry", "certify"})
@given(n=st.sampled_from([5, 6]), flags=st.sets(st.sampled_from(sorted(COUNT_FLAGS)), min_size=2, max_size=3))
def test_count_with_any_flags(tmp_path_factory: pytest.TempPathFactory, n: int, flags: set[str]) -> None:
    """Issue 42: ``count 8 --break-symmetry --certify d`` wrote a certificate that check-count rejected."""
    need_solver("minisat")
    count_with_flags(tmp_path_factory.mktemp("count"), n, flags)


@pytest.mark.slow
@pytest.mark.timeout(3600)  # 78 pairs, each a few seconds of CPU
@pytest.mark.parametrize("pair", list(itertools.combinations(sorted(COUNT_FLAGS), 2)), ids="+".join)
def test_count_with_every_pair_of_flags(tmp_path: Path, pair: tuple[str, str]) -> None:
    need_solver("minisat")
    count_with_flags(tmp_path, 6, set(pair))


# -- fixed hostile cases: devices, aliasing, bombs -----------------------------------------------


def _gen(tmp: Path) -> Path:
    from cnfgen_queens.cli import gen_main

    path = tmp / "q.cnf"
    assert gen_main(["6", "-o", str(path)]) == 0
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ["stats", "/dev/null"],
        ["solve", "/dev/null"],
        ["solve", "/dev/full"],
        ["merge", "q.cnf", "/dev/null", "-o", "out.cnf"],
        ["gen", "6", "-o", "/dev/full"],
        ["decode", "/dev/null", "-n", "6"],
        ["gen", "8", "--holes", "/dev/zero"],  # issue 24: grew past 8 GB in 10 s
        ["gen", "8", "--block", "/dev/zero"],
        ["gen", "8", "--place-file", "/dev/zero"],
        ["stats", "/dev/zero"],
        ["merge", "q.cnf", "/dev/zero", "-o", "out.cnf"],
    ],
)
def test_devices(tmp_path: Path, argv: list[str]) -> None:
    cnf = _gen(tmp_path)
    check(run_cli(argv, tmp_path), argv, snapshot([cnf]), tmp_path, {"out.cnf"})


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "q.cnf", "--proof", "q.cnf", "--solver", "kissat"],
        ["merge", "q.cnf", "blocks.txt", "-o", "blocks.txt"],
        ["decode", "answer.txt", "-n", "6", "-o", "answer.txt"],
        ["decode", "answer.txt", "-n", "6", "-o", "link.txt"],
        ["gen", "6", "--holes", "blocks.txt", "-o", "blocks.txt"],
    ],
)
def test_outputs_that_alias_inputs(tmp_path: Path, argv: list[str]) -> None:
    """An output that is an input (also through a symlink) is refused, the input unchanged."""
    cnf = _gen(tmp_path)
    blocks, answer = tmp_path / "blocks.txt", tmp_path / "answer.txt"
    blocks.write_text("1,1\n")
    answer.write_text("s SATISFIABLE\nv " + " ".join(str(-v) for v in range(1, 37)) + " 0\n")
    (tmp_path / "link.txt").symlink_to(answer)
    before = snapshot([cnf, blocks, answer])
    outcome = run_cli(argv, tmp_path)
    check(outcome, argv, before, tmp_path, {"link.txt"})
    assert outcome.code == 2, outcome.err


def _bomb(shape: str, size: int) -> bytes:
    if shape == "zeros":
        return bytes(size)
    if shape == "long-line":
        return b"p cnf 3 1\n" + b" " * size + b"1 0\n"
    if shape == "long-comment":
        return b"c " + b"x" * size + b"\np cnf 1 1\n1 0\n"
    if shape == "clauses":
        return b"p cnf 3 %d\n" % (size // 8) + b"1 2 3 0\n" * (size // 8)
    return b"p cnf 2000000000 1\n1 0\n"  # huge header, tiny body


BOMB_SHAPES = ["zeros", "long-line", "long-comment", "clauses", "huge-header"]


def _bomb_case(command: str, shape: str, suffix: str, size: int) -> object:
    slow = [pytest.mark.slow] if suffix != ".gz" or command == "stats" or size > 4 << 20 else []
    return pytest.param(command, shape, suffix, size, marks=slow, id=f"{command}-{shape}{suffix}-{size >> 20}MB")


@pytest.mark.parametrize(
    ("command", "shape", "suffix", "size"),
    [
        _bomb_case(c, s, x, z)
        for c in ("stats", "solve", "merge")
        for s in BOMB_SHAPES
        for x in (".gz", ".xz")
        for z in (4 << 20, 16 << 20)
    ],
)
def test_small_compressed_bombs(tmp_path: Path, command: str, shape: str, suffix: str, size: int) -> None:
    """Megabytes behind a few KB: bounded time and memory, one line when refused (default: 4 MB, .gz)."""
    path = cnf_file(tmp_path, _bomb(shape, size), suffix)
    argv = {
        "stats": ["stats", path.name],
        "solve": ["solve", path.name, "--time-limit", "20"],
        "merge": ["merge", path.name, "/dev/null", "-o", "out.cnf"],
    }[command]
    check(run_cli(argv, tmp_path), argv, snapshot([path]), tmp_path, {"out.cnf"})


def _large_bomb_case(command: str, shape: str, suffix: str) -> object:
    return pytest.param(command, shape, suffix, id=f"{command}-{shape}{suffix}")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("command", "shape", "suffix"),
    [_large_bomb_case(c, s, x) for c in ("stats", "solve", "merge") for s in BOMB_SHAPES for x in (".gz", ".xz")],
)
def test_large_compressed_bombs(tmp_path: Path, command: str, shape: str, suffix: str) -> None:
    """256 MiB behind a few hundred KB (issue 24: stats grew past 4.5 GB, merge reached 9 GB)."""
    path = tmp_path / f"in.cnf{suffix}"
    with {".gz": gzip.open, ".xz": lzma.open, ".bz2": bz2.open}[suffix](path, "wb") as f:
        data = _bomb(shape, 1 << 20)
        for _ in range(256):
            f.write(data if shape in ("zeros", "clauses") else b" " * (1 << 20))
    argv = {
        "stats": ["stats", path.name],
        "solve": ["solve", path.name, "--time-limit", "20"],
        "merge": ["merge", path.name, "/dev/null", "-o", "out.cnf"],
    }[command]
    check(run_cli(argv, tmp_path), argv, snapshot([path]), tmp_path, {"out.cnf"})


# -- the longer part -----------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.timeout(1800)  # 60 examples, each up to 6 s of wall time at a load of 15 (0.5 s of CPU)
@LONG
@given(data=HOSTILE, suffix=st.sampled_from(["", ".gz", ".xz", ".bz2"]))
def test_stats_on_hostile_dimacs_long(tmp_path_factory: pytest.TempPathFactory, data: bytes, suffix: str) -> None:
    test_stats_on_hostile_dimacs.hypothesis.inner_test(tmp_path_factory, data, suffix)  # type: ignore[attr-defined]


@pytest.mark.slow
@pytest.mark.timeout(1800)  # 60 examples, each up to 6 s of wall time at a load of 15 (0.5 s of CPU)
@LONG
@given(data=HOSTILE)
def test_solve_on_hostile_dimacs_long(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    test_solve_on_hostile_dimacs.hypothesis.inner_test(tmp_path_factory, data)  # type: ignore[attr-defined]


@pytest.mark.slow
@pytest.mark.timeout(1800)  # 60 examples, each up to 6 s of wall time at a load of 15 (0.5 s of CPU)
@LONG
@given(base=HOSTILE, blocks=HOSTILE)
def test_merge_on_hostile_dimacs_long(tmp_path_factory: pytest.TempPathFactory, base: bytes, blocks: bytes) -> None:
    test_merge_on_hostile_dimacs.hypothesis.inner_test(tmp_path_factory, base, blocks)  # type: ignore[attr-defined]


@pytest.mark.slow
@pytest.mark.timeout(1800)  # 60 examples, each up to 6 s of wall time at a load of 15 (0.5 s of CPU)
@LONG
@given(key=st.sampled_from(YAML_KEYS), value=YAML_SCALARS)
def test_batch_config_extremes_long(tmp_path_factory: pytest.TempPathFactory, key: str, value: str) -> None:
    test_batch_config_extremes.hypothesis.inner_test(tmp_path_factory, key, value)  # type: ignore[attr-defined]


@pytest.mark.slow
@pytest.mark.timeout(1800)  # 60 examples, each about 1 s of CPU
@LONG
@given(damage=store_damage())
def test_report_on_a_damaged_store_long(
    tmp_path_factory: pytest.TempPathFactory, db: Path, damage: tuple[str, str, object, bool]
) -> None:
    test_report_on_a_damaged_store.hypothesis.inner_test(tmp_path_factory, db, damage)  # type: ignore[attr-defined]


@pytest.mark.slow
@pytest.mark.timeout(1800)  # 60 examples, each up to a few seconds of CPU (a whole check when nothing it reads changed)
@LONG
@given(damage=manifest_damage(nesting=(3, 50, 1000, 100_000, 1_000_000), sizes=(0, 26, 10_000, 1_000_000)))
def test_check_count_on_a_forged_manifest_long(
    tmp_path_factory: pytest.TempPathFactory, certificate: Path, damage: Forgery
) -> None:
    inner = test_check_count_on_a_forged_manifest.hypothesis.inner_test  # type: ignore[attr-defined]
    inner(tmp_path_factory, certificate, damage)


def test_the_harness_measures_and_bounds(tmp_path: Path) -> None:
    """The harness is no toy: it sees a child's memory, and a command that breaks a property fails."""
    out = run_cli(["gen", "300", "-e", "sequential", "--no-comments", "-o", "/dev/null"], tmp_path)
    assert out.code == 0 and out.peak_mb > 20 and out.cpu > 0
    with pytest.raises(AssertionError, match="peak"):
        check(Outcome(0, "", PEAK_MB + 1, 1.0), ["x"], {}, tmp_path, set())
    with pytest.raises(AssertionError, match="exit 3"):
        check(Outcome(3, "", 1, 1.0), ["x"], {}, tmp_path, set())
    with pytest.raises(AssertionError, match="of CPU"):
        check(Outcome(0, "", 1, 1.0, CPU_SECONDS + 1), ["x"], {}, tmp_path, set())
    with pytest.raises(AssertionError, match="killed after"):
        check(Outcome(0, "", 1, WALL_GUARD + 1), ["x"], {}, tmp_path, set())
