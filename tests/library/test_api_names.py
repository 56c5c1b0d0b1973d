"""One set of public names (issue 31): the package root, help(), docs/api.md, the README and the notebook
agree, and no subpackage or module of ours shadows a name of the API, whatever is imported first."""

from __future__ import annotations

import json
import pkgutil
import re
import subprocess
import sys

import pytest
from helpers import ROOT

import cnfgen_queens as cq
from cnfgen_queens import library

NOT_CALLABLE = {"DEFAULT_SOLVER", "__version__"}

# in a fresh interpreter: each name of cq.__all__ before and after importing every module of ours (or only
# after, with "first"), as what it is (the library's own object, or version's), and whether it is callable
PROBE = r"""
import importlib, json, pkgutil, sys
order = sys.argv[1]
import cnfgen_queens as cq

def modules():
    for m in pkgutil.walk_packages(cq.__path__, "cnfgen_queens."):
        if not m.name.endswith("__main__"):  # running it would be the CLI
            importlib.import_module(m.name)

def names():
    from cnfgen_queens import library, version
    out = {}
    for name in cq.__all__:
        value = getattr(cq, name)
        expected = version.__version__ if name == "__version__" else getattr(library, name)
        out[name] = [value is expected, callable(value), type(value).__name__, id(value)]
    return out

if order == "first":
    modules()
    print(json.dumps({"after": names()}))
else:
    before = names()
    modules()
    print(json.dumps({"before": before, "after": names()}))
"""


@pytest.mark.parametrize("order", ["names first", "first"])
def test_every_public_name_is_the_documented_object_in_a_fresh_interpreter(order: str) -> None:
    proc = subprocess.run([sys.executable, "-c", PROBE, order], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    for when, names in seen.items():
        assert sorted(names) == sorted(cq.__all__), when
        wrong = {n: v for n, v in names.items() if not v[0]}
        assert wrong == {}, f"{when}: not the library's object: {wrong}"
        uncallable = sorted(n for n, v in names.items() if not v[1] and n not in NOT_CALLABLE)
        assert uncallable == [], f"{when}: not callable: {uncallable}"
        assert not any(v[1] for n, v in names.items() if n in NOT_CALLABLE)
    if "before" in seen:  # importing every subpackage afterwards changed no name
        assert {n: v[3] for n, v in seen["before"].items()} == {n: v[3] for n, v in seen["after"].items()}


def test_no_module_of_ours_has_a_public_name() -> None:
    ours = {m.name for m in pkgutil.iter_modules(cq.__path__)}
    assert {"encodings", "solutions", "library"} <= ours  # the subpackages are where they were
    assert ours & set(cq.__all__) == set()
    assert set(library.__all__) == set(cq.__all__) - {"__version__"}
    for name in ("list_encodings", "enumerate_solutions"):
        assert callable(getattr(cq, name))
    assert cq.list_encodings(4)[0].name == "pairwise"
    boards = list(cq.enumerate_solutions(cq.queens(4), limit=1))
    assert len(boards) == 1 and boards[0].line in ("2 4 1 3", "3 1 4 2")


def backticked(text: str) -> set[str]:
    return set(re.findall(r"`(?:cq\.)?([A-Za-z_][A-Za-z_0-9]*)`", text))


def test_docs_api_md_names_the_package_names() -> None:
    text = (ROOT / "docs" / "api.md").read_text()
    names = next(line for line in text.split("\n\n") if line.startswith("The names,"))
    assert backticked(names) == set(cq.__all__) - {"__version__"}
    for target in re.findall(r"^::: (\S+)$", text, re.MULTILINE):
        assert __import__(target, fromlist=["_"]).__all__  # the rendered module exists, with its names
    for name in re.findall(r"\bcq\.([A-Za-z_]\w*)", text):
        assert name in cq.__all__, name


def five_lines() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Five lines of Python", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0].splitlines()


def test_help_starts_with_what_the_package_does_and_the_five_lines() -> None:
    import pydoc

    doc = cq.__doc__ or ""
    lines = [line.strip() for line in doc.splitlines()]
    assert lines[0].startswith("cnfgen-queens: DIMACS generator")
    block = five_lines()
    assert len(block) == 5
    start = lines.index(block[0])
    assert lines[start : start + 5] == block  # the README's five lines, verbatim
    assert start < next(i for i, line in enumerate(lines) if "Ctrl-C" in line)  # before the signal notes
    for name in re.findall(r"``(\w+)``", doc.split("Ctrl-C", 1)[0]):  # every API name it lists exists
        assert name in cq.__all__ or name in ("gen-queens", "cnfgen-queens", "__getattr__"), name
    assert "list_encodings" in pydoc.render_doc(cq.queens, renderer=pydoc.plaintext)
    for name in cq.__all__:  # no docstring of the API points to a name the package lacks
        for ref in re.findall(r"``(?:cq\.|cnfgen_queens\.)(\w+)", getattr(cq, name).__doc__ or ""):
            assert ref in cq.__all__ or ref == "library", (name, ref)


def test_the_readme_and_the_notebook_use_the_package_names() -> None:
    used = set()
    for line in five_lines():
        used |= set(re.findall(r"\bcq\.(\w+)", line))
    notebook = json.loads((ROOT / "examples" / "encodings.ipynb").read_text())
    for cell in notebook["cells"]:
        used |= set(re.findall(r"\bcq\.(\w+)", "".join(cell["source"])))
    assert {"queens", "solve", "decode", "count", "list_encodings"} <= used
    assert used - set(cq.__all__) == set()
