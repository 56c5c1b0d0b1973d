"""Every command block of README.md, run as printed (after the set-up), with the Tour's outputs compared.

The README is parsed, not copied: a command added, changed or removed there is what runs here.
Blocks that are not commands (YAML, Python, usage synopses) are checked otherwise: the synopses'
flags must exist in ``--help``.  Commands that start servers on placeholder hosts (``HOST``) are
checked against ``--help`` too; the set-up commands are the ones that built this environment.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import ROOT

README = ROOT / "README.md"
SETUP = ["python3 -m venv .venv", ". .venv/bin/activate", "pip install -e ."]  # the main job's set-up
CI_COMMAND = "bash scripts/test.sh"  # what runs this test: not run again from here
TIMEOUT = 1800  # seconds per command: generous, for a loaded machine


@dataclass(frozen=True)
class Block:
    lang: str
    text: str
    line: int  # line of the opening fence


@dataclass(frozen=True)
class Step:
    command: str
    expected: tuple[str, ...] | None  # the Tour's printed output; None: not shown
    where: str


def blocks() -> list[Block]:
    out, lines = [], README.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if m:
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            out.append(Block(m.group(1), "\n".join(lines[i + 1 : end]), i + 1))
            i = end
        i += 1
    return out


def console_steps(block: Block) -> list[Step]:
    steps: list[Step] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            steps.append(Step(line[2:], (), f"README.md:{block.line}"))
        elif line.strip() and steps:
            last = steps[-1]
            steps[-1] = Step(last.command, (*(last.expected or ()), line), last.where)
    return steps


def shell_steps(block: Block) -> list[Step]:
    """Commands of a bash/sh block; the main job's set-up prefix is dropped (it made this environment)."""
    steps = []
    for line in block.text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split(" && ")
        if parts[: len(SETUP)] == SETUP:
            line = " && ".join(parts[len(SETUP) :])
        steps.append(Step(line, None, f"README.md:{block.line}"))
    return steps


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{e.get('PATH', '')}"
    e.pop("CNFGEN_QUEENS_DEBUG", None)
    return e


def same_line(got: str, want: str) -> bool:
    """Equal, or equal around the README's ellipses (``c p show 1 2 3 ... 64 0``)."""
    if "..." not in want:
        return got == want
    return re.fullmatch(".*".join(re.escape(part) for part in want.split("...")), got) is not None


def check_output(step: Step, out: str) -> None:
    if not step.expected:
        return
    got = out.splitlines()
    want = list(step.expected)
    if "..." in want:  # a line of its own: the output goes on
        want = want[: want.index("...")]
        got = got[: len(want)]
    assert len(got) == len(want) and all(map(same_line, got, want)), (
        f"{step.where}: {step.command}: output differs from the README:\n" + "\n".join(got)
    )


def help_flags(words: list[str]) -> str:
    run = subprocess.run([*words, "--help"], capture_output=True, text=True, env=env(), timeout=120)
    assert run.returncode == 0, f"{' '.join(words)} --help: {run.stderr}"
    return run.stdout


def check_placeholder(step: Step) -> None:
    """A command on a placeholder host: every flag it uses must be in its --help."""
    words = step.command.split("#")[0].split()
    head = words[:2] if words[0] in ("dask", "cnfgen-queens") else words[:1]
    text = help_flags(head)
    for flag in (w for w in words if w.startswith("--")):
        assert flag in text, f"{step.where}: {flag} is not an option of {' '.join(head)}"


def check_install(step: Step) -> None:
    """``pip install -e '.[EXTRA]'``: the extra exists (the install itself needs the network)."""
    m = re.fullmatch(r"pip install -e '\.\[(\w+)\]'", step.command.split("#")[0].strip())
    assert m, f"{step.where}: unexpected install line {step.command!r}"
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert m.group(1) in extras, f"{step.where}: no extra {m.group(1)!r} in pyproject.toml"


def all_steps() -> list[Step]:
    steps: list[Step] = []
    for block in blocks():
        if block.lang == "console":
            steps += console_steps(block)
        elif block.lang in ("bash", "sh"):
            steps += shell_steps(block)
    return steps


def test_the_readme_has_the_commands_it_should() -> None:
    commands = [s.command for s in all_steps()]
    assert CI_COMMAND in commands
    assert any(c.startswith("cnfgen-queens batch configs/embedded.yaml") for c in commands)  # the main job
    assert any("solve" in c and "| cnfgen-queens decode" in c and "-n" not in c for c in commands)
    assert any(c.startswith("cnfgen-queens stats") for c in commands)
    assert any("--scatter" in c for c in commands)


@pytest.mark.slow
def test_every_readme_command_works_as_printed(tmp_path: Path) -> None:
    """The README's blocks in order, in a fresh directory holding configs/ and scripts/ (as a clone would)."""
    for name in ("configs", "scripts"):
        shutil.copytree(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "data", tmp_path / "data")
    ran = 0
    for step in all_steps():
        if step.command == CI_COMMAND:
            assert (ROOT / "scripts" / "test.sh").is_file()
            continue
        if step.command.startswith("pip install"):
            check_install(step)
            continue
        if "HOST" in step.command:
            check_placeholder(step)
            continue
        run = subprocess.run(["bash", "-c", step.command], cwd=tmp_path, capture_output=True, text=True, env=env(),
                             timeout=TIMEOUT)  # fmt: skip
        assert run.returncode == 0, f"{step.where}: {step.command}: exit {run.returncode}: {run.stderr[-800:]}"
        assert "Traceback" not in run.stderr, f"{step.where}: {step.command}: {run.stderr[-800:]}"
        check_output(step, run.stdout)
        ran += 1
    assert ran >= 20
    assert (tmp_path / "results" / "embedded-cactus.png").read_bytes()[:4] == b"\x89PNG"


def test_usage_synopses_name_real_flags() -> None:
    """Untyped blocks starting with a command are synopses: each --flag must be in that command's --help."""
    checked = 0
    for block in blocks():
        first = block.text.split()[:2]
        if block.lang or not first or first[0] not in ("cnfgen-queens", "gen-queens"):
            continue
        head = first if first[0] == "cnfgen-queens" else first[:1]
        text = help_flags(head)
        for flag in sorted(set(re.findall(r"--[a-z][a-z0-9-]*", block.text))):
            assert flag in text, f"README.md:{block.line}: {flag} is not an option of {' '.join(head)}"
        checked += 1
    assert checked >= 3
