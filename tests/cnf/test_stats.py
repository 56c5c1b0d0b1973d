"""cnfgen-queens stats: features by hand, modularity against networkx, the queens board checks, compressed input;
one number format (thousands separators), booleans as in --json, --json values raw, and the file's GBD hash (the
one batch stores), also from stdin."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import random
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from cnfgen_queens.cli import gen_main, main
from cnfgen_queens.cnf import stats
from cnfgen_queens.cnf.gbd_hash import gbd_hash
from cnfgen_queens.cnf.scan import read_cnf

SMALL = "c by hand\np cnf 4 3\n1 -2 0\n-1 -2 3 0\n2 0\n"


def cnf_of(tmp_path: Path, text: str):
    path = tmp_path / "x.cnf"
    path.write_text(text)
    return read_cnf(path)


def queens_edges(n: int) -> int:
    """Edges of the n-queens graph, closed form (OEIS A036464 / Harary): n(n-1)(5n-1)/3."""
    return n * (n - 1) * (5 * n - 1) // 3


def test_features_by_hand(tmp_path: Path) -> None:
    st = stats.cnf_stats(cnf_of(tmp_path, SMALL))
    assert (st.variables, st.clauses, st.literals, st.used_variables) == (4, 3, 6, 3)
    assert st.clause_lengths == {1: 1, 2: 1, 3: 1}
    assert st.clause_variable_ratio == pytest.approx(0.75)
    assert st.binary_fraction == pytest.approx(1 / 3) and st.ternary_fraction == pytest.approx(1 / 3)
    assert st.horn_fraction == 1.0  # each clause has at most one positive literal
    assert (st.positive_literals, st.negative_literals) == (3, 3)
    assert st.pure_variables == 1  # 3 only positive; 4 never occurs, so it is not counted
    assert st.occurrences == stats.Summary(1.0, 3.0, 2.0, 2.0, pytest.approx(np.std([2, 3, 1])))
    assert st.positive_share.min == pytest.approx(1 / 3) and st.positive_share.max == 1.0
    assert st.vig_edges == 3  # {1,2}, {1,3}, {2,3}
    assert st.vig_degree is not None and st.vig_degree.min == st.vig_degree.max == 2.0
    lo, hi, w = stats.vig_edges(*(lambda c: (c.lits, *stats.clause_bounds(c.lits)))(cnf_of(tmp_path, SMALL)), 4)
    assert list(zip(lo.tolist(), hi.tolist(), strict=True)) == [(1, 2), (1, 3), (2, 3)]
    assert w.tolist() == pytest.approx([1 + 1 / 3, 1 / 3, 1 / 3])
    assert st.queens is None


def test_modularity_equals_networkx() -> None:
    rng = random.Random(5)
    g = nx.gnm_random_graph(60, 300, seed=5)
    for u, v in g.edges:
        g[u][v]["weight"] = rng.choice([0.25, 0.5, 1.0])
    parts = nx.community.louvain_communities(g, weight="weight", seed=1)
    label = np.zeros(60, np.int64)
    for i, part in enumerate(parts):
        label[list(part)] = i
    edges = np.array([(min(u, v), max(u, v), d["weight"]) for u, v, d in g.edges(data=True)])
    q = stats.modularity(edges[:, 0].astype(np.int64), edges[:, 1].astype(np.int64), edges[:, 2], label)
    assert q == pytest.approx(nx.community.modularity(g, parts, weight="weight"))


@pytest.mark.parametrize("n", [4, 8, 11])
def test_pairwise_vig_is_the_conflict_graph(n: int, tmp_path: Path) -> None:
    path = tmp_path / "q.cnf"
    assert gen_main([str(n), "-o", str(path)]) == 0
    q = stats.cnf_stats(read_cnf(path)).queens
    assert q is not None
    assert q["conflict_edges"] == queens_edges(n) == q["vig_cell_edges"]
    assert q["vig_cell_edges_not_attacking"] == 0 and q["vig_cells_equal_conflict_graph"] is True
    assert q["lines_of_length_2_or_more"] == 2 * n + 2 * (2 * n - 3)
    assert q["every_attacking_pair_on_exactly_one_line"] is True
    # the maximal cliques are the lines of length >= 4 and more: 2x2 blocks and their kin are maximal too
    assert q["lines_that_are_maximal_cliques"] == 2 * n + 2 * (2 * n - 7)
    assert q["maximal_cliques_that_are_lines_only"] is False and q["maximal_cliques"] > q["lines_of_length_2_or_more"]
    assert q["largest_clique"] == (5 if n == 4 else n)  # a 5-clique around the centre of the 4x4 board


def test_two_by_two_is_one_clique_not_a_line(tmp_path: Path) -> None:
    path = tmp_path / "q.cnf"
    assert gen_main(["2", "-o", str(path)]) == 0
    q = stats.cnf_stats(read_cnf(path)).queens
    assert q is not None and (q["maximal_cliques"], q["lines_that_are_maximal_cliques"]) == (1, 0)


@pytest.mark.parametrize("encoding", ["sequential", "commander", "pysat:totalizer"])
def test_shuffled_auxiliary_encodings_keep_cells_on_lines(encoding: str, tmp_path: Path) -> None:
    path = tmp_path / "q.cnf"
    assert gen_main(["7", "-e", encoding, "--shuffle", "9", "-o", str(path)]) == 0
    q = stats.cnf_stats(read_cnf(path)).queens
    assert q is not None and q["vig_cell_edges"] > 0 and q["vig_cell_edges_not_attacking"] == 0
    assert "vig_cells_equal_conflict_graph" not in q


def test_large_board_skips_cliques_and_label_propagation_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The N = 100 code path, scaled down: label propagation above LOUVAIN_EDGES, no clique enumeration."""
    path = tmp_path / "q.cnf"
    assert gen_main(["20", "-o", str(path)]) == 0
    monkeypatch.setattr(stats, "LOUVAIN_EDGES", 1000)
    st = stats.cnf_stats(read_cnf(path))
    assert st.community_method is not None and st.community_method.startswith("fast label propagation")
    assert st.vig_edges == queens_edges(20) and st.communities is not None and st.communities >= 1
    assert st.modularity is not None and -0.5 <= st.modularity <= 1
    assert st.queens is not None and st.queens["cliques"].startswith("not enumerated")
    small = stats.cnf_stats(read_cnf(path), max_graph_edges=100)
    assert small.modularity is None and any("communities skipped" in note for note in small.notes)


def test_cli_json_plain_and_compressed_agree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain = tmp_path / "q.cnf"
    assert gen_main(["6", "-e", "commander", "-o", str(plain)]) == 0
    data = plain.read_bytes()
    docs = []
    for name, opener in (("q.cnf", None), ("q.cnf.gz", gzip), ("q.cnf.xz", lzma), ("q.cnf.bz2", bz2)):
        path = tmp_path / name
        if opener is not None:
            path.write_bytes(opener.compress(data))
        assert main(["stats", str(path), "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert doc.pop("file") == str(path)
        docs.append(doc)
    assert all(d == docs[0] for d in docs)
    assert docs[0]["clauses"] == int(data.split(b"p cnf ")[1].split()[1])
    assert docs[0]["queens"]["n"] == 6


def test_cli_text_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "small.cnf"
    path.write_text(SMALL)
    assert main(["stats", str(path)]) == 0
    out = capsys.readouterr().out
    assert "clauses              3" in out and "length histogram     1: 1  2: 1  3: 1" in out
    assert "modularity" in out
    for bad, message in ((tmp_path / "none.cnf", "cannot read"), (tmp_path / "bad.cnf.gz", "cannot read")):
        if bad.suffix == ".gz":
            bad.write_bytes(b"\x1f\x8b garbage")
        assert main(["stats", str(bad)]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1
    junk = tmp_path / "junk.cnf"
    junk.write_text("p cnf 2 1\n1 x 0\n")
    assert main(["stats", str(junk)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_same_file_same_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "q.cnf"
    assert gen_main(["9", "-e", "commander", "-o", str(path)]) == 0
    outs = []
    for _ in range(2):
        assert main(["stats", str(path), "--json"]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1]
    doc = json.loads(outs[0])
    assert doc["community_method"].startswith("louvain") and 0 < doc["modularity"] < 1


def test_vig_skipped_beyond_its_pair_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stats, "MAX_PAIRS", 10)
    st = stats.cnf_stats(cnf_of(tmp_path, "p cnf 6 1\n1 2 3 4 5 6 0\n"))  # 15 pairs
    assert st.vig_edges is None and st.modularity is None
    assert st.notes == ("variable-incidence graph skipped: 15 literal pairs > 10",)
    assert st.clause_lengths == {6: 1}  # everything else is still there


def test_stats_formats_consistently_and_prints_the_gbd_hash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cnf = tmp_path / "q16.cnf"
    assert main(["gen", "16", "-o", str(cnf)]) == 0
    capsys.readouterr()
    assert main(["stats", str(cnf), "--json", "--no-graph"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["gbd_hash"] == gbd_hash(cnf) and doc["queens"]["conflict_edges"] == 6_320  # raw in JSON
    assert main(["stats", str(cnf)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"GBD hash             {gbd_hash(cnf)}" in lines
    queens = {line[7:51].strip(): line[51:].strip() for line in lines if line.startswith("queens ")}
    assert queens["conflict edges"] == "6,320"  # as the clauses line: never 6320 here and 12,560 there
    assert queens["vig cells equal conflict graph"] == "true"  # as --json says it, not Python's True
    assert queens["maximal cliques that are lines only"] == "false"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(cnf.read_bytes())))
    assert main(["stats", "-", "--no-graph"]) == 0  # stdin is read once: hashed in the same pass
    assert f"GBD hash             {gbd_hash(cnf)}" in capsys.readouterr().out.splitlines()
