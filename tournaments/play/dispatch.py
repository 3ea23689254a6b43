"""Dispatch: a stage's jobs played here, or in a pool of worker processes (dead workers replaced, their games
salvaged or played again); results in completion order."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Iterator
from itertools import chain, islice

from tournaments.play.executors.local_pool import run as run_workers
from tournaments.play.jobs import Job, Result
from tournaments.play.one_game import play_job
from tournaments.play.salvage import abandon, after_death
from tournaments.sandbox import sandbox


def results(jobs: Iterable[Job], workers: int, notice: Callable[[str], None] | None = None) -> Iterator[Result]:
    """Play ``jobs`` in ``workers`` processes (0: in this process); results in completion order.

    The jobs are drawn as workers take them (a stage's are made a page at a time: never listed here). With one
    worker or more, this process stores each game while the workers play the next ones, so storing costs the
    tournament (almost) no time as long as it is faster than play. A worker's death is told to ``notice``.
    """
    jobs = iter(jobs)
    first = list(islice(jobs, max(workers, 1)))  # a stage of fewer games (a Swiss round) starts fewer workers
    if workers <= 0 or len(first) <= 1:
        for job in chain(first, jobs):
            yield play_job(job)
        return
    yield from run_workers(functools.partial(play_job, in_worker=True), chain(first, jobs), len(first),
                           lambda job: f"game {job.scheduled.key}", after_death, (sandbox.SandboxError,), abandon,
                           notice)


def cpu_count() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
