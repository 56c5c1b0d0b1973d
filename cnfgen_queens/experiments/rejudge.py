"""``report --rejudge``: the solver output a batch kept (``keep_output``) read again by today's parser and judge.

For each run of task solve whose output is in ``run-output/<run key>.log`` beside the results file and whose
stored answer is SAT or UNSAT (a run stopped at a limit printed no answer): its standard output is parsed
(:func:`~cnfgen_queens.solvers.parse.read_competition`; a result file kept beside it, ``<run key>.result``, by
:func:`~cnfgen_queens.solvers.parse.read_minisat` for a solver of that style), a model checked against the instance
(:func:`~cnfgen_queens.solvers.check_model`, the cached CNF of the run's GBD hash), and the answer judged
(:func:`~cnfgen_queens.solutions.known_answer.judge_answer`, as solve, the API and the batch judge one).  A
run whose verdict or answer would change is listed.  Skipped, and counted: a result file not kept (a store
written before the batch kept them), an instance no longer in the cache (or changed).
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from ..cnf.dimacs import read_header_file
from ..cnf.gbd_hash import gbd_hash
from ..solutions.known_answer import judge_answer
from ..solvers import check_model
from ..solvers.finished import RESULT_SUFFIX, STDERR_MARK
from ..solvers.outcome import Outcome
from ..solvers.parse import read_competition, read_minisat
from ..solvers.profiles import RESULT_FILE_STYLE
from ..solvers.status import Status
from .against import answer
from .batch import CACHE_DIR
from .store import OUTPUT_DIR, Row, Store
from .verdict import judge


@dataclass(frozen=True)
class Rejudged:
    """What re-judging the kept output found: the runs read, those skipped (why -> how many), the changes."""

    read: int
    skipped: dict[str, int]
    changes: tuple[tuple[Row, str, str], ...]  # (row, answer stored, answer today)


def _instances(store: Store, base: Path) -> dict[str, Path]:
    """GBD hash -> the file of that instance (the cache's, or a DIMACS file of instances.files where it is)."""
    out = {}
    for _, file, digest in store.db.execute("SELECT instance_key, file, gbd_hash FROM instances"):
        path = Path(file) if Path(file).is_absolute() else base / CACHE_DIR / Path(file).name
        out[digest] = path
    return out


def rejudge(db: Path, rows: Iterable[Row]) -> Rejudged:
    """Re-judge every run of ``rows`` whose output ``db``'s batch kept (see the module's docstring)."""
    kept = db.parent / OUTPUT_DIR
    skipped: dict[str, int] = {}
    changes = []
    read = 0
    with Store(db, readonly=True) as store:
        styles = {name: str(profile.get("output", "")) for name, profile, _ in store.solvers()}
        files = _instances(store, db.parent)
    checked: dict[str, bool] = {}
    for row in rows:
        log = kept / f"{row.run_key}.log"
        if row.task != "solve" or row.status not in (Status.SAT, Status.UNSAT) or not log.is_file():
            continue
        result = log.with_suffix(RESULT_SUFFIX) if styles.get(row.solver_label) == RESULT_FILE_STYLE else None
        why = _skip(row, result, files, checked)
        if why is not None:
            skipped[why] = skipped.get(why, 0) + 1
            continue
        read += 1
        today = _judged(row, log if result is None else result, files[row.gbd_hash or ""])
        if answer(today) != answer(row):
            changes.append((row, answer(row), answer(today)))
    return Rejudged(read, skipped, tuple(changes))


def _skip(row: Row, result: Path | None, files: dict[str, Path], checked: dict[str, bool]) -> str | None:
    """Why ``row``'s output cannot be judged again here (None: it can); ``result``: where its result file
    would be kept (None: the solver answers on stdout)."""
    if result is not None and not result.is_file():
        return "the answer was in a result file (not kept)"
    path = files.get(row.gbd_hash or "")
    if path is None:
        return "instance not recorded"
    if str(path) not in checked:
        try:
            checked[str(path)] = gbd_hash(path) == row.gbd_hash
        except OSError:
            checked[str(path)] = False
    if not checked[str(path)]:
        return "instance no longer in the cache (or changed)"
    return None


def _judged(row: Row, kept: Path, cnf: Path) -> Row:
    """``row`` as today's parser and judge take its ``kept`` output (``.log``) or result file on the instance
    ``cnf``."""
    if kept.suffix == RESULT_SUFFIX:
        with open(kept, "rb") as f:
            claim = read_minisat(f)
    else:
        stdout = kept.read_bytes().split(STDERR_MARK, 1)[0]
        claim = read_competition(io.BytesIO(stdout))
    status = {"SAT": Status.SAT, "UNSAT": Status.UNSAT}.get(claim.answer or "", Status.UNKNOWN)
    model, error = None, claim.problem
    if status is Status.SAT and error is None:
        model, error = check_model(cnf, claim.model or ())
    outcome = Outcome(
        status=status,
        solver=row.solver,
        version=row.solver_version,
        model=model,
        exit_code=None,
        wall=row.wall or 0.0,
        cpu=row.cpu,
        peak_memory_mb=None,
        verified=model is not None,
        error=error,
        stderr_tail="",
        proof=None,
        model_rejected=status is Status.SAT and model is None,
    )
    judged = judge_answer(outcome, read_header_file(cnf, None), cnf)
    again = replace(row, status=judged.answer)
    return replace(again, verdict=judge(again, answer=judged.verdict))


def markdown(r: Rejudged) -> str:
    """The re-judging for the terminal and Markdown: one line, then each run whose answer would change."""
    skipped = "".join(f"; {n} skipped: {why}" for why, n in sorted(r.skipped.items()))
    head = f"rejudge: {r.read} runs' kept output read again{skipped}; {len(r.changes)} verdict(s) would change"
    if not r.changes:
        return head + "\n"
    lines = [head, "", "| run key | solver | instance | stored | today |", "|---|---|---|---|---|"]
    for row, was, now in r.changes:
        what = f"n={row.n} {row.encoding}" + ("" if row.shuffle_seed is None else f" seed={row.shuffle_seed}")
        lines.append(f"| {row.run_key} | {row.solver_label} | {what} | {was} | {now} |")
    return "\n".join(lines) + "\n"
