"""Verifying many logs at once: on every core (a Pool: tournaments.play.executors: the Local and Ray executors), in
batches, the verdicts in the logs' order; log files' verdicts (what a manifest checks them against); the summary
line every verification ends with. One log's refold is replays.verify."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from replays import log as logfmt
from replays.verify import Report, collector_paused, read_file, verify_read


@dataclass(slots=True)
class Summary:
    games: int = 0
    events: int = 0
    failures: int = 0
    seconds: float = 0.0

    def line(self) -> str:
        rate = self.events / self.seconds if self.seconds > 0 else 0.0
        verdict = "all passed" if not self.failures else f"{self.failures} FAILED"
        games, events = ("game" if self.games == 1 else "games"), ("event" if self.events == 1 else "events")
        if self.games and not self.events:  # every game failed (one that passes has an event): no events to count
            return f"verified {self.games} {games} in {self.seconds:.2f} s: none passed, {self.failures} FAILED"
        return (f"verified {self.games} {games}, {self.events} {events} in {self.seconds:.2f} s "
                f"({rate:,.0f} events/s): {verdict}")


def clock() -> float:
    return time.perf_counter()


class Pool(Protocol):
    """Where batches of logs are verified (tournaments.play.executors: the Local and Ray executors are ones)."""

    @property
    def capacity(self) -> int:
        """How many batches it works on at once (0: one at a time, in this process)."""
        ...

    def imap(self, work: Callable[[Any], Any], items: Sequence[Any], describe: Callable[[Any], str] = repr,
             passthrough: tuple[type[BaseException], ...] = ()) -> Iterator[Any]:
        """``work(item)`` for every item, the results in the items' order (whatever finished first)."""
        ...


Item = TypeVar("Item")
MIN_PARALLEL = 100
"""Fewer games than this make one batch: verified in this process by the local pool, since starting a
worker process (its interpreter and imports, about 0.5 s of CPU) costs more than it would save."""
BATCH = 64
"""The most games one batch holds: a batch is a worker's unit of work (and of what is sent back)."""
BATCHES_PER_WORKER = 4
"""Up to this many batches per worker, so that one slow batch does not leave the others idle at the end."""


def batches(items: Sequence[Item], capacity: int) -> list[list[Item]]:
    """``items`` in order, cut into batches for a pool of ``capacity`` workers."""
    if len(items) < MIN_PARALLEL:
        return [list(items)] if items else []
    size = min(BATCH, -(-len(items) // (BATCHES_PER_WORKER * max(capacity, 1))))
    return [list(items[start:start + size]) for start in range(0, len(items), size)]


def in_batches(pool: Pool, work: Callable[[list[Item]], list[Any]], items: Sequence[Item],
               passthrough: tuple[type[BaseException], ...] = ()) -> Iterator[Any]:
    """``work`` over ``items`` in batches on ``pool``: each item's result, in the items' order."""
    for results in pool.imap(work, batches(items, pool.capacity), _batch_name, passthrough):
        yield from results


def _batch_name(batch: list[Any]) -> str:
    first = batch[0][0] if isinstance(batch[0], tuple) else batch[0]
    return f"verifying {len(batch)} games from {first}"


@dataclass(frozen=True, slots=True)
class FileVerdict:
    """What verifying one log file found: its report, or the one line of its failure; and what a manifest
    of its folder checks it against (its game id, head and seed), where the file could be read."""

    name: str
    report: Report | None
    failure: str | None = None
    game_id: str | None = None
    head: Any = None
    seed: Any = None


def verify_file(name: str, path: str | Path, public_key: bytes | None = None) -> FileVerdict:
    """Read and verify one log file or text record (``name`` is how it is named in what is printed)."""
    log: dict[str, Any] = {}
    known = False  # whether a manifest can find the log by its game id (even one that fails to verify)
    try:
        with collector_paused():
            log, rebuilt = read_file(path)
            known = isinstance(log.get("game_id"), str)  # else no manifest could list it (verify names the field)
            report = verify_read(log, rebuilt, name, public_key)
    except (logfmt.LogError, KeyError, TypeError) as error:
        # Printed after ``name``: a message that opens with the file (as read names it) does not name it twice.
        report, failure = None, str(error).removeprefix(f"{path}: ").removeprefix(f"{name}: ")
    else:
        report.final, failure = None, None  # the last state is not sent back from a worker
    if not known:
        return FileVerdict(name, report, failure)
    return FileVerdict(name, report, failure, log["game_id"], log.get("head"), log.get("seed"))


def verify_files(public_key: bytes | None, files: list[tuple[str, str]]) -> list[FileVerdict]:
    """One batch of (name, path) log files verified, in order (a worker's unit of work)."""
    return [verify_file(name, path, public_key) for name, path in files]


def verified_files(files: Sequence[tuple[str, str]], public_key: bytes | None, pool: Pool) -> Iterator[FileVerdict]:
    """Every (name, path) log file verified on ``pool``, the verdicts in the files' order."""
    return in_batches(pool, functools.partial(verify_files, public_key), files)
