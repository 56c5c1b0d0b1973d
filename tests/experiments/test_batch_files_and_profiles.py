"""A batch with the researcher's own solver profiles (inline and from ``solvers_file``) and DIMACS files
(``instances.files``, plain and .gz) beside the queens, with real solvers: every file solved by every
solver, its model checked against its clauses (a lying solver's is wrong), its UNSAT unchecked without a
proof, its profile stored with its command template and version, and the report, ``--compare`` and the
HTML report counting the files as instances."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest
from helpers import ROOT, in_process, need_solver, pigeonhole

from cnfgen_queens.cli import main
from cnfgen_queens.cnf.gbd_hash import gbd_hash
from cnfgen_queens.experiments.config import ConfigError, load
from cnfgen_queens.experiments.grid import build
from cnfgen_queens.experiments.store import Row, Store
from cnfgen_queens.experiments.verdict import Verdict
from cnfgen_queens.solvers.outcome import Checked, Status

LIAR = ROOT / "tests" / "fakes" / "wrong_model.sh"  # claims SAT with the all-false model
SAT_CNF = "c a satisfiable file\np cnf 3 3\n1 2 0\n-1 3 0\n2 3 0\n"
SOLVERS_FILE = """\
solvers:
  kissat-plain:
    command: "kissat {flags} {args} {cnf}"
    time_flags: "--time={time}"
"""


def grid(tmp_path: Path, solvers: str, *, files: str = "[bench/*.cnf, bench/*.cnf.gz]", extra: str = "") -> Path:
    """A config in ``tmp_path`` with the files of ``bench/`` beside N = 6 (pairwise), the solvers given."""
    bench = tmp_path / "bench"
    bench.mkdir(exist_ok=True)
    pigeonhole(bench / "php-4.cnf", 4)  # unsatisfiable
    (bench / "small.cnf.gz").write_bytes(gzip.compress(SAT_CNF.encode(), mtime=0))
    (tmp_path / "my-solvers.yaml").write_text(SOLVERS_FILE)
    path = tmp_path / "grid.yaml"
    path.write_text(
        f"instances: {{n: [6], encodings: [pairwise], files: {files}}}\n"
        f"solvers: {solvers}\n{extra}"
        f"limits: {{time: 30, memory: 2048}}\nresults: {tmp_path / 'results.sqlite'}\n"
    )
    return path


INLINE = (
    '{name: minisat-quiet, command: "minisat -verb=0 {flags} {args} {cnf} {model}", output: minisat, '
    'time_flags: "-cpu-lim={time}", version_args: null}'
)
LYING = f'{{name: liar, command: "{LIAR} {{cnf}}"}}'


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Row]]:
    need_solver("kissat")
    need_solver("minisat")
    tmp_path = tmp_path_factory.mktemp("files")
    cfg = grid(tmp_path, f"[{INLINE}, kissat-plain, {LYING}]", extra="solvers_file: my-solvers.yaml\n")
    assert main(["batch", str(cfg), "--jobs", "2", "--no-progress"]) == 0
    with Store(tmp_path / "results.sqlite", readonly=True) as store:
        return tmp_path, store.rows()


def by(rows: list[Row], solver: str, encoding: str) -> Row:
    (row,) = [r for r in rows if r.solver == solver and r.encoding == encoding]
    return row


def test_every_file_is_solved_by_every_solver_beside_the_queens(ran: tuple[Path, list[Row]]) -> None:
    tmp_path, rows = ran
    assert len(rows) == 3 * 3  # (N 6 pairwise + 2 files) x 3 solvers
    files = [r for r in rows if r.family == "bench"]
    assert {(r.encoding, r.n) for r in files} == {("php-4", 0), ("small", 0)}
    assert {r.family for r in rows} == {"queens", "bench"}
    for r in files:  # identified by the GBD hash of the file's CNF (of the decompressed one for .gz)
        name = "php-4.cnf" if r.encoding == "php-4" else "small.cnf.gz"
        assert r.gbd_hash == gbd_hash(tmp_path / "bench" / name)
    assert not list(tmp_path.glob("cnf-cache/*php*"))  # a file is solved where it is, not copied


def test_a_model_is_checked_against_the_files_clauses(ran: tuple[Path, list[Row]]) -> None:
    _, rows = ran
    for solver in ("minisat-quiet", "kissat-plain"):
        r = by(rows, solver, "small")
        assert (r.status, r.verified, r.checked, r.verdict) == (Status.SAT, True, Checked.MODEL, Verdict.SOLVED)


def test_a_lying_solver_on_a_file_is_wrong(ran: tuple[Path, list[Row]]) -> None:
    _, rows = ran
    for encoding in ("small", "php-4", "pairwise"):  # a wrong model on a file, as on the queens
        r = by(rows, "liar", encoding)
        assert (r.status, r.verified, r.verdict) == (Status.SAT, False, Verdict.WRONG), encoding


def test_unsat_on_a_file_without_a_proof_is_unchecked(ran: tuple[Path, list[Row]]) -> None:
    _, rows = ran
    for solver in ("minisat-quiet", "kissat-plain"):
        r = by(rows, solver, "php-4")
        assert (r.status, r.checked) == (Status.UNSAT, Checked.UNCHECKED)  # no known answer, no proof
        assert r.checked is not Checked.PROOF and r.verdict is Verdict.SOLVED


def test_each_profile_is_stored_with_its_command_and_version(ran: tuple[Path, list[Row]]) -> None:
    tmp_path, _ = ran
    with Store(tmp_path / "results.sqlite", readonly=True) as store:
        recorded = {name: (profile, version) for name, profile, version in store.solvers()}
    assert set(recorded) == {"minisat-quiet", "kissat-plain", "liar"}
    quiet, version = recorded["minisat-quiet"]
    assert quiet["command"] == ["{solver}", "-verb=0", "{flags}", "{args}", "{cnf}", "{model}"]
    assert quiet["output"] == "minisat" and version  # no --version asked: Debian's package version
    plain, version = recorded["kissat-plain"]
    assert plain["source"].endswith("my-solvers.yaml") and plain["time_flags"] == ["--time={time}"]
    assert version and version[0].isdigit()


def test_the_report_and_compare_count_files_as_instances(
    ran: tuple[Path, list[Row]], capsys: pytest.CaptureFixture[str]
) -> None:
    tmp_path, _ = ran
    db = str(tmp_path / "results.sqlite")
    code, out, _ = in_process(["report", db], capsys)
    assert code == 0
    lines = [line for line in out.splitlines() if line.startswith("| bench |")]
    assert len(lines) == 4 and all("(files)" in line for line in lines[:3])  # 3 solvers and the virtual best
    assert "missing" not in out.splitlines()[0]  # the files are a table of their own: no line misses any
    code, out, _ = in_process(["report", db, "--compare", "minisat-quiet", "kissat-plain"], capsys)
    assert code == 0 and "instances run by both: 3; solved by both: 3" in out  # N = 6 and the two files
    assert "verdict:" in out
    code, out, _ = in_process(["report", db, "--html", str(tmp_path / "html")], capsys)
    assert code == 0
    runs = (tmp_path / "html" / "runs.js").read_text()
    assert '"bench/php-4"' in runs and '"bench/small"' in runs
    assert "2 DIMACS file(s)" in (tmp_path / "html" / "index.html").read_text()
    csv = tmp_path / "runs.csv"  # a file's N of 0 is read back from a runs CSV (and refused for the queens)
    code, table, _ = in_process(["report", db], capsys)
    assert in_process(["report", db, "--runs-csv", str(csv)], capsys)[0] == 0
    assert in_process(["report", str(csv)], capsys)[:2] == (0, table)
    text = csv.read_text()
    queens_zero = text.replace(",6,pairwise,", ",0,pairwise,", 1)
    assert queens_zero != text
    csv.write_text(queens_zero)
    code, _, err = in_process(["report", str(csv)], capsys)
    assert code == 2 and "column n holds 0, not an integer in 1..46340" in err


def test_unsat_on_a_file_with_a_verified_proof_is_proof_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = grid(tmp_path, "[pysat:cadical195]", files="[bench/*.cnf]", extra="proof: true\n")
    (tmp_path / "plain").mkdir()  # the same file without proof: other runs
    plain = load(grid(tmp_path / "plain", "[pysat:cadical195]", files="[bench/*.cnf]"), check_solvers=False)
    assert in_process(["batch", str(cfg), "--no-progress"], capsys)[0] == 0
    with Store(tmp_path / "results.sqlite", readonly=True) as store:
        (row,) = [r for r in store.rows() if r.family == "bench"]
    assert (row.status, row.checked, row.verdict) == (Status.UNSAT, Checked.PROOF, Verdict.SOLVED)
    assert {r.key for r in build(load(cfg))}.isdisjoint(r.key for r in build(plain))  # a proof run is another run


def test_a_second_batch_finds_every_run_stored(ran: tuple[Path, list[Row]]) -> None:
    tmp_path, rows = ran
    config = load(tmp_path / "grid.yaml")
    assert {r.key for r in build(config)} == {r.run_key for r in rows}  # the keys are stable: nothing to redo


def test_the_same_file_twice_is_one_instance(tmp_path: Path) -> None:
    cfg = grid(tmp_path, "[kissat]", files="[bench/*.cnf, bench/*.cnf.gz, bench/php-4.cnf]")
    shutil.copy(tmp_path / "bench" / "php-4.cnf", tmp_path / "bench" / "copy.cnf")
    config = load(cfg, check_solvers=False)
    assert [f.label for f in config.files] == ["copy", "small"]  # by GBD hash: the copy and php-4 are one


def test_a_changed_profile_command_is_another_solver(tmp_path: Path) -> None:
    one = load(grid(tmp_path, f"[{INLINE}]"), check_solvers=False)
    other = load(grid(tmp_path, f"[{INLINE.replace('-verb=0', '-verb=1')}]"), check_solvers=False)
    assert one.hash != other.hash and not {r.key for r in build(one)} & {r.key for r in build(other)}
    plain = load(grid(tmp_path, "[minisat]"), check_solvers=False)
    assert "profile" not in plain.normalized()["solvers"][0]  # a built-in keeps the hash it had


@pytest.mark.parametrize(
    ("solvers", "extra", "files", "expected"),
    [
        ("[no-such-profile]", "", None, "solvers[0]: unknown or missing solver: unknown solver 'no-such-profile'"),
        ("[kissat-plain]", "", None, "unknown solver 'kissat-plain'"),  # its solvers_file not given
        ("[kissat]", "solvers_file: missing.yaml\n", None, "solvers_file: cannot read"),
        ("[{name: x, time_flags: '-t {time}'}]", "", None, "solvers[0].command: missing (an inline profile"),
        ('[{name: x, command: "x {nope}"}]', "", None, "unknown placeholder {nope}"),
        ('[{name: "pysat:x", command: "x {cnf}"}]', "", None, "cannot be empty or start with pysat:"),
        ("[kissat]", "", "[nothing/*.cnf]", "instances.files[0]: no file matches 'nothing/*.cnf'"),
        ("[kissat]", "task: count\n", None, "instances.files: task count counts N-queens boards"),
        ("[pysat:cadical195, pysat:minisat22]", "proof: true\n", None, "solvers[1]: pysat:minisat22 writes no DRAT"),
    ],
)
def test_a_bad_profile_or_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], solvers: str, extra: str, files: str | None, expected: str
) -> None:
    cfg = grid(tmp_path, solvers, extra=extra, **({"files": files} if files else {}))
    with pytest.raises(ConfigError, match="^" + str(cfg).replace(".", r"\.")) as e:
        load(cfg)
    assert expected in str(e.value) and "\n" not in str(e.value)
    code, _, err = in_process(["batch", str(cfg), "--no-progress"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and expected in err
    assert not (tmp_path / "results.sqlite").exists()


def test_a_file_that_is_no_dimacs_is_refused(tmp_path: Path) -> None:
    cfg = grid(tmp_path, "[kissat]")
    (tmp_path / "bench" / "broken.cnf").write_text("this is not DIMACS\n")
    with pytest.raises(ConfigError, match=r"instances\.files\[0\]: .*broken\.cnf"):
        load(cfg)


def test_the_example_config_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    need_solver("kissat")
    need_solver("minisat")
    shutil.copytree(ROOT / "configs", tmp_path / "configs")
    shutil.copytree(ROOT / "data" / "pigeonhole", tmp_path / "data" / "pigeonhole")
    monkeypatch.chdir(tmp_path)
    code, out, _ = in_process(["batch", "configs/files-and-profiles.yaml", "--no-progress"], capsys)
    assert code == 0 and "18 runs done (18 solved)" in out
    with Store(tmp_path / "results" / "files-and-profiles.sqlite", readonly=True) as store:
        rows = store.rows()
    unsat = [r for r in rows if r.encoding == "php-5-4"]
    assert len(unsat) == 3 and all(r.status is Status.UNSAT and r.checked is Checked.UNCHECKED for r in unsat)
    assert {r.family for r in rows} == {"queens", "pigeonhole"}


def test_a_count_grid_runs_inline_profiles_and_solver_arguments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`task: count` takes the same solver entries as `task: solve` (as `count --solvers-file --solver-args`
    does): the profile's command and the arguments reach every solver call; a liar's count is wrong."""
    need_solver("minisat")
    need_solver("cadical")
    cfg = tmp_path / "count.yaml"
    cfg.write_text(
        f"instances: {{n: [6, 7], encodings: [pairwise]}}\n"
        f"solvers: [{INLINE}, {{name: cadical, args: [--sat]}}, {{name: cadical, args: [--no-such-option]}}, {LYING}]\n"
        f"task: count\nengine: loop\nlimits: {{time: 30, memory: 2048}}\nresults: {tmp_path / 'results.sqlite'}\n"
    )
    code, _, _ = in_process(["batch", str(cfg), "--no-progress"], capsys)
    assert code == 0
    with Store(tmp_path / "results.sqlite", readonly=True) as store:
        rows = {(r.solver, tuple(json.loads(r.solver_args)), r.n): r for r in store.rows()}
    for n, total in ((6, 4), (7, 40)):  # OEIS A000170
        for solver, args in (("minisat-quiet", ()), ("cadical", ("--sat",))):
            row = rows[(solver, args, n)]
            assert (row.status, row.count, row.verdict) == (Status.UNSAT, total, Verdict.SOLVED)
        bad = rows[("cadical", ("--no-such-option",), n)]
        assert bad.status is Status.ERROR and "--no-such-option" in (bad.error or "")
        assert rows[("liar", (), n)].verdict is not Verdict.SOLVED
