"""Executors: where a tournament's games are played (``--executor local|ray``).

An executor takes the jobs of one stage and yields their results as the games finish, in
any order. Every executor plays a job with ``runner.play_job``, the same function a local
worker runs, so a game is the same game whatever played it: its key and seeds come from the
schedule, never from the executor, the number of workers or the number of nodes. The
executor never stores anything: the runner, in the organiser's process, is the one writer.

* ``local`` (the default): the process pool of tournaments.play.workers on this machine.
* ``ray``: one Ray task per game on a Ray cluster (tournaments.play.ray_executor, which
  alone imports Ray, and only when asked: the local executor needs no Ray installed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

from tournaments.play import runner
from tournaments.play.defaults import EXECUTORS, LOCAL, RAY


class ExecutorError(runner.TournamentError):
    """An executor that cannot start (Ray missing, a cluster out of reach); one clear line."""


class Executor(Protocol):
    """Plays jobs and yields their results as they finish; a context manager (``with``)."""

    def results(self, jobs: list[runner.Job], notice: Callable[[str], None] | None = None
                ) -> Iterator[runner.Result]: ...

    def describe(self) -> str:
        """Where the games are played, in a few words for the run's first line."""
        ...

    def __enter__(self) -> Executor: ...

    def __exit__(self, *_exc: object) -> None: ...


@dataclass(slots=True)
class Local:
    """The local process pool: ``workers`` processes (0: play in this process)."""

    workers: int

    def results(self, jobs: list[runner.Job], notice: Callable[[str], None] | None = None
                ) -> Iterator[runner.Result]:
        return runner.results(jobs, self.workers, notice)

    def describe(self) -> str:
        return f"{self.workers:,} job" + ("" if self.workers == 1 else "s")

    def __enter__(self) -> Local:
        return self

    def __exit__(self, *_exc: object) -> None:
        pass


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
    if name not in EXECUTORS:
        raise ExecutorError(f"--executor is one of {', '.join(EXECUTORS)}, not {name!r}")
    if name == LOCAL and ray_address is not None:
        raise ExecutorError("--ray-address is for --executor ray only")
    if name == RAY and jobs is not None:
        raise ExecutorError("--jobs is for --executor local: on Ray as many games play at once as the cluster has "
                            "CPUs")
    if name == RAY and not ray_installed():
        raise ExecutorError("--executor ray needs Ray, which is not installed here: pip install 'tourney[ray]'")


def open_executor(name: str, workers: int, ray_address: str | None = None) -> Executor:
    """The executor called ``name``, not yet started: enter it (``with``) to start the pool or join
    the cluster. ExecutorError if it cannot be used here."""
    check(name, ray_address)
    if name == RAY:
        from tournaments.play import ray_executor  # imports Ray: only when asked for

        return ray_executor.RayExecutor(ray_address)
    return Local(workers)
