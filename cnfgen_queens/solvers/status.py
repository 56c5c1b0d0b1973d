"""What a solver run established (:class:`Status`), what became of its proof and how an answer was checked.

Apart from the records of :mod:`.outcome` (which re-exports them), so that reading a solver's output
(``decode``, ``block``: :mod:`.parse`) loads no dataclass.
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """What a run established; only SAT and UNSAT are answers."""

    SAT = "SAT"
    UNSAT = "UNSAT"
    UNKNOWN = "UNKNOWN"
    TIMEOUT = "TIMEOUT"
    MEMOUT = "MEMOUT"
    ERROR = "ERROR"


class ProofState(StrEnum):
    """What became of a DRAT proof: checked and accepted, not checked (no checker, too big), or refuted."""

    VERIFIED = "verified"
    UNVERIFIED = "unverified"
    REJECTED = "rejected"


class Checked(StrEnum):
    """How an answer was checked, one word for every answer the tool gives (a solve, a count).

    ``model-verified``: SAT, the model satisfies every clause; ``proof-verified``: UNSAT, a DRAT proof
    was checked; ``published-count``: an UNSAT or a count that agrees with the published count of the
    board (OEIS A000170, A007705); ``certified``: a count whose certificate was checked (``check-count``);
    ``unchecked``: nothing checked it (a solver's UNSAT on its word, a count built on such answers).
    """

    MODEL = "model-verified"
    PROOF = "proof-verified"
    PUBLISHED = "published-count"
    CERTIFIED = "certified"
    UNCHECKED = "unchecked"
