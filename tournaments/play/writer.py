"""The tournament's one writer: finished games stored in groups, one transaction per group.

A transaction has a fixed cost (BEGIN, the lock, COMMIT and its sync; a round trip on
PostgreSQL) that a single game of a few hundred events pays again and again. The writer
keeps finished games until it holds ``max_games`` of them, or until the oldest has waited
``max_delay`` seconds when the next one arrives, or until the caller flushes (at the end of
every stage, and before it returns), and then stores them all in one transaction. What a
crash of the parent can lose is only the group not yet committed: those games are played
again on ``--resume`` from their seeds, exactly as a game that was still being played.

A group that fails (a game already stored by another process resuming the same tournament,
say) is rolled back and stored again one game per transaction, so one bad game costs the
others nothing, and its own error (if storing it alone fails too) is raised as before.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Generic, TypeVar

from sqlalchemy import exc
from sqlalchemy.engine import Connection

from ledger.store import Ledger, LedgerError

MAX_GAMES = 32
"""Games per transaction at most (bench/store.py measured the gain flat beyond about 16)."""

MAX_DELAY = 0.5
"""Seconds the first game of a group may wait for others to arrive before the group is stored."""

Item = TypeVar("Item")


class GroupCommit(Generic[Item]):
    """Collects finished games and stores them in groups; ``stored`` hears of each game once it is committed.

    ``store(connection, items)`` writes a group of games inside the group's transaction. ``alone(item)`` stores
    one game in a transaction of its own when its group failed: it returns whether it stored the game
    (False: it was already there) and raises what cannot be recovered.
    """

    def __init__(self, ledger: Ledger, store: Callable[[Connection, list[Item]], None], alone: Callable[[Item], bool],
                 stored: Callable[[Item, bool], None], max_games: int = MAX_GAMES, max_delay: float = MAX_DELAY,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.ledger = ledger
        self.store = store
        self.alone = alone
        self.stored = stored
        self.max_games = max(1, max_games)
        self.max_delay = max_delay
        self.clock = clock
        self.pending: list[Item] = []
        self.since = 0.0

    def add(self, item: Item) -> None:
        if not self.pending:
            self.since = self.clock()
        self.pending.append(item)
        if len(self.pending) >= self.max_games or self.clock() - self.since >= self.max_delay:
            self.flush()

    def flush(self) -> None:
        """Store every pending game now (one transaction; one per game if that fails)."""
        group, self.pending = self.pending, []
        if not group:
            return
        try:
            with self.ledger.write() as connection:
                self.store(connection, group)
        except (LedgerError, exc.SQLAlchemyError):
            for item in group:
                self.stored(item, self.alone(item))
            return
        for item in group:
            self.stored(item, True)
