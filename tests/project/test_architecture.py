"""The package's shape: one folder a layer, imports only downward, no cycle (issue 22).

Every import counts, inside functions too (a lazy import still ties two modules together); the
``if TYPE_CHECKING:`` ones count for cycles (a type-only cycle is still a cycle for a reader) but not
for the layer rule's runtime graph.  The checks are tested on graphs with a planted upward edge.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

import cnfgen_queens

ROOT = Path(cnfgen_queens.__file__).parent

# the layers, lowest first: a module may import its own layer and those below it
LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "cnfgen_queens",
        "cnfgen_queens.bounds",
        "cnfgen_queens.errors",
        "cnfgen_queens.limits",
        "cnfgen_queens.malloc",
        "cnfgen_queens.progress",
    ),
    ("cnfgen_queens.encodings",),
    ("cnfgen_queens.model",),
    ("cnfgen_queens.cnf",),
    ("cnfgen_queens.solvers",),
    ("cnfgen_queens.execution",),
    ("cnfgen_queens.enumeration",),
    ("cnfgen_queens.counting", "cnfgen_queens.certificates"),
    ("cnfgen_queens.solutions",),
    ("cnfgen_queens.experiments",),
    ("cnfgen_queens.cli", "cnfgen_queens.library"),
    ("cnfgen_queens.__main__",),
)


def layer(module: str) -> int:
    """The rank of ``module``: the layer of its longest matching prefix."""
    best, rank = -1, -1
    for i, names in enumerate(LAYERS):
        for name in names:
            if (module == name or module.startswith(name + ".")) and len(name) > best:
                best, rank = len(name), i
    if rank < 0:
        raise AssertionError(f"{module} is in no layer: add its folder to LAYERS")
    return rank


def _module(path: Path) -> tuple[str, str]:
    """(the module's dotted name, the package its relative imports start from)."""
    parts = ["cnfgen_queens", *path.relative_to(ROOT).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
        return ".".join(parts), ".".join(parts)
    return ".".join(parts), ".".join(parts[:-1])


def _resolve(target: str, modules: set[str]) -> str:
    """``pkg.mod.name`` -> ``pkg.mod`` when ``name`` is not a module (an imported attribute)."""
    while target not in modules and "." in target:
        target = target.rsplit(".", 1)[0]
    return target


def import_graph(typing_too: bool = False) -> nx.DiGraph:
    """Module -> module edges of every import of the package (``typing_too``: the TYPE_CHECKING ones too)."""
    paths = sorted(ROOT.rglob("*.py"))
    modules = {_module(p)[0] for p in paths}
    graph = nx.DiGraph()
    for path in paths:
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
            if id(node) in typing_only and not typing_too:
                continue
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                start = ".".join([*base, node.module]) if node.module else ".".join(base)
                targets = [f"{start}.{a.name}" for a in node.names]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("cnfgen_queens"):
                targets = [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.startswith("cnfgen_queens")]
            else:
                continue
            for t in targets:
                target = _resolve(t, modules)
                if target != name:
                    graph.add_edge(name, target)
    return graph


def upward(graph: nx.DiGraph) -> list[str]:
    """The edges that climb a layer."""
    return [f"{a} -> {b}" for a, b in graph.edges if layer(b) > layer(a)]


def test_the_graph_sees_lazy_and_typing_imports() -> None:
    """The checks can fail: a function-level import is an edge; a typing-only one only with typing_too."""
    graph = import_graph()
    assert graph.has_edge("cnfgen_queens.solutions.api", "cnfgen_queens.enumeration.external_loop")  # inside
    assert not graph.has_edge("cnfgen_queens.cli.count", "cnfgen_queens.solutions.api")
    assert import_graph(typing_too=True).has_edge("cnfgen_queens.cli.count", "cnfgen_queens.solutions.api")


def test_imports_only_go_down() -> None:
    assert upward(import_graph()) == []


def test_an_upward_import_is_caught() -> None:
    graph = import_graph()
    graph.add_edge("cnfgen_queens.counting.cube_count", "cnfgen_queens.experiments.batch")
    graph.add_edge("cnfgen_queens.cnf.writer", "cnfgen_queens.solvers.runner")
    assert sorted(upward(graph)) == [
        "cnfgen_queens.cnf.writer -> cnfgen_queens.solvers.runner",
        "cnfgen_queens.counting.cube_count -> cnfgen_queens.experiments.batch",
    ]


def test_every_module_is_in_a_layer() -> None:
    for module in import_graph().nodes:
        layer(module)
    with pytest.raises(AssertionError, match="in no layer"):
        layer("elsewhere.module")


def test_no_import_cycle_not_even_for_types() -> None:
    cycles = [c for c in nx.simple_cycles(import_graph(typing_too=True)) if len(c) > 1]
    assert cycles == []


def undocumented_modules() -> list[str]:
    """The modules that do not open with a docstring saying what they hold (a module holds one concept,
    however long that makes it: no line count)."""
    return [
        str(p.relative_to(ROOT))
        for p in sorted(ROOT.rglob("*.py"))
        if not (ast.get_docstring(ast.parse(p.read_text(encoding="utf-8"))) or "").strip()
    ]


def test_every_module_says_what_it_holds() -> None:
    assert undocumented_modules() == []


# the three folders the policy stands on: above solutions/, only solutions/ may import them (issue 35)
BEHIND_THE_DOOR = ("cnfgen_queens.enumeration", "cnfgen_queens.counting", "cnfgen_queens.certificates")


def through_the_door(graph: nx.DiGraph) -> list[str]:
    """The edges from above the policy layer into the folders behind it (the door is solutions/)."""
    policy = layer("cnfgen_queens.solutions")
    return [
        f"{a} -> {b}"
        for a, b in graph.edges
        if layer(a) > policy and any(b == f or b.startswith(f + ".") for f in BEHIND_THE_DOOR)
    ]


def test_the_cli_the_library_and_the_batch_use_one_door() -> None:
    assert through_the_door(import_graph(typing_too=True)) == []
    graph = import_graph()
    graph.add_edge("cnfgen_queens.cli.count", "cnfgen_queens.counting.cube_count")  # the check can fail
    assert through_the_door(graph) == ["cnfgen_queens.cli.count -> cnfgen_queens.counting.cube_count"]


SPLIT = ("execution", "enumeration", "counting", "certificates", "solutions")  # issue 35's folders


def test_the_split_folders_say_what_they_hold() -> None:
    for folder in SPLIT:
        doc = ast.get_docstring(ast.parse((ROOT / folder / "__init__.py").read_text(encoding="utf-8")))
        assert doc and len(doc.splitlines()) <= 2, folder


MAX_PARAMETERS = 6  # a request is one value, passed down whole (issue 35)
ABOUT_SIX = 7  # the other layers: "no function carries more than about six parameters"
# the library's documented functions take the command line's options as keywords (docs/api.md): the public face
PUBLIC_API = ("library/formula.py: queens", "library/solving.py: count", "library/solving.py: enumerate_solutions")


def wide_functions(folders: tuple[str, ...], most: int = MAX_PARAMETERS) -> list[str]:
    """Functions of ``folders`` with more than ``most`` parameters (``self``/``cls`` not counted; a
    dataclass's generated ``__init__`` is a record's, not a function's)."""
    wide = []
    for folder in folders:
        for path in sorted((ROOT / folder).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    a = node.args
                    names = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
                    if len([n for n in names if n not in ("self", "cls")]) > most:
                        wide.append(f"{folder}/{path.name}: {node.name}")
    return wide


def test_no_function_of_the_split_carries_a_train_of_arguments() -> None:
    assert wide_functions(SPLIT) == []
    assert "library/solving.py: count" in wide_functions(("library",))  # the check can fail


def test_no_function_of_the_other_layers_carries_a_train_of_arguments() -> None:
    """The rest of the package: at most about six (seven), the library's documented functions aside."""
    others = (".", *sorted(p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file() and p.name not in SPLIT))
    assert "solvers" in others and "cnf" in others
    assert [f for f in wide_functions(others, ABOUT_SIX) if f not in PUBLIC_API] == []
    assert set(PUBLIC_API) <= set(wide_functions(("library",), ABOUT_SIX))  # each exception is still needed
