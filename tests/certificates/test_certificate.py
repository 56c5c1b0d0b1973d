"""Certified counts (issue 26, item 5): ``count N --certify DIR`` and ``check-count DIR``.

The certified totals are compared with OEIS A000170 (plain) and A007705 (torus), written out here;
a tampered certificate (a board removed, a proof line changed, a cube dropped, a board repeated, another
formula) must be rejected by the checker, whichever DRAT checker runs.
"""

from __future__ import annotations

import json
import shutil
from itertools import permutations
from pathlib import Path

import pytest
from helpers import need_module

import cnfgen_queens.library as cq
from cnfgen_queens.certificates.certificate import MANIFEST, certificate_cubes, certify, cube_files
from cnfgen_queens.certificates.certificate_check import CertificateRejected, check_certificate, regenerate
from cnfgen_queens.cli import main
from cnfgen_queens.errors import UsageError
from cnfgen_queens.execution.where import Where
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.variants import Variant, make_variant
from cnfgen_queens.solvers.proof import drat_trim

A000170 = {1: 1, 2: 0, 3: 0, 4: 2, 5: 10, 6: 4, 7: 40, 8: 92, 9: 352, 10: 724, 11: 2680, 12: 14200}
A007705 = {5: 10, 6: 0, 7: 28}  # toroidal N-queens
CHECKERS = ["dratify", "drat-trim"]


@pytest.fixture(autouse=True)
def _dratify() -> None:
    need_module("dratify")
    need_module("pysat")


def _checker(name: str) -> str:
    if name == "drat-trim" and drat_trim() is None:
        pytest.skip("drat-trim is not on PATH (not a Debian package; build it from github.com/marijnheule/drat-trim)")
    return name


def _boards(n: int) -> list[tuple[int, ...]]:
    return [
        p
        for p in permutations(range(n))
        if len({r - c for r, c in enumerate(p)}) == n and len({r + c for r, c in enumerate(p)}) == n
    ]


@pytest.mark.parametrize("n", range(1, 9))
def test_every_board_lies_in_exactly_one_cube(n: int) -> None:
    """Without a solver: the cubes partition the boards (the cover proof then only confirms it)."""
    cubes = [set(c) for c in certificate_cubes(n)]
    for board in _boards(n):
        cells = {r * n + c + 1 for r, c in enumerate(board)}
        assert sum(cube <= cells for cube in cubes) == 1, board


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7, 8, 9, pytest.param(10, marks=pytest.mark.slow)])  # 9: two jobs too
def test_certified_count_is_oeis(tmp_path: Path, n: int) -> None:
    count = certify(QueensFormula(n), tmp_path / "c", where=Where(jobs=2 if n >= 9 else 1))
    assert count.complete and count.total == A000170[n]
    checked = check_certificate(tmp_path / "c", "dratify")
    assert checked.total == A000170[n]
    assert checked.proofs == len(certificate_cubes(n)) + 1


@pytest.mark.slow
@pytest.mark.parametrize("n", [11, 12])
@pytest.mark.timeout(1800)  # N = 12 passed 300 s at a load of 30: a loaded machine, not a hang
def test_certified_count_is_oeis_11_12(tmp_path: Path, n: int) -> None:
    assert certify(QueensFormula(n), tmp_path / "c", where=Where(jobs=2)).total == A000170[n]
    assert check_certificate(tmp_path / "c").total == A000170[n]


@pytest.mark.parametrize("n", [5, 6, 7])
def test_certified_torus_count_is_oeis(tmp_path: Path, n: int) -> None:
    certify(QueensFormula(n, variant=Variant(torus=True)), tmp_path / "c")
    checked = check_certificate(tmp_path / "c", "dratify")
    assert checked.total == A007705[n] and checked.formula.variant.torus


@pytest.mark.parametrize("encoding", ["sequential", "commander"])
def test_auxiliary_variables_are_in_the_models(tmp_path: Path, encoding: str) -> None:
    certify(QueensFormula(8, encoding), tmp_path / "c")
    first = (tmp_path / "c" / cube_files(2)[0]).read_text().split()
    assert max(int(v) for v in first) > 64  # the full model, so the checker can evaluate every clause
    assert check_certificate(tmp_path / "c", "dratify").total == 92


@pytest.fixture(scope="module")
def cert8(tmp_path_factory: pytest.TempPathFactory) -> Path:
    need_module("pysat")
    d = tmp_path_factory.mktemp("cert") / "c8"
    assert certify(QueensFormula(8), d).total == 92
    return d


def _copy(cert: Path, tmp_path: Path) -> tuple[Path, dict]:  # type: ignore[type-arg]
    d = tmp_path / "c"
    shutil.copytree(cert, d)
    return d, json.loads((d / MANIFEST).read_text())


def _save(d: Path, manifest: dict) -> None:  # type: ignore[type-arg]
    (d / MANIFEST).write_text(json.dumps(manifest))


def _busy_cube(manifest: dict) -> int:  # type: ignore[type-arg]
    return max(range(len(manifest["cubes"])), key=lambda i: manifest["cubes"][i]["count"])


@pytest.mark.parametrize("checker", CHECKERS)
def test_intact_certificate_passes(cert8: Path, tmp_path: Path, checker: str) -> None:
    d, _ = _copy(cert8, tmp_path)
    assert check_certificate(d, _checker(checker)).total == 92


@pytest.mark.parametrize("checker", CHECKERS)
def test_board_removed_is_rejected_by_the_proof(cert8: Path, tmp_path: Path, checker: str) -> None:
    """The manifest's counts are fixed up too, so only the cube's proof can catch it."""
    d, manifest = _copy(cert8, tmp_path)
    i = _busy_cube(manifest)
    sol = d / manifest["cubes"][i]["solutions"]
    sol.write_text("".join(sol.read_text().splitlines(keepends=True)[1:]))
    manifest["cubes"][i]["count"] -= 1
    manifest["total"] -= 1
    _save(d, manifest)
    with pytest.raises(CertificateRejected, match=f"cube {i + 1} .*not verified"):
        check_certificate(d, _checker(checker))


def test_board_removed_without_fixing_the_manifest_is_rejected(cert8: Path, tmp_path: Path) -> None:
    d, manifest = _copy(cert8, tmp_path)
    sol = d / manifest["cubes"][_busy_cube(manifest)]["solutions"]
    sol.write_text("".join(sol.read_text().splitlines(keepends=True)[1:]))
    with pytest.raises(CertificateRejected, match="the manifest says"):
        check_certificate(d, "dratify")


@pytest.mark.parametrize("checker", CHECKERS)
def test_proof_line_changed_is_rejected(cert8: Path, tmp_path: Path, checker: str) -> None:
    """A lemma replaced by a queen in row 0 beside the cube's own: not implied, and it refutes at once."""
    d, manifest = _copy(cert8, tmp_path)
    i = _busy_cube(manifest)
    cube = manifest["cubes"][i]["cube"]
    proof = d / manifest["cubes"][i]["proof"]
    lines = proof.read_text().splitlines()
    at = next(k for k, line in enumerate(lines) if not line.startswith("d") and line.strip() != "0")
    lines[at] = f"{cube[0] % 8 + 1} 0"  # x(0, a+1): another queen in row 0
    proof.write_text("\n".join(lines) + "\n")
    with pytest.raises(CertificateRejected, match=f"cube {i + 1} .*not verified"):
        check_certificate(d, _checker(checker))


def test_cover_proof_changed_is_rejected(cert8: Path, tmp_path: Path) -> None:
    d, manifest = _copy(cert8, tmp_path)
    (d / manifest["cover_proof"]).write_text("1 0\n0\n")
    with pytest.raises(CertificateRejected, match=r"cover .*not verified"):
        check_certificate(d, "dratify")


def test_cube_dropped_is_rejected(cert8: Path, tmp_path: Path) -> None:
    d, manifest = _copy(cert8, tmp_path)
    del manifest["cubes"][_busy_cube(manifest)]
    _save(d, manifest)
    with pytest.raises(CertificateRejected, match="cubes are not the"):
        check_certificate(d, "dratify")


def test_board_repeated_or_outside_its_cube_is_rejected(cert8: Path, tmp_path: Path) -> None:
    d, manifest = _copy(cert8, tmp_path)
    i = _busy_cube(manifest)
    sol = d / manifest["cubes"][i]["solutions"]
    first = sol.read_text().splitlines()[0]
    sol.write_text(sol.read_text() + first + "\n")
    manifest["cubes"][i]["count"] += 1
    _save(d, manifest)
    with pytest.raises(CertificateRejected, match="listed twice"):
        check_certificate(d, "dratify")
    other = d / manifest["cubes"][i + 1 if i == 0 else 0]["solutions"]
    other.write_text(first + "\n" + other.read_text())
    with pytest.raises(CertificateRejected, match=r"outside the cube|the manifest says"):
        check_certificate(d, "dratify")


def test_not_a_model_is_rejected(cert8: Path, tmp_path: Path) -> None:
    d, manifest = _copy(cert8, tmp_path)
    sol = d / manifest["cubes"][_busy_cube(manifest)]["solutions"]
    lines = sol.read_text().splitlines()
    lines[0] = " ".join(lines[0].split()[:-2]) + " 0"  # a queen less
    sol.write_text("\n".join(lines) + "\n")
    with pytest.raises(CertificateRejected, match="not a model"):
        check_certificate(d, "dratify")


def test_another_formula_is_rejected(cert8: Path, tmp_path: Path) -> None:
    """The checker regenerates the formula: a manifest naming another encoding no longer matches its hash."""
    d, manifest = _copy(cert8, tmp_path)
    manifest["encoding"] = "sequential"
    _save(d, manifest)
    with pytest.raises(CertificateRejected, match="formula hash"):
        check_certificate(d, "dratify")


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"cubes": [1, 2]}, "cube 1 is not an object"),
        ({"cubes": [{"cube": 3}]}, "cube 1 is not one or two cells"),
        ({"cubes": [{"cube": [1, 64], "count": 0, "solutions": "a", "proof": "b"}]}, "cubes are not the"),
        ({"n": "eight"}, "n is not an integer"),
        ({"encoding": "no-such"}, "names no formula"),
    ],
)
def test_malformed_manifest_is_rejected(cert8: Path, tmp_path: Path, change: dict, said: str) -> None:  # type: ignore[type-arg]
    d, manifest = _copy(cert8, tmp_path)
    _save(d, {**manifest, **change})
    with pytest.raises(CertificateRejected, match=said):
        check_certificate(d, "dratify")


def test_a_formula_too_large_to_hold_is_refused(cert8: Path, tmp_path: Path) -> None:
    d, manifest = _copy(cert8, tmp_path)
    _save(d, {**manifest, "n": 5000})
    with pytest.raises(CertificateRejected, match=r"n is not an integer in 1\.\.27: 5000"):  # no published count
        check_certificate(d, "dratify")
    with pytest.raises(UsageError, match="above the limit"):  # the regenerated formula's own cap
        regenerate({**manifest, "n": 5000})


def test_same_command_same_bytes(cert8: Path, tmp_path: Path) -> None:
    certify(QueensFormula(8), tmp_path / "again", where=Where(jobs=2))
    for f in sorted(p.relative_to(cert8) for p in cert8.rglob("*") if p.is_file()):
        assert (tmp_path / "again" / f).read_bytes() == (cert8 / f).read_bytes(), f


def test_cli_certify_and_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI's flags on N = 8 (N = 9 and 10 with two jobs: test_certified_count_is_oeis)."""
    d = str(tmp_path / "d")
    assert main(["count", "8", "--certify", d, "--jobs", "2", "--quiet"]) == 0
    assert "count: 92 (published-count)" in capsys.readouterr().out
    assert main(["check-count", d, "--checker", "dratify"]) == 0
    assert capsys.readouterr().out == "certified count: 92\n"
    Path(d, "cover.drat").write_text("0\n")
    assert main(["check-count", d, "--checker", "dratify"]) == 1
    assert "rejected: cover" in capsys.readouterr().err


@pytest.mark.parametrize(
    "extra",
    [["--symmetric"], ["--engine", "loop"], ["--limit", "3"], ["--solver", "minisat"], ["--solver", "pysat:minisat22"]],
)
def test_cli_refuses_what_cannot_be_certified(tmp_path: Path, extra: list[str], capsys: pytest.CaptureFixture) -> None:  # type: ignore[type-arg]
    assert main(["count", "8", "--certify", str(tmp_path / "d"), *extra]) == 2
    assert "--certify" in capsys.readouterr().err
    assert not (tmp_path / "d" / MANIFEST).exists()


def test_cli_check_count_without_certificate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-count", str(tmp_path)]) == 2
    assert "holds no certificate" in capsys.readouterr().err


def test_used_directory_and_time_limit(cert8: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="already holds a certificate"):
        certify(QueensFormula(8), cert8)
    assert main(["count", "13", "--certify", str(tmp_path / "t"), "--time-limit", "0.5", "--quiet"]) == 1
    assert not (tmp_path / "t" / MANIFEST).exists()  # no manifest: not a certificate


def test_certify_on_dask(tmp_path: Path) -> None:
    need_module("distributed")
    assert certify(QueensFormula(7), tmp_path / "c", where=Where(jobs=2, executor="dask")).total == A000170[7]
    assert check_certificate(tmp_path / "c", "dratify").total == A000170[7]


def test_the_library_certifies_as_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    c = cq.count(cq.queens(8), certify=tmp_path / "c", check_all=True)
    assert (c.total, c.engine, c.complete) == (A000170[8], "certify", True)
    assert main(["check-count", str(tmp_path / "c"), "--checker", "dratify"]) == 0
    assert capsys.readouterr().out == f"certified count: {A000170[8]}\n"


A002562 = {1: 1, 4: 1, 5: 2, 6: 1, 7: 6, 8: 12}  # fundamental solutions: a --break-symmetry formula's models


@pytest.mark.parametrize("n", [5, 8])
def test_a_break_symmetry_count_is_certified(tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int) -> None:
    """Issue 42: ``count 8 --break-symmetry --certify d`` printed ``certificate: d``, exit 0, and ``check-count d``
    rejected it on the formula hash (the manifest did not say the formula breaks the symmetries).  The CLI and the
    API alike now write a certificate of the lex-leader formula that check-count accepts (OEIS A002562)."""
    d = tmp_path / "d"
    assert main(["count", str(n), "--break-symmetry", "--certify", str(d), "--quiet"]) == 0
    assert capsys.readouterr().out == f"count: {A002562[n]} (published-count)\n"
    assert main(["check-count", str(d), "--checker", "dratify"]) == 0
    assert capsys.readouterr().out == f"certified count: {A002562[n]}\n"
    c = cq.count(cq.queens(n, break_symmetry=True), certify=tmp_path / "api")
    checked = check_certificate(tmp_path / "api", "dratify")
    assert c.total == checked.total == A002562[n] and checked.formula.break_symmetry
    assert (tmp_path / "api" / MANIFEST).read_bytes() == (d / MANIFEST).read_bytes()


def test_a_certificate_says_whether_its_formula_breaks_the_symmetries(tmp_path: Path) -> None:
    """The plain board's certificate does not pass for the lex-leader formula's, nor the other way round, and the
    manifest's word is a strict boolean."""
    certify(QueensFormula(6, break_symmetry=True), tmp_path / "b")
    manifest = json.loads((tmp_path / "b" / MANIFEST).read_text())
    assert manifest["break_symmetry"] is True and regenerate(manifest).break_symmetry
    for value, said in ((False, "formula hash"), (7, "break_symmetry is not true or false")):
        forged = tmp_path / f"forged-{value}"
        shutil.copytree(tmp_path / "b", forged)
        (forged / MANIFEST).write_text(json.dumps({**manifest, "break_symmetry": value}))
        with pytest.raises(CertificateRejected, match=said):
            check_certificate(forged, "dratify")
    certify(QueensFormula(6), tmp_path / "p")
    assert "break_symmetry" not in json.loads((tmp_path / "p" / MANIFEST).read_text())  # the bytes of before
    holes = [(0, 0), (5, 5)]  # a variant's formula too (the torus's lex-leader clauses: too slow for dratify here)
    count = certify(
        QueensFormula(6, variant=make_variant(6, set(), set(holes), False), break_symmetry=True), tmp_path / "h"
    )
    checked = check_certificate(tmp_path / "h", "dratify")
    uncertified = cq.count(cq.queens(6, holes=holes, break_symmetry=True)).total
    assert count.complete and checked.total == count.total == uncertified == 2
