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

from cnfgen_queens.execution import executors
from cnfgen_queens.execution.where import Where
from cnfgen_queens.limits import NEVER, Deadline
from cnfgen_queens.solvers.runner import KILL_GRACE

IN_FLIGHT = 4  # tasks per worker submitted ahead
POLL = 0.05  # longest wait between two looks at the running tasks
# seconds past the deadline by which a running task has ended by itself: its solver gets SIGTERM at the deadline
# and SIGKILL KILL_GRACE later, as with one job (tasks cut short by signals unwound slowly: --jobs 2 -t T took
# T + 1.2 s to T + 2 s with a solver that ignores SIGTERM, against T + 0.2 s for the schedule itself)
LET_END = KILL_GRACE + 0.5


def run_tasks(
    fn: Callable[..., Any],
    items: Iterable[tuple[Any, ...]],
    finished: Callable[[Any], bool],
    *,
    where: Where,
    deadline: Deadline = NEVER,
) -> bool:
    """``fn(*item)`` for every item on ``where.jobs`` workers; True when every result was accepted by ``finished``.

    Once ``deadline`` has passed nothing more is submitted, and the tasks in flight, which stop at it as with one
    job, are let end on its schedule (:data:`LET_END`): what they found is handed to ``finished`` too."""
    pool: Any = executors.cube_pool(where)
    interrupted = True
    todo = enumerate(items)
    run = uuid.uuid4().hex  # Dask keys: unique per task and run
    pending: list[Any] = []
    nap = 0.001
    late = refused = False  # the deadline has passed; a result was refused
    try:
        while True:
            late = late or deadline.expired(POLL)
            while not late and len(pending) < IN_FLIGHT * max(1, where.jobs) and (step := next(todo, None)) is not None:
                pending.append(pool.submit(f"task-{run}-{step[0]}", fn, *step[1]))
            if not pending:
                break
            done = pool.ready(pending)
            taken = {id(f) for f in done}  # not f.done() again: a task finishing in between would be lost
            pending = [f for f in pending if id(f) not in taken]
            refused = not all([finished(pool.result(f)) for f in done]) or refused  # every result handed on
            if (refused and not late) or deadline.expired(LET_END):
                return False
            if done:
                nap = 0.001
            else:
                time.sleep(nap)
                nap = min(POLL, 2 * nap)
        if refused or (late and next(todo, None) is not None):
            return False
        interrupted = False
        return True
    finally:
        ending = deadline.at + LET_END if late else None  # type: ignore[operator]
        pool.close(interrupted=interrupted, ending=ending)  # workers stopped mid-task: their directories swept
