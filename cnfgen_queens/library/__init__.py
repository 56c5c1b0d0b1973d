"""The Python API: the N-queens formula as an object, and the CLI's solving, decoding, counting and batch.

A thin face over the same layers the commands use, with the same defaults and bytes:
``queens`` builds a ``Formula`` (``gen-queens``); ``list_encodings`` lists the at-most-one encodings
(``gen-queens --list-encodings``) and ``at_most_one`` applies one to your own literals; ``solve`` runs a
solver and checks its answer (``solve``); ``decode`` and ``blocking_clause`` read a model (``decode``,
``block``); ``enumerate_solutions`` and ``count`` enumerate and count (``enumerate``, ``count``);
``run_batch`` and ``load_results`` run and read a batch (``batch``, ``report``).  Every name is also an
attribute of the package (``cnfgen_queens.queens``), loaded on first use; none is the name of a subpackage.

Squares are 0-based ``(row, column)`` here, 1-based on the command line.  Errors are Python's own: what the
CLI refuses with exit 2 raises a ``UsageError`` (a ValueError) whose message names this API's parameters
(``torus=True``, ``place=``) and squares as they were given (``(9, 9)``), never a CLI flag; a wrong type
raises TypeError naming the parameter, saying what to pass (``count(8)``: ``cq.queens(8)``; a switch takes
True or False only); a missing file FileNotFoundError; ``solver_args`` as one string is split as a shell
splits it.  Every argument is checked once, before any work (:func:`.arguments.edge`).  A
known solver that is not installed ``SolverMissing`` (an OSError, the CLI's exit 1).  Outcomes are the
CLI's for the same input and limits, the memory limit included (``solve``).

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
from cnfgen_queens.solutions.api import Count

from .batch import load_results, run_batch
from .boards import Board, blocking_clause, decode
from .cardinality import at_most_one, list_encodings
from .formula import Formula, queens
from .solving import DEFAULT_SOLVER, Solved, count, enumerate_solutions, solve

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
    "enumerate_solutions",
    "list_encodings",
    "load_results",
    "queens",
    "run_batch",
    "solve",
]
