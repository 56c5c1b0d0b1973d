"""``cnfgen-queens stats FILE``: instance features of any DIMACS CNF (plain or compressed), ``--json``."""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import TYPE_CHECKING

from cnfgen_queens.cnf import stats
from cnfgen_queens.cnf.dimacs import DimacsError
from cnfgen_queens.cnf.read_once import NoWriter, readable
from cnfgen_queens.cnf.stats import file_stats
from cnfgen_queens.errors import printable

from .common import fail, positive_int

if TYPE_CHECKING:
    from cnfgen_queens.cnf.stats import CnfStats, Summary


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="DIMACS CNF (.cnf, .gz, .bz2, .xz), or - for stdin")
    p.add_argument("--json", action="store_true", help="one JSON object instead of text")
    p.add_argument("--no-graph", action="store_true", help="skip the variable-incidence graph (degrees, modularity)")
    p.add_argument(
        "--max-graph-edges",
        type=positive_int("max graph edges"),
        default=None,
        metavar="E",
        help="largest VIG for community detection (default 2,000,000 edges, about 1 GB in networkx)",
    )


def _stats(name: str, graph: bool, limit: int) -> CnfStats:
    """The features of the CNF (plain or compressed: the shared reader goes by magic bytes), read in
    chunks, stdin as a stream."""
    shown = "<stdin>" if name == "-" else name
    try:
        with readable(name) if name != "-" else contextlib.nullcontext(None) as once:  # a FIFO: a bounded wait
            path = shown if once is None else str(once.path)
            return file_stats(path, shown, graph, limit, raw=sys.stdin.buffer if name == "-" else None)
    except NoWriter as e:
        fail(str(e))
    except OSError as e:
        fail(f"cannot read {shown}: {e.strerror or e}")
    except DimacsError as e:  # not DIMACS, corrupt or exploding compressed data, a device: one line, named
        said = str(e)
        fail(f"cannot read {said}" if said.startswith(shown) else f"cannot read {shown}: {said}")


def _num(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else (f"{x:,.0f}" if float(x).is_integer() else f"{x:,.{digits}f}")


def _value(v: object) -> str:
    """As the other lines print: booleans as true/false (as in --json), integers with thousands separators."""
    if isinstance(v, bool):
        return str(v).lower()
    return f"{v:,}" if isinstance(v, int) else printable(str(v))  # a CNF's comment holds any text


def _dist(s: Summary) -> str:
    return f"min {_num(s.min)}  median {_num(s.median)}  mean {_num(s.mean)}  max {_num(s.max)}  std {_num(s.std)}"


def text(name: str, st: CnfStats) -> str:
    lines = [
        f"file                 {printable(name)}",
        f"variables            {st.variables:,} ({st.used_variables:,} occur)",
        f"clauses              {st.clauses:,}  (ratio {_num(st.clause_variable_ratio)} per variable)",
        f"literals             {st.literals:,}  ({st.positive_literals:,} positive, {st.negative_literals:,} negative)",
        f"clause length        {_dist(st.clause_length)}",
        "length histogram     " + "  ".join(f"{k}: {v:,}" for k, v in st.clause_lengths.items()),
        f"clause kinds         binary {st.binary_fraction:.1%}  ternary {st.ternary_fraction:.1%}"
        f"  Horn {st.horn_fraction:.1%}",
        f"occurrences per var  {_dist(st.occurrences)}",
        f"positive share       {_dist(st.positive_share)}  (pure variables: {st.pure_variables:,})",
    ]
    if st.vig_edges is not None and st.vig_degree is not None:  # both or neither
        lines.append(f"VIG edges            {st.vig_edges:,}")
        lines.append(f"VIG degree           {_dist(st.vig_degree)}")
    if st.modularity is not None:
        lines.append(
            f"modularity           Q = {st.modularity:.4f}, {st.communities:,} communities ({st.community_method})"
        )
    if st.gbd_hash is not None:
        lines.append(f"GBD hash             {st.gbd_hash}")
    if st.queens:
        for key, value in st.queens.items():
            lines.append(f"queens {key.replace('_', ' '):<44} {_value(value)}")
    lines += [f"note: {note}" for note in st.notes]
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    import json

    limit = args.max_graph_edges or stats.MAX_GRAPH_EDGES
    st = _stats(args.file, not args.no_graph, limit)
    name = "<stdin>" if args.file == "-" else args.file
    if args.json:
        print(json.dumps({"file": name, **st.to_dict()}))
    else:
        sys.stdout.write(text(name, st))
    return 0
