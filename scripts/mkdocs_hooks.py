"""MkDocs hooks (``hooks:`` in mkdocs.yml): the CLI reference from the argparse parsers, the results' figures.

- A page line ``<!-- cli-reference -->`` becomes every command's ``--help``, rendered from the parsers
  of ``cnfgen_queens.cli`` at build time, so the reference cannot drift from the code.
- The API page's ``::: cnfgen_queens.library`` becomes a note while that module is not in the tree
  (it lands with issue 23's API work); from then on mkdocstrings renders it, and a failure is an error.
- A page line ``<!-- encoding-properties -->`` becomes the table of the built-in encodings: size on a
  line of 8 inputs, propagation complete and parsimonious (the records' claims, which the conformance gate,
  ``check-encoding``, checks in the tests), rendered from ``cnfgen_queens.encodings`` at build time.
- The figures under ``data/results/`` are added to the site at the same paths (``data/results/...``),
  so the results pages show the committed figures without a second copy of them in ``docs/``.
"""

from __future__ import annotations

import importlib.util
import logging
import os
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

from cnfgen_queens import encodings
from cnfgen_queens.cli import SUBCOMMANDS, build_parser, usage

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ROOT / "data" / "results"
MARKER = "<!-- cli-reference -->"
ENCODINGS = "<!-- encoding-properties -->"
TABLE_LENGTH = 8  # the line length of the encodings' table
API = "::: cnfgen_queens.library"
NOTE = "!!! note\n    The reference of `cnfgen_queens.library` appears here once that module is in the tree."
LOG = logging.getLogger("mkdocs.hooks.cnfgen_queens")
WIDTH = "80"  # columns argparse wraps the help at: the same text on every machine, no scrolling


def _help(name: str, prog: str) -> str:
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        return build_parser(name, prog).format_help()
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


def _section(title: str, text: str) -> str:
    return f"## `{title}`\n\n```text\n{text.rstrip()}\n```\n"


def cli_reference() -> str:
    """Markdown: ``gen-queens --help``, ``cnfgen-queens --help`` and every subcommand's ``--help``."""
    parts = [_section("gen-queens", _help("gen", "gen-queens")), _section("cnfgen-queens", usage())]
    for name in SUBCOMMANDS:
        if name == "gen":
            parts.append("## `cnfgen-queens gen`\n\nThe same parser as `gen-queens` above, under another name.\n")
        else:
            parts.append(_section(f"cnfgen-queens {name}", _help(name, f"cnfgen-queens {name}")))
    return "\n".join(parts)


def encoding_properties() -> str:
    """Markdown: every built-in encoding's size on a line of :data:`TABLE_LENGTH` inputs, and its claims."""

    def yes(flag: bool | None) -> str:
        return "?" if flag is None else ("yes" if flag else "no")

    rows = [
        f"| encoding | clauses (n = {TABLE_LENGTH}) | auxiliaries | propagation complete | parsimonious |",
        "|---|---:|---:|---|---|",
    ]
    for row in encodings.sizes(TABLE_LENGTH):
        if row.plugin is None:
            cells = [f"`{row.name}`", str(row.clauses), str(row.aux), yes(row.propagation_complete)]
            rows.append("| " + " | ".join([*cells, yes(row.parsimonious)]) + " |")
    return "\n".join(rows) + "\n"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    if ENCODINGS in markdown:
        markdown = markdown.replace(ENCODINGS, encoding_properties())
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, cli_reference())
    if API in markdown and importlib.util.find_spec("cnfgen_queens.library") is None:
        LOG.info("cnfgen_queens.library is not in this tree: the API page shows a note instead")
        markdown = markdown.replace(API, NOTE)
    return markdown


def on_files(files: Files, config: Any) -> Files:
    for path in sorted(FIGURES.rglob("*.png")):
        rel = path.relative_to(ROOT).as_posix()
        files.append(File(rel, src_dir=str(ROOT), dest_dir=config["site_dir"], use_directory_urls=False))
    return files
