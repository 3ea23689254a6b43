"""The Ray executor: every game of a stage is a Ray task on a Ray cluster (``--executor ray``).

This module alone imports Ray (tournaments.play.executors.choice imports it only when asked for, and it
imports nothing of that module: no import circle).

* **One game, one task.** A task plays its job with ``runner.play_job``, exactly as a local
  worker does: the same key, seeds and limits, every bot in its own sandbox when the run is
  sandboxed (bubblewrap must work on every node, as it does here). The organiser's process
  (the Ray driver) is the one writer: it stores each result as it arrives.
* **Bounded in flight.** At most ``IN_FLIGHT_PER_CPU`` tasks per CPU of the cluster are
  submitted at a time (at least ``MIN_IN_FLIGHT``); results are taken as they finish
  (``ray.wait``), and each finished one makes room for the next game.
* **Lost nodes.** A task whose worker or node dies is run again by Ray from the same job
  (``max_retries``): the game is played again from its seed. Its result is one object, read
  once, so a game is stored once however often it was played; after ``RETRIES`` losses the
  run stops with an error naming the game, and ``--resume`` continues it.
* **Stopping early** (Ctrl-C, an error): leaving the executor disconnects the driver, which
  ends its Ray job; Ray kills the job's workers, and with them the games in flight and their bots.
* **The bots' files travel with the run.** No shared filesystem is needed: the driver packs
  each bot's own files (``BotSpec.files``, what its content hash covers) into one object in
  Ray's object store per stage; each Ray worker process unpacks them once into a private
  temporary folder on its node (checked against the content hash), a run's staging folder named
  for the worker process (tournaments.play.preparation.staging_folder). It is removed when the
  process exits normally; Ray ends a job's workers with SIGKILL, so most are removed instead by the
  next tourney process on the node that stages bots (a Ray worker of a later run, a local run),
  once their worker is gone. Whatever a bot needs beyond its own files (an interpreter, a library)
  must be installed on every node.
"""

from __future__ import annotations

import itertools
import logging
import os
import socket
import sys
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import ray
from ray import exceptions as ray_errors

from tournaments.bots.discovery import read_files, staged_copy
from tournaments.bots.spec import BotSpec
from tournaments.play import runner
from tournaments.play.executors.local_pool import WorkerDied
from tournaments.play.preparation import staging_folder
from tournaments.play.runner import ExecutorError
from tournaments.sandbox import sandbox

RETRIES = 3
"""How many times Ray plays a game again whose worker or node died."""
CONNECT_TIMEOUT = 10.0
"""Seconds to wait for the head to answer before the run is refused."""
IN_FLIGHT_PER_CPU = 2
MIN_IN_FLIGHT = 2

Bundle = dict[str, tuple[tuple[str, bytes, bool], ...]]
"""Per bot name, its own files: (path relative to its folder, content, executable)."""


def pack(bots: tuple[BotSpec, ...]) -> Bundle:
    """Every bot's own files, read once on the driver as discovery reads them (a bot with none, tourney's
    builtin, has none)."""
    return {bot.name: tuple(read_files(bot)) for bot in bots}


_unpacked: dict[tuple[str, str], BotSpec] = {}
"""In a Ray worker: the bots unpacked so far, by name and content hash."""
_folder: tempfile.TemporaryDirectory | None = None


def here(bots: tuple[BotSpec, ...], bundle: Bundle) -> tuple[BotSpec, ...]:
    """The bots as they play in this Ray worker process: their files unpacked once per process into
    a private temporary folder (removed when the process exits, or once it is gone: the module's docstring),
    so a later game writes nothing and a Python bot playing in process (``--sandbox off``) is imported once,
    as in a local worker."""
    global _folder
    out = []
    for bot in bots:
        if not bot.files:
            out.append(bot)
            continue
        key = (bot.name, bot.content_hash)
        if key not in _unpacked:
            if _folder is None:
                _folder = staging_folder()
            folder = Path(_folder.name)
            _unpacked[key] = unpack(bot, bundle[bot.name], folder / "incoming" / str(len(_unpacked)), folder / "staged")
        out.append(_unpacked[key])
    return tuple(out)


def unpack(bot: BotSpec, files: tuple[tuple[str, bytes, bool], ...], folder: Path, staged: Path) -> BotSpec:
    """One bot's files written into ``folder``, then staged under ``staged`` as on the driver
    (readable by every sandbox, checked against the bot's content hash)."""
    for name, content, executable in files:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        path.chmod(0o755 if executable else 0o644)
    staged.mkdir(mode=0o755, exist_ok=True)
    return staged_copy(replace(bot, cwd=str(folder), path=str(folder / Path(bot.path).name)), staged)


def play_remote(job: runner.Job, bundle: Bundle) -> runner.Result:
    """The body of a game's task, on whichever node Ray chose: the bots' files unpacked, the game played."""
    return runner.play_job(replace(job, spec=replace(job.spec, bots=here(job.spec.bots, bundle))), in_worker=True)


def apply_remote(work: Callable[[Any], Any], item: Any) -> Any:
    """The body of an ``imap`` task (Ray makes tasks of functions, not of partials such as ``work``)."""
    return work(item)


def _unreachable(address: str) -> str | None:
    """Why nothing answers at a ``host:port`` address (Ray itself retries for minutes); None if
    something does, or if the address is not host:port (``auto``, ``ray://...``: Ray's to judge)."""
    host, colon, port = address.rpartition(":")
    if not colon or not port.isdigit() or "/" in address or not host:
        return None
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT).close()
    except OSError as error:
        return error.strerror or str(error) or type(error).__name__
    return None


class RayExecutor:
    """Games as Ray tasks on the cluster at ``address`` (None: Ray's own choice, ``ray.init()``)."""

    def __init__(self, address: str | None, quiet_stdout: bool = True) -> None:
        self.address = address
        self.quiet_stdout = quiet_stdout
        self.cpus = 0
        self._task: Any = None
        self._apply: Any = None
        self._connected = False
        self._stdout: Any = None

    def __enter__(self) -> RayExecutor:
        # tourney never reports usage to anyone; a user who wants Ray's statistics sets this to 1
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        unreachable = self.address and _unreachable(self.address)
        if unreachable:
            raise ExecutorError(f"cannot join the Ray cluster at {self.address}: {unreachable}")
        try:
            ray.init(address=self.address, include_dashboard=False, log_to_driver=False,
                     logging_level=logging.ERROR, namespace="tourney")
        except Exception as error:  # ConnectionError, ValueError, RuntimeError: all mean no cluster here
            where = f"at {self.address}" if self.address else "(ray.init() without an address)"
            line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise ExecutorError(f"cannot join the Ray cluster {where}: {line}") from None
        self._connected = True
        self.cpus = int(ray.cluster_resources().get("CPU", 0))
        self._task = ray.remote(num_cpus=1, max_retries=RETRIES, retry_exceptions=False)(play_remote)
        self._apply = ray.remote(num_cpus=1, max_retries=RETRIES, retry_exceptions=False)(apply_remote)
        # Ray's driver prints the cluster's news (a node that died, say) to stdout from a thread of
        # its own: while connected, stdout is stderr, so what a command prints there (--json) stays clean.
        if self.quiet_stdout:
            self._stdout, sys.stdout = sys.stdout, sys.stderr
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._connected:
            ray.shutdown()  # leaves the cluster running (it stops one this run started itself)
            self._connected = False
            if self._stdout is not None:
                sys.stdout, self._stdout = self._stdout, None

    def describe(self) -> str:
        return f"on the Ray cluster at {self.address}" if self.address else "on Ray"

    @property
    def capacity(self) -> int:
        return self.cpus

    def imap(self, work: Callable[[Any], Any], items: Sequence[Any], describe: Callable[[Any], str] = repr,
             passthrough: tuple[type[BaseException], ...] = ()) -> Iterator[Any]:
        """Every item a task (run again by Ray on a lost node), at most as many in flight as for games;
        the results taken in the items' order."""
        if self._task is None:
            raise RuntimeError("enter the executor (with ...) before using it")
        task = self._apply
        limit = max(MIN_IN_FLIGHT, IN_FLIGHT_PER_CPU * self.cpus)
        waiting = iter(items)
        running: deque[tuple[Any, Any]] = deque()
        for item in itertools.islice(waiting, limit):
            running.append((task.remote(work, item), item))
        while running:
            ref, item = running.popleft()
            try:
                result = ray.get(ref)
            except ray_errors.RayTaskError as error:
                if isinstance(error.cause, passthrough):
                    raise error.cause from None
                raise RuntimeError(f"a Ray task failed while {describe(item)}:\n{error}") from None
            except (ray_errors.WorkerCrashedError, ray_errors.NodeDiedError, ray_errors.ObjectLostError,
                    ray_errors.TaskUnschedulableError, ray_errors.RaySystemError) as error:
                raise WorkerDied(f"{describe(item)} was lost on the Ray cluster {RETRIES + 1} times "
                                 f"({type(error).__name__})") from None
            for following in itertools.islice(waiting, 1):
                running.append((task.remote(work, following), following))
            yield result

    def results(self, jobs: Iterable[runner.Job], notice: Callable[[str], None] | None = None
                ) -> Iterator[runner.Result]:
        """Every job played as a task (drawn as there is room for it: a stage is never listed); results in
        completion order, each one once."""
        waiting = iter(jobs)
        first = next(waiting, None)
        if first is None:
            return
        if self._task is None:
            raise RuntimeError("enter the executor (with ...) before playing")
        bundle = ray.put(pack(first.spec.bots))
        waiting = itertools.chain((first,), waiting)
        limit = max(MIN_IN_FLIGHT, IN_FLIGHT_PER_CPU * self.cpus)
        running: dict[Any, runner.Job] = {}
        # Games still in flight when this stops early (Ctrl-C, an error) are not cancelled one by one:
        # Ray 2.60's ray.cancel races with a task that is just finishing and then aborts the driver
        # (RAY_CHECK "Tried to complete task that was not pending"). Leaving the executor disconnects
        # the driver instead, which ends the job, and Ray kills the job's workers with their bots.
        while True:
            for job in itertools.islice(waiting, max(limit - len(running), 0)):
                running[self._task.remote(job, bundle)] = job
            if not running:
                return
            done, _ = ray.wait(list(running), num_returns=1)
            for ref in done:
                job = running.pop(ref)
                yield self._result(ref, job)

    @staticmethod
    def _result(ref: Any, job: runner.Job) -> runner.Result:
        try:
            return ray.get(ref)
        except ray_errors.RayTaskError as error:
            cause = error.cause
            if isinstance(cause, sandbox.SandboxError):
                raise cause from None  # the sandbox cannot start on that node: one clear line, as locally
            raise RuntimeError(f"a Ray task failed while playing game {job.scheduled.key}:\n{error}") from None
        except (ray_errors.WorkerCrashedError, ray_errors.NodeDiedError, ray_errors.ObjectLostError,
                ray_errors.TaskUnschedulableError, ray_errors.RaySystemError) as error:
            raise WorkerDied(f"game {job.scheduled.key} was lost on the Ray cluster {RETRIES + 1} times "
                             f"({type(error).__name__}); continue with the same command plus --resume") from None
