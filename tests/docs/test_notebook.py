"""examples/encodings.ipynb: committed without outputs, and it runs top to bottom (nbclient, a real kernel)."""

from __future__ import annotations

from pathlib import Path

from helpers import ROOT, need_module

NOTEBOOK = ROOT / "examples" / "encodings.ipynb"


def test_the_committed_notebook_has_no_outputs() -> None:
    need_module("nbformat")
    import nbformat

    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, "no code cells"
    assert all(c.outputs == [] and c.execution_count is None for c in code), "strip the outputs before committing"


def test_the_notebook_runs(tmp_path: Path) -> None:
    for name in ("nbformat", "nbclient", "ipykernel"):
        need_module(name)
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    try:
        client.execute()
    finally:
        km = client.km
        assert km is None or not km.is_alive(), "the kernel is still running"
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "{'pairwise': 92, 'sequential': 92, 'commander': 92}" in text
    assert "10 ways to pick exactly one" in text
    shown = [o.get("data", {}) for o in outputs if o.output_type in ("display_data", "execute_result")]
    assert any("image/png" in d for d in shown), "the plot is missing"
    assert any("image/svg+xml" in d for d in shown), "the board's SVG is missing"
    assert list(tmp_path.iterdir()) == []  # the notebook writes nothing where it runs
