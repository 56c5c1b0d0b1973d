"""Every command block of README.md and of every docs/ page, run as printed, with the printed outputs compared.

The pages are parsed, not copied: a command added, changed or removed there is what runs here.
Conventions (docs/development.md lists them for writers):

- ``console`` blocks: ``$ `` lines are commands; the lines after one are its output.
- ``bash`` / ``sh`` blocks: each line is a command (a trailing ``\\`` continues it).  The main job's
  set-up prefix is dropped (it made this environment); ``pip install -e '.[EXTRA]'`` checks the
  extra exists; a command on the placeholder host ``HOST`` is checked against ``--help``.
- ``python`` blocks run with this Python; a ``text`` block right after one is its output.
- Untyped blocks starting with ``cnfgen-queens`` / ``gen-queens`` are synopses: their flags must exist.
- A block right after ``<!-- not run: REASON -->`` is not run; ``yaml`` blocks are data, and one
  whose first line is ``# configs/NAME.yaml`` must be that file.

Each page runs in a fresh directory holding copies of configs/, scripts/, data/ and examples/ (as a clone
would), its blocks in order.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from helpers import IN_CI, ROOT

from cnfgen_queens.cli import SUBCOMMANDS

README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.rglob("*.md"))]
SETUP = ["python3 -m venv .venv", ". .venv/bin/activate", "pip install -e ."]  # the main job's set-up
CI_COMMAND = "bash scripts/test.sh"  # what runs this test: not run again from here
MAIN_JOB = "cnfgen-queens batch configs/embedded.yaml"
TIMEOUT = 1800  # seconds per command: generous, for a loaded machine
README_MAX_LINES = 250
LIBRARY = ("library", "library.py")  # the public API, a package or a module
NOT_RUN = re.compile(r"^<!-- not run: .+ -->$")
FIVE_LINES = """import cnfgen_queens as cq
f = cq.queens(8, encoding="commander")
out = cq.solve(f)
print(cq.decode(out.model, f))
print(cq.count(f).total)"""  # issue 23's "done when"


@dataclass(frozen=True)
class Block:
    page: Path
    lang: str
    text: str
    line: int  # line of the opening fence
    run: bool  # False after a "not run" marker

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


@dataclass(frozen=True)
class Step:
    command: str
    expected: tuple[str, ...] | None  # the printed output; None: not shown
    where: str


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of a page, also those indented inside a list (dedented)."""
    out: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(\w*)\s*$", lines[i])
        if m:
            indent = len(m.group(1))
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip().startswith("```"))
            before = next((lines[j].strip() for j in range(i - 1, -1, -1) if lines[j].strip()), "")
            body = "\n".join(line[indent:] for line in lines[i + 1 : end])
            out.append(Block(page, m.group(2), body, i + 1, not NOT_RUN.match(before)))
            i = end
        i += 1
    return out


def joined(text: str) -> list[str]:
    """Lines, with a trailing backslash continuing a line."""
    out: list[str] = []
    for line in text.splitlines():
        if out and out[-1].endswith("\\"):
            out[-1] = out[-1][:-1].rstrip() + " " + line.strip()
        else:
            out.append(line)
    return out


def console_steps(block: Block) -> list[Step]:
    steps: list[Step] = []
    for line in joined(block.text):
        if line.startswith("$ "):
            steps.append(Step(line[2:], (), block.where))
        elif line.strip() and steps:
            last = steps[-1]
            steps[-1] = Step(last.command, (*(last.expected or ()), line), last.where)
    return steps


def shell_steps(block: Block) -> list[Step]:
    """Commands of a bash/sh block; the main job's set-up prefix is dropped (it made this environment)."""
    steps = []
    for line in joined(block.text):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split(" && ")
        if parts[: len(SETUP)] == SETUP:
            line = " && ".join(parts[len(SETUP) :])
        if line:
            steps.append(Step(line, None, block.where))
    return steps


def page_steps(page: Path) -> list[Step]:
    steps: list[Step] = []
    for block in blocks(page):
        if not block.run:
            continue
        if block.lang == "console":
            steps += console_steps(block)
        elif block.lang in ("bash", "sh"):
            steps += shell_steps(block)
    return steps


def python_blocks() -> list[tuple[Block, tuple[str, ...] | None]]:
    """Each run ``python`` block of every page, with the ``text`` block right after it (its output)."""
    out = []
    for page in PAGES:
        found = blocks(page)
        lines = page.read_text(encoding="utf-8").splitlines()
        for k, block in enumerate(found):
            if block.lang != "python" or not block.run:
                continue
            nxt = found[k + 1] if k + 1 < len(found) else None
            close = next(j for j in range(block.line, len(lines)) if lines[j].strip().startswith("```"))
            adjacent = nxt is not None and all(not line.strip() for line in lines[close + 1 : nxt.line - 1])
            out.append((block, tuple(nxt.text.splitlines()) if nxt and adjacent and nxt.lang == "text" else None))
    return out


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{e.get('PATH', '')}"
    e.pop("CNFGEN_QUEENS_DEBUG", None)
    e["NO_MKDOCS_2_WARNING"] = "1"  # Material's banner about its successor
    return e


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run in a session of its own; whatever it started is killed when it ends, also on a timeout."""
    proc = subprocess.Popen(
        argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(), start_new_session=True
    )
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        with contextlib.suppress(ProcessLookupError):  # the session is gone already
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def same_line(got: str, want: str) -> bool:
    """Equal, or equal around the page's ellipses (``c p show 1 2 3 ... 64 0``)."""
    if "..." not in want:
        return got == want
    return re.fullmatch(".*".join(re.escape(part) for part in want.split("...")), got) is not None


def check_output(where: str, command: str, expected: tuple[str, ...] | None, out: str) -> None:
    if not expected:
        return
    got = out.splitlines()
    want = list(expected)
    if "..." in want:  # a line of its own: the output goes on
        want = want[: want.index("...")]
        got = got[: len(want)]
    assert len(got) == len(want) and all(map(same_line, got, want)), (
        f"{where}: {command}: output differs from the page:\n" + "\n".join(got)
    )


def help_text(words: list[str]) -> str:
    done = subprocess.run([*words, "--help"], capture_output=True, text=True, env=env(), timeout=120)
    assert done.returncode == 0, f"{' '.join(words)} --help: {done.stderr}"
    return done.stdout


def check_placeholder(step: Step) -> None:
    """A command on a placeholder host: every flag it uses must be in its --help."""
    words = step.command.split("#")[0].split()
    head = words[:2] if words[0] in ("dask", "cnfgen-queens") else words[:1]
    text = help_text(head)
    for flag in (w for w in words if w.startswith("--")):
        assert flag in text, f"{step.where}: {flag} is not an option of {' '.join(head)}"


def check_install(step: Step) -> None:
    """``pip install -e '.[EXTRA]'``: the extra exists (the install itself needs the network)."""
    m = re.fullmatch(r"pip install -e '\.\[([\w,]+)\]'", step.command.split("#")[0].strip())
    assert m, f"{step.where}: unexpected install line {step.command!r}"
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for extra in m.group(1).split(","):
        assert extra in extras, f"{step.where}: no extra {extra!r} in pyproject.toml"


def fresh_clone_dir(tmp_path: Path) -> Path:
    for name in ("configs", "scripts", "data", "examples"):
        shutil.copytree(ROOT / name, tmp_path / name)
    return tmp_path


def test_the_pages_have_the_commands_they_should() -> None:
    readme = [s.command for s in page_steps(README)]
    assert CI_COMMAND in readme
    assert any(c.startswith(MAIN_JOB) for c in readme)  # the main job
    assert "gen-queens 20 > q20.cnf" in readme  # the tour's three uses
    assert any(c.startswith("for ") and "--solver kissat" in c for c in readme)
    assert any(c.startswith("cnfgen-queens batch configs/") for c in readme)
    assert any(c.startswith("cnfgen-queens report ") for c in readme)
    everywhere = [s.command for page in PAGES for s in page_steps(page)]
    assert any("solve" in c and "| cnfgen-queens decode" in c and "-n" not in c for c in everywhere)
    assert any(c.startswith("cnfgen-queens stats") for c in everywhere)
    assert any("--scatter" in c for c in everywhere)


def test_the_readme_and_getting_started_have_the_five_lines_of_python() -> None:
    for page in (README, DOCS / "index.md"):
        assert any(b.lang == "python" and b.text == FIVE_LINES for b in blocks(page)), page


def test_the_readme_is_short() -> None:
    lines = len(README.read_text(encoding="utf-8").splitlines())
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; at most {README_MAX_LINES}: move detail to docs/"


def nav_pages(nav: object) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [p for item in nav for p in nav_pages(item)]
    if isinstance(nav, dict):
        return [p for value in nav.values() for p in nav_pages(value)]
    return []


def test_every_docs_page_is_in_the_nav() -> None:
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    listed = nav_pages(config["nav"])
    pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    assert sorted(listed) == pages, f"nav: {sorted(listed)}; docs/: {pages}"
    assert len(set(listed)) == len(listed), "a page twice in the nav"


def test_config_blocks_are_the_committed_files() -> None:
    """A yaml block headed ``# configs/NAME.yaml`` is that file (its leading comment lines left out)."""
    checked = 0
    for page in PAGES:
        for block in blocks(page):
            first, _, rest = block.text.partition("\n")
            m = re.fullmatch(r"# (configs/[\w.-]+\.yaml)", first)
            if block.lang != "yaml" or not m:
                continue
            lines = (ROOT / m.group(1)).read_text(encoding="utf-8").splitlines()
            while lines and lines[0].startswith("#"):
                lines.pop(0)
            assert rest.splitlines() == lines, f"{block.where}: not the content of {m.group(1)}"
            checked += 1
    assert checked >= 1


def test_usage_synopses_name_real_flags() -> None:
    """Untyped blocks starting with a command are synopses: each --flag must be in that command's --help."""
    checked = 0
    for page in PAGES:
        for block in blocks(page):
            first = block.text.split()[:2]
            if block.lang or not first or first[0] not in ("cnfgen-queens", "gen-queens"):
                continue
            head = first if first[0] == "cnfgen-queens" else first[:1]
            text = help_text(head)
            for flag in sorted(set(re.findall(r"--[a-z][a-z0-9-]*", block.text))):
                assert flag in text, f"{block.where}: {flag} is not an option of {' '.join(head)}"
            checked += 1
    assert checked >= 3


RUN_PAGES = [p for p in PAGES if page_steps(p)]


@pytest.mark.slow
@pytest.mark.parametrize("page", RUN_PAGES, ids=[p.relative_to(ROOT).as_posix() for p in RUN_PAGES])
@pytest.mark.timeout(3600)  # a page is many commands, each given TIMEOUT: a loaded machine, not a hang
def test_every_command_works_as_printed(page: Path, tmp_path: Path) -> None:
    """A page's command blocks in order, in a fresh directory holding configs/, scripts/, data/ and examples/."""
    cwd = fresh_clone_dir(tmp_path)
    ran = 0
    for step in page_steps(page):
        if step.command == CI_COMMAND:
            assert (ROOT / "scripts" / "test.sh").is_file()
            continue
        if step.command.startswith("pip install"):
            check_install(step)
            continue
        if "HOST" in step.command:
            check_placeholder(step)
            continue
        done = run(["bash", "-c", step.command], cwd)
        assert done.returncode == 0, f"{step.where}: {step.command}: exit {done.returncode}: {done.stderr[-800:]}"
        assert "Traceback" not in done.stderr, f"{step.where}: {step.command}: {done.stderr[-800:]}"
        check_output(step.where, step.command, step.expected, done.stdout)
        ran += 1
    if page == README:
        assert ran >= 10
        assert (cwd / "results" / "embedded-cactus.png").read_bytes()[:4] == b"\x89PNG"


PYTHON_BLOCKS = python_blocks()


@pytest.mark.parametrize("block,expected", PYTHON_BLOCKS, ids=[b.where for b, _ in PYTHON_BLOCKS])
def test_python_blocks_run(block: Block, expected: tuple[str, ...] | None, tmp_path: Path) -> None:
    if "cnfgen_queens" in block.text and not any((ROOT / "cnfgen_queens" / n).exists() for n in LIBRARY):
        pytest.skip("the public API (cnfgen_queens.library, issue 23) is not in this tree yet")
    done = run([sys.executable, "-c", block.text], fresh_clone_dir(tmp_path))
    assert done.returncode == 0, f"{block.where}: exit {done.returncode}: {done.stderr[-800:]}"
    check_output(block.where, "python", expected, done.stdout)


def test_the_docs_build_strict_with_the_cli_reference_and_figures(tmp_path: Path) -> None:
    """``mkdocs build --strict`` (warnings are errors); the CLI page holds every parser's help."""
    if shutil.which("mkdocs", path=str(Path(sys.executable).parent)) is None:
        if IN_CI:
            pytest.fail("mkdocs not installed; scripts/test.sh installs the docs extra")
        pytest.skip("mkdocs not installed: pip install -e '.[docs]'")
    site = tmp_path / "site"
    done = run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"), "-d", str(site)], ROOT
    )
    assert done.returncode == 0, done.stderr[-2000:]
    cli = (site / "cli.html").read_text(encoding="utf-8")
    for name in SUBCOMMANDS:
        if name != "gen":
            assert f"usage: cnfgen-queens {name}" in cli, name
    assert "usage: gen-queens" in cli
    api = (site / "api.html").read_text(encoding="utf-8")
    if any((ROOT / "cnfgen_queens" / n).exists() for n in LIBRARY):  # rendered from its docstrings, not the note
        assert "once that module is in the tree" not in api
        assert 'id="cnfgen_queens.library"' in api
    for png in (ROOT / "data" / "results").rglob("*.png"):
        assert (site / png.relative_to(ROOT)).read_bytes() == png.read_bytes()


def test_check_count_needs_no_extra_after_the_readmes_install() -> None:
    """``check-count`` needed the ``[proof]`` extra, which nothing before its error named: its pure-Python DRAT
    checker is a dependency (scripts/wheel-smoke.sh runs it in a wheel installed with no extra)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = {re.split(r"[<>=!~;\[ ]", d, maxsplit=1)[0].lower() for d in project["dependencies"]}
    assert "dratify" in core
    assert "check-count" in (ROOT / "scripts" / "wheel-smoke.sh").read_text()
