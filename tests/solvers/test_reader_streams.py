"""Issue 30 items 3 and 9, issue 33 item 1: the readers are streams, the input check runs beside the solver
and stops at the deadline, and the deadline runs on the monotonic clock.

The memory tests run the CLI in a fresh process and read its peak RSS (``RUSAGE_CHILDREN`` of a wrapper
that runs nothing else); their inputs of 256 MB are written in the test by repeating a chunk, and each has
a smaller twin in the default run.
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import default_signals

from cnfgen_queens.cli import gen_main
from cnfgen_queens.limits import Deadline

BIN = Path(sys.executable).parent
MB = 1 << 20
PEAK_MB = 200  # issue 30: peak RSS under this whatever the input's size
SIZES = [pytest.param(256, marks=pytest.mark.slow, id="256MB"), pytest.param(24, id="24MB")]
MODEL_8 = [5, 10, 20, 30, 40, 43, 49, 63]  # a solution of N = 8 (row by row, 1-based cells), checked below


def model_line(n: int = 8) -> bytes:
    true = set(MODEL_8)
    return b" ".join(b"%d" % (v if v in true else -v) for v in range(1, n * n + 1))


def repeated(path: Path, head: bytes, chunk: bytes, mb: int, tail: bytes) -> Path:
    """``head``, then ``chunk`` repeated to ``mb`` MB, then ``tail``: a large input written fast."""
    block = chunk * max(1, MB // len(chunk))
    with open(path, "wb") as f:
        f.write(head)
        for _ in range(mb * MB // len(block)):
            f.write(block)
        f.write(tail)
    return path


def peak_run(
    argv: list[str], cwd: Path, stdin: Path | None = None, timeout: float = 900
) -> tuple[int, float, str, str]:
    """(exit code, peak RSS in MB, the end of stdout, the end of stderr) of ``cnfgen-queens ARGV`` run by a
    fresh wrapper process (so RUSAGE_CHILDREN holds that command alone)."""
    code = (
        "import resource, subprocess, sys\n"
        "inp = open(sys.argv[1], 'rb') if sys.argv[1] else subprocess.DEVNULL\n"
        "p = subprocess.run(sys.argv[2:], stdin=inp, capture_output=True)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024\n"
        "print(repr((p.returncode, peak, p.stdout[-2000:].decode(errors='replace'),"
        " p.stderr[-2000:].decode(errors='replace'))))\n"
    )
    argv = [sys.executable, "-c", code, str(stdin or ""), str(BIN / "cnfgen-queens"), *argv]
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=default_signals,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 0, err
    rc, peak, stdout, stderr = eval(out.decode())
    return rc, peak, stdout, stderr


def solver(path: Path, body: str) -> Path:
    """A solver script: ``body`` run by sh with the CNF's path as ``$f``."""
    path.write_text('#!/bin/sh\nfor a in "$@"; do f="$a"; done\n' + body + "\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def q8(tmp_path: Path) -> Path:
    path = tmp_path / "q8.cnf"
    gen_main(["8", "-o", str(path)])
    return path


def test_the_model_of_these_tests_is_a_solution(q8: Path) -> None:
    from cnfgen_queens.solvers import check_model

    full, error = check_model(q8, MODEL_8)
    assert error is None and full is not None


# -- item 9: time -------------------------------------------------------------------------


def test_the_deadline_ignores_a_step_of_the_wall_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    deadline = Deadline.after(60)
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + 3600)  # NTP or `date -s` moved the clock an hour on
    assert not deadline.expired() and 50 < (deadline.left() or 0) <= 60
    monkeypatch.setattr(time, "time", lambda: real() - 3600)
    assert Deadline.after(0.01).left() is not None and (Deadline.after(0.01).left() or 0) <= 0.01


def test_a_pickled_deadline_carries_the_seconds_left() -> None:
    moved = pickle.loads(pickle.dumps(Deadline.after(60)))
    assert 50 < (moved.left() or 0) <= 60
    assert pickle.loads(pickle.dumps(Deadline.after(None))).never
    gone = Deadline.after(0.001)
    time.sleep(0.01)
    assert pickle.loads(pickle.dumps(gone)).expired()


def big_cnf(tmp_path: Path, mb: int, bad_tail: bool = False) -> Path:
    """A CNF of ``mb`` MB of binary clauses over 1000 variables (a literal beyond them at the end with
    ``bad_tail``)."""
    chunk = b"".join(b"-%d -%d 0\n" % (i, i + 1) for i in range(1, 1000))
    return repeated(tmp_path / "big.cnf", b"p cnf 1000 0\n", chunk, mb, b"1 1001 0\n" if bad_tail else b"")


@pytest.mark.slow  # 256 MB; its twin in the default run: test_a_pass_cut_short_by_the_deadline_is_a_timeout
def test_time_limit_lets_the_solver_run_on_a_large_input(tmp_path: Path) -> None:
    """Issue 33 item 1 and issue 30 item 9: the solver starts at once (the input check runs beside it) and
    the run ends near its limit, not after a full pass over the input."""
    cnf = big_cnf(tmp_path, 256)
    started = tmp_path / "started"
    slow = solver(tmp_path / "slow.sh", f'touch {started}\ncat "$f" > /dev/null\nsleep 600')
    begin = time.monotonic()
    proc = subprocess.run(
        [str(BIN / "cnfgen-queens"), "solve", str(cnf), "--solver", str(slow), "--time-limit", "2", "--json"],
        capture_output=True,
        timeout=300,
        preexec_fn=default_signals,
    )
    took = time.monotonic() - begin
    record = json.loads(proc.stdout)
    assert record["status"] == "TIMEOUT" and started.exists(), proc.stderr
    assert took < 30, took  # quiet: about 3 s, Python's start-up included (the check alone takes 2 s or more)


def test_a_pass_cut_short_by_the_deadline_is_a_timeout(tmp_path: Path) -> None:
    """The input check stops at the deadline (its next chunk), reports that it did not read the whole input,
    and raises what it found wrong; the model check stops the same way."""
    from cnfgen_queens.cnf.dimacs import DimacsError
    from cnfgen_queens.cnf.scan import CheckStopped, CnfFile, check_stream
    from cnfgen_queens.solvers import check_model
    from cnfgen_queens.solvers.input_check import InputCheck

    cnf = big_cnf(tmp_path, 8)
    source = CnfFile(cnf, "big.cnf")
    with InputCheck(source, Deadline.after(0)) as check:
        begin = time.monotonic()
        assert check.finish() is False
        assert time.monotonic() - begin < 5
    with InputCheck(source, Deadline.after(None)) as check:
        assert check.finish() is True
    with pytest.raises(CheckStopped):
        check_stream(source, None, stop=lambda: True)
    with pytest.raises(CheckStopped):
        check_model(cnf, [-1, -2], Deadline.after(-60))  # past its grace too: a quiet machine checks 8 MB in it
    bad = big_cnf(tmp_path, 8, bad_tail=True)
    with InputCheck(CnfFile(bad, "big.cnf"), Deadline.after(None)) as check, pytest.raises(DimacsError, match="1001"):
        check.finish()


def test_an_input_error_found_beside_the_solver_stops_it(tmp_path: Path) -> None:
    cnf = big_cnf(tmp_path, 8, bad_tail=True)
    pid_file = tmp_path / "pid"
    slow = solver(tmp_path / "slow.sh", f"echo $$ > {pid_file}\nexec sleep 600")
    proc = subprocess.run(
        [str(BIN / "cnfgen-queens"), "solve", str(cnf), "--solver", str(slow)],
        capture_output=True,
        timeout=300,
        preexec_fn=default_signals,
    )
    err = proc.stderr.decode()
    assert proc.returncode == 2 and "variable 1001 exceeds the header's 1000" in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    if pid_file.exists():  # the solver had started: it is gone
        assert not Path(f"/proc/{pid_file.read_text().strip()}").exists()


def test_an_input_error_outranks_the_answer_of_a_fast_solver(tmp_path: Path) -> None:
    cnf = big_cnf(tmp_path, 8, bad_tail=True)
    fast = solver(tmp_path / "fast.sh", "echo 's UNSATISFIABLE'\nexit 20")
    proc = subprocess.run(
        [str(BIN / "cnfgen-queens"), "solve", str(cnf), "--solver", str(fast)],
        capture_output=True,
        timeout=300,
        preexec_fn=default_signals,
    )
    assert proc.returncode == 2 and b"variable 1001 exceeds" in proc.stderr, proc.stderr


# -- item 3: memory follows the variables, never the bytes --------------------------------


@pytest.mark.parametrize("mb", SIZES)
def test_solver_output_of_any_size_is_read_in_bounded_memory(tmp_path: Path, q8: Path, mb: int) -> None:
    """A solver that prints its model, then the same literals again for ``mb`` MB: the second setting of a
    variable is the error, found while streaming."""
    out = repeated(
        tmp_path / "out.txt", b"s SATISFIABLE\nv " + model_line() + b"\n", b"v " + model_line() + b"\n", mb, b"v 0\n"
    )
    liar = solver(tmp_path / "liar.sh", f"cat {out}\nexit 10")
    try:
        rc, peak, stdout, stderr = peak_run(["solve", str(q8), "--solver", str(liar)], tmp_path)
    finally:
        out.unlink()
    assert "model sets variable 1 twice" in stdout + stderr, (stdout, stderr)
    assert rc != 0 and peak < PEAK_MB, (rc, peak)


def test_a_large_honest_model_is_streamed_and_checked(tmp_path: Path) -> None:
    """Two million variables, each set once (16 MB of v lines): accepted, in memory far below the bytes'
    13-fold of a list of Python ints."""
    v = 2_000_000
    cnf = tmp_path / "wide.cnf"
    cnf.write_bytes(b"p cnf %d 2\n1 2 0\n-%d 0\n" % (v, v))
    out = tmp_path / "out.txt"
    with open(out, "wb") as f:
        f.write(b"s SATISFIABLE\n")
        for lo in range(1, v + 1, 100_000):
            f.write(b"v " + b" ".join(b"-%d" % i if i != 2 else b"2" for i in range(lo, lo + 100_000)) + b"\n")
        f.write(b"v 0\n")
    honest = solver(tmp_path / "honest.sh", f"cat {out}\nexit 10")
    rc, peak, stdout, stderr = peak_run(["solve", str(cnf), "--solver", str(honest), "--no-model"], tmp_path)
    assert rc == 10 and "model verified" in stdout + stderr, (stdout, stderr)
    assert peak < PEAK_MB, peak


@pytest.mark.parametrize("mb", SIZES)
@pytest.mark.parametrize("command", ["decode", "block"])
def test_models_on_stdin_of_any_size_are_read_in_bounded_memory(tmp_path: Path, command: str, mb: int) -> None:
    """The board's cells once, then ``mb`` MB of other variables (kept by no one): the board is decoded; the
    cells again: an error, found while streaming."""
    others = b" ".join(b"-%d" % i for i in range(100, 1000)) + b" "
    honest = repeated(tmp_path / "honest.txt", b"s SATISFIABLE\nv " + model_line() + b" ", others, mb, b"0\n")
    try:
        rc, peak, stdout, stderr = peak_run([command, "-n", "8"], tmp_path, stdin=honest)
    finally:
        honest.unlink()
    assert rc == 0 and peak < PEAK_MB, (rc, peak, stderr)
    assert stdout.count("\u265b") == 8 if command == "decode" else stdout.strip().endswith(" 0"), stdout
    twice = repeated(tmp_path / "twice.txt", b"s SATISFIABLE\n", b"v " + model_line() + b"\n", mb, b"v 0\n")
    try:
        rc, peak, stdout, stderr = peak_run([command, "-n", "8"], tmp_path, stdin=twice)
    finally:
        twice.unlink()
    assert rc == 1 and "model sets variable 1 twice" in stderr and peak < PEAK_MB, (rc, peak, stderr)


@pytest.mark.parametrize("mb", SIZES)
def test_a_clause_line_of_any_length_is_read_in_bounded_memory(tmp_path: Path, mb: int) -> None:
    """One clause of ``mb`` MB on one line: solve's input check and model check, and stats, read it in pieces."""
    chunk = b" ".join(b"%d" % (-i if i % 2 else i) for i in range(1, 1000)) + b" "
    cnf = repeated(tmp_path / "long.cnf", b"p cnf 1000 2\n1 0\n", chunk, mb, b"0\n")
    model = solver(tmp_path / "model.sh", "echo 's SATISFIABLE'\necho 'v 1 -2 0'\nexit 10")
    try:
        rc, peak, stdout, stderr = peak_run(["solve", str(cnf), "--solver", str(model), "--no-model"], tmp_path)
        assert rc == 10 and "model verified against all 2 clauses" in stdout + stderr, (stdout, stderr)
        assert peak < PEAK_MB, peak
        rc, peak, stdout, stderr = peak_run(["stats", str(cnf), "--no-graph"], tmp_path)
        assert rc == 0 and peak < PEAK_MB, (rc, peak, stderr)
    finally:
        cnf.unlink()


def test_the_embedded_solver_gets_a_long_clause_without_copies(tmp_path: Path) -> None:
    """Issue 30: one clause of 35 million literals took the default solver's child to 1.39 GB (the clause held
    whole as an array, then as a list, then as a slice of it).  Now it streams into the solver, which holds
    it itself (CaDiCaL: 4 to 8 bytes a literal): 12 million literals in about 100 MB, 455 MB before."""
    cnf = repeated(tmp_path / "long.cnf", b"p cnf 9 1\n", b"1 2 3 4 5 6 7 8 9 ", 24, b"0\n")
    try:
        rc, peak, stdout, stderr = peak_run(["solve", str(cnf), "--no-model"], tmp_path)
    finally:
        cnf.unlink()
    assert rc == 10 and "model verified against all 1 clauses" in stdout + stderr, (stdout, stderr)
    assert peak < PEAK_MB, peak


@pytest.mark.parametrize("mb", SIZES)
def test_a_resume_file_of_any_size_is_read_in_bounded_memory(tmp_path: Path, mb: int) -> None:
    """``--resume`` reads solutions.txt line by line: a line longer than a placement can be is refused in
    one line, whatever its length, and the solutions before it are read as before."""
    from helpers import need_solver

    need_solver("minisat")
    out = tmp_path / "d"
    first = subprocess.run(
        [str(BIN / "cnfgen-queens"), "enumerate", "6", "--solver", "minisat", "--out", str(out)],
        capture_output=True,
        timeout=300,
        preexec_fn=default_signals,
    )
    assert first.returncode == 0, first.stderr
    solutions = out / "solutions.txt"
    good = solutions.read_bytes()
    repeated(solutions, good, b"1 2 3 4 5 6 ", mb, b"\n")
    try:
        rc, peak, _, stderr = peak_run(
            ["enumerate", "6", "--solver", "minisat", "--out", str(out), "--resume"], tmp_path
        )
    finally:
        solutions.unlink()
    assert rc == 2 and "a line longer than" in stderr and stderr.count("\n") == 1, (rc, stderr)
    assert peak < PEAK_MB, peak


# -- the model sink agrees with the list reader ------------------------------------------------


@pytest.mark.parametrize("piece", [1, 3, 64, 1 << 20])
def test_a_streamed_claim_is_the_listed_claim(piece: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every output of tests/solvers/test_solvers_output.py, and large ones (the numpy path), read with a sink: the
    same answer, problem and terminator, and the values the listed literals set."""
    import io

    from test_solvers_output import OUTPUTS

    from cnfgen_queens.cnf.model_sink import ModelSink
    from cnfgen_queens.solvers import parse

    large = "s SATISFIABLE\nv " + " ".join(str(-i if i % 3 else i) for i in range(1, 200_000)) + " 0\n"
    for text in [*OUTPUTS, *([large, large.replace(" 0\n", " 7 0\n")] if piece >= 64 else [])]:
        listed = parse.read_competition(io.BytesIO(text.encode()))
        monkeypatch.setattr(parse, "PIECE", piece)
        streamed = parse.read_competition(io.BytesIO(text.encode()), ModelSink(70_000))
        monkeypatch.undo()
        assert (streamed.answer, streamed.garbage) == (listed.answer, listed.garbage), text[:80]
        assert (streamed.problem is None) == (listed.problem is None), (text[:80], streamed.problem)
        if listed.model is None or listed.problem is not None:
            continue
        model = streamed.model
        assert model is not None and not isinstance(model, tuple)
        lits = listed.model
        beyond = next((abs(v) for v in lits if abs(v) > 70_000), None)
        if beyond is not None:  # a wrong model, found while reading: "terminated" so that it is judged
            assert model.problem == f"model mentions variable {beyond}, but the CNF has 70000" and streamed.terminated
        elif len(set(map(abs, lits))) < len(lits):
            assert model.problem is not None and "variable 7 " in model.problem
        else:
            assert model.problem is None and streamed.terminated == listed.terminated
            assert list(model.true_variables()) == sorted(v for v in lits if v > 0) and len(model) == len(lits)


def test_the_sink_names_the_first_wrong_literal() -> None:
    from cnfgen_queens.cnf.model_sink import ModelSink

    for lits, problem in [
        ([1, -2, 3, 2], "model sets variable 2 both true and false"),
        ([1, -2, 3, -2], "model sets variable 2 twice"),
        ([1, 2, 11, 12], "model mentions variable 11, but the CNF has 10"),
        ([1, 2, 3], None),
        ([11], "model mentions variable 11, but the CNF has 10"),
        (list(range(11, 11 + 2 * 64)), "model mentions variable 11, but the CNF has 10"),  # issue 30: a crash
        ([-11, *range(1, 100)], "model mentions variable 11, but the CNF has 10"),
        ([*range(1, 66), 2**63], "model mentions variable 11, but the CNF has 10"),  # beyond int64: in order
        ([1, 2, -(2**63), *range(3, 70)], f"model mentions variable {2**63}, but the CNF has 10"),
        ([1, 2**64, *range(3, 70)], f"model mentions variable {2**64}, but the CNF has 10"),
        ([1, -2, -2, 2**64, *range(3, 70)], "model sets variable 2 twice"),
    ]:
        in_python, with_numpy = ModelSink(10), ModelSink(10)
        in_python.add(lits)
        with_numpy._many(lits)  # what add() does past SMALL literals
        assert in_python.problem == with_numpy.problem == problem, (lits, in_python.problem, with_numpy.problem)
        kept = ModelSink(10, keep=lambda var: var > 1)  # a filter, as decode's: the rest is judged the same
        kept.add(lits)
        assert kept.problem == problem and in_python.values().problem == problem, (lits, kept.problem)
