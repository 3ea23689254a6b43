"""Executors: where a tournament's games are played (``--executor local|ray``).

An executor takes the jobs of one stage (an iterable it draws from as it plays: a stage is made a
page at a time, never listed) and yields their results as the games finish, in any order. Every
executor plays a job with ``runner.play_job``, the same function a local worker runs, so a game is
the same game whatever played it: its key and seeds come from the
schedule, never from the executor, the number of workers or the number of nodes. The
executor never stores anything: the runner, in the organiser's process, is the one writer.

* ``local`` (the default): the process pool of tournaments.play.executors.local_pool on this machine.
* ``ray``: one Ray task per game on a Ray cluster (tournaments.play.executors.ray_executor, which
  alone imports Ray, and only when asked: the local executor needs no Ray installed).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from tournaments.play import runner
from tournaments.play.defaults import EXECUTORS, LOCAL, RAY
from tournaments.play.executors.local_pool import run as run_workers
from tournaments.play.runner import ExecutorError


class Executor(Protocol):
    """Plays jobs and yields their results as they finish; a context manager (``with``)."""

    def results(self, jobs: Iterable[runner.Job], notice: Callable[[str], None] | None = None
                ) -> Iterator[runner.Result]: ...

    def describe(self) -> str:
        """Where the games are played, in a few words for the run's first line."""
        ...

    @property
    def capacity(self) -> int:
        """How many items ``imap`` works on at once (0: one at a time, in this process)."""
        ...

    def imap(self, work: Callable[[Any], Any], items: Sequence[Any], describe: Callable[[Any], str] = repr,
             passthrough: tuple[type[BaseException], ...] = ()) -> Iterator[Any]:
        """``work(item)`` for every item (``work`` and the items picklable, ``work`` a module's function or a
        partial of one), the results in the items' order whatever finished first (verification's batches).
        An exception of a ``passthrough`` type that ``work`` raises is raised again here."""
        ...

    def __enter__(self) -> Executor: ...

    def __exit__(self, *_exc: object) -> None: ...


@dataclass(slots=True)
class Local:
    """The local process pool: ``workers`` processes (0: play in this process)."""

    workers: int

    def results(self, jobs: Iterable[runner.Job], notice: Callable[[str], None] | None = None
                ) -> Iterator[runner.Result]:
        return runner.results(jobs, self.workers, notice)

    def describe(self) -> str:
        return f"{self.workers:,} job" + ("" if self.workers == 1 else "s")

    @property
    def capacity(self) -> int:
        return max(self.workers, 0)

    def imap(self, work: Callable[[Any], Any], items: Sequence[Any], describe: Callable[[Any], str] = repr,
             passthrough: tuple[type[BaseException], ...] = ()) -> Iterator[Any]:
        if self.workers <= 0 or len(items) <= 1:
            for item in items:
                yield work(item)
            return
        finished: dict[int, Any] = {}
        following = 0
        for index, result in run_workers(functools.partial(_numbered, work), list(enumerate(items)),
                                         min(self.workers, len(items)), lambda pair: describe(pair[1]),
                                         passthrough=passthrough):
            finished[index] = result
            while following in finished:
                yield finished.pop(following)
                following += 1

    def __enter__(self) -> Local:
        return self

    def __exit__(self, *_exc: object) -> None:
        pass


def _numbered(work: Callable[[Any], Any], pair: tuple[int, Any]) -> tuple[int, Any]:
    """In a worker: ``work`` of a numbered item, with its number (results come back in any order)."""
    return pair[0], work(pair[1])


def ray_installed() -> bool:
    """Whether Ray can be imported here (imported for real: a broken install counts as none)."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


def check(name: str, ray_address: str | None = None, jobs: int | None = None) -> None:
    """ExecutorError if the executor called ``name`` cannot be used here, or an option is not its own
    (checked before any bot starts)."""
    conflicts(name, ray_address, jobs)
    if name == RAY and not ray_installed():
        raise ExecutorError("--executor ray needs Ray, which is not installed here: pip install 'tourney[ray]'")


def conflicts(name: str, ray_address: str | None = None, jobs: int | None = None) -> None:
    """ExecutorError if ``name`` is no executor, or an option given is not its own (a usage error, whatever is
    installed here)."""
    if name not in EXECUTORS:
        raise ExecutorError(f"--executor is one of {', '.join(EXECUTORS)}, not {name!r}")
    if name == LOCAL and ray_address is not None:
        raise ExecutorError("--ray-address is for --executor ray only")
    if name == RAY and jobs is not None:
        raise ExecutorError("--jobs is for --executor local: on Ray as many games play at once as the cluster has "
                            "CPUs")


def open_executor(name: str, workers: int, ray_address: str | None = None, quiet_stdout: bool = True) -> Executor:
    """The executor called ``name``, not yet started: enter it (``with``) to start the pool or join
    the cluster. ExecutorError if it cannot be used here. ``quiet_stdout`` False: a command that prints
    its results while it is connected to Ray keeps stdout (Ray's driver may print news there)."""
    check(name, ray_address)
    if name == RAY:
        from tournaments.play.executors import ray_executor  # imports Ray: only when asked for

        return ray_executor.RayExecutor(ray_address, quiet_stdout)
    return Local(workers)
