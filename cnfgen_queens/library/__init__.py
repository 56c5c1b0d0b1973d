"""The Python API: the N-queens formula as an object, and the CLI's solving, decoding, counting and batch.

A thin face over the same layers the commands use, with the same defaults, bytes and errors
(``UsageError``, with the CLI's words):
``queens`` builds a ``Formula`` (``gen-queens``); ``solve`` runs a solver and checks its
answer (``solve``); ``decode`` and ``blocking_clause`` read a model (``decode``, ``block``);
``solutions`` and ``count`` enumerate and count (``enumerate``, ``count``); ``run_batch`` and
``load_results`` run and read a batch (``batch``, ``report``).  Squares are 0-based ``(row, column)``
here; messages name them 1-based, as the CLI does.

Every name is also an attribute of the package (``cnfgen_queens.queens``), loaded on first use, except
two that are the package's own subpackages there: ``solutions`` is ``cnfgen_queens.enumerate_solutions``
and ``encodings`` is ``cnfgen_queens.list_encodings`` (both names are here too).

Examples:
    >>> import cnfgen_queens as cq
    >>> f = cq.queens(8, encoding="commander")
    >>> out = cq.solve(f)
    >>> out.status == "SAT", out.board.n
    (True, 8)
    >>> cq.count(f).total
    92
"""

from cnfgen_queens.encodings import EncodingSize
from cnfgen_queens.errors import UsageError
from cnfgen_queens.solutions.records import Count

from .batch import load_results, run_batch
from .boards import Board, blocking_clause, decode
from .cardinality import at_most_one, encodings
from .cardinality import encodings as list_encodings
from .formula import Formula, queens
from .solving import DEFAULT_SOLVER, Solved, count, solutions, solve
from .solving import solutions as enumerate_solutions

__all__ = [
    "DEFAULT_SOLVER",
    "Board",
    "Count",
    "EncodingSize",
    "Formula",
    "Solved",
    "UsageError",
    "at_most_one",
    "blocking_clause",
    "count",
    "decode",
    "encodings",
    "enumerate_solutions",
    "list_encodings",
    "load_results",
    "queens",
    "run_batch",
    "solutions",
    "solve",
]
