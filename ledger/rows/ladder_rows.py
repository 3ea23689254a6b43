"""Ladder rows: entries, submitted bot archives, games in fold order, rating history, play sessions.

The ledger stores and orders; it does not rate, and it does not read results from events.
``store_games`` takes the rating update as a function, runs it on the ratings as they stand
inside the games' own transaction, and stores the results, so two processes feeding one
ladder serialize on the write lock and every game is folded exactly once, in ``seq`` order.
A refold (``rebuild``, ``void``) takes the results as a function of the connection too
(tournaments.ladder.league reads them from the games' hashed events), and folds them without
holding the write lock. The ladder's read models (ledger.read_models) are counted as its games
are stored, and a void takes its game out of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import select
from sqlalchemy.engine import Connection

from ledger import read_models, seeds
from ledger.checkpoints import LADDER, Scope
from ledger.models import Ladder
from ledger.rows import owner_rows
from ledger.store import Ledger, LedgerError, now

START_RATING = 1500.0
VOID = "void"
RETIRE = "retire"
"""The kinds of ladder event (ladder_events.kind): facts an operator appends, never edits."""

Rating = tuple[float, float | None]
"""An entry's rating and, for OpenSkill, its sigma (None for Elo)."""
Update = Callable[[list[Rating], list[int]], list[Rating]]
"""The seats' new ratings after one game, from their ratings and ranks."""
Start = Callable[[Rating | None], Rating]
"""A new version's first rating, from its predecessor's rating at submission (None: a first version)."""
Rated = list[tuple[int, list[tuple[int, int]]]]
"""Every rated ladder game in fold order: (ladder seq, [(entry id, rank) per seat])."""
Results = Callable[[Connection, int], Rated]
"""The rated games after a ladder seq (0: all), read inside the caller's transaction (from the games' hashed
events)."""
Observe = Callable[[int, Sequence[tuple[int, int]], dict[int, Rating]], None]
"""Told after each game of a fold: its ladder seq, its (entry, rank) per seat, every entry's rating now."""


class Keeper(Protocol):
    """A ladder's division rules as its writes call them (tournaments.ladder.membership; ledger.rows.division_rows)."""

    def observer(self, connection: Connection) -> Observe: ...

    def settle(self, connection: Connection, seq: int, game_id: str, entries: Sequence[int]) -> None: ...

    def written(self, connection: Connection, observer: Observe, reason: str) -> None: ...


REFOLD_ATTEMPTS = 3
"""Refolds begun again, at most, when an operator's fact (a void, a retirement) lands while one runs."""


def elo_start(_previous: Rating | None) -> Rating:
    return (START_RATING, None)


@dataclass(frozen=True, slots=True)
class Version:
    """An entry as the fold needs it: which version of which name, and after which ladder game it joined."""

    entry: int
    name: str
    version: int
    joined_after: int


@dataclass(slots=True)
class Folded:
    """What the results give: each entry's rating and games, and the history after each game."""

    ratings: dict[int, Rating]
    games: dict[int, int]
    history: dict[tuple[int, int], tuple[int, Rating]]
    """(ladder seq, entry) -> (rank, rating after that game)."""


class Fold:
    """A refold in progress: the ratings ``rated`` games give, folded in order, writing nothing.

    Each version enters the fold where it was submitted (before the first game after
    ``joined_after``), starting from ``start`` of its predecessor's rating at that point, as
    the incremental ratings did. A refold may be fed in parts (the games read without the write
    lock, then those stored meanwhile) and told of versions submitted meanwhile (``join``).
    """

    def __init__(self, versions: Sequence[Version], update: Update, start: Start = elo_start,
                 observe: Observe | None = None) -> None:
        self.update = update
        self.start = start
        self.observe = observe
        self.waiting: list[Version] = []
        self.entry_of: dict[tuple[str, int], int] = {}
        self.out = Folded({}, {}, {})
        self.join(versions)

    def join(self, versions: Sequence[Version]) -> None:
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

    def done(self) -> Folded:
        """The fold's result: every version entered, even those with no game yet."""
        self._enter(float("inf"))
        return self.out


def fold(versions: Sequence[Version], rated: Rated, update: Update, start: Start = elo_start,
         observe: Observe | None = None) -> Folded:
    """The ratings ``rated`` gives, folded in order, writing nothing (rebuild writes it; reads compare with it);
    ``observe`` is told each game (a ladder's membership fold: ledger.rows.division_rows)."""
    refold = Fold(versions, update, start, observe)
    refold.feed(rated)
    return refold.done()


def versions(connection: Connection, ladder_id: int) -> list[Version]:
    return [Version(*row) for row in connection.exec_driver_sql(
        "SELECT id, name, version, joined_after FROM ladder_entries WHERE ladder_id = ?", (ladder_id,))]


class UnknownLadder(LedgerError):
    """No ladder with that name."""


@dataclass(frozen=True, slots=True)
class Submitted:
    entry_id: int
    name: str
    version: int
    new: bool
    retired: list[int]


def create(ledger: Ledger, name: str, game: str, players: int, rating: str = "elo", divisions: str | None = None
           ) -> int:
    """A new ladder; ``divisions``: its divisions, lowest first, as a JSON list (None: none)."""
    with ledger.write() as connection:
        if connection.execute(select(Ladder.id).where(Ladder.name == name)).first() is not None:
            raise LedgerError(f"a ladder named {name!r} already exists")
        return connection.exec_driver_sql(
            "INSERT INTO ladders (name, game, players, created_at, rating, divisions) VALUES (?, ?, ?, ?, ?, ?) "
            "RETURNING id", (name, game, players, now(), rating, divisions)).scalar_one()


def get(ledger: Ledger, name: str) -> dict[str, Any]:
    table = Ladder.__table__
    with ledger.read() as connection:
        row = connection.execute(select(table).where(table.c.name == name)).mappings().first()
        if row is None:
            names = [r[0] for r in connection.exec_driver_sql("SELECT name FROM ladders ORDER BY name")]
            hint = f" (ladders: {', '.join(names)})" if names else " (the database has none: `tourney ladder create`)"
            raise UnknownLadder(f"no ladder {name!r} in {ledger.url}{hint}")
        return dict(row)


def all_ladders(ledger: Ledger) -> list[dict[str, Any]]:
    with ledger.read() as connection:
        rows = connection.exec_driver_sql(
            "SELECT l.id, l.name, l.game, l.players, l.created_at, "
            "(SELECT COUNT(*) FROM ladder_entries e WHERE e.ladder_id = l.id AND e.status = 'active'), "
            "(SELECT COUNT(*) FROM ladder_games g WHERE g.ladder_id = l.id), l.publish, l.rating, l.divisions "
            "FROM ladders l ORDER BY l.name")
        keys = ("id", "name", "game", "players", "created_at", "active", "games", "publish", "rating", "divisions")
        return [dict(zip(keys, row, strict=True)) for row in rows]


def entries(ledger: Ledger, ladder_id: int, active_only: bool = True) -> list[dict[str, Any]]:
    """Entries with their bot's content hash and archive entry point, best rating first."""
    query = ("SELECT e.id, e.name, e.version, e.status, e.rating, e.games, e.bot_id, b.content_hash, b.kind, "
             "e.submitted_at, e.sigma, e.joined_after, e.language, e.description FROM ladder_entries e "
             "JOIN bots b ON b.id = e.bot_id "
             "WHERE e.ladder_id = ?")
    if active_only:
        query += " AND e.status = 'active'"
    with ledger.read() as connection:
        rows = connection.exec_driver_sql(query + " ORDER BY e.rating DESC, e.name, e.version", (ladder_id,))
        keys = ("id", "name", "version", "status", "rating", "games", "bot_id", "content_hash", "kind",
                "submitted_at", "sigma", "joined_after", "language", "description")
        return [dict(zip(keys, row, strict=True)) for row in rows]


def archive(ledger: Ledger, bot_id: int) -> tuple[str, bytes]:
    """The entry point and zip archive of a submitted bot."""
    with ledger.read() as connection:
        row = connection.exec_driver_sql(
            "SELECT entry_point, archive FROM bot_archives WHERE bot_id = ?", (bot_id,)).first()
    if row is None:
        raise LedgerError(f"bot {bot_id} has no stored files")
    return row[0], bytes(row[1])


def submit(ledger: Ledger, ladder_id: int, name: str, content_hash: str, kind: str, entry_point: str,
           files: bytes, start: Start = elo_start, owner_id: int | None = None, language: str | None = None,
           description: str | None = None) -> Submitted:
    """List a bot version: same content is a no-op; new content retires the name's older versions.

    ``owner_id``: the owner whose upload this is (the name must be theirs, ledger.rows.owner_rows.claim); None:
    the operator's, under a name no owner holds or reads alike (owners.NameTaken otherwise).
    The version's first rating is ``start`` of its predecessor's rating as it stands now, and the
    ladder's last game seq is kept with it, so a rebuild starts it at the same point of the fold.
    ``language`` and ``description`` are shown with it (revision 0017)."""
    with ledger.write() as connection:
        if owner_id is None:
            owner_rows.check_operators_name(connection, name)
        else:
            owner_rows.claim(connection, name, owner_id)
        bot_id = ledger.ensure_bot(name, content_hash, kind, connection)
        existing = connection.exec_driver_sql(
            "SELECT id, version FROM ladder_entries WHERE ladder_id = ? AND bot_id = ?", (ladder_id, bot_id)).first()
        if existing is not None:
            return Submitted(existing[0], name, existing[1], False, [])
        connection.exec_driver_sql(
            "INSERT INTO bot_archives (bot_id, entry_point, archive) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            (bot_id, entry_point, files))
        latest = connection.exec_driver_sql(
            "SELECT COALESCE(MAX(version), 0) FROM ladder_entries WHERE ladder_id = ? AND name = ?",
            (ladder_id, name)).scalar()
        retired = [row[0] for row in connection.exec_driver_sql(
            "SELECT id FROM ladder_entries WHERE ladder_id = ? AND name = ? AND status = 'active'", (ladder_id, name))]
        connection.exec_driver_sql(
            "UPDATE ladder_entries SET status = 'retired' WHERE ladder_id = ? AND name = ? AND status = 'active'",
            (ladder_id, name))
        rating, sigma = start(_rating_of(connection, ladder_id, name, latest))
        joined_after = connection.exec_driver_sql(
            "SELECT COALESCE(MAX(seq), 0) FROM ladder_games WHERE ladder_id = ?", (ladder_id,)).scalar()
        entry_id = connection.exec_driver_sql(
            "INSERT INTO ladder_entries (ladder_id, bot_id, name, version, status, rating, games, submitted_at, "
            "sigma, joined_after, language, description) VALUES (?, ?, ?, ?, 'active', ?, 0, ?, ?, ?, ?, ?) "
            "RETURNING id",
            (ladder_id, bot_id, name, latest + 1, rating, now(), sigma, joined_after, language,
             description)).scalar_one()
        return Submitted(entry_id, name, latest + 1, True, retired)


Game = tuple[Callable[[Connection], str], Sequence[int], Sequence[int]]
"""One game to store: ``store`` (writes the game, returns its id), the seats' entries, their ranks."""


def store_games(ledger: Ledger, ladder_id: int, games: Sequence[Game], update: Update,
                guard: Callable[[Connection], None] | None = None, divisions: Keeper | None = None) -> list[int]:
    """In one transaction: ``guard`` first (it raises to store nothing: a match no longer held), then
    each game stored, its result folded into the seats' ratings with ``update``, and the history
    recorded; on a ladder with ``divisions``, its seats promoted or relegated by their rules. Returns
    their seqs."""
    with ledger.write() as connection:
        if guard is not None:
            guard(connection)
        seqs, game_ids = [], []
        with read_models.deferred(connection):  # the read models count the games together, at the end
            for store, entry_ids, ranks in games:
                game_id = store(connection)
                seq = connection.exec_driver_sql(
                    "INSERT INTO ladder_games (ladder_id, game_id) VALUES (?, ?) RETURNING seq",
                    (ladder_id, game_id)).scalar_one()
                _fold_one(connection, seq, list(entry_ids), list(ranks), update)
                if divisions is not None:
                    divisions.settle(connection, seq, game_id, list(entry_ids))
                seqs.append(seq)
                game_ids.append(game_id)
        read_models.count_ladder(connection, ladder_id, game_ids)
        return seqs


def _rating_of(connection: Connection, ladder_id: int, name: str, version: int) -> Rating | None:
    """The rating of one version of a name as it stands (None: no such version)."""
    row = connection.exec_driver_sql(
        "SELECT rating, sigma FROM ladder_entries WHERE ladder_id = ? AND name = ? AND version = ?",
        (ladder_id, name, version)).first()
    return None if row is None else (row[0], row[1])


def _fold_one(connection: Connection, seq: int, entry_ids: list[int], ranks: list[int], update: Update) -> None:
    ratings: list[Rating] = []
    for entry in entry_ids:
        rating, sigma = connection.exec_driver_sql(
            "SELECT rating, sigma FROM ladder_entries WHERE id = ?", (entry,)).first()
        ratings.append((rating, sigma))
    new = update(ratings, ranks)
    for entry, rank, (rating, sigma) in zip(entry_ids, ranks, new, strict=True):
        connection.exec_driver_sql(
            "UPDATE ladder_entries SET rating = ?, sigma = ?, games = games + 1 WHERE id = ?", (rating, sigma, entry))
        connection.exec_driver_sql(
            "INSERT INTO ladder_ratings (game_seq, entry_id, rank, rating, sigma) VALUES (?, ?, ?, ?, ?)",
            (seq, entry, rank, rating, sigma))


def rebuild(ledger: Ledger, ladder_id: int, update: Update, results: Results,
            start: Start = elo_start, divisions: Keeper | None = None) -> dict[int, tuple[Rating, Rating]]:
    """Refold every rating from ``results`` and the ladder's events; rewrite the derived rows.

    Each version enters the fold where it was submitted (after game ``joined_after``), starting
    from ``start`` of its predecessor's rating at that point. Returns, per entry, (rating before
    the rebuild, rating after), each (rating, sigma): equal when the incremental updates were right.
    The refold holds no write lock (``_refolded``). A ladder's ``divisions`` are refolded beside the ratings.
    """
    return _refolded(ledger, ladder_id, update, start, results, divisions=divisions)


def _refolded(ledger: Ledger, ladder_id: int, update: Update, start: Start, results: Results,
              voiding: tuple[str, str] | None = None, divisions: Keeper | None = None
              ) -> dict[int, tuple[Rating, Rating]]:
    """Refold the ladder's ratings and write them (and, with ``voiding`` = (game id, reason), void that game
    first), holding the write lock only to write. With ``divisions``, membership is folded beside them, and
    where the stored membership differs from the fold a move to the fold's division is appended.

    The games are read and folded in a read transaction, which waits for no writer and stalls none; the
    write transaction then folds on only the games stored meanwhile (their results read alone) and the
    versions submitted meanwhile, and writes. Workers storing games wait for the writing, never for the
    refold. An operator's fact appended meanwhile (a void, a retirement) changes what the fold must skip:
    the refold begins again (at most REFOLD_ATTEMPTS times).
    """
    for _attempt in range(REFOLD_ATTEMPTS):
        with ledger.read() as connection:
            seen = _stamp(connection, ladder_id)
            skipped = _voidable(connection, ladder_id, voiding[0]) if voiding else None
            observer = None if divisions is None else divisions.observer(connection)
            refold = Fold(versions(connection, ladder_id), update, start, observer)
            refold.feed([game for game in results(connection, 0) if game[0] != skipped])
        with ledger.write() as connection:
            if _stamp(connection, ladder_id)[1] != seen[1]:
                continue
            if voiding is not None:
                _voidable(connection, ladder_id, voiding[0])
                _append_event(connection, ladder_id, VOID, voiding[0], None, voiding[1])
                read_models.uncount_ladder(connection, ladder_id, voiding[0])
            refold.join(versions(connection, ladder_id))
            refold.feed([game for game in results(connection, seen[0]) if game[0] != skipped])
            written = _write_fold(connection, ladder_id, refold.done())
            if divisions is not None:
                divisions.written(connection, observer, f"ratings refolded without void game {voiding[0]}"
                                  if voiding else "membership rebuilt from the games")
            return written
    raise LedgerError(f"ladder {ladder_id}: operators' facts kept landing while its ratings were refolded "
                      f"({REFOLD_ATTEMPTS} attempts): try again")


def _stamp(connection: Connection, ladder_id: int) -> tuple[int, int]:
    """(the ladder's newest game seq, its newest operator's event seq): what a refold checks before it writes. The
    promotions and relegations stored with games meanwhile are not operators' facts: the refold folds membership
    over those games too, and appends a move where the stored one differs (ledger.rows.division_rows)."""
    return tuple(connection.exec_driver_sql(
        "SELECT (SELECT COALESCE(MAX(seq), 0) FROM ladder_games WHERE ladder_id = ?), "
        "(SELECT COALESCE(MAX(seq), 0) FROM ladder_events WHERE ladder_id = ? AND kind NOT IN "
        "('promote', 'relegate'))", (ladder_id, ladder_id)).first())


def _voidable(connection: Connection, ladder_id: int, game_id: str) -> int:
    """The ladder seq of a game that may be voided; LedgerError if it is not the ladder's or is void already."""
    seq = connection.exec_driver_sql(
        "SELECT seq FROM ladder_games WHERE ladder_id = ? AND game_id = ?", (ladder_id, game_id)).scalar()
    if seq is None:
        raise LedgerError(f"game {game_id} was not played on this ladder")
    if connection.exec_driver_sql(
            f"SELECT 1 FROM ladder_events WHERE ladder_id = ? AND game_id = ? AND kind = '{VOID}'",
            (ladder_id, game_id)).first() is not None:
        raise LedgerError(f"game {game_id} is already void")
    return seq


def _write_fold(connection: Connection, ladder_id: int, folded: Folded) -> dict[int, tuple[Rating, Rating]]:
    before = {row[0]: (row[1], row[2]) for row in connection.exec_driver_sql(
        "SELECT id, rating, sigma FROM ladder_entries WHERE ladder_id = ?", (ladder_id,))}
    connection.exec_driver_sql(
        "DELETE FROM ladder_ratings WHERE game_seq IN (SELECT seq FROM ladder_games WHERE ladder_id = ?)",
        (ladder_id,))
    if folded.ratings:
        connection.exec_driver_sql(
            "UPDATE ladder_entries SET rating = ?, sigma = ?, games = ? WHERE id = ?",
            [(rating, sigma, folded.games[entry], entry) for entry, (rating, sigma) in folded.ratings.items()])
    if folded.history:
        connection.exec_driver_sql(
            "INSERT INTO ladder_ratings (game_seq, entry_id, rank, rating, sigma) VALUES (?, ?, ?, ?, ?)",
            [(seq, entry, rank, rating, sigma) for (seq, entry), (rank, (rating, sigma)) in folded.history.items()])
    # Status is derived too: a version is retired when a newer one was submitted or a retire event names it.
    connection.exec_driver_sql(
        "UPDATE ladder_entries SET status = CASE WHEN EXISTS (SELECT 1 FROM ladder_entries newer "
        "WHERE newer.ladder_id = ladder_entries.ladder_id AND newer.name = ladder_entries.name "
        "AND newer.version > ladder_entries.version) OR EXISTS (SELECT 1 FROM ladder_events v "
        f"WHERE v.entry_id = ladder_entries.id AND v.kind = '{RETIRE}') THEN 'retired' ELSE 'active' END "
        "WHERE ladder_id = ?", (ladder_id,))
    after = {row[0]: (row[1], row[2]) for row in connection.exec_driver_sql(
        "SELECT id, rating, sigma FROM ladder_entries WHERE ladder_id = ?", (ladder_id,))}
    return {entry: (before[entry], after[entry]) for entry in before}


def void(ledger: Ledger, ladder_id: int, game_id: str, reason: str, update: Update, results: Results,
         start: Start = elo_start, divisions: Keeper | None = None) -> int:
    """Append a void event for one of the ladder's games and refold the ratings without it (holding the
    write lock only to write, as ``rebuild``).

    Returns the game's ladder seq; LedgerError if it is not the ladder's or is already void.
    """
    with ledger.read() as connection:
        seq = _voidable(connection, ladder_id, game_id)
    _refolded(ledger, ladder_id, update, start, results, (game_id, reason), divisions)
    return seq


def retire(ledger: Ledger, ladder_id: int, name: str, reason: str) -> int:
    """Append a retire event for the active version of ``name``: it plays no more games, and keeps
    its games and rating. Returns its version; LedgerError if the name has no active version."""
    with ledger.write() as connection:
        found = active_version(connection, ladder_id, name)
        _append_event(connection, ladder_id, RETIRE, None, found[0], reason)
        connection.exec_driver_sql("UPDATE ladder_entries SET status = 'retired' WHERE id = ?", (found[0],))
        return found[1]


def active_version(connection: Connection, ladder_id: int, name: str) -> tuple[int, int]:
    """(entry, version) of the active version of ``name``; LedgerError if it has none."""
    found = connection.exec_driver_sql(
        "SELECT id, version FROM ladder_entries WHERE ladder_id = ? AND name = ? AND status = 'active'",
        (ladder_id, name)).first()
    if found is None:
        raise LedgerError(f"no active bot {name!r} on this ladder")
    return found[0], found[1]


def _append_event(connection: Connection, ladder_id: int, kind: str, game_id: str | None, entry_id: int | None,
                  reason: str) -> None:
    connection.exec_driver_sql(
        "INSERT INTO ladder_events (ladder_id, kind, game_id, entry_id, reason, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        (ladder_id, kind, game_id, entry_id, reason, now()))


def events(ledger: Ledger, ladder_id: int) -> list[dict[str, Any]]:
    """The ladder's events, oldest first."""
    with ledger.read() as connection:
        rows = connection.exec_driver_sql(
            "SELECT seq, kind, game_id, entry_id, reason, created_at FROM ladder_events WHERE ladder_id = ? "
            "ORDER BY seq", (ladder_id,))
        keys = ("seq", "kind", "game_id", "entry_id", "reason", "created_at")
        return [dict(zip(keys, row, strict=True)) for row in rows]


def game_ids(ledger: Ledger, ladder_id: int) -> list[str]:
    """The ladder's games in the order they were stored (and rated)."""
    with ledger.read() as connection:
        rows = connection.exec_driver_sql(
            "SELECT game_id FROM ladder_games WHERE ladder_id = ? ORDER BY seq", (ladder_id,))
        return [row[0] for row in rows]


def voided(connection: Connection, ladder_id: int) -> set[str]:
    """The ladder's voided games (their void events)."""
    return {row[0] for row in connection.exec_driver_sql(
        f"SELECT game_id FROM ladder_events WHERE ladder_id = ? AND kind = '{VOID}'", (ladder_id,))}


def entry_of_bot(connection: Connection, ladder_id: int) -> dict[int, int]:
    """Bot version id -> its ladder entry."""
    return {bot: entry for entry, bot in connection.exec_driver_sql(
        "SELECT id, bot_id FROM ladder_entries WHERE ladder_id = ?", (ladder_id,))}


def stored_ratings(connection: Connection, ladder_id: int) -> dict[int, tuple[Rating, int]]:
    """Entry -> ((rating, sigma), games) as the derived rows hold them."""
    return {entry: ((rating, sigma), games) for entry, rating, sigma, games in connection.exec_driver_sql(
        "SELECT id, rating, sigma, games FROM ladder_entries WHERE ladder_id = ?", (ladder_id,))}


def rating_history(connection: Connection, ladder_id: int) -> dict[tuple[int, int], tuple[int, Rating]]:
    """(ladder seq, entry) -> (rank, (rating, sigma) after the game) as ladder_ratings holds them."""
    return {(seq, entry): (rank, (rating, sigma)) for seq, entry, rank, rating, sigma in connection.exec_driver_sql(
        "SELECT r.game_seq, r.entry_id, r.rank, r.rating, r.sigma FROM ladder_ratings r JOIN ladder_games g "
        "ON g.seq = r.game_seq WHERE g.ladder_id = ?", (ladder_id,))}


def scope(ladder: dict[str, Any]) -> Scope:
    """What a ladder's checkpoints cover."""
    return Scope(LADDER, ladder["id"], ladder["name"])


# -- sessions: one `ladder play` run, or one round of `ladder work`, and its seed ----------------


def open_session(ledger: Ledger, ladder_id: int, committed: seeds.Committed, seed: str, planned: int | None = None,
                 batch: int | None = None) -> int:
    """Record a session's seed before it plays: a chosen seed at once, a drawn one by its commitment only.
    ``planned`` games are queued ``batch`` deals at a time (ledger.rows.match_rows)."""
    with ledger.write() as connection:
        return connection.exec_driver_sql(
            "INSERT INTO ladder_sessions (ladder_id, seed_commitment, seed, seed_origin, seed_nonce, started_at, "
            "planned, batch, deals) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0) RETURNING id",
            (ladder_id, committed.commitment, None if committed.secret else seed, committed.origin, committed.nonce,
             now(), planned, batch)).scalar_one()


def reveal(connection: Connection, session_id: int, seed: str) -> bool:
    """End the session and reveal its seed, unless it has ended already; True if this call ended it.
    LedgerError if the seed is not the committed one."""
    committed = connection.exec_driver_sql(
        "SELECT seed_commitment FROM ladder_sessions WHERE id = ?", (session_id,)).scalar()
    if committed != seeds.commitment(seed):
        raise LedgerError(f"ladder session {session_id}: the seed to reveal does not match its commitment")
    return connection.exec_driver_sql("UPDATE ladder_sessions SET seed = ?, ended_at = ? WHERE id = ? AND "
                                      "ended_at IS NULL", (seed, now(), session_id)).rowcount == 1


def committed_seed(ledger: Ledger, session_id: int) -> tuple[seeds.Committed, str | None]:
    """What is stored of a session's seed, and the seed itself when it is stored (chosen, or revealed)."""
    with ledger.read() as connection:
        row = connection.exec_driver_sql("SELECT seed_origin, seed_commitment, seed_nonce, seed FROM ladder_sessions "
                                         "WHERE id = ?", (session_id,)).first()
    if row is None:
        raise LedgerError(f"no ladder session {session_id}")
    return seeds.Committed(row[0], row[1], row[2]), row[3]


def sessions(ledger: Ledger, ladder_id: int) -> list[dict[str, Any]]:
    """The ladder's sessions, oldest first (a drawn seed stays None until its session ends)."""
    with ledger.read() as connection:
        rows = connection.exec_driver_sql(
            "SELECT id, seed_commitment, seed, seed_origin, started_at, ended_at FROM ladder_sessions "
            "WHERE ladder_id = ? ORDER BY id", (ladder_id,))
        keys = ("id", "commitment", "seed", "origin", "started_at", "ended_at")
        return [dict(zip(keys, row, strict=True)) for row in rows]


def history(ledger: Ledger, entry_id: int) -> list[dict[str, Any]]:
    with ledger.read() as connection:
        rows = connection.exec_driver_sql(
            "SELECT r.game_seq, g.game_id, r.rank, r.rating, r.sigma FROM ladder_ratings r "
            "JOIN ladder_games g ON g.seq = r.game_seq WHERE r.entry_id = ? ORDER BY r.game_seq", (entry_id,))
        return [{"seq": seq, "game": game, "rank": rank, "rating": rating,
                 **({} if sigma is None else {"sigma": sigma})} for seq, game, rank, rating, sigma in rows]


PUBLISHED_VIEWS = ("spectator", "full")
"""What a ladder may publish of its finished games on the web (ladders.publish, added with the owners revision)."""


def set_publish(ledger: Ledger, ladder_id: int, view: str) -> None:
    if view not in PUBLISHED_VIEWS:
        raise LedgerError(f"a ladder publishes {' or '.join(PUBLISHED_VIEWS)} logs, not {view!r}")
    with ledger.write() as connection:
        connection.exec_driver_sql("UPDATE ladders SET publish = ? WHERE id = ?", (view, ladder_id))


def last_played(ledger: Ledger, ladder_id: int) -> dict[int, str]:
    """Ladder entry -> when its latest ladder game was stored."""
    with ledger.read() as connection:
        rows = connection.exec_driver_sql(
            "SELECT e.id, MAX(gm.created_at) FROM ladder_games g JOIN games gm ON gm.id = g.game_id "
            "JOIN seats s ON s.game_id = g.game_id "
            "JOIN ladder_entries e ON e.bot_id = s.bot_id AND e.ladder_id = g.ladder_id "
            "WHERE g.ladder_id = ? GROUP BY e.id", (ladder_id,))
        return {entry: created for entry, created in rows}


def version_of(ledger: Ledger, ladder_id: int) -> tuple[Any, ...]:
    """What changes whenever a ladder's standings may: its latest game, event and entry, what it
    publishes, and its entries' ratings, games and statuses (a rebuild or a retirement moves those)."""
    with ledger.read() as connection:
        return tuple(connection.exec_driver_sql(
            "SELECT (SELECT COALESCE(MAX(seq), 0) FROM ladder_games WHERE ladder_id = ?), "
            "(SELECT COALESCE(MAX(seq), 0) FROM ladder_events WHERE ladder_id = ?), "
            "(SELECT COALESCE(MAX(id), 0) FROM ladder_entries WHERE ladder_id = ?), "
            "(SELECT publish FROM ladders WHERE id = ?), "
            "(SELECT COALESCE(SUM(rating), 0) || '/' || COALESCE(SUM(games), 0) || '/' || "
            "COALESCE(SUM(CASE WHEN status = 'active' THEN 1 ELSE 0 END), 0) FROM ladder_entries WHERE ladder_id = ?)",
            (ladder_id, ladder_id, ladder_id, ladder_id, ladder_id)).first())


def ladder_of_game(ledger: Ledger, game_id: str) -> dict[str, Any] | None:
    """The ladder a game was played on (its row), or None."""
    with ledger.read() as connection:
        row = connection.exec_driver_sql(
            "SELECT l.name FROM ladder_games g JOIN ladders l ON l.id = g.ladder_id WHERE g.game_id = ?",
            (game_id,)).first()
    return None if row is None else get(ledger, row[0])
