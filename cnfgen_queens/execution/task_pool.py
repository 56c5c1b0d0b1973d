"""Run independent tasks on the cube counter's pools (forked workers or Dask), a few per worker ahead.

The certificate writer (:mod:`.certificate`) and the external solvers' cube counter
(:mod:`.external_cubes`) hand each result to ``finished`` as it arrives; the first result it refuses
(a cube that stopped) or the deadline ends the run, after every result already in has been handed on.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from cnfgen_queens.cnf.atomic import sweep_work_dirs_settled
from cnfgen_queens.execution import executors
from cnfgen_queens.execution.fork_pool import ready
from cnfgen_queens.execution.where import Where
from cnfgen_queens.limits import NEVER, Deadline

IN_FLIGHT = 4  # tasks per worker submitted ahead
POLL = 0.05  # longest wait between two looks at the running tasks


def run_tasks(
    fn: Callable[..., Any],
    items: Iterable[tuple[Any, ...]],
    finished: Callable[[Any], bool],
    *,
    where: Where,
    deadline: Deadline = NEVER,
) -> bool:
    """``fn(*item)`` for every item on ``where.jobs`` workers; True when every result was accepted by ``finished``."""
    pool: Any = executors.cube_pool(where)
    interrupted = True
    todo = enumerate(items)
    run = uuid.uuid4().hex  # Dask keys: unique per task and run
    pending: list[Any] = []
    nap = 0.001
    try:
        while True:
            while len(pending) < IN_FLIGHT * max(1, where.jobs) and (step := next(todo, None)) is not None:
                pending.append(pool.submit(f"task-{run}-{step[0]}", fn, *step[1]))
            if not pending:
                break
            done = ready(pending)  # signals held: never inside a future's lock
            taken = {id(f) for f in done}  # not f.done() again: a task finishing in between would be lost
            pending = [f for f in pending if id(f) not in taken]
            accepted = [finished(pool.result(f)) for f in done]
            if not all(accepted) or deadline.expired(POLL):
                return False
            if done:
                nap = 0.001
            else:
                time.sleep(nap)
                nap = min(POLL, 2 * nap)
        interrupted = False
        return True
    finally:
        pool.close(interrupted=interrupted)
        if interrupted:  # a worker stopped mid-task (killed when slow to unwind) may have left its work directories
            sweep_work_dirs_settled()
