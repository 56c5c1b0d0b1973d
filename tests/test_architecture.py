"""The package's import graph has no cycle (issue 13), counting imports inside functions too:
a lazy import still ties two modules together; only ``if TYPE_CHECKING:`` imports are left out."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

import cnfgen_queens

ROOT = Path(cnfgen_queens.__file__).parent


def _module(path: Path) -> tuple[str, str]:
    """(the module's dotted name, the package its relative imports start from)."""
    parts = ["cnfgen_queens", *path.relative_to(ROOT).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
        return ".".join(parts), ".".join(parts)
    return ".".join(parts), ".".join(parts[:-1])


def import_graph() -> nx.DiGraph:
    graph = nx.DiGraph()
    for path in sorted(ROOT.rglob("*.py")):
        name, package = _module(path)
        graph.add_node(name)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {
            id(sub)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for sub in ast.walk(node)
        }
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                targets = (
                    [".".join([*base, node.module])] if node.module else [".".join([*base, a.name]) for a in node.names]
                )
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("cnfgen_queens"):
                targets = [node.module or ""]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.startswith("cnfgen_queens")]
            else:
                continue
            graph.add_edges_from((name, t) for t in targets if t != name)
    return graph


def test_the_graph_sees_lazy_imports() -> None:
    """The check can fail: a function-level import is an edge (cli imports its subcommands lazily)."""
    graph = import_graph()
    assert graph.has_edge(
        "cnfgen_queens.solutions.embedded_loop", "cnfgen_queens.solutions.external_loop"
    )  # inside solutions()
    assert not graph.has_edge("cnfgen_queens.experiments.verdict", "cnfgen_queens.experiments.store")  # typing only


def test_no_import_cycle() -> None:
    cycles = [c for c in nx.simple_cycles(import_graph()) if len(c) > 1]
    assert cycles == []
