"""The release's files: one version everywhere (and scripts/bump_version.py moves it), the changelog's
form, the licence, the package metadata and CITATION.cff under the CFF 1.2.0 schema."""

from __future__ import annotations

import datetime
import re
import shutil
import subprocess
import sys
import tomllib
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from helpers import ROOT, need_module, need_tool

from cnfgen_queens import __version__

BUMP = ROOT / "scripts" / "bump_version.py"
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", re.M)
SECTIONS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}  # Keep a Changelog's


def _bump(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(BUMP), *args], capture_output=True, text=True, timeout=60)


def _cffconvert() -> str:
    """cffconvert's command beside this Python (the test extra installs it); skipped without, failed under CI."""
    need_module("cffconvert")
    return str(Path(sys.executable).parent / "cffconvert")


def markdown_renderer() -> Callable[[str], str | None]:
    """readme_renderer's Markdown rendering (twine check's); skipped without its Markdown extra, failed under CI."""
    need_module("readme_renderer")
    import readme_renderer.markdown

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if readme_renderer.markdown.render("# x") is None:
            need_tool("readme_renderer renders no Markdown: pip install 'readme_renderer[md]' (the test extra)")
    return readme_renderer.markdown.render  # type: ignore[no-any-return]


def _citation(root: Path = ROOT) -> dict[str, object]:
    data = yaml.safe_load((root / "CITATION.cff").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _releases(root: Path = ROOT) -> list[tuple[str, str]]:
    return RELEASE.findall((root / "CHANGELOG.md").read_text(encoding="utf-8"))


def _printed_headers(root: Path) -> dict[str, set[str]]:
    """The versions of the ``c cnfgen-queens X:`` header lines printed in README.md and docs/*.md."""
    pages = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    found = {p.name: set(re.findall(r"^c cnfgen-queens (\S+?):", p.read_text(encoding="utf-8"), re.M)) for p in pages}
    return {name: versions for name, versions in found.items() if versions}


def test_one_version_everywhere() -> None:
    """version.py (what the package reports), CITATION.cff, the newest release of CHANGELOG.md and the
    printed CNF headers all name one version, and the CITATION's date is that release's."""
    releases = _releases()
    citation = _citation()
    assert releases, "CHANGELOG.md names no release"
    assert (citation["version"], str(citation["date-released"])) == releases[0]
    assert releases[0][0] == __version__
    headers = _printed_headers(ROOT)
    assert headers, "no page prints a CNF header line"
    assert all(v == {__version__} for v in headers.values()), headers
    check = _bump("--check")
    assert check.returncode == 0, check.stdout + check.stderr


def test_package_reads_its_version_from_version_py() -> None:
    """pyproject.toml writes no version of its own: setuptools reads cnfgen_queens/version.py."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"]
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "cnfgen_queens.version.__version__"}
    from cnfgen_queens import version

    assert version.__version__ == __version__


def test_changelog_keeps_its_form() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n")
    headings = re.findall(r"^## (.*)$", text, re.M)
    assert headings[0] == "[Unreleased]", "the Unreleased section comes first"
    releases = _releases()
    assert len(headings) == 1 + len(releases), f"a release heading not '## [X.Y.Z] - YYYY-MM-DD': {headings}"
    keys = [tuple(int(p) for p in v.split(".")) for v, _ in releases]
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys), "newest first, each once"
    dates = [datetime.date.fromisoformat(d) for _, d in releases]
    assert dates == sorted(dates, reverse=True)
    assert set(re.findall(r"^### (.*)$", text, re.M)) <= SECTIONS


def test_bump_moves_every_place(tmp_path: Path) -> None:
    for rel in ("cnfgen_queens/version.py", "CITATION.cff", "CHANGELOG.md", "README.md", "docs"):
        src, dst = ROOT / rel, tmp_path / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(src, dst) if src.is_dir() else shutil.copy2(src, dst)
    old = __version__
    major, minor, _ = (int(p) for p in old.split("."))
    new = f"{major}.{minor + 1}.0"
    run = _bump(new, "--date", "2030-01-02", "--root", str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert f'__version__ = "{new}"' in (tmp_path / "cnfgen_queens/version.py").read_text()
    citation = _citation(tmp_path)
    assert (citation["version"], str(citation["date-released"])) == (new, "2030-01-02")
    releases = _releases(tmp_path)
    assert releases[:2] == [(new, "2030-01-02"), _releases()[0]]
    changelog = (tmp_path / "CHANGELOG.md").read_text()
    assert f"## [Unreleased]\n\n## [{new}] - 2030-01-02\n" in changelog
    assert changelog.count("## [Unreleased]") == 1
    assert all(v == {new} for v in _printed_headers(tmp_path).values())
    assert set(_printed_headers(tmp_path)) == set(_printed_headers(ROOT))
    assert _bump("--check", "--root", str(tmp_path)).returncode == 0
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    for args in ([old], [new], ["0.0.1"], ["1.2"], ["v9.0.0"], [f"{major + 1}.0.0", "--date", "2030-13-01"]):
        refused = _bump(*args, "--root", str(tmp_path))
        assert refused.returncode != 0 and refused.stderr.count("\n") <= 2, (args, refused.stderr)
        assert "Traceback" not in refused.stderr
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_check_fails_when_a_place_differs(tmp_path: Path) -> None:
    for rel in ("cnfgen_queens/version.py", "CITATION.cff", "CHANGELOG.md", "README.md", "docs"):
        src, dst = ROOT / rel, tmp_path / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(src, dst) if src.is_dir() else shutil.copy2(src, dst)
    cff = tmp_path / "CITATION.cff"
    cff.write_text(cff.read_text().replace(f"version: {__version__}", "version: 99.0.0"))
    run = _bump("--check", "--root", str(tmp_path))
    assert run.returncode == 1
    assert "CITATION.cff: 99.0.0" in run.stdout


def test_licence_travels() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n\nCopyright (c) 2026 The cnfgen-queens developers\n")
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert (project["license"], project["license-files"]) == ("MIT", ["LICENSE"])
    assert _citation()["license"] == "MIT"


def test_metadata_for_an_index() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    classifiers = set(project["classifiers"])
    assert {
        "Operating System :: POSIX :: Linux",
        "Topic :: Scientific/Engineering :: Mathematics",
        "Programming Language :: Python :: 3.11",
    } <= classifiers
    minimum = re.fullmatch(r">=3\.(\d+)", project["requires-python"])
    assert minimum, project["requires-python"]
    listed = {
        int(c.rsplit(".", 1)[1]) for c in classifiers if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    }
    assert min(listed) == int(minimum.group(1)), "the classifiers start at requires-python"
    assert project["keywords"]


def test_citation_is_valid_cff() -> None:
    """CITATION.cff validates against the CFF 1.2.0 schema (cffconvert ships the schema; no network)."""
    run = subprocess.run(
        [_cffconvert(), "--validate", "-i", str(ROOT / "CITATION.cff")], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_cff_check_can_fail(tmp_path: Path) -> None:
    """The same check refuses a CITATION without its authors (the test above can fail)."""
    bad = tmp_path / "CITATION.cff"
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    bad.write_text(re.sub(r"^authors:\n(  - .*\n)+", "", text, flags=re.M))
    assert "authors" not in bad.read_text()
    run = subprocess.run([_cffconvert(), "--validate", "-i", str(bad)], capture_output=True, text=True, timeout=120)
    assert run.returncode != 0


@pytest.mark.parametrize("page", ["README.md", "docs/index.md"])
def test_how_to_cite(page: str) -> None:
    text = (ROOT / page).read_text(encoding="utf-8")
    assert re.search(r"How to cite", text) and "CITATION.cff" in text


def test_long_description_renders() -> None:
    """README.md, the package's long description, renders as an index renders it (twine check's renderer,
    readme_renderer's Markdown extra), every heading and the code blocks included."""
    render = markdown_renderer()
    html = render((ROOT / "README.md").read_text(encoding="utf-8"))
    assert html is not None
    assert html.count("<h2") == (ROOT / "README.md").read_text(encoding="utf-8").count("\n## ")
    assert "Five lines of Python<a" in html and html.count("<pre") >= 5
