"""Whether a solver's UNSAT contradicts what a CNF's own header says it is.

A file that ``gen`` wrote names its formula in a comment (``n=8 encoding=pairwise column_alo=false``,
plus a variant's lines). When the ``p cnf`` line still has that formula's exact size (no blocking
clauses merged in, no variables added) and OEIS publishes a count for it (A000170 for the plain board,
A007705 for the torus) that is positive, an UNSAT answer is wrong: ``batch`` stores such a run with
verdict ``wrong`` (:mod:`cnfgen_queens.experiments.verdict`), and ``solve`` says so. Comments can lie; the
size check keeps the claim to unchanged files.

:func:`judge_answer` is the one judgement of a solver's answer that ``solve`` (the CLI and the Python
API) and the batch share: how it was checked (:class:`.Checked`), whether it is wrong, and, with
``require_checked``, whether an unchecked UNSAT is refused; and so its :class:`Verdict` (solved, wrong,
unsolved), which ``solve --json``, :class:`cnfgen_queens.library.solving.Solved` and a batch's stored row all
carry.  A wrong answer is a model that fails the clause check, a model whose queens are no board of the
header's variant (names unshuffled), or an UNSAT the header contradicts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from cnfgen_queens.cnf.dimacs import Header
from cnfgen_queens.cnf.scan import CnfFile, check_stream
from cnfgen_queens.cnf.shuffle import unshuffle_map
from cnfgen_queens.enumeration.records import Count, refused
from cnfgen_queens.model.decode import DecodeError, variant_placement
from cnfgen_queens.model.formula import HEADER_BREAK, QueensFormula
from cnfgen_queens.model.known_counts import published_count
from cnfgen_queens.model.variants import VariantError, from_header
from cnfgen_queens.solvers.outcome import Checked, Outcome, ProofState, Status

NOT_A_SOLUTION = "model is not an N-queens solution"  # how a refuted model's error begins


class Verdict(StrEnum):
    """The judgement of one answer (a batch stores these words in its ``verdict`` column)."""

    SOLVED = "solved"
    WRONG = "wrong"
    UNSOLVED = "unsolved"


DESCRIPTION = re.compile(r"n=(\d+) encoding=(\S+)(?: group_size=(\d+))? column_alo=(true|false)$")


@dataclass(frozen=True)
class Described:
    """The unchanged formula a CNF's header describes and its published count: ``published`` solutions
    (OEIS ``oeis``) of the ``n``-queens board (``torus``), in ``encoding``; with ``broken`` the file holds
    ``--break-symmetry``'s clauses, which keep one board per orbit (the count of orbits when published, else
    the board's)."""

    n: int
    encoding: str
    torus: bool
    broken: bool
    published: int
    oeis: str

    def contradiction(self) -> str | None:
        """Why an UNSAT answer is wrong (the board has a solution), or None (N = 2, 3: UNSAT is right)."""
        if self.published == 0:
            return None
        board = ("torus " if self.torus else "") + ("with --break-symmetry " if self.broken else "")
        kept = ", of which at least one is kept" if self.broken and self.oeis != "A002562" else ""
        described = f"{self.n}-queens {board}({self.encoding}), which has {self.published} solutions"
        return (
            f"the solver answered UNSAT, but the header describes {described} (OEIS {self.oeis}){kept}: a wrong answer"
        )


def described_count(header: Header, path: Path | None = None) -> Described | None:
    """The unchanged formula a CNF's header describes, with its published count, or None (no description, a
    changed size, a variant without a published count)."""
    m = next((m for c in header.comments if (m := DESCRIPTION.match(c.strip()))), None)
    if m is None:
        return None
    n, encoding, group, alo = int(m[1]), m[2], m[3], m[4] == "true"
    try:
        variant = from_header(header.comments)
    except VariantError:
        return None
    if variant.placed or variant.holes:
        return None
    broken = any(c.strip().startswith(HEADER_BREAK) for c in header.comments)  # SAT iff the board has a solution
    orbits = published_count(n, torus=variant.torus, break_symmetry=True) if broken else None
    published = orbits or published_count(n, torus=variant.torus)  # the board's, when its orbits are unpublished
    if published is None:
        return None
    try:
        formula = QueensFormula(n, encoding, alo, int(group) if group else None, variant, broken)
        if formula.counts() != (header.num_vars, header.num_clauses):
            return None  # clauses added (block, merge) or taken away: no longer the formula described
        if path is not None and check_stream(CnfFile(path, str(path)), None, _quiet).clauses != header.num_clauses:
            return None  # more (or fewer) clauses than the header says
    except ValueError:  # an unknown encoding, a bad group size: a header we did not write
        return None
    return Described(n, encoding, variant.torus, broken, published[0], published[1])


UNCHECKED_WHY = "no verified proof, no published count for this CNF"
UNCHECKED_UNSAT = f"UNSAT unchecked ({UNCHECKED_WHY})"


@dataclass(frozen=True)
class Judgement:
    """What is made of one solver answer: ``answer`` is what the solver said (SAT for a model that failed
    the check); ``checked`` how it was checked (None: no answer, e.g. a limit or an error, or a wrong one);
    ``wrong`` why it is a wrong answer; ``refused`` why ``require_checked`` does not accept it.  Either of
    the last two makes the answer an error."""

    answer: Status
    checked: Checked | None
    wrong: str | None = None
    refused: str | None = None

    @property
    def problem(self) -> str | None:
        """Why the answer is not accepted (wrong, or refused), or None."""
        return self.wrong or self.refused

    @property
    def verdict(self) -> Verdict:
        """Wrong; solved (SAT with a verified model, UNSAT not refused); else unsolved."""
        if self.wrong is not None:
            return Verdict.WRONG
        if self.refused is None and (
            self.checked is Checked.MODEL or (self.answer is Status.UNSAT and self.checked is not None)
        ):
            return Verdict.SOLVED
        return Verdict.UNSOLVED

    def accepted(self, outcome: Outcome) -> Outcome:
        """``outcome`` as accepted: status ERROR with :attr:`problem` as its error when it is not."""
        if self.problem is None:
            return outcome
        return replace(outcome, status=Status.ERROR, error=self.problem, verified=False)


def judge_answer(
    outcome: Outcome, header: Header, path: Path | None = None, *, require_checked: bool = False
) -> Judgement:
    """The judgement of ``outcome``, the answer of a solver on the CNF of ``header`` (at ``path``), the one
    that ``solve``, ``cq.solve`` and the batch make: SAT with a model that satisfies every clause and whose
    queens are a board of the header's N and variant is ``model-verified`` (any other model is wrong); UNSAT
    is wrong when the header describes an unchanged board with a positive published count,
    ``published-count`` when that count is 0 (N = 2, 3), ``proof-verified`` with a checked DRAT proof, else
    ``unchecked`` (refused with ``require_checked``)."""
    if outcome.model_rejected:  # the solver said SAT; its model violates a clause (the outcome's error)
        return Judgement(Status.SAT, None, wrong=outcome.error or "the model fails the check")
    if outcome.status is Status.SAT:
        if not outcome.verified:
            return Judgement(Status.SAT, Checked.UNCHECKED)
        not_a_board = _not_a_board(header, outcome.true_vars())
        return Judgement(Status.SAT, None if not_a_board else Checked.MODEL, wrong=not_a_board)
    if outcome.status is not Status.UNSAT:
        return Judgement(outcome.status, None)
    described = described_count(header, path)
    wrong = None if described is None else described.contradiction()
    if wrong is not None:
        return Judgement(Status.UNSAT, None, wrong=wrong)
    if outcome.proof is ProofState.VERIFIED:
        return Judgement(Status.UNSAT, Checked.PROOF)
    if described is not None:  # published count 0: UNSAT is what OEIS says
        return Judgement(Status.UNSAT, Checked.PUBLISHED)
    why = f"{UNCHECKED_UNSAT}, {refused()}" if require_checked else None
    return Judgement(Status.UNSAT, Checked.UNCHECKED, refused=why)


def count_verdict(result: Count) -> Verdict:
    """The verdict on a count, as ``count`` judges it: wrong when it disagrees with a published count
    (:attr:`.Count.wrong`), solved when complete, else unsolved."""
    if not result.complete:
        return Verdict.UNSOLVED
    return Verdict.WRONG if result.wrong is not None else Verdict.SOLVED


def _not_a_board(header: Header, true_vars: set[int]) -> str | None:
    """Why a model (that satisfies every clause) is no board of the N and variant the header names, its
    names unshuffled; None when it is one, or the header names no board."""
    n = header.board_size()
    if n is None:
        return None
    try:
        variant = from_header(header.comments)
        table = unshuffle_map(header)
    except (VariantError, ValueError):  # a header we did not write: nothing to check the board against
        return None
    if table is not None:
        true_vars = {table[v] for v in true_vars if 0 < v < len(table)}
    try:
        variant_placement(n, true_vars, variant if variant.active else None)
    except DecodeError as e:
        return f"{NOT_A_SOLUTION}: {e}"
    except ValueError:  # an N no board has (the header's word only)
        return None
    return None


def _quiet(message: str) -> None:
    """Warnings about the file are solve's to print (once), not this check's."""
