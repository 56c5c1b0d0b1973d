"""check-count within bounds (issue 30, F4) and in parallel (issue 33 item 5).

A proof or a manifest larger than a real certificate of its N can be is refused in one line naming the
file, unread (a 260 MB proof ran for more than 300 s at 6.45 GB, a 55 MB manifest took 1.39 GB before
being rejected); proofs under the cap are read as streams.  ``check-count --jobs J`` (local, Dask) gives
the verdicts of the one-process check."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import dratify
import pytest
from helpers import need_module, one_line, run_cli

from cnfgen_queens.certificates import certificate_check
from cnfgen_queens.certificates.certificate_check import CertificateRejected, check_certificate
from cnfgen_queens.certificates.manifest_bounds import manifest_cap, proof_cap
from cnfgen_queens.cli import main
from cnfgen_queens.execution.where import Where
from cnfgen_queens.solvers.outcome import ProofState
from cnfgen_queens.solvers.proof import check_drat_stream, drat_steps

MEMORY_MB = 600  # RLIMIT_AS of the CLI here: what the refused inputs took before was 1.4-6.5 GB


@pytest.fixture(scope="module")
def cert6(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("cert") / "c6"
    assert main(["count", "6", "--certify", str(d), "--quiet"]) == 0
    return d


def copy(cert: Path, tmp_path: Path) -> Path:
    d = tmp_path / "c"
    shutil.copytree(cert, d)
    return d


def test_a_proof_larger_than_any_of_its_n_is_refused_unread(cert6: Path, tmp_path: Path) -> None:
    d = copy(cert6, tmp_path)
    line = b"-1 -2 0\n"
    with open(d / "cubes" / "00002.drat", "wb") as f:  # 260 MB of clauses the formula has
        for _ in range(260):
            f.write(line * (2**20 // len(line)))
    done = run_cli(["check-count", str(d), "--checker", "dratify"], tmp_path, memory_mb=MEMORY_MB, timeout=120)
    said = one_line(done.err)
    assert done.code == 1 and "cubes/00002.drat: 260.0 MB" in said and "refused unread" in said, said
    assert f"N=6 can be ({proof_cap(6) / 2**20:.1f} MB)" in said


def test_a_manifest_larger_than_any_of_its_n_is_refused_unparsed(cert6: Path, tmp_path: Path) -> None:
    d = copy(cert6, tmp_path)
    manifest = json.loads((d / "manifest.json").read_text())
    manifest["solver"] = [{}] * (55 * 2**20 // 3)  # 55 MB of JSON (1.2 GB parsed), under the 64 MiB of a text read
    (d / "manifest.json").write_text(json.dumps(manifest, separators=(",", ":")))
    done = run_cli(["check-count", str(d)], tmp_path, memory_mb=MEMORY_MB, timeout=120)
    said = one_line(done.err)
    assert done.code == 2 and "manifest.json: 55.0 MB" in said and "refused unparsed" in said, said
    assert manifest_cap(6) < 100_000 < manifest_cap(100)


def test_a_manifest_is_capped_by_its_smallest_n_and_the_largest_certified(cert6: Path, tmp_path: Path) -> None:
    """An ``"n"`` anywhere else in the text can only lower the cap (it took the largest: a 55 MB manifest naming
    N = 46340 in an extra key was parsed, 1.44 GB); an N above the last published count (27), the largest a
    certificate is checked for, caps the manifest as N = 27 would."""
    d = copy(cert6, tmp_path)
    manifest = json.loads((d / "manifest.json").read_text())
    padding = [{}] * (55 * 2**20 // 3)
    for n, extra in ((6, [{"n": 46340}]), (46340, [])):
        text = json.dumps({**manifest, "n": n, "solver": [*extra, *padding]}, separators=(",", ":"))
        (d / "manifest.json").write_text(text)
        done = run_cli(["check-count", str(d)], tmp_path, memory_mb=MEMORY_MB, timeout=120)
        said = one_line(done.err)
        assert done.code == 2 and "manifest.json: 55.0 MB" in said and "refused unparsed" in said, said
        assert f"N={min(n, 27)} can be ({manifest_cap(min(n, 27)) / 1024:.1f} KB)" in said, said
    assert "N=46340 is above N=27, the largest N a certificate is checked for" in said
    (d / "manifest.json").write_text(json.dumps({**manifest, "n": 28}))
    with pytest.raises(CertificateRejected, match=r"the manifest's n is not an integer in 1\.\.27: 28"):
        check_certificate(d, "dratify")
    late = ("csv", "importlib.resources")
    code = "import sys\nfrom cnfgen_queens.cli import main\ntry:\n    main(['check-count', '--help'])\n"
    code += f"except SystemExit:\n    print(sorted(m for m in sys.modules if m in {late!r}))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines()[-1] == "[]", done.stdout + done.stderr  # read when a certificate is checked


def test_count_certify_refuses_an_n_no_certificate_is_checked_for(tmp_path: Path) -> None:
    done = run_cli(["count", "28", "--certify", str(tmp_path / "d")], tmp_path, timeout=60)
    assert done.code == 2 and "N=28 is above N=27, the largest N a certificate is checked for" in one_line(done.err)
    assert not (tmp_path / "d").exists()


def test_a_board_count_above_the_published_one_is_refused(cert6: Path, tmp_path: Path) -> None:
    d = copy(cert6, tmp_path)
    manifest = json.loads((d / "manifest.json").read_text())
    manifest["cubes"][3]["count"] = 5  # N = 6 has 4 boards in all
    (d / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(CertificateRejected, match=r"cube 4 count is not an integer in 0\.\.4"):
        check_certificate(d, "dratify")


def test_a_proof_on_one_line_is_read_as_a_stream(cert6: Path, tmp_path: Path) -> None:
    d = copy(cert6, tmp_path)
    proofs = sorted((d / "cubes").glob("*.drat"), key=lambda p: p.stat().st_size)
    big = proofs[-1]
    big.write_text(big.read_text().replace("\n", " "))  # line breaks are only blanks in DRAT
    assert check_certificate(d, "dratify").total == 4
    big.write_text(big.read_text().rstrip().removesuffix(" 0").removesuffix("0") + " 1 2")
    with pytest.raises(CertificateRejected, match=r"00\d+\.drat is not verified.*not terminated by 0"):
        check_certificate(d, "dratify")


def test_a_proof_naming_a_variable_beyond_the_formula_is_rejected(cert6: Path, tmp_path: Path) -> None:
    d = copy(cert6, tmp_path)
    (d / "cover.drat").write_text("-99999999 0\n0\n")
    with pytest.raises(CertificateRejected, match=r"cover\.drat is not verified.*beyond the formula.s 36"):
        check_certificate(d, "dratify")


PROOFS = [
    "1 2 0\nd 1 2 0\n0\n",
    "c a comment 0 0\n1 2 0 3 0\n  c another\n0\n",
    "1 2\n 0 d1 2 0\r\n-3 0\r0\n",
    "1 d 2 0\n",  # d inside a clause
    "1 x 0\n",  # not a literal
    "1 2 0\n3",  # not ended by 0
    "",
]


@pytest.mark.parametrize("text", PROOFS)
@pytest.mark.parametrize("chunk", [3, 1 << 20])
def test_the_stream_reads_what_dratify_reads(
    text: str, chunk: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import cnfgen_queens.solvers.proof as proof

    monkeypatch.setattr(proof, "CHUNK", chunk)  # a clause, a token, a comment cut by the end of a read
    path = tmp_path / "p.drat"
    path.write_bytes(text.encode())
    try:
        theirs: list[tuple[str, tuple[int, ...]]] | str = dratify.parse_proof(text)
    except ValueError:
        theirs = "error"
    try:
        with open(path, "rb") as f:
            ours: list[tuple[str, tuple[int, ...]]] | str = list(drat_steps(f, 10, 2**20))
    except ValueError:
        ours = "error"
    assert ours == theirs


# three pigeons, two holes (p_ij = 2(i - 1) + j): unsatisfiable, and unit propagation alone does not see it
PIGEONS = [(1, 2), (3, 4), (5, 6), (-1, -3), (-1, -5), (-3, -5), (-2, -4), (-2, -6), (-4, -6)]


def test_the_stream_stops_at_its_byte_limit(tmp_path: Path) -> None:
    path = tmp_path / "p.drat"
    path.write_text("")
    assert check_drat_stream(6, PIGEONS, path, max_bytes=100).verdict is ProofState.REJECTED  # it needs its proof
    path.write_text("-1 0\n0\n" + "1 2 0\n" * 1000)  # refuted in its first 7 bytes, 6 KB in all
    verdict = check_drat_stream(6, PIGEONS, path, max_bytes=100)
    assert verdict.verdict is ProofState.VERIFIED, verdict  # refuted within the limit: the rest is never read
    path.write_text("1 2 0\n" * 1000 + "-1 0\n0\n")
    verdict = check_drat_stream(6, PIGEONS, path, max_bytes=100)
    assert verdict.verdict is ProofState.UNVERIFIED and "not refuted within its first 100 bytes" in verdict.detail
    path.write_text("1 2 3 0\n" * 1000 + "0\n")
    verdict = check_drat_stream(3, [(1, 2, 3), (-1,), (-2,)], path, max_bytes=100)
    assert verdict.verdict is ProofState.UNVERIFIED and "not refuted within its first 100 bytes" in verdict.detail


@pytest.mark.parametrize("executor", ["local", "dask"])
def test_check_count_jobs_gives_the_one_process_verdicts(executor: str, cert6: Path, tmp_path: Path) -> None:
    if executor == "dask":
        need_module("distributed")
    args = ["--jobs", "2", "--executor", executor, "--checker", "dratify"]
    done = run_cli(["check-count", str(cert6), *args], tmp_path, timeout=240)
    assert (done.code, done.out) == (0, "certified count: 4\n"), done.err
    d = copy(cert6, tmp_path)
    sol = next(p for p in sorted((d / "cubes").glob("*.sol")) if p.read_text())
    sol.write_text("")  # a board removed: the manifest's count no longer holds
    for extra in ([], args):
        done = run_cli(["check-count", str(d), *extra, "--checker", "dratify"], tmp_path, timeout=240)
        assert done.code == 1 and f"{sol.name} lists 0" in one_line(done.err), done.err


def test_workers_in_another_directory_find_a_relative_certificate(
    cert6: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SLURM jobs and a Dask scheduler's workers run in their own working directory: ``check-count DIR`` with a
    relative DIR hands them its absolute path (they said "the proof ... is missing")."""
    copy(cert6, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(tmp_path)

    def run_elsewhere(fn: Any, items: Any, finished: Any, **_: Any) -> bool:
        for item in items:
            os.chdir(elsewhere)
            try:
                result = fn(*item)
            finally:
                os.chdir(tmp_path)
            if not finished(result):
                return False
        return True

    monkeypatch.setattr(certificate_check, "run_tasks", run_elsewhere)
    for executor in ("slurm", "dask"):
        assert check_certificate(Path("c"), "dratify", where=Where(jobs=2, executor=executor)).total == 4


def test_solve_proof_and_check_count_check_a_proof_one_way(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``solve --proof`` checks a proof as check-count does, read as a stream: a variable beyond the formula
    (an extension variable of DRAT; the solvers that write proofs here introduce none) is not checked there, so the
    proof is unverified, not verified (solve --proof's whole-file dratify took it) nor checked as it is elsewhere."""
    from pysat.solvers import Solver

    from cnfgen_queens.model.formula import QueensFormula

    formula = QueensFormula(3)  # unsatisfiable, 9 variables
    with Solver(name="cadical195", bootstrap_with=[list(c) for c in formula.clauses()], with_proof=True) as s:
        assert s.solve() is False
        refutation = [line for line in s.get_proof() if line.strip()]
    cnf = tmp_path / "q3.cnf"
    assert main(["gen", "3", "-o", str(cnf)]) == 0
    profiles = tmp_path / "solvers.yaml"
    profiles.write_text(f"solvers:\n  writer:\n    command: '{tmp_path / 'writer.sh'} {{cnf}} {{proof}}'\n")
    script = tmp_path / "writer.sh"
    verdicts = {}
    for name, lines in (("plain", refutation), ("fresh", ["10 0", *refutation])):  # 10: RAT, no clause has -10
        written = tmp_path / f"{name}.drat"
        written.write_text("".join(f"{line}\n" for line in lines))
        script.write_text(f'#!/bin/sh\ncp {written} "$2"\necho "s UNSATISFIABLE"\nexit 20\n')
        script.chmod(0o755)
        proof = tmp_path / f"{name}-out.drat"
        argv = ["solve", str(cnf), "--solver", "writer", "--solvers-file", str(profiles), "--proof", str(proof)]
        main(argv)
        said = [line for line in capsys.readouterr().out.splitlines() if line.startswith(("c proof", "c note"))]
        stream = check_drat_stream(formula.counts()[0], formula.clauses(), written, proof_cap(3))
        verdicts[name] = (said, stream.verdict)
    assert verdicts["plain"] == ([f"c proof {tmp_path / 'plain-out.drat'} verified"], ProofState.VERIFIED)
    said, stream_verdict = verdicts["fresh"]
    assert said[0] == f"c proof {tmp_path / 'fresh-out.drat'} unverified" and stream_verdict is ProofState.UNVERIFIED
    assert "literal 10 names a variable beyond the formula's 9" in said[1], said
