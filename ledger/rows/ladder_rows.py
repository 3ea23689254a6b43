"""Ladder rows: entries, submitted bot archives, games in fold order, rating history, play sessions.

The ledger stores and orders; it does not rate, and it does not read results from events.
``store_games`` takes the rating update as a function (the ladder's rating model, tournaments.ladder),
runs it on the ratings as they stand inside the games' own transaction, and stores the results, so two
processes feeding one ladder serialize on the write lock and every game is folded exactly once, in ``seq``
order. A refold (rebuild, void: tournaments.ladder.rating_fold) reads the rows here, folds them above the
ledger, and hands the ratings back to ``write_fold`` to store. The ladder's read models (ledger.read_models)
are counted as its games are stored, and a void takes its game out of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import select, text
from sqlalchemy.engine import Connection

from ledger import read_models, seeds
from ledger.checkpoints import LADDER, Scope
from ledger.models import Ladder
from ledger.rows import listed, owner_rows
from ledger.store import Ledger, LedgerError, now

START_RATING = 1500.0
"""A new entry's rating when its submitter names no rule for it (Elo's start)."""
VOID = "void"
RETIRE = "retire"
"""The kinds of ladder event (ladder_events.kind): facts an operator appends, never edits."""

Rating = tuple[float, float | None]
"""An entry's rating and, for OpenSkill, its sigma (None for Elo)."""
Update = Callable[[list[Rating], list[int]], list[Rating]]
"""The seats' new ratings after one game, from their ratings and ranks (the caller's rating model)."""
Start = Callable[[Rating | None], Rating]
"""A new version's first rating, from its predecessor's rating at submission (None: a first version)."""


class Keeper(Protocol):
    """A ladder's division rules as ``store_games`` calls them, in each game's transaction
    (tournaments.ladder.membership; ledger.rows.division_rows)."""

    def settle(self, connection: Connection, seq: int, game_id: str, entries: Sequence[int]) -> None: ...


def elo_start(_previous: Rating | None) -> Rating:
    return (START_RATING, None)


@dataclass(frozen=True, slots=True)
class Version:
    """An entry as a fold needs it: which version of which name, and after which ladder game it joined."""

    entry: int
    name: str
    version: int
    joined_after: int


def versions(connection: Connection, ladder_id: int) -> list[Version]:
    return [Version(*row) for row in connection.execute(text(
        "SELECT id, name, version, joined_after FROM ladder_entries WHERE ladder_id = :ladder"), {"ladder": ladder_id})]


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
    """A new ladder; ``divisions``: its divisions, lowest first, as a JSON list (None: none). LedgerError if a
    ladder has the name, or one that reads as it (owner_rows.name_form: ``Spring`` beside ``spring``)."""
    with ledger.write() as connection:
        found = [row[0] for row in connection.execute(text("SELECT name FROM ladders"))]
        if name in found:
            raise LedgerError(f"a ladder named {name!r} already exists")
        alike = next((other for other in found if owner_rows.name_form(other) == owner_rows.name_form(name)), None)
        if alike is not None:
            raise LedgerError(f"the ladder name {name!r} reads as {alike!r}, a ladder already: pick another name")
        return connection.execute(text(
            "INSERT INTO ladders (name, game, players, created_at, rating, divisions) "
            "VALUES (:name, :game, :players, :created_at, :rating, :divisions) RETURNING id"),
            {"name": name, "game": game, "players": players, "created_at": now(), "rating": rating,
             "divisions": divisions}).scalar_one()


def get(ledger: Ledger, name: str) -> dict[str, Any]:
    table = Ladder.__table__
    with ledger.read() as connection:
        row = connection.execute(select(table).where(table.c.name == name)).mappings().first()
        if row is None:
            names = [r[0] for r in connection.execute(text("SELECT name FROM ladders ORDER BY name"))]
            hint = f" (ladders: {', '.join(names)})" if names else " (the database has none: `tourney ladder create`)"
            raise UnknownLadder(f"no ladder {name!r} in {ledger.url}{hint}")
        return dict(row)


def all_ladders(ledger: Ledger, counted: bool = False) -> list[dict[str, Any]]:
    """Every ladder by name, with its active entries and its games: its latest game's number as the read models
    count it (ladder_snapshots.latest_counted: an index step, where a count of its games reads every one).
    ``counted``: where the games are shown, refuse unless the read models count every game (``rows.listed``)."""
    return listed(ledger, "SELECT l.id, l.name, l.game, l.players, l.created_at, "
                  "(SELECT COUNT(*) FROM ladder_entries e WHERE e.ladder_id = l.id AND e.status = 'active'), "
                  "(SELECT COALESCE(MAX(g.ladder_number), 0) FROM game_results g WHERE g.ladder_id = l.id), "
                  "l.publish, l.rating, l.divisions FROM ladders l ORDER BY l.name",
                  ("id", "name", "game", "players", "created_at", "active", "games", "publish", "rating", "divisions"),
                  counted=counted)


def entries(ledger: Ledger, ladder_id: int, active_only: bool = True) -> list[dict[str, Any]]:
    """Entries with their bot's content hash and archive entry point, best rating first."""
    query = ("SELECT e.id, e.name, e.version, e.status, e.rating, e.games, e.bot_id, b.content_hash, b.kind, "
             "e.submitted_at, e.sigma, e.joined_after, e.language, e.description FROM ladder_entries e "
             "JOIN bots b ON b.id = e.bot_id "
             "WHERE e.ladder_id = :ladder")
    if active_only:
        query += " AND e.status = 'active'"
    return listed(ledger, query + " ORDER BY e.rating DESC, e.name, e.version",
                  ("id", "name", "version", "status", "rating", "games", "bot_id", "content_hash", "kind",
                   "submitted_at", "sigma", "joined_after", "language", "description"), {"ladder": ladder_id})


def archive(ledger: Ledger, bot_id: int) -> tuple[str, bytes]:
    """The entry point and zip archive of a submitted bot."""
    with ledger.read() as connection:
        row = connection.execute(text("SELECT entry_point, archive FROM bot_archives WHERE bot_id = :bot"),
                                 {"bot": bot_id}).first()
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
        named = {"ladder": ladder_id, "name": name}
        existing = connection.execute(text(
            "SELECT id, version FROM ladder_entries WHERE ladder_id = :ladder AND bot_id = :bot"),
            {"ladder": ladder_id, "bot": bot_id}).first()
        if existing is not None:
            return Submitted(existing[0], name, existing[1], False, [])
        connection.execute(text(
            "INSERT INTO bot_archives (bot_id, entry_point, archive) VALUES (:bot, :entry_point, :archive) "
            "ON CONFLICT DO NOTHING"), {"bot": bot_id, "entry_point": entry_point, "archive": files})
        latest = connection.execute(text(
            "SELECT COALESCE(MAX(version), 0) FROM ladder_entries WHERE ladder_id = :ladder AND name = :name"),
            named).scalar()
        retired = [row[0] for row in connection.execute(text(
            "SELECT id FROM ladder_entries WHERE ladder_id = :ladder AND name = :name AND status = 'active'"), named)]
        connection.execute(text(
            "UPDATE ladder_entries SET status = 'retired' WHERE ladder_id = :ladder AND name = :name "
            "AND status = 'active'"), named)
        rating, sigma = start(_rating_of(connection, ladder_id, name, latest))
        entry_id = connection.execute(text(
            "INSERT INTO ladder_entries (ladder_id, bot_id, name, version, status, rating, games, submitted_at, "
            "sigma, joined_after, language, description) VALUES (:ladder, :bot, :name, :version, 'active', :rating, "
            "0, :submitted_at, :sigma, :joined_after, :language, :description) RETURNING id"),
            {**named, "bot": bot_id, "version": latest + 1, "rating": rating, "submitted_at": now(), "sigma": sigma,
             "joined_after": last_game(connection, ladder_id), "language": language,
             "description": description}).scalar_one()
        return Submitted(entry_id, name, latest + 1, True, retired)


def last_game(connection: Connection, ladder_id: int) -> int:
    """The ladder's newest game seq (0: none yet)."""
    return connection.execute(text("SELECT COALESCE(MAX(seq), 0) FROM ladder_games WHERE ladder_id = :ladder"),
                              {"ladder": ladder_id}).scalar()


Game = tuple[Callable[[Connection], str], Sequence[int], Sequence[int]]
"""One game to store: ``store`` (writes the game, returns its id), the seats' entries, their ranks."""


def store_games(ledger: Ledger, ladder_id: int, games: Sequence[Game], update: Update,
                guard: Callable[[Connection], None] | None = None, divisions: Keeper | None = None) -> list[int]:
    """In one transaction: ``guard`` first (it raises to store nothing: a match no longer held), then
    each game stored, the seats' ratings as they stand handed to ``update`` with its ranks and its
    results stored with the history; on a ladder with ``divisions``, its seats promoted or relegated by
    their rules. Returns their seqs."""
    with ledger.write() as connection:
        if guard is not None:
            guard(connection)
        seqs, game_ids = [], []
        with read_models.deferred(connection):  # the read models count the games together, at the end
            for store, entry_ids, ranks in games:
                game_id = store(connection)
                seq = connection.execute(text(
                    "INSERT INTO ladder_games (ladder_id, game_id) VALUES (:ladder, :game) RETURNING seq"),
                    {"ladder": ladder_id, "game": game_id}).scalar_one()
                _rate_one(connection, seq, list(entry_ids), list(ranks), update)
                if divisions is not None:
                    divisions.settle(connection, seq, game_id, list(entry_ids))
                seqs.append(seq)
                game_ids.append(game_id)
        read_models.count_ladder(connection, ladder_id, game_ids)
        return seqs


def _rating_of(connection: Connection, ladder_id: int, name: str, version: int) -> Rating | None:
    """The rating of one version of a name as it stands (None: no such version)."""
    row = connection.execute(text(
        "SELECT rating, sigma FROM ladder_entries WHERE ladder_id = :ladder AND name = :name AND version = :version"),
        {"ladder": ladder_id, "name": name, "version": version}).first()
    return None if row is None else (row[0], row[1])


def _rate_one(connection: Connection, seq: int, entry_ids: list[int], ranks: list[int], update: Update) -> None:
    """One stored game's seats: their ratings read, ``update``'s results written with the history rows."""
    ratings: list[Rating] = []
    for entry in entry_ids:
        rating, sigma = connection.execute(text("SELECT rating, sigma FROM ladder_entries WHERE id = :entry"),
                                           {"entry": entry}).first()
        ratings.append((rating, sigma))
    new = update(ratings, ranks)
    for entry, rank, (rating, sigma) in zip(entry_ids, ranks, new, strict=True):
        connection.execute(text(
            "UPDATE ladder_entries SET rating = :rating, sigma = :sigma, games = games + 1 WHERE id = :entry"),
            {"rating": rating, "sigma": sigma, "entry": entry})
        connection.execute(text(
            "INSERT INTO ladder_ratings (game_seq, entry_id, rank, rating, sigma) "
            "VALUES (:seq, :entry, :rank, :rating, :sigma)"),
            {"seq": seq, "entry": entry, "rank": rank, "rating": rating, "sigma": sigma})


# -- refolds: what tournaments.ladder.rating_fold reads and writes ------------------------------


def stamp(connection: Connection, ladder_id: int) -> tuple[int, int]:
    """(the ladder's newest game seq, its newest operator's event seq): what a refold checks before it writes. The
    promotions and relegations stored with games meanwhile are not operators' facts: the refold folds membership
    over those games too, and appends a move where the stored one differs (ledger.rows.division_rows)."""
    return tuple(connection.execute(text(
        "SELECT (SELECT COALESCE(MAX(seq), 0) FROM ladder_games WHERE ladder_id = :ladder), "
        "(SELECT COALESCE(MAX(seq), 0) FROM ladder_events WHERE ladder_id = :ladder AND kind NOT IN "
        "('promote', 'relegate'))"), {"ladder": ladder_id}).first())


def voidable(connection: Connection, ladder_id: int, game_id: str) -> int:
    """The ladder seq of a game that may be voided; LedgerError if it is not the ladder's or is void already."""
    named = {"ladder": ladder_id, "game": game_id}
    seq = connection.execute(text("SELECT seq FROM ladder_games WHERE ladder_id = :ladder AND game_id = :game"),
                             named).scalar()
    if seq is None:
        raise LedgerError(f"game {game_id} was not played on this ladder")
    if connection.execute(text(
            "SELECT 1 FROM ladder_events WHERE ladder_id = :ladder AND game_id = :game AND kind = :kind"),
            {**named, "kind": VOID}).first() is not None:
        raise LedgerError(f"game {game_id} is already void")
    return seq


def append_void(connection: Connection, ladder_id: int, game_id: str, reason: str) -> None:
    """Append a void event for one of the ladder's games and take it out of the read models (LedgerError, as
    ``voidable``, if it cannot be voided)."""
    voidable(connection, ladder_id, game_id)
    _append_event(connection, ladder_id, VOID, game_id, None, reason)
    read_models.uncount_ladder(connection, ladder_id, game_id)


def write_fold(connection: Connection, ladder_id: int, ratings: dict[int, Rating], games: dict[int, int],
               history: dict[tuple[int, int], tuple[int, Rating]]) -> dict[int, tuple[Rating, Rating]]:
    """Store a refold: each entry's rating and games, the history ((ladder seq, entry) -> (rank, rating after
    that game)) in place of the ladder's, and each entry's status as its versions and events say. Returns, per
    entry, (rating before, rating after)."""
    before = stored_ratings(connection, ladder_id)
    connection.execute(text(
        "DELETE FROM ladder_ratings WHERE game_seq IN (SELECT seq FROM ladder_games WHERE ladder_id = :ladder)"),
        {"ladder": ladder_id})
    if ratings:
        connection.execute(text("UPDATE ladder_entries SET rating = :rating, sigma = :sigma, games = :games "
                                "WHERE id = :entry"),
                           [{"rating": rating, "sigma": sigma, "games": games[entry], "entry": entry}
                            for entry, (rating, sigma) in ratings.items()])
    if history:
        connection.execute(text("INSERT INTO ladder_ratings (game_seq, entry_id, rank, rating, sigma) "
                                "VALUES (:seq, :entry, :rank, :rating, :sigma)"),
                           [{"seq": seq, "entry": entry, "rank": rank, "rating": rating, "sigma": sigma}
                            for (seq, entry), (rank, (rating, sigma)) in history.items()])
    # Status is derived too: a version is retired when a newer one was submitted or a retire event names it.
    connection.execute(text(
        "UPDATE ladder_entries SET status = CASE WHEN EXISTS (SELECT 1 FROM ladder_entries newer "
        "WHERE newer.ladder_id = ladder_entries.ladder_id AND newer.name = ladder_entries.name "
        "AND newer.version > ladder_entries.version) OR EXISTS (SELECT 1 FROM ladder_events v "
        "WHERE v.entry_id = ladder_entries.id AND v.kind = :retire) THEN 'retired' ELSE 'active' END "
        "WHERE ladder_id = :ladder"), {"retire": RETIRE, "ladder": ladder_id})
    after = stored_ratings(connection, ladder_id)
    return {entry: (before[entry][0], after[entry][0]) for entry in before}


def retire(ledger: Ledger, ladder_id: int, name: str, reason: str) -> int:
    """Append a retire event for the active version of ``name``: it plays no more games, and keeps
    its games and rating. Returns its version; LedgerError if the name has no active version."""
    with ledger.write() as connection:
        found = active_version(connection, ladder_id, name)
        _append_event(connection, ladder_id, RETIRE, None, found[0], reason)
        connection.execute(text("UPDATE ladder_entries SET status = 'retired' WHERE id = :entry"), {"entry": found[0]})
        return found[1]


def active_version(connection: Connection, ladder_id: int, name: str) -> tuple[int, int]:
    """(entry, version) of the active version of ``name``; LedgerError if it has none."""
    found = connection.execute(text(
        "SELECT id, version FROM ladder_entries WHERE ladder_id = :ladder AND name = :name AND status = 'active'"),
        {"ladder": ladder_id, "name": name}).first()
    if found is None:
        raise LedgerError(f"no active bot {name!r} on this ladder")
    return found[0], found[1]


def _append_event(connection: Connection, ladder_id: int, kind: str, game_id: str | None, entry_id: int | None,
                  reason: str) -> None:
    connection.execute(text(
        "INSERT INTO ladder_events (ladder_id, kind, game_id, entry_id, reason, created_at) "
        "VALUES (:ladder, :kind, :game, :entry, :reason, :created_at)"),
        {"ladder": ladder_id, "kind": kind, "game": game_id, "entry": entry_id, "reason": reason,
         "created_at": now()})


def events(ledger: Ledger, ladder_id: int) -> list[dict[str, Any]]:
    """The ladder's events, oldest first."""
    return listed(ledger, "SELECT seq, kind, game_id, entry_id, reason, created_at FROM ladder_events WHERE "
                  "ladder_id = :ladder ORDER BY seq", ("seq", "kind", "game_id", "entry_id", "reason", "created_at"),
                  {"ladder": ladder_id})


def game_ids(ledger: Ledger, ladder_id: int) -> list[str]:
    """The ladder's games in the order they were stored (and rated)."""
    with ledger.read() as connection:
        rows = connection.execute(text("SELECT game_id FROM ladder_games WHERE ladder_id = :ladder ORDER BY seq"),
                                  {"ladder": ladder_id})
        return [row[0] for row in rows]


def games_after(connection: Connection, ladder_id: int, after: int, through: int | None = None) -> dict[str, int]:
    """Game id -> ladder seq of the games stored after ladder seq ``after`` (to ``through``), in seq order."""
    return dict(connection.execute(text(
        "SELECT game_id, seq FROM ladder_games WHERE ladder_id = :ladder AND seq > :after AND seq <= :through "
        "ORDER BY seq"), {"ladder": ladder_id, "after": after, "through": 2**62 if through is None else through}).all())


def voided(connection: Connection, ladder_id: int) -> set[str]:
    """The ladder's voided games (their void events)."""
    return {row[0] for row in connection.execute(text(
        "SELECT game_id FROM ladder_events WHERE ladder_id = :ladder AND kind = :kind"),
        {"ladder": ladder_id, "kind": VOID})}


def entry_of_bot(connection: Connection, ladder_id: int) -> dict[int, int]:
    """Bot version id -> its ladder entry."""
    return {bot: entry for entry, bot in connection.execute(text(
        "SELECT id, bot_id FROM ladder_entries WHERE ladder_id = :ladder"), {"ladder": ladder_id})}


def stored_ratings(connection: Connection, ladder_id: int) -> dict[int, tuple[Rating, int]]:
    """Entry -> ((rating, sigma), games) as the derived rows hold them."""
    return {entry: ((rating, sigma), games) for entry, rating, sigma, games in connection.execute(text(
        "SELECT id, rating, sigma, games FROM ladder_entries WHERE ladder_id = :ladder"), {"ladder": ladder_id})}


def rating_history(connection: Connection, ladder_id: int, after: int = 0, through: int | None = None
                   ) -> dict[tuple[int, int], tuple[int, Rating]]:
    """(ladder seq, entry) -> (rank, (rating, sigma) after it), as stored: games after ``after``, to ``through``."""
    bound = "" if through is None else " AND r.game_seq <= :through"
    return {(seq, entry): (rank, (rating, sigma)) for seq, entry, rank, rating, sigma in connection.execute(text(
        "SELECT r.game_seq, r.entry_id, r.rank, r.rating, r.sigma FROM ladder_ratings r JOIN ladder_games g "
        f"ON g.seq = r.game_seq WHERE g.ladder_id = :ladder AND r.game_seq > :after{bound}"),
        {"ladder": ladder_id, "after": after, "through": through})}


def scope(ladder: dict[str, Any]) -> Scope:
    """What a ladder's checkpoints cover."""
    return Scope(LADDER, ladder["id"], ladder["name"])


# -- sessions: one `ladder play` run, or one round of `ladder work`, and its seed ----------------


def open_session(ledger: Ledger, ladder_id: int, committed: seeds.Committed, seed: str, planned: int | None = None,
                 batch: int | None = None) -> int:
    """Record a session's seed before it plays: a chosen seed at once, a drawn one by its commitment only.
    ``planned`` games are queued ``batch`` deals at a time (ledger.rows.match_rows)."""
    with ledger.write() as connection:
        return connection.execute(text(
            "INSERT INTO ladder_sessions (ladder_id, seed_commitment, seed, seed_origin, seed_nonce, started_at, "
            "planned, batch, deals) VALUES (:ladder, :commitment, :seed, :origin, :nonce, :started_at, :planned, "
            ":batch, 0) RETURNING id"),
            {"ladder": ladder_id, "commitment": committed.commitment, "seed": None if committed.secret else seed,
             "origin": committed.origin, "nonce": committed.nonce, "started_at": now(), "planned": planned,
             "batch": batch}).scalar_one()


def reveal(connection: Connection, session_id: int, seed: str) -> bool:
    """End the session and reveal its seed, unless it has ended already; True if this call ended it.
    LedgerError if the seed is not the committed one."""
    committed = connection.execute(text("SELECT seed_commitment FROM ladder_sessions WHERE id = :session"),
                                   {"session": session_id}).scalar()
    if committed != seeds.commitment(seed):
        raise LedgerError(f"ladder session {session_id}: the seed to reveal does not match its commitment")
    return connection.execute(text(
        "UPDATE ladder_sessions SET seed = :seed, ended_at = :ended_at WHERE id = :session AND ended_at IS NULL"),
        {"seed": seed, "ended_at": now(), "session": session_id}).rowcount == 1


def committed_seed(ledger: Ledger, session_id: int) -> tuple[seeds.Committed, str | None]:
    """What is stored of a session's seed, and the seed itself when it is stored (chosen, or revealed)."""
    with ledger.read() as connection:
        row = connection.execute(text("SELECT seed_origin, seed_commitment, seed_nonce, seed FROM ladder_sessions "
                                      "WHERE id = :session"), {"session": session_id}).first()
    if row is None:
        raise LedgerError(f"no ladder session {session_id}")
    return seeds.Committed(row[0], row[1], row[2]), row[3]


def sessions(ledger: Ledger, ladder_id: int) -> list[dict[str, Any]]:
    """The ladder's sessions, oldest first (a drawn seed stays None until its session ends)."""
    return listed(ledger, "SELECT id, seed_commitment, seed, seed_origin, started_at, ended_at FROM ladder_sessions "
                  "WHERE ladder_id = :ladder ORDER BY id", ("id", "commitment", "seed", "origin", "started_at",
                                                             "ended_at"), {"ladder": ladder_id})


def history(ledger: Ledger, entry_id: int) -> list[dict[str, Any]]:
    with ledger.read() as connection:
        rows = connection.execute(text(
            "SELECT r.game_seq, g.game_id, r.rank, r.rating, r.sigma FROM ladder_ratings r "
            "JOIN ladder_games g ON g.seq = r.game_seq WHERE r.entry_id = :entry ORDER BY r.game_seq"),
            {"entry": entry_id})
        return [{"seq": seq, "game": game, "rank": rank, "rating": rating,
                 **({} if sigma is None else {"sigma": sigma})} for seq, game, rank, rating, sigma in rows]


PUBLISHED_VIEWS = ("spectator", "full")
"""What a ladder may publish of its finished games on the web (ladders.publish, added with the owners revision)."""


def set_publish(ledger: Ledger, ladder_id: int, view: str) -> None:
    if view not in PUBLISHED_VIEWS:
        raise LedgerError(f"a ladder publishes {' or '.join(PUBLISHED_VIEWS)} logs, not {view!r}")
    with ledger.write() as connection:
        connection.execute(text("UPDATE ladders SET publish = :view WHERE id = :ladder"),
                           {"view": view, "ladder": ladder_id})


def last_played(ledger: Ledger, ladder_id: int) -> dict[int, str]:
    """Ladder entry -> when its latest ladder game was stored."""
    with ledger.read() as connection:
        rows = connection.execute(text(
            "SELECT e.id, MAX(gm.created_at) FROM ladder_games g JOIN games gm ON gm.id = g.game_id "
            "JOIN seats s ON s.game_id = g.game_id "
            "JOIN ladder_entries e ON e.bot_id = s.bot_id AND e.ladder_id = g.ladder_id "
            "WHERE g.ladder_id = :ladder GROUP BY e.id"), {"ladder": ladder_id})
        return {entry: created for entry, created in rows}


def version_of(ledger: Ledger, ladder_id: int) -> tuple[Any, ...]:
    """What changes whenever a ladder's standings may: its latest game, event and entry, what it
    publishes, and its entries' ratings, games and statuses (a rebuild or a retirement moves those)."""
    with ledger.read() as connection:
        return tuple(connection.execute(text(
            "SELECT (SELECT COALESCE(MAX(seq), 0) FROM ladder_games WHERE ladder_id = :ladder), "
            "(SELECT COALESCE(MAX(seq), 0) FROM ladder_events WHERE ladder_id = :ladder), "
            "(SELECT COALESCE(MAX(id), 0) FROM ladder_entries WHERE ladder_id = :ladder), "
            "(SELECT publish FROM ladders WHERE id = :ladder), "
            "(SELECT COALESCE(SUM(rating), 0) || '/' || COALESCE(SUM(games), 0) || '/' || "
            "COALESCE(SUM(CASE WHEN status = 'active' THEN 1 ELSE 0 END), 0) FROM ladder_entries "
            "WHERE ladder_id = :ladder)"), {"ladder": ladder_id}).first())


def ladder_of_game(ledger: Ledger, game_id: str) -> dict[str, Any] | None:
    """The ladder a game was played on (its row), or None."""
    with ledger.read() as connection:
        row = connection.execute(text(
            "SELECT l.name FROM ladder_games g JOIN ladders l ON l.id = g.ladder_id WHERE g.game_id = :game"),
            {"game": game_id}).first()
    return None if row is None else get(ledger, row[0])
