"""``gen-queens`` / ``cnfgen-queens gen``: DIMACS bytes, comments, atomic output, kissat, errors."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest
from helpers import Ran, gen_in_process, need_solver, run_cli

from cnfgen_queens import __version__, encodings
from cnfgen_queens.cli import gen_main, main
from cnfgen_queens.model.formula import QueensFormula

BASE_ENCODINGS = ["pairwise", "sequential", "commander", "nested"]


def split(data: bytes) -> tuple[list[str], str, list[str]]:
    """(comment lines, p line, clause lines) of a DIMACS text; comments must all precede the p line."""
    lines = data.decode().split("\n")
    assert lines[-1] == "", "output must end with a newline"
    lines = lines[:-1]
    p_index = next(i for i, line in enumerate(lines) if line.startswith("p "))
    comments, body = lines[:p_index], lines[p_index + 1 :]
    assert all(line == "c" or line.startswith("c ") for line in comments)
    assert not any(line.startswith(("c", "p")) for line in body)
    return comments, lines[p_index], body


# -- output format ------------------------------------------------------------------


@pytest.mark.parametrize("encoding", encodings.names())
@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_header_and_clause_lines_exact(capfdbinary, n: int, encoding: str) -> None:
    code, out, err = gen_in_process([str(n), "-e", encoding], capfdbinary)
    assert code == 0 and err == ""
    _, p_line, body = split(out)
    f = QueensFormula(n, encoding)
    num_vars, num_clauses = f.counts()
    assert p_line == f"p cnf {num_vars} {num_clauses}"
    assert len(body) == num_clauses
    parsed = []
    for line in body:
        assert line.endswith(" 0") and line == line.strip() and "  " not in line
        lits = [int(tok) for tok in line.split()]
        assert lits[-1] == 0 and 0 not in lits[:-1] and lits[:-1]
        assert all(1 <= abs(lit) <= num_vars for lit in lits[:-1])
        parsed.append(tuple(lits[:-1]))
    assert parsed == list(f.clauses())
    assert max(abs(lit) for clause in parsed for lit in clause) == num_vars


def test_comment_header_content(capfdbinary) -> None:
    code, out, _ = gen_in_process(["8", "-e", "sequential", "--column-alo"], capfdbinary)
    assert code == 0
    comments, p_line, _ = split(out)
    text = "\n".join(comments)
    assert f"cnfgen-queens {__version__}" in text
    assert "8-queens" in text
    assert "encoding=sequential" in text and "column_alo=true" in text
    assert "r*8 + c + 1" in text  # the variable rule
    assert "c command: gen-queens 8 -e sequential --column-alo" in comments
    assert comments[-1] == "c p show " + " ".join(str(v) for v in range(1, 65)) + " 0"
    assert p_line.startswith("p cnf ")


def test_commander_group_size_reaches_header(capfdbinary) -> None:
    code, out, _ = gen_in_process(["9", "-e", "commander", "--group-size", "4"], capfdbinary)
    assert code == 0
    comments, p_line, _ = split(out)
    assert any("group_size=4" in c for c in comments)
    v, c = QueensFormula(9, "commander", group_size=4).counts()
    assert p_line == f"p cnf {v} {c}"
    assert (v, c) != QueensFormula(9, "commander").counts()


def test_no_comments(capfdbinary) -> None:
    code, out, _ = gen_in_process(["6", "--no-comments"], capfdbinary)
    assert code == 0
    lines = out.decode().splitlines()
    assert lines[0] == "p cnf 36 " + str(QueensFormula(6).counts()[1])
    assert not any(line.startswith("c") for line in lines)


def test_one_queen(capfdbinary) -> None:
    code, out, _ = gen_in_process(["1", "--no-comments"], capfdbinary)
    assert code == 0 and out == b"p cnf 1 1\n1 0\n"
    code, out, _ = gen_in_process(["1"], capfdbinary)
    assert code == 0 and out.endswith(b"c p show 1 0\np cnf 1 1\n1 0\n")


def test_same_command_same_bytes(tmp_path: Path) -> None:
    for argv in (["8"], ["12", "-e", "commander", "--group-size", "2"], ["9", "-e", "sequential", "--column-alo"]):
        runs = [run_cli(argv, tmp_path, gen=True, env={"PYTHONHASHSEED": seed}) for seed in ("0", "12345")]
        assert all(r.code == 0 for r in runs)
        assert runs[0].out == runs[1].out and runs[0].out


def test_umbrella_gen_equals_gen_queens(tmp_path: Path) -> None:
    a = run_cli(["8"], tmp_path, gen=True)
    b = run_cli(["gen", "8"], tmp_path)
    assert a.code == b.code == 0
    a_lines, b_lines = a.out.splitlines(), b.out.splitlines()
    assert [x for x in a_lines if not x.startswith("c command:")] == [
        x for x in b_lines if not x.startswith("c command:")
    ]
    assert "c command: gen-queens 8" in a_lines
    assert "c command: cnfgen-queens gen 8" in b_lines


def test_in_process_umbrella(capfdbinary) -> None:
    assert main(["gen", "5", "--no-comments"]) == 0
    umbrella = capfdbinary.readouterr().out
    assert gen_main(["5", "--no-comments"]) == 0
    assert capfdbinary.readouterr().out == umbrella


def test_list_encodings(capfdbinary) -> None:
    code, out, _ = gen_in_process(["--list-encodings"], capfdbinary)
    assert code == 0
    first_words = [line.split()[0] for line in out.decode().splitlines() if line.strip()]
    names = encodings.names()
    assert [w for w in first_words if w in names] == names  # each once, in registry order


# -- -o FILE ----------------------------------------------------------------------------


@pytest.mark.parametrize("comments", [True, False])
def test_output_file_is_atomic_and_equals_stdout(capfdbinary, tmp_path: Path, comments: bool) -> None:
    extra = [] if comments else ["--no-comments"]
    target = tmp_path / "q.cnf"
    code, out, err = gen_in_process(["10", "-e", "sequential", "-o", str(target), *extra], capfdbinary)
    assert code == 0 and out == b"" and err == ""
    assert [p.name for p in tmp_path.iterdir()] == ["q.cnf"]  # no temp file left
    code, stdout, _ = gen_in_process(["10", "-e", "sequential", *extra], capfdbinary)
    assert code == 0
    written = target.read_bytes()
    if comments:
        strip = lambda data: [x for x in data.splitlines() if not x.startswith(b"c command:")]
        assert strip(written) == strip(stdout)
        assert f"c command: gen-queens 10 -e sequential -o {target}".encode() in written
    else:
        assert written == stdout


def test_output_file_overwrites(capfdbinary, tmp_path: Path) -> None:
    target = tmp_path / "q.cnf"
    target.write_bytes(b"old content that is longer than the new one " * 100)
    assert gen_in_process(["1", "--no-comments", "-o", str(target)], capfdbinary)[0] == 0
    assert target.read_bytes() == b"p cnf 1 1\n1 0\n"
    assert gen_in_process(["1", "--no-comments", "-o", "-"], capfdbinary)[1] == b"p cnf 1 1\n1 0\n"  # '-' is stdout


def test_output_file_mode_follows_umask(capfdbinary, tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        target = tmp_path / "q.cnf"
        assert gen_in_process(["4", "-o", str(target)], capfdbinary)[0] == 0
        plain = tmp_path / "plain.txt"
        plain.write_bytes(b"")  # what any other tool would create: 0644 under umask 022
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode) == 0o644


def test_failure_mid_write_leaves_nothing(capfdbinary, tmp_path: Path, monkeypatch) -> None:
    """A crash after the header has been written leaves neither the target nor a temp file."""
    original = QueensFormula.clauses

    def broken(self):  # yields some clauses, then fails
        for i, clause in enumerate(original(self)):
            if i == 50:
                raise RuntimeError("simulated failure")
            yield clause

    monkeypatch.setattr(QueensFormula, "clauses", broken)
    target = tmp_path / "q.cnf"
    code, out, err = gen_in_process(["8", "-o", str(target)], capfdbinary)
    assert code != 0 and out == b""
    assert "simulated failure" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []
    # an existing file is kept intact
    target.write_bytes(b"keep me\n")
    assert gen_in_process(["8", "-o", str(target)], capfdbinary)[0] != 0
    assert target.read_bytes() == b"keep me\n"
    assert [p.name for p in tmp_path.iterdir()] == ["q.cnf"]


# -- kissat --strict ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "encoding", "expected"),
    [
        (1, "pairwise", 10),
        (2, "pairwise", 20),
        (3, "sequential", 20),
        (4, "commander", 10),
        (5, "nested", 10),
        (8, "pairwise", 10),
        (8, "sequential", 10),
        (8, "commander", 10),
        (10, "nested", 10),
        (12, "commander", 10),
    ],
)
def test_kissat_strict_accepts(tmp_path: Path, n: int, encoding: str, expected: int) -> None:
    kissat = need_solver("kissat")
    for extra in ([], ["--no-comments"], ["--column-alo"]):
        target = tmp_path / "q.cnf"
        assert gen_main([str(n), "-e", encoding, "-o", str(target), *extra]) == 0
        r = subprocess.run([kissat, "--strict", "-q", "-n", str(target)], capture_output=True, timeout=60, check=False)
        assert r.returncode == expected, (extra, r.stdout.decode()[-500:], r.stderr.decode()[-500:])
        assert b"error" not in r.stderr.lower() and b"warning" not in r.stdout.lower()


# -- errors -------------------------------------------------------------------------------


def check_one_line_error(r: Ran, *needles: str) -> str:
    """gen-queens's usage error: exit 2, nothing on stdout, one line on stderr naming each of ``needles``."""
    assert r.out == "", r
    line = r.one_line(2, *needles)
    assert line.startswith("gen-queens: error: "), line
    return line


@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        ([], ["N"]),
        (["0"], ["N", "0"]),
        (["-4"], []),
        (["eight"], ["N", "eight"]),
        (["8.5"], ["N", "8.5"]),
        (["8", "-e", "magic"], ["magic", *BASE_ENCODINGS]),
        (["8", "--encoding=Pairwise"], ["Pairwise", "pairwise"]),
        (["8", "--group-size", "0"], ["group size"]),
        (["8", "--frobnicate"], ["--frobnicate"]),
    ],
)
def test_usage_errors(argv: list[str], needles: list[str], tmp_path: Path) -> None:
    check_one_line_error(run_cli(argv, tmp_path, gen=True), *needles)


def test_commander_group_size_one_is_a_usage_error(tmp_path: Path) -> None:
    check_one_line_error(run_cli(["8", "-e", "commander", "--group-size", "1"], tmp_path, gen=True), "group size")


def test_unknown_encoding_lists_every_valid_one(tmp_path: Path) -> None:
    err = check_one_line_error(run_cli(["5", "-e", "nope"], tmp_path, gen=True))
    assert all(name in err for name in encodings.names())


@pytest.mark.parametrize("where", ["missing-dir", "is-dir", "under-file"])
def test_unwritable_output(tmp_path: Path, where: str) -> None:
    (tmp_path / "afile").write_text("x")
    target = {
        "missing-dir": tmp_path / "no" / "such" / "q.cnf",
        "is-dir": tmp_path,
        "under-file": tmp_path / "afile" / "q.cnf",
    }[where]
    before = sorted(p.name for p in tmp_path.rglob("*"))
    check_one_line_error(run_cli(["8", "-o", str(target)], tmp_path, gen=True), str(target))
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing partial left behind


def test_unwritable_file_system(tmp_path: Path) -> None:
    """Root ignores permission bits, so try a place nobody can create files in: sysfs."""
    check_one_line_error(run_cli(["8", "-o", "/sys/q.cnf"], tmp_path, gen=True), "/sys")


def test_read_only_directory(tmp_path: Path) -> None:
    if os.geteuid() == 0:  # root ignores directory permissions: the probe must still refuse sysfs
        check_one_line_error(run_cli(["8", "-o", "/sys/q.cnf"], tmp_path, gen=True), "/sys")
        return
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        check_one_line_error(run_cli(["8", "-o", str(ro / "q.cnf")], tmp_path, gen=True))
        assert list(ro.iterdir()) == []
    finally:
        ro.chmod(0o755)


def test_error_with_output_leaves_no_file(tmp_path: Path) -> None:
    target = tmp_path / "q.cnf"
    check_one_line_error(run_cli(["0", "-o", str(target)], tmp_path, gen=True))
    check_one_line_error(run_cli(["8", "-e", "nope", "-o", str(target)], tmp_path, gen=True))
    assert list(tmp_path.iterdir()) == []


def test_umbrella_errors(tmp_path: Path) -> None:
    r = run_cli(["gen", "0"], tmp_path)
    assert r.one_line(2).startswith("cnfgen-queens gen: error: ")
    run_cli(["no-such-subcommand"], tmp_path).one_line(2)
