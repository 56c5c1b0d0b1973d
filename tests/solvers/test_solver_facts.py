"""Every fact about a solver is a field of its record in ``solvers/profiles.py`` (compressed formats it
reads, proofs, incremental use, where a wheel bundles it, the install script), and the default solver
is one constant: no other module names a solver."""

from __future__ import annotations

import ast
import gzip
import inspect
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import ROOT, in_process, need_solver

import cnfgen_queens as cq
from cnfgen_queens.errors import UsageError
from cnfgen_queens.solvers.default import DEFAULT_SOLVER
from cnfgen_queens.solvers.input_file import reads_natively
from cnfgen_queens.solvers.profiles import (
    BUILTIN,
    EMBEDDED,
    ProfileError,
    embedded_facts,
    proof_writers,
    user_profile,
)

TABLES = {"solvers/profiles.py", "solvers/default.py"}  # where solvers are named


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, kinds) and node.body and isinstance(node.body[0], ast.Expr)
        if isinstance(node.body[0].value, ast.Constant)
    }


def _strings_outside_the_tables() -> Iterator[tuple[str, str]]:
    """(``module:line``, text) of every string constant of the package but docstrings, outside the tables."""
    package = ROOT / "cnfgen_queens"
    for path in sorted(package.rglob("*.py")):
        where = str(path.relative_to(package))
        if where in TABLES:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                yield f"{where}:{node.lineno}", node.value


def test_no_module_outside_the_profile_table_names_a_solver() -> None:
    names = {*BUILTIN, *EMBEDDED, DEFAULT_SOLVER, *(f"pysat:{name}" for name in EMBEDDED)}
    found = [
        f"{where}: {text!r}"
        for where, text in _strings_outside_the_tables()
        if text in names or any(text.startswith(f"{n}, ") for n in names)
    ]
    assert found == []


def test_no_text_outside_the_profile_table_lists_solvers() -> None:
    """A help text or message naming two solvers or more is a list that goes stale (as --proof's did)."""
    names = sorted({*BUILTIN, *EMBEDDED}, key=len, reverse=True)
    word = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    found = [f"{where}: {text!r}" for where, text in _strings_outside_the_tables() if len(set(word.findall(text))) >= 2]
    assert found == []


def test_the_old_per_module_solver_lists_are_gone() -> None:
    package = ROOT / "cnfgen_queens"
    stale = ("NATIVE: dict", "NOT_INCREMENTAL", "PROOF_SOLVERS", 'binary == "kissat"')
    hits = [
        f"{p.relative_to(package)}: {word}"
        for p in package.rglob("*.py")
        for word in stale
        if word in p.read_text(encoding="utf-8")
    ]
    assert hits == []


def test_one_default_solver_read_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    assert cq.DEFAULT_SOLVER == DEFAULT_SOLVER
    assert inspect.signature(cq.solve).parameters["solver"].default == DEFAULT_SOLVER
    assert inspect.signature(cq.count).parameters["solver"].default == DEFAULT_SOLVER
    for command in ("solve", "count", "enumerate"):
        with pytest.raises(SystemExit):
            in_process([command, "--help"], capsys)
        assert f"(default: {DEFAULT_SOLVER})" in " ".join(capsys.readouterr().out.split())
    documented = (ROOT / "docs" / "solvers.md").read_text(encoding="utf-8")
    assert f"is `{DEFAULT_SOLVER}` (`cnfgen_queens.DEFAULT_SOLVER`)" in " ".join(documented.split())


def test_the_compressed_formats_a_solver_reads_are_its_profiles(tmp_path: Path) -> None:
    packed = tmp_path / "f.cnf.gz"
    packed.write_bytes(gzip.compress(b"p cnf 1 1\n1 0\n", mtime=0))
    assert reads_natively(BUILTIN["minisat"], packed)  # zlib, built in
    assert not reads_natively(BUILTIN["clasp"], packed)  # decompressed for it
    assert reads_natively(BUILTIN["kissat"], packed) == (shutil.which("gzip") is not None)
    mine = user_profile("test", "mine", {"command": "mine {cnf}", "native": [".gz"]})
    assert reads_natively(mine, packed) and not reads_natively(
        user_profile("test", "x", {"command": "x {cnf}"}), packed
    )
    with pytest.raises(ProfileError, match=r"'native' must be a list of \.gz, \.bz2, \.xz"):
        user_profile("test", "mine", {"command": "mine {cnf}", "native": ["zip"]})


def test_embedded_facts() -> None:
    assert not embedded_facts("kissat404").incremental and embedded_facts("cadical195").incremental
    assert embedded_facts("cadical195").proof and embedded_facts("glucose42").proof
    assert not embedded_facts("minisat22").proof
    with pytest.raises(UsageError, match=r"^certify= needs an embedded solver that writes DRAT proofs \(pysat:"):
        cq.count(cq.queens(6), solver="pysat:minisat22", certify=str(Path("never-written")))


def test_the_proof_error_names_every_proof_writer(tmp_path: Path) -> None:
    need_solver("picosat")
    cnf = tmp_path / "f.cnf"
    cnf.write_text("p cnf 1 1\n1 0\n")
    from cnfgen_queens.solvers import solve

    with pytest.raises(UsageError) as e:
        solve(cnf, "picosat", proof=tmp_path / "p.drat")
    assert str(e.value).endswith(f"--proof works with {proof_writers()}")
    for name, profile in BUILTIN.items():  # glucose was missing from the text it replaces
        assert (name in proof_writers().split(", ")) == profile.proof
