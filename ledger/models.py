"""The ledger's tables (SQLModel). Schema changes go only through Alembic revisions.

JSON columns hold canonical JSON text. Event rows and sealed games are append-only: the migrations
add triggers that abort any UPDATE or DELETE on ``events``, ``sealed_games`` and ``sealed_dictionaries``.
"""

from __future__ import annotations

from sqlalchemy import Column, ForeignKey, Index, Integer, LargeBinary, String, Text, UniqueConstraint
from sqlmodel import Field

# The read models' tables (revision 0013) live in ledger/read_tables.py; importing them here puts every table of
# the ledger on SQLModel.metadata whenever this module is imported (Alembic's env.py, the migrations test).
from ledger.read_tables import (  # noqa: F401
    BotOpponentRecord,
    BotResult,
    BotSeatRecord,
    GameResult,
    LadderPair,
    LadderRecord,
    PlaceGames,
    ReadModelPosition,
    SeatResult,
    Table,
    TournamentPair,
    TournamentStanding,
)


class Bot(Table, table=True):
    """A bot version: its name and the SHA-256 of its content."""

    __tablename__ = "bots"
    __table_args__ = (UniqueConstraint("name", "content_hash", name="uq_bots_name_hash"),)

    id: int | None = Field(default=None, primary_key=True)
    name: str
    content_hash: str
    kind: str = Field(description="python, program or engine")
    created_at: str


class Tournament(Table, table=True):
    """A tournament: its name, game, the spec it was run with, and its seed."""

    __tablename__ = "tournaments"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_column=Column(String, unique=True, nullable=False))
    game: str
    spec: str = Field(description="canonical JSON: players, games, bots, options")
    seed: str = Field(description="the seed; empty while a drawn seed is secret (and for imported games)")
    created_at: str
    seed_commitment: str | None = Field(default=None, description="SHA-256 commitment to the seed")
    seed_origin: str | None = Field(default=None, description="organiser (--seed) or drawn (secret until the end)")
    seed_nonce: str | None = Field(default=None, description="what a drawn seed is derived from with the ledger key")


class TournamentBot(Table, table=True):
    """A bot entered in a tournament."""

    __tablename__ = "tournament_bots"

    tournament_id: int = Field(
        sa_column=Column(Integer, ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True)
    )
    bot_id: int = Field(sa_column=Column(Integer, ForeignKey("bots.id"), primary_key=True))


class Game(Table, table=True):
    """One game: what was played, its seed commitment and (once over) its seed, head and signature."""

    __tablename__ = "games"
    __table_args__ = (
        UniqueConstraint("tournament_id", "game_key", name="uq_games_tournament_key"),
        Index("ix_games_tournament", "tournament_id"),
        Index("ix_games_store_seq", "store_seq", unique=True),
    )

    id: str = Field(primary_key=True, description="stable game id, also hashed into every event")
    game: str
    engine_version: int
    config: str = Field(description="canonical JSON")
    seed_commitment: str
    seed: str | None = None
    tournament_id: int | None = Field(
        default=None, sa_column=Column(Integer, ForeignKey("tournaments.id"), nullable=True)
    )
    game_key: str | None = Field(default=None, description="schedule key within its tournament")
    status: str = Field(default="playing", description="playing or finished")
    events: int = 0
    head: str | None = None
    end_reason: str | None = None
    created_at: str
    signature: str | None = Field(default=None, description="the ledger key's Ed25519 signature of the head, hex")
    store_seq: int | None = Field(default=None, description="1, 2, ...: the order finished games were stored in")


class Event(Table, table=True):
    """One event of a game still playing (or of a game that could not be sealed): the exact canonical bytes
    that were hashed, the hidden part, the hash. A finished game's events are a ``SealedGame`` instead."""

    __tablename__ = "events"

    game_id: str = Field(sa_column=Column(String, ForeignKey("games.id"), primary_key=True))
    seq: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    type: str
    audience: str = Field(description='"public" or a JSON list of seats')
    body: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    private: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    salt: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    hash: str


class SealedGame(Table, table=True):
    """A finished game's events in one compressed block (ledger.sealed), keyed by the game's store order.

    Append-only (revision 0012's triggers refuse UPDATE and DELETE)."""

    __tablename__ = "sealed_games"

    store_seq: int = Field(sa_column=Column(Integer, ForeignKey("games.store_seq", onupdate="CASCADE"),
                                            primary_key=True, autoincrement=False))
    dictionary_id: int | None = Field(default=None, sa_column=Column(Integer, ForeignKey("sealed_dictionaries.id"),
                                                                     nullable=True))
    block: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class SealedDictionary(Table, table=True):
    """The zstd dictionary of one game and rules version's sealed blocks (ledger.sealing). Append-only."""

    __tablename__ = "sealed_dictionaries"
    __table_args__ = (UniqueConstraint("game", "engine_version", name="uq_sealed_dictionaries_game"),)

    id: int | None = Field(default=None, primary_key=True)
    game: str
    engine_version: int
    digest: str = Field(description="SHA-256 of the content, hex")
    content: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    created_at: str


class Seat(Table, table=True):
    """A seat of a game: which bot sat there and, once over, its rank and score."""

    __tablename__ = "seats"
    __table_args__ = (Index("ix_seats_bot", "bot_id"),)

    game_id: str = Field(sa_column=Column(String, ForeignKey("games.id"), primary_key=True))
    seat: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    bot_id: int = Field(sa_column=Column(Integer, ForeignKey("bots.id"), nullable=False))
    rank: int | None = None
    score: int | None = None


class Ladder(Table, table=True):
    """A long-lived league for one game: bots are submitted, matched, rated as games are stored."""

    __tablename__ = "ladders"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_column=Column(String, unique=True, nullable=False))
    game: str
    players: int
    created_at: str
    rating: str = Field(default="elo", description="the rating model: elo or openskill")
    publish: str = Field(default="spectator", description="spectator or full: the view of its finished games "
                         "anyone may see (added with the owners revision)")
    divisions: str | None = Field(default=None, description="its divisions, lowest first, as a JSON list of names "
                                  "(None: no divisions; revision 0016)")


class LadderEntry(Table, table=True):
    """A bot version submitted to a ladder, with its incremental rating (a fold of its games)."""

    __tablename__ = "ladder_entries"
    __table_args__ = (
        UniqueConstraint("ladder_id", "bot_id", name="uq_ladder_entries_bot"),
        Index("ix_ladder_entries_ladder", "ladder_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    ladder_id: int = Field(sa_column=Column(Integer, ForeignKey("ladders.id"), nullable=False))
    bot_id: int = Field(sa_column=Column(Integer, ForeignKey("bots.id"), nullable=False))
    name: str
    version: int
    status: str = Field(description="active or retired")
    rating: float = Field(description="Elo, or OpenSkill's mu")
    games: int = 0
    submitted_at: str
    sigma: float | None = Field(default=None, description="OpenSkill's sigma (None for Elo)")
    joined_after: int = Field(default=0, description="the ladder's last game seq when this version was submitted")
    language: str | None = Field(default=None, description="what the version is written in, as tourney told it when "
                                 "it was listed (None: listed before revision 0017)")
    description: str | None = Field(default=None, sa_column=Column(Text, nullable=True),
                                    description="its author's words on it (revision 0017)")


class BotArchive(Table, table=True):
    """The files of a submitted bot (a zip), so a ladder can run it long after submission."""

    __tablename__ = "bot_archives"

    bot_id: int = Field(sa_column=Column(Integer, ForeignKey("bots.id"), primary_key=True))
    entry_point: str = Field(description="the file to run (or import) inside the archive")
    archive: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class LadderGame(Table, table=True):
    """A game played on a ladder; seq orders the rating fold."""

    __tablename__ = "ladder_games"
    __table_args__ = (Index("ix_ladder_games_ladder", "ladder_id"),)

    seq: int | None = Field(default=None, primary_key=True)
    ladder_id: int = Field(sa_column=Column(Integer, ForeignKey("ladders.id"), nullable=False))
    game_id: str = Field(sa_column=Column(String, ForeignKey("games.id"), unique=True, nullable=False))


class LadderRating(Table, table=True):
    """An entry's rating after one ladder game (the history `ladder history` shows)."""

    __tablename__ = "ladder_ratings"
    __table_args__ = (Index("ix_ladder_ratings_entry", "entry_id", "game_seq"),)

    game_seq: int = Field(sa_column=Column(Integer, ForeignKey("ladder_games.seq"), primary_key=True))
    entry_id: int = Field(sa_column=Column(Integer, ForeignKey("ladder_entries.id"), primary_key=True))
    rank: int
    rating: float
    sigma: float | None = None


class LadderEvent(Table, table=True):
    """A fact an operator adds to a ladder: a game voided (no longer rated) or a bot version retired.

    Append-only (revision 0003's triggers refuse UPDATE and DELETE): the rating fold reads them.
    """

    __tablename__ = "ladder_events"
    __table_args__ = (Index("ix_ladder_events_ladder", "ladder_id"),)

    seq: int | None = Field(default=None, primary_key=True)
    ladder_id: int = Field(sa_column=Column(Integer, ForeignKey("ladders.id"), nullable=False))
    kind: str = Field(description="void, retire, boss, promote or relegate")
    game_id: str | None = Field(default=None, sa_column=Column(String, ForeignKey("games.id"), nullable=True))
    entry_id: int | None = Field(default=None, sa_column=Column(Integer, ForeignKey("ladder_entries.id"),
                                                               nullable=True))
    reason: str
    created_at: str
    division: str | None = Field(default=None, description="boss: the division it guards; promote, relegate: the "
                                 "division the entry moves to (revision 0016)")
    after_seq: int | None = Field(default=None, description="the ladder's last game seq when the fact was appended: "
                                  "where the membership fold applies it (revision 0016)")


class LedgerKey(Table, table=True):
    """The public half of the ledger's signing key (the private half lives outside the database)."""

    __tablename__ = "ledger_keys"

    id: int | None = Field(default=None, primary_key=True)
    public_key: str = Field(description="raw Ed25519 public key, hex")
    signs_from: int = Field(description="the first store_seq it signed: every game from there on is signed")
    created_at: str


class Checkpoint(Table, table=True):
    """A signed root over the first ``games`` games of a tournament or a ladder, in their order.

    Append-only (revision 0005's triggers refuse UPDATE and DELETE).
    """

    __tablename__ = "checkpoints"
    __table_args__ = (Index("ix_checkpoints_tournament", "tournament_id"), Index("ix_checkpoints_ladder", "ladder_id"))

    seq: int | None = Field(default=None, primary_key=True)
    tournament_id: int | None = Field(default=None, sa_column=Column(Integer, ForeignKey("tournaments.id"),
                                                                     nullable=True))
    ladder_id: int | None = Field(default=None, sa_column=Column(Integer, ForeignKey("ladders.id"), nullable=True))
    games: int = Field(description="how many games the root covers (the first ones, in order)")
    through: int = Field(description="the order number (store_seq, or ladder seq) of the last game covered")
    root: str
    state: str = Field(description="complete (every scheduled game) or open")
    signature: str
    created_at: str


class LadderSession(Table, table=True):
    """One `ladder play` run: the seed its matchmaking and deals come from, committed, then revealed."""

    __tablename__ = "ladder_sessions"
    __table_args__ = (Index("ix_ladder_sessions_ladder", "ladder_id"),)

    id: int | None = Field(default=None, primary_key=True)
    ladder_id: int = Field(sa_column=Column(Integer, ForeignKey("ladders.id"), nullable=False))
    seed_commitment: str
    seed: str | None = Field(default=None, description="revealed when the session ends (at once if chosen)")
    seed_origin: str = Field(description="organiser (--seed) or drawn (secret until the end)")
    seed_nonce: str | None = None
    started_at: str
    ended_at: str | None = None
    planned: int | None = Field(default=None, description="games to play (None: a session of before the queue)")
    batch: int | None = Field(default=None, description="deals queued at a time, matchmade at the ratings then")
    deals: int = Field(default=0, sa_column=Column(Integer, nullable=False, server_default="0"))


class LadderMatch(Table, table=True):
    """One deal of a session at one table, waiting in the queue, claimed by a worker, or stored.

    A worker holds a match while its lease (on the database's clock) runs; it renews the lease
    while it plays, and stores the match's games in the transaction that marks it stored, only
    if it still holds it. A match whose lease ran out may be claimed by another worker.
    """

    __tablename__ = "ladder_matches"
    __table_args__ = (UniqueConstraint("session_id", "deal", name="uq_ladder_matches_deal"),
                      Index("ix_ladder_matches_status", "ladder_id", "status"))

    id: int | None = Field(default=None, primary_key=True)
    ladder_id: int = Field(sa_column=Column(Integer, ForeignKey("ladders.id"), nullable=False))
    session_id: int = Field(sa_column=Column(Integer, ForeignKey("ladder_sessions.id"), nullable=False))
    deal: int
    entries: str = Field(description="JSON list of the table's ladder entries, in the seats of rotation 0")
    status: str = Field(description="queued, playing, stored or cancelled")
    worker: str | None = None
    attempts: int = 0
    lease_until: float | None = Field(default=None, description="seconds since 1970 on the database's clock")
    created_at: str
    claimed_at: str | None = None
    stored_at: str | None = None


class Owner(Table, table=True):
    """Someone who submits bots through the HTTP API; only the SHA-256 of their token is stored."""

    __tablename__ = "owners"
    __table_args__ = (Index("uq_owners_name_form", "name_form", unique=True),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_column=Column(String, unique=True, nullable=False))
    name_form: str | None = Field(default=None,
                                  description="what the name reads as (ledger.rows.owner_rows.name_form); "
                                  "None only for a name that read as an older one before revision 0010")
    token_hash: str = Field(sa_column=Column(String, unique=True, nullable=False))
    created_at: str


class BotOwner(Table, table=True):
    """A bot name and the owner who claimed it: only they may submit versions under it."""

    __tablename__ = "bot_owners"
    __table_args__ = (Index("ix_bot_owners_owner", "owner_id"),
                      Index("uq_bot_owners_name_form", "name_form", unique=True))

    name: str = Field(primary_key=True)
    name_form: str | None = Field(default=None,
                                  description="what the name reads as (ledger.rows.owner_rows.name_form); "
                                  "None only for a name that read as an older one before revision 0010")
    owner_id: int = Field(sa_column=Column(Integer, ForeignKey("owners.id"), nullable=False))
    claimed_at: str


class Submission(Table, table=True):
    """An uploaded bot waiting for (or done with) its validation game, which a worker plays."""

    __tablename__ = "submissions"
    __table_args__ = (Index("ix_submissions_status", "ladder_id", "status"),
                      Index("ix_submissions_owner", "owner_id", "created_at"))

    id: int | None = Field(default=None, primary_key=True)
    ladder_id: int = Field(sa_column=Column(Integer, ForeignKey("ladders.id"), nullable=False))
    owner_id: int = Field(sa_column=Column(Integer, ForeignKey("owners.id"), nullable=False))
    name: str
    filename: str
    entry_point: str
    upload: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    status: str = Field(description="pending, validating, listed or refused")
    reason: str | None = None
    entry_id: int | None = Field(default=None, sa_column=Column(Integer, ForeignKey("ladder_entries.id"),
                                                               nullable=True))
    created_at: str
    claimed_at: str | None = None
    decided_at: str | None = None
    attempts: int = Field(default=0, sa_column=Column(Integer, nullable=False, server_default="0"),
                          description="how many times a worker claimed it for validation (added with revision 0009)")
    diagnosis: str | None = Field(default=None, sa_column=Column(Text, nullable=True),
                                  description="a refused bot's traceback or last stderr lines, for its owner "
                                              "(added with revision 0014)")
    diagnosis_kind: str | None = Field(default=None, description="the diagnosis' kind, traceback or stderr (revision "
                                                                 "0022; NULL before it)")
    diagnosis_summary: str | None = Field(default=None, sa_column=Column(Text, nullable=True),
                                          description="the diagnosis' one line, as the forfeit told it (revision 0022)")
    description: str | None = Field(default=None, sa_column=Column(Text, nullable=True),
                                    description="its author's words on the bot, listed with it (revision 0017)")


class ValidationGame(Table, table=True):
    """A submission's validation game, kept for its owner (issue 40 item 2; revision 0015): its whole log,
    canonical JSON compressed with zstd. Kept apart from ``games`` on purpose, so that no list, standing,
    rating, read model or audit of ladder and tournament games can ever count or show one."""

    __tablename__ = "validation_games"

    submission_id: int = Field(sa_column=Column(Integer, ForeignKey("submissions.id"), primary_key=True,
                                                autoincrement=False))
    number: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False),
                        description="1, 2, ...: the validation games in the order they were played")
    game_id: str
    seat: int = Field(description="the seat the submitted bot sat in")
    log: bytes = Field(sa_column=Column(LargeBinary, nullable=False), description="the full log, zstd")
    created_at: str


class BotLog(Table, table=True):
    """The end of a bot process's stderr in one game (its owner may read it)."""

    __tablename__ = "bot_logs"

    game_id: str = Field(sa_column=Column(String, ForeignKey("games.id"), primary_key=True))
    seat: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    stderr: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class Diagnosis(Table, table=True):
    """Why a seat's bot forfeited a game, in its own terms (its owner may read it): a Python bot's traceback,
    or a program's last stderr lines; ``log`` is where --bot-logs wrote its whole stderr (revision 0014)."""

    __tablename__ = "diagnoses"

    game_id: str = Field(sa_column=Column(String, ForeignKey("games.id"), primary_key=True))
    seat: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    kind: str = Field(description="traceback or stderr")
    summary: str = Field(description="one line")
    detail: str = Field(sa_column=Column(Text, nullable=False))
    log: str | None = None


class WebSession(Table, table=True):
    """An owner signed in in a browser (`tourney serve`): only the SHA-256 of the cookie's secret is kept,
    with the hash of the API token it was opened with (a new token ends it) and when it expires."""

    __tablename__ = "web_sessions"
    __table_args__ = (Index("ix_web_sessions_expires", "expires_at"),)

    id: int | None = Field(default=None, primary_key=True)
    secret_hash: str = Field(sa_column=Column(String, unique=True, nullable=False))
    owner_id: int = Field(sa_column=Column(Integer, ForeignKey("owners.id"), nullable=False))
    token_hash: str
    created_at: str
    expires_at: str

