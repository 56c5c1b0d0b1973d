"""The N-queens formula as an object: ``queens`` builds what ``gen-queens`` writes, with the same bytes."""

from __future__ import annotations

import io
import shlex
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from cnfgen_queens.cnf.atomic import atomic_output, check_output_target
from cnfgen_queens.cnf.compressed import compressing
from cnfgen_queens.cnf.exports import mzn_comments, mzn_text, opb_comments, write_opb
from cnfgen_queens.cnf.writer import Asker, check_output, write_cnf
from cnfgen_queens.encodings import get
from cnfgen_queens.encodings.plugins import command_spec
from cnfgen_queens.errors import UsageError, option, python_words
from cnfgen_queens.model.formula import QueensFormula
from cnfgen_queens.model.variants import make_variant
from cnfgen_queens.solutions.api import check_held_size

from .arguments import Cell, edge


@dataclass(frozen=True)
class Formula:
    """The N-queens CNF of ``queens``: at least one queen per row, at most one per line.

    Cell ``(r, c)`` (0-based) is variable ``r*N + c + 1``; auxiliary variables follow ``N*N``.
    ``formula`` is the model layer's record; ``argv`` the ``gen-queens`` arguments that make the same file.

    Examples:
        >>> import cnfgen_queens as cq
        >>> f = cq.queens(4)
        >>> f.nvars, f.nclauses, f.cell(1, 2), f.command
        (16, 80, 7, 'gen-queens 4')
        >>> next(f.clauses())
        (1, 2, 3, 4)
    """

    formula: QueensFormula
    argv: tuple[str, ...]

    @property
    def n(self) -> int:
        """The board size N."""
        return self.formula.n

    @property
    def encoding(self) -> str:
        """The at-most-one encoding's name."""
        return self.formula.encoding

    @property
    def nvars(self) -> int:
        """Variables: N*N cells, then the encoding's auxiliaries (from the closed form: nothing is built)."""
        return self.formula.counts()[0]

    @property
    def nclauses(self) -> int:
        """Clauses (from the closed form: nothing is built)."""
        return self.formula.counts()[1]

    @property
    def command(self) -> str:
        """The ``gen-queens`` command line that writes this formula (recorded in the header)."""
        return shlex.join(["gen-queens", *self.argv])

    @edge
    def cell(self, row: int, column: int) -> int:
        """The variable of square ``(row, column)``, 0-based: ``row*N + column + 1``.

        Examples:
            >>> import cnfgen_queens as cq
            >>> cq.queens(8).cell(7, 7)
            64
        """
        with python_words():
            try:
                return self.formula.board.var(row, column)
            except ValueError as e:
                raise UsageError(str(e)) from None

    @property
    def cells(self) -> list[list[int]]:
        """The cell variables row by row: ``cells[r][c] == cell(r, c)``.

        Examples:
            >>> import cnfgen_queens as cq
            >>> cq.queens(2).cells
            [[1, 2], [3, 4]]
        """
        n = self.n
        return [[r * n + c + 1 for c in range(n)] for r in range(n)]

    def clauses(self) -> Iterator[tuple[int, ...]]:
        """Every clause in file order, streamed (the formula is never held whole)."""
        return self.formula.clauses()

    @edge
    def write(
        self,
        target: str | Path | IO[bytes] | IO[str],
        shuffle: int | None = None,
        *,
        comments: bool = True,
        allow_large: bool = False,
    ) -> int:
        """Write the DIMACS file, the same bytes as ``command`` (with ``--shuffle SEED``): to a path
        (atomically; ``.gz``, ``.bz2``, ``.xz`` compressed) or an open file.  Returns the clauses written.

        ``shuffle`` permutes clauses, literals and variable names with that seed (recorded in the header,
        so decode can undo it); ``comments=False`` is ``--no-comments``; ``allow_large`` lifts the size caps
        (``--allow-large``).  The header records the command with these options in that order.

        Examples:
            >>> import cnfgen_queens as cq
            >>> buf = io.BytesIO()
            >>> cq.queens(2).write(buf)
            8
            >>> [line for line in buf.getvalue().decode().splitlines() if not line.startswith("c")][:3]
            ['p cnf 4 8', '1 2 0', '3 4 0']
        """
        with python_words():
            argv = [
                *self.argv,
                *(["--no-comments"] if not comments else []),
                *(["--allow-large"] if allow_large else []),
                *(["--shuffle", str(shuffle)] if shuffle is not None else []),
            ]
            lines = self.formula.header_comments(shlex.join(["gen-queens", *argv]), show=False) if comments else []
            asker = Asker(option("--shuffle"))  # shuffle= from the Python API
            check_output(self.formula, lines, allow_large=allow_large, shuffle=shuffle, asker=asker)
            if shuffle is not None and not comments:
                warnings.warn("comments=False drops the shuffle seed: decode cannot undo it", stacklevel=2)
            if isinstance(target, str | Path):
                path = Path(target)
                check_output_target(path, stream=True)  # NotAFile (a UsageError) for a directory or socket
                with atomic_output(path, stream=True) as raw:  # a FIFO or device is written into
                    try:
                        out = compressing(raw, path)
                    except ValueError as e:
                        raise UsageError(str(e)) from None
                    written = write_cnf(out, self.formula, lines, show=comments, shuffle=shuffle)
                    if out is not raw:
                        out.close()
                return written
            if isinstance(target, io.TextIOBase):  # e.g. sys.stdout: its bytes, after what was printed
                target.flush()
                target = target.buffer  # type: ignore[attr-defined]  # the edge refused a text stream without one
            return write_cnf(target, self.formula, lines, show=comments, shuffle=shuffle)  # type: ignore[arg-type]

    @edge
    def to_pysat(self, *, allow_large: bool = False) -> Any:
        """The clauses as a ``pysat.formula.CNF`` (held in memory: refused above the loops' size cap of
        20,000,000 clauses unless ``allow_large``).

        Examples:
            >>> import cnfgen_queens as cq
            >>> cnf = cq.queens(8, "sequential").to_pysat()
            >>> cnf.nv, len(cnf.clauses)
            (274, 596)
        """
        with python_words():
            from pysat.formula import CNF

            check_held_size(self.formula, allow_large)
            cnf = CNF(from_clauses=[list(c) for c in self.clauses()])
            cnf.nv = max(cnf.nv, self.nvars)  # a variable no clause mentions still counts
            return cnf

    def to_cnfgen(self) -> Any:
        """The formula as a CNFgen ``CNF`` (the optional extra ``cnfgen-queens[cnfgen]``), cells labelled
        ``x_{r,c}`` (0-based), auxiliaries ``a_{k}``.

        Examples:
            >>> import cnfgen_queens as cq
            >>> f = cq.queens(4, "commander").to_cnfgen()
            >>> f.number_of_variables(), f.number_of_clauses()
            (26, 100)
        """
        with python_words():
            try:
                from cnfgen import CNF
            except ImportError:
                raise ImportError("to_cnfgen() needs CNFgen: pip install 'cnfgen-queens[cnfgen]'") from None
            check_held_size(self.formula)
            cnf = CNF(description=f"{self.n}-queens, {self.formula.describe()} ({self.command})")
            for r in range(self.n):
                for c in range(self.n):
                    cnf.new_variable(f"x_{{{r},{c}}}")
            for k in range(self.n**2 + 1, self.nvars + 1):
                cnf.new_variable(f"a_{{{k}}}")
            cnf.add_clauses_from(list(c) for c in self.clauses())
            return cnf

    def _export_argv(self, fmt: str) -> list[str]:
        """``gen-queens N --format FMT``, or the CLI's refusal of what only a CNF expresses."""
        plain = [self.argv[0]]
        extra = [a for a in self.argv[1:] if a.startswith("--") and a not in ("--encoding", "--group-size")]
        if extra:
            raise UsageError(f"to_{fmt}() states the plain board: {option(extra[0])} applies to the CNF only")
        return [*plain, "--format", fmt]

    def to_opb(self) -> str:
        """The pseudo-Boolean model (OPB) of the same board, as ``gen-queens N --format opb`` writes it
        (the encoding does not apply: OPB states each line's at-most-one directly).

        Examples:
            >>> import cnfgen_queens as cq
            >>> print(cq.queens(2).to_opb().splitlines()[0])
            * #variable= 4 #constraint= 6
        """
        with python_words():
            argv = self._export_argv("opb")
            out = io.BytesIO()
            write_opb(out, self.n, opb_comments(self.n, shlex.join(["gen-queens", *argv])))
            return out.getvalue().decode()

    def to_mzn(self) -> str:
        """The MiniZinc model of the same board, as ``gen-queens N --format mzn`` writes it.

        Examples:
            >>> import cnfgen_queens as cq
            >>> print(cq.queens(8).to_mzn().splitlines()[-3])
            constraint all_different([q[i] - i | i in 1..n]);
        """
        with python_words():
            argv = self._export_argv("mzn")
            return mzn_text(self.n, mzn_comments(self.n, shlex.join(["gen-queens", *argv])))

    def __repr__(self) -> str:
        return f"<Formula {self.command!r}: {self.nvars} variables, {self.nclauses} clauses>"


def formula_of(value: object, function: str) -> Formula:
    """``value`` if it is a Formula; TypeError saying what to pass otherwise (``count(8)``: ``cq.queens(8)``)."""
    if isinstance(value, Formula):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        raise TypeError(f"{function}() takes a formula, not a board size: pass cq.queens({value})")
    raise TypeError(f"{function}() takes a formula made by cq.queens(n), got {type(value).__name__}")


@edge
def queens(
    n: int,
    encoding: str = "pairwise",
    *,
    group_size: int | None = None,
    column_alo: bool = False,
    place: Iterable[Cell] = (),
    holes: Iterable[Cell] = (),
    torus: bool = False,
    random_place: int | None = None,
    seed: int | None = None,
    break_symmetry: bool = False,
) -> Formula:
    """The N-queens formula, as ``gen-queens N`` with the same options.

    Args:
        n: the board size, 1..46340.
        encoding: the at-most-one encoding of every line (``list_encodings()`` lists them).
        group_size: the group size of ``commander`` and ``bimander`` (``--group-size``).
        column_alo: add the redundant at-least-one clause of each column (``--column-alo``).
        place: queens placed in advance, 0-based ``(row, column)`` (``--place``): n-queens completion.
        holes: squares where no queen may stand (``--block-square``).
        torus: diagonals wrap modulo N (``--torus``).
        random_place: that many more non-attacking queens at random (``--random-place``; needs ``seed``).
        seed: the seed of ``random_place`` (``--seed``).
        break_symmetry: add lex-leader clauses that keep one board per orbit of the symmetries the board
            keeps (``--break-symmetry``; :mod:`cnfgen_queens.model.lex_leader`).

    Raises:
        UsageError: what ``gen-queens`` refuses, in its words.

    Examples:
        >>> import cnfgen_queens as cq
        >>> cq.queens(8, "commander").nclauses
        610
        >>> cq.queens(5, torus=True, place=[(0, 0)]).command
        'gen-queens 5 --place 1,1 --torus'
        >>> cq.queens(8, break_symmetry=True).nclauses
        1941
        >>> cq.queens(8, "nonesuch")
        Traceback (most recent call last):
        ...
        cnfgen_queens.encodings.UnknownEncoding: unknown encoding 'nonesuch'; valid: pairwise, ...
    """
    with python_words():
        placed, blocked = list(place), list(holes)  # (row, column) pairs, checked at the edge
        argv = [str(n)]
        plugin = None if get(encoding).builtin else command_spec(encoding)  # UnknownEncoding (a UsageError)
        argv += ["--plugin", plugin] if plugin else []
        argv += ["--encoding", encoding] if encoding != "pairwise" else []
        if group_size is not None:
            argv += ["--group-size", str(group_size)]
        argv += ["--column-alo"] if column_alo else []
        argv += ["--break-symmetry"] if break_symmetry else []
        for flag, squares in (("--place", placed), ("--block-square", blocked)):
            for r, c in squares:
                argv += [flag, f"{r + 1},{c + 1}"]
        argv += ["--torus"] if torus else []
        if random_place is not None:
            argv += ["--random-place", str(random_place)]
        if seed is not None:
            argv += ["--seed", str(seed)]
        get(encoding)  # UnknownEncoding (a UsageError) before the variant is drawn
        variant = make_variant(n, placed, blocked, torus, random_place, seed)
        try:
            formula = QueensFormula(n, encoding, column_alo, group_size, variant, break_symmetry)
        except UsageError:
            raise
        except ValueError as e:  # a group size the encoding does not take
            raise UsageError(str(e)) from None
        return Formula(formula, tuple(argv))
