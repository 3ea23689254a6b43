"""Worker processes that play games for the parent, which alone writes to the database.

A small pool of our own rather than multiprocessing.Pool, because a worker that dies mid-game
(an in-process bot calling ``os._exit``, a segfault in an extension, the kernel's OOM killer)
must cost the tournament neither the game nor the run. Each worker has its own pipe and a
small shared memory ``box`` where the job it plays keeps a flight record (tournaments.play.salvage).
When a worker dies, the parent

* asks ``after_death(job, box, exitcode)`` for the game's result (the runner rebuilds it as the
  forfeit of the seat that ended the worker, when it can pin the death on one);
* otherwise plays the job again, from the start, up to ``RETRIES`` times before it gives up
  with WorkerDied naming the game (a game is never stored twice: a job is either answered once
  or played again);
* starts a new worker in its place and hands it the jobs the dead one had queued.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import struct
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection, wait
from typing import Any

from engines import registry
from tournaments.sandbox import interrupts

_STOP = None
IN_FLIGHT = 2
BOX_SIZE = 1 << 18
"""Bytes of shared memory per worker for the flight record of the job it plays."""
RETRIES = 2
"""How many times a job whose worker died (with no result to salvage) is played again."""
_SERIAL = struct.Struct("<Q")

_box: memoryview | None = None


class WorkerDied(RuntimeError):
    """A worker process ended while playing a job, again and again; the message names the job."""


def box() -> memoryview | None:
    """In a worker: its shared memory after the job serial (the flight record's room). Else None."""
    return _box[_SERIAL.size:] if _box is not None else None


def _init(extra_engines: list, on_exit: Callable[[memoryview], None] | None) -> None:
    for engine in extra_engines:
        registry.register(engine)
    # Ctrl-C is the parent's to handle. A terminated worker ends at once, after ``on_exit`` (which
    # kills what its game started outside any sandbox): raising in a signal handler could land
    # anywhere (in a fork's after-hooks, say) and be swallowed.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    def terminated(_signum, _frame) -> None:
        if on_exit is not None and _box is not None:
            with contextlib.suppress(Exception):
                on_exit(box())
        os._exit(1)

    signal.signal(signal.SIGTERM, terminated)
    with contextlib.suppress(OSError, AttributeError):  # Linux: die with the parent, even on SIGKILL
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        # A parent that died before that was armed sends no signal: this worker is an orphan already.
        parent = multiprocessing.parent_process()
        if parent is not None and os.getppid() != parent.pid:
            terminated(signal.SIGTERM, None)


def _serve(connection: Connection, work: Callable[[Any], Any], extra_engines: list, shared,
           passthrough: tuple[type[BaseException], ...], on_exit: Callable[[memoryview], None] | None) -> None:
    global _box
    _box = memoryview(shared).cast("B")
    _init(extra_engines, on_exit)
    while True:
        try:
            message = connection.recv()
        except EOFError:
            return
        if message is _STOP:
            return
        serial, job = message
        _SERIAL.pack_into(_box, 0, serial)
        try:
            connection.send(("ok", work(job)))
        except passthrough as error:  # the caller's own errors (one clear line), raised again there
            connection.send(("raise", error))
        except Exception:  # a bug in the runner or an engine: report it, do not hang the parent
            connection.send(("error", traceback.format_exc(limit=8)))


@contextlib.contextmanager
def _starting() -> Iterator[None]:
    """Starting a worker, which Ctrl-C must not cut in two.

    Workers start with Ctrl-C blocked (the mask survives exec) until they ignore it: one pressed
    while they are still importing must not print their tracebacks. That mask is this thread's
    only, though: with another thread in this process (the warm sandboxes' starter, say) the kernel
    hands SIGINT to that one, and Python raises KeyboardInterrupt here all the same, possibly between
    the child's spawn and the write of what it is to run, which then dies reading a closed pipe with
    an EOFError traceback. So the start is also held back from Python's handler
    (tournaments.sandbox.interrupts): a press is raised once the worker has all it needs.
    """
    masking = hasattr(signal, "pthread_sigmask")
    with interrupts.ctrl_c_held():
        if masking:
            # multiprocessing unblocks SIGINT after starting its resource tracker: start it first.
            resource_tracker.ensure_running()
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            yield
        finally:
            if masking:  # a press held back by the mask reaches the note-taker first
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


class _Pending:
    """The numbered jobs still to hand out: those a dead worker gave back first, then the rest, drawn from the jobs
    one at a time as workers take them (a stage of a tournament is never listed: tournaments.play.dispatch)."""

    def __init__(self, jobs: Iterable[Any]) -> None:
        self.back: deque[tuple[int, Any]] = deque()
        self.rest = enumerate(jobs)

    def __bool__(self) -> bool:
        if not self.back:
            following = next(self.rest, None)
            if following is not None:
                self.back.append(following)
        return bool(self.back)

    def popleft(self) -> tuple[int, Any]:
        return self.back.popleft() if self else next(self.rest)

    def appendleft(self, item: tuple[int, Any]) -> None:
        self.back.appendleft(item)

    def extendleft(self, items: Iterable[tuple[int, Any]]) -> None:
        self.back.extendleft(items)


@dataclass(slots=True, eq=False)
class _Worker:
    process: Any
    connection: Connection
    shared: Any
    queue: deque[tuple[int, Any]] = field(default_factory=deque)


def run(work: Callable[[Any], Any], jobs: Iterable[Any], workers: int, describe: Callable[[Any], str] = repr,
        after_death: Callable[[Any, bytes, int], Any] | None = None,
        passthrough: tuple[type[BaseException], ...] = (),
        on_exit: Callable[[memoryview], None] | None = None,
        notice: Callable[[str], None] | None = None) -> Iterator[Any]:
    """``work(job)`` for every job in ``workers`` spawned processes; results in completion order.

    Each worker holds up to ``IN_FLIGHT`` jobs (the next one waits in its pipe), so it never
    idles while the parent receives and stores the game it just finished. An exception of a
    ``passthrough`` type raised by ``work`` is raised again here. A worker told to stop (SIGTERM,
    or its parent's death) calls ``on_exit(box())`` and ends at once; so does every worker this
    parent leaves behind, with its box read here. Each death is told to ``notice`` in one line.
    """
    context = multiprocessing.get_context("spawn")
    pending = _Pending(jobs)
    tries: dict[int, int] = {}
    pool: list[_Worker] = []
    stillborn = 0

    def hire() -> _Worker:
        parent, child = context.Pipe()
        shared = context.RawArray("B", BOX_SIZE)
        with _starting():
            process = context.Process(target=_serve, daemon=True,
                                      args=(child, work, registry.registered(), shared, passthrough, on_exit))
            process.start()
        child.close()
        worker = _Worker(process, parent, shared)
        pool.append(worker)
        return worker

    try:
        for _ in range(workers):
            hire()
        for depth in range(1, IN_FLIGHT + 1):  # one job to each worker first, then the queued ones
            for worker in pool:
                _top_up(worker, pending, depth)
        while any(worker.queue for worker in pool):
            busy = {worker.connection: worker for worker in pool if worker.queue}
            sentinels = {worker.process.sentinel: worker for worker in busy.values()}
            for ready in wait([*busy, *sentinels]):
                worker = busy.get(ready) or sentinels[ready]
                if not worker.queue or worker not in pool:
                    continue
                try:
                    status, value = worker.connection.recv()
                except (EOFError, OSError):
                    value, began = _bury(worker, pool, pending, tries, describe, after_death, notice)
                    stillborn = 0 if began else stillborn + 1
                    if stillborn > RETRIES:
                        raise WorkerDied("worker processes die before they play a game "
                                         f"({_death(worker.process.exitcode or 0)})") from None
                    replacement = hire()
                    for depth in range(1, IN_FLIGHT + 1):
                        _top_up(replacement, pending, depth)
                    if value is not None:
                        yield value
                    continue
                _, job = worker.queue.popleft()
                if status == "raise":
                    raise value
                if status == "error":
                    raise RuntimeError(f"a worker failed while playing {describe(job)}:\n{value}")
                _top_up(worker, pending, IN_FLIGHT)
                yield value
        for worker in pool:
            with contextlib.suppress(OSError):
                worker.connection.send(_STOP)
        for worker in pool:
            worker.process.join(5)
    finally:
        for worker in pool:
            if worker.process.is_alive():
                worker.process.terminate()
        for worker in pool:
            worker.process.join(5)
            worker.connection.close()
            if on_exit is not None:
                on_exit(memoryview(worker.shared).cast("B")[_SERIAL.size:])


def _bury(worker: _Worker, pool: list[_Worker], pending: _Pending, tries: dict[int, int],
          describe: Callable[[Any], str], after_death: Callable[[Any, bytes, int], Any] | None,
          notice: Callable[[str], None] | None) -> tuple[Any, bool]:
    """A worker died: the result salvaged from the job it was playing, or None (its jobs go back
    to the front of ``pending``: the one it was playing to be played again, the rest not yet begun);
    and whether it had begun that job."""
    worker.process.join(5)
    exitcode = worker.process.exitcode if worker.process.exitcode is not None else -signal.SIGKILL
    pool.remove(worker)
    worker.connection.close()
    serial, job = worker.queue.popleft()
    unplayed = list(worker.queue)
    memory = bytes(worker.shared)
    began = _SERIAL.unpack_from(memory, 0)[0] == serial
    value = after_death(job, memory[_SERIAL.size:], exitcode) if after_death is not None and began else None
    pending.extendleft(reversed(unplayed))
    if notice is not None and began:
        notice(f"a worker process died ({_death(exitcode)}) while playing {describe(job)}: "
               + ("the bot that ended it forfeits the game" if value is not None else "the game is played again"))
    if value is None:
        tries[serial] = tries.get(serial, 0) + began
        if tries[serial] > RETRIES:
            raise WorkerDied(f"a worker process died ({_death(exitcode)}) each of the {tries[serial]} times it "
                             f"played {describe(job)}, and no bot could be blamed; run with the sandbox on "
                             "(--sandbox on) to find the bot")
        pending.appendleft((serial, job))
    return value, began


def _death(exitcode: int) -> str:
    if exitcode >= 0:
        return f"exit code {exitcode}"
    with contextlib.suppress(ValueError):
        return f"killed by {signal.Signals(-exitcode).name}"
    return f"killed by signal {-exitcode}"


def _top_up(worker: _Worker, pending: _Pending, depth: int) -> None:
    while len(worker.queue) < depth and pending:
        item = pending.popleft()
        worker.queue.append(item)  # a worker that died meanwhile gives it back when it is buried
        try:
            worker.connection.send(item)
        except OSError:
            return
