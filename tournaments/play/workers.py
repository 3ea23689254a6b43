"""Worker processes that play games for the parent, which alone writes to the database.

A small pool of our own rather than multiprocessing.Pool, for one reason: a worker that
dies mid-game (an in-process bot calling ``os._exit``, a segfault in an extension) must
stop the run with a clear message naming the game, not hang it. Each worker has its own
pipe; the parent hands it one job at a time and watches both the pipe and the process.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import signal
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection, wait
from typing import Any

from engines import registry
from tournaments.bots.inprocess import Terminated

_STOP = None


class WorkerDied(RuntimeError):
    """A worker process ended while playing a job; the message names the job."""


def _terminated(_signum, _frame) -> None:
    raise Terminated(1)


def _init(extra_engines: list) -> None:
    for engine in extra_engines:
        registry.register(engine)
    # Ctrl-C is the parent's to handle; a terminated worker unwinds (closing its bots).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGTERM, _terminated)
    with contextlib.suppress(OSError, AttributeError):  # Linux: die with the parent, even on SIGKILL
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _serve(connection: Connection, work: Callable[[Any], Any], extra_engines: list) -> None:
    _init(extra_engines)
    while True:
        try:
            job = connection.recv()
        except EOFError:
            return
        if job is _STOP:
            return
        try:
            connection.send(("ok", work(job)))
        except Terminated:
            return
        except Exception:  # a bug in the runner or an engine: report it, do not hang the parent
            connection.send(("error", traceback.format_exc(limit=8)))


@contextlib.contextmanager
def _sigint_blocked() -> Iterator[None]:
    # Workers start with Ctrl-C blocked (the mask survives exec) until they ignore it: one pressed
    # while they are still importing must not print their tracebacks. The parent gets it after.
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    # multiprocessing unblocks SIGINT after starting its resource tracker: start it first.
    resource_tracker.ensure_running()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def run(work: Callable[[Any], Any], jobs: Iterable[Any], workers: int,
        describe: Callable[[Any], str] = repr) -> Iterator[Any]:
    """``work(job)`` for every job in ``workers`` spawned processes; results in completion order.

    Each worker holds up to ``IN_FLIGHT`` jobs (the next one waits in its pipe), so it never
    idles while the parent receives and stores the game it just finished.
    """
    context = multiprocessing.get_context("spawn")
    pending = iter(jobs)
    processes: list[tuple[Any, Connection]] = []
    queued: dict[Connection, deque[Any]] = {}
    owner: dict[Connection, Any] = {}
    try:
        with _sigint_blocked():
            for _ in range(workers):
                parent, child = context.Pipe()
                process = context.Process(target=_serve, args=(child, work, registry.registered()), daemon=True)
                process.start()
                child.close()
                processes.append((process, parent))
                owner[parent] = process
                queued[parent] = deque()
        for depth in range(1, IN_FLIGHT + 1):  # one job to each worker first, then the queued ones
            for _process, connection in processes:
                _top_up(connection, pending, queued[connection], depth)
        while any(queued.values()):
            busy = [connection for connection, jobs_ in queued.items() if jobs_]
            sentinels = {owner[connection].sentinel: connection for connection in busy}
            for ready in wait([*busy, *sentinels]):
                connection = sentinels.get(ready, ready)
                if not queued[connection]:
                    continue
                job = queued[connection].popleft()
                try:
                    status, value = connection.recv()
                except (EOFError, OSError):
                    process = owner[connection]
                    process.join(1)
                    raise WorkerDied(f"a worker process died (exit code {process.exitcode}) while playing "
                                     f"{describe(job)}: an in-process bot may have ended the interpreter; "
                                     "run it as a program bot, or find it with --jobs 0") from None
                if status == "error":
                    raise RuntimeError(f"a worker failed while playing {describe(job)}:\n{value}")
                _top_up(connection, pending, queued[connection], IN_FLIGHT)
                yield value
        for _process, connection in processes:
            connection.send(_STOP)
        for process, _connection in processes:
            process.join(5)
    finally:
        for process, _connection in processes:
            if process.is_alive():
                process.terminate()
        for process, connection in processes:
            process.join(5)
            connection.close()


IN_FLIGHT = 2


def _top_up(connection: Connection, pending: Iterator[Any], queue: deque[Any], depth: int) -> None:
    while len(queue) < depth:
        job = next(pending, _STOP)
        if job is _STOP:
            return
        connection.send(job)
        queue.append(job)
