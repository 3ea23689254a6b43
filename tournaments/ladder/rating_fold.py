"""The ladder's rating fold: ratings computed from its rated games in order, and refolds (rebuild, void) written.

The fold writes nothing: each version enters where it was submitted, from its predecessor's rating then,
and every game's seats are rated in ladder order (``fold``, ``Fold``). A refold reads the ladder's rows
(ledger.rows.ladder_rows), folds here, above the ledger, and hands the ratings back to
``ledger.rows.ladder_rows.write_fold``.
The incremental rating of each stored game stays in the games' own transaction (``ledger.rows.ladder_rows.store_games``,
told the ladder's update by its model: tournaments.ladder.rating_models).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from sqlalchemy.engine import Connection

from ledger.rows import ladder_rows
from ledger.store import Ledger, LedgerError

Rated = list[tuple[int, list[tuple[int, int]]]]
"""Every rated ladder game in fold order: (ladder seq, [(entry id, rank) per seat])."""
Results = Callable[[Connection, int], Iterable[Rated]]
"""The rated games after a ladder seq (0: all), in fold order, a page at a time, read inside the caller's
transaction (from the games' hashed events) as the pages are taken."""
Observe = Callable[[int, Sequence[tuple[int, int]], dict[int, ladder_rows.Rating]], None]
"""Told after each game of a fold: its ladder seq, its (entry, rank) per seat, every entry's rating now."""


class Keeper(ladder_rows.Keeper, Protocol):
    """A ladder's division rules as its writes and refolds call them (tournaments.ladder.membership)."""

    def observer(self, connection: Connection) -> Observe: ...

    def written(self, connection: Connection, observer: Observe, reason: str) -> None: ...


REFOLD_ATTEMPTS = 3
"""Refolds begun again, at most, when an operator's fact (a void, a retirement) lands while one runs."""


@dataclass(slots=True)
class Folded:
    """What the results give: each entry's rating and games, and the history after each game."""

    ratings: dict[int, ladder_rows.Rating]
    games: dict[int, int]
    history: dict[tuple[int, int], tuple[int, ladder_rows.Rating]]
    """(ladder seq, entry) -> (rank, rating after that game)."""


class Fold:
    """A refold in progress: the ratings ``rated`` games give, folded in order, writing nothing.

    Each version enters the fold where it was submitted (before the first game after
    ``joined_after``), starting from ``start`` of its predecessor's rating at that point, as
    the incremental ratings did. A refold may be fed in parts (the games read without the write
    lock, then those stored meanwhile) and told of versions submitted meanwhile (``join``).
    """

    def __init__(self, versions: Sequence[ladder_rows.Version], update: ladder_rows.Update,
                 start: ladder_rows.Start = ladder_rows.elo_start,
                 observe: Observe | None = None) -> None:
        self.update = update
        self.start = start
        self.observe = observe
        self.waiting: list[ladder_rows.Version] = []
        self.entry_of: dict[tuple[str, int], int] = {}
        self.out = Folded({}, {}, {})
        self.join(versions)

    def join(self, versions: Sequence[ladder_rows.Version]) -> None:
        """Versions to enter the fold where they were submitted (those already known are skipped)."""
        for version in versions:
            if version.entry not in self.out.games:
                self.waiting.append(version)
                self.entry_of[(version.name, version.version)] = version.entry
                self.out.games[version.entry] = 0
        self.waiting.sort(key=lambda v: (v.joined_after, v.version, v.entry))

    def _enter(self, up_to: float) -> None:
        while self.waiting and self.waiting[0].joined_after < up_to:
            joining = self.waiting.pop(0)
            previous = self.entry_of.get((joining.name, joining.version - 1))
            self.out.ratings[joining.entry] = self.start(None if previous is None else self.out.ratings.get(previous))

    def feed(self, rated: Rated) -> None:
        out = self.out
        for seq, seats in rated:
            self._enter(seq)
            entries = [entry for entry, _ in seats]
            ranks = [rank for _, rank in seats]
            new = self.update([out.ratings[e] for e in entries], ranks)
            for entry, rank, rating in zip(entries, ranks, new, strict=True):
                out.ratings[entry] = rating
                out.games[entry] += 1
                out.history[(seq, entry)] = (rank, rating)
            if self.observe is not None:
                self.observe(seq, seats, out.ratings)

    def take_history(self) -> dict[tuple[int, int], tuple[int, ladder_rows.Rating]]:
        """The history folded since the last take, handed over and no longer kept (a check a page at a time)."""
        taken, self.out.history = self.out.history, {}
        return taken

    def done(self) -> Folded:
        """The fold's result: every version entered, even those with no game yet."""
        self._enter(float("inf"))
        return self.out


def fold(versions: Sequence[ladder_rows.Version], rated: Rated, update: ladder_rows.Update,
         start: ladder_rows.Start = ladder_rows.elo_start,
         observe: Observe | None = None) -> Folded:
    """The ratings ``rated`` gives, folded in order, writing nothing (rebuild writes it; reads compare with it);
    ``observe`` is told each game (a ladder's membership fold: tournaments.ladder.membership)."""
    refold = Fold(versions, update, start, observe)
    refold.feed(rated)
    return refold.done()


def rebuild(ledger: Ledger, ladder_id: int, update: ladder_rows.Update, results: Results,
            start: ladder_rows.Start = ladder_rows.elo_start, divisions: Keeper | None = None
            ) -> dict[int, tuple[ladder_rows.Rating, ladder_rows.Rating]]:
    """Refold every rating from ``results`` and the ladder's events; rewrite the derived rows.

    Each version enters the fold where it was submitted (after game ``joined_after``), starting
    from ``start`` of its predecessor's rating at that point. Returns, per entry, (rating before
    the rebuild, rating after), each (rating, sigma): equal when the incremental updates were right.
    The refold holds no write lock (``_refolded``). A ladder's ``divisions`` are refolded beside the ratings.
    """
    return _refolded(ledger, ladder_id, update, start, results, divisions=divisions)


def void(ledger: Ledger, ladder_id: int, game_id: str, reason: str, update: ladder_rows.Update, results: Results,
         start: ladder_rows.Start = ladder_rows.elo_start, divisions: Keeper | None = None) -> int:
    """Append a void event for one of the ladder's games and refold the ratings without it (holding the
    write lock only to write, as ``rebuild``).

    Returns the game's ladder seq; LedgerError if it is not the ladder's or is already void.
    """
    with ledger.read() as connection:
        seq = ladder_rows.voidable(connection, ladder_id, game_id)
    _refolded(ledger, ladder_id, update, start, results, (game_id, reason), divisions)
    return seq


def _refolded(ledger: Ledger, ladder_id: int, update: ladder_rows.Update, start: ladder_rows.Start, results: Results,
              voiding: tuple[str, str] | None = None, divisions: Keeper | None = None
              ) -> dict[int, tuple[ladder_rows.Rating, ladder_rows.Rating]]:
    """Refold the ladder's ratings and write them (and, with ``voiding`` = (game id, reason), void that game
    first), holding the write lock only to write. With ``divisions``, membership is folded beside them, and
    where the stored membership differs from the fold a move to the fold's division is appended.

    The games are read and folded in a read transaction, a page at a time (what is held is a page of results,
    each entry's rating and the history the fold gives: rows of the history, a few hundred bytes a game, are
    still held until they are written), which waits for no writer and stalls none; the write transaction then
    folds on only the games stored meanwhile (their results read alone) and the versions submitted meanwhile,
    and writes. Workers storing games wait for the writing, never for the
    refold. An operator's fact appended meanwhile (a void, a retirement) changes what the fold must skip:
    the refold begins again (at most REFOLD_ATTEMPTS times).
    """
    for _attempt in range(REFOLD_ATTEMPTS):
        with ledger.read() as connection:
            seen = ladder_rows.stamp(connection, ladder_id)
            skipped = ladder_rows.voidable(connection, ladder_id, voiding[0]) if voiding else None
            observer = None if divisions is None else divisions.observer(connection)
            refold = Fold(ladder_rows.versions(connection, ladder_id), update, start, observer)
            for page in results(connection, 0):
                refold.feed([game for game in page if game[0] != skipped])
        with ledger.write() as connection:
            if ladder_rows.stamp(connection, ladder_id)[1] != seen[1]:
                continue
            if voiding is not None:
                ladder_rows.append_void(connection, ladder_id, *voiding)
            refold.join(ladder_rows.versions(connection, ladder_id))
            for page in results(connection, seen[0]):
                refold.feed([game for game in page if game[0] != skipped])
            folded = refold.done()
            written = ladder_rows.write_fold(connection, ladder_id, folded.ratings, folded.games, folded.history)
            if divisions is not None:
                divisions.written(connection, observer, f"ratings refolded without void game {voiding[0]}"
                                  if voiding else "membership rebuilt from the games")
            return written
    raise LedgerError(f"ladder {ladder_id}: operators' facts kept landing while its ratings were refolded "
                      f"({REFOLD_ATTEMPTS} attempts): try again")
