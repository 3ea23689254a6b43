"""The read models' tables (revision 0013; ledger/read_models.py keeps and reads them): derived from the games,
kept as each lands, audited by `tourney db audit`. No foreign keys: derived rows never stand in the way of the rows
they come from. ledger.models imports them, so that every table is on SQLModel.metadata when the ledger's are."""

from __future__ import annotations

from pydantic import ConfigDict
from sqlalchemy import Column, Float, Index, Integer
from sqlmodel import Field, SQLModel


class Table(SQLModel):
    """The base of every ledger table (here and in ledger.models). Its rows are written and read through SQLAlchemy,
    never validated or serialized by pydantic, so pydantic builds a table's validator on first use, never at import:
    importing the 38 tables took 117-162 ms of CPU in place of 135-205 (least of 15, two runs side by side on a slow
    machine), in every command that opens a ledger."""

    model_config = ConfigDict(defer_build=True)


class ReadModelPosition(Table, table=True):
    """Up to which store_seq every finished game is counted in the read models."""

    __tablename__ = "read_model_positions"

    name: str = Field(primary_key=True)
    position: int = Field(sa_column=Column(Integer, nullable=False))


class GameResult(Table, table=True):
    """A counted game: its number, where it was played (tournament; ladder and its number there), who forfeited."""

    __tablename__ = "game_results"
    __table_args__ = (
        Index("ix_game_results_store_seq", "store_seq", unique=True),
        Index("ix_game_results_tournament", "tournament_id", "store_seq"),
        Index("ix_game_results_ladder", "ladder_id", "store_seq"),
        Index("ix_game_results_ladder_number", "ladder_id", "ladder_number"),
    )

    game_id: str = Field(primary_key=True)
    store_seq: int = Field(sa_column=Column(Integer, nullable=False))
    tournament_id: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))
    ladder_id: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))
    ladder_number: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))
    created_at: str
    forfeit_seat: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))


class SeatResult(Table, table=True):
    """A counted game's seat: its bot (version and name), rank, result (win, draw or loss) and forfeit."""

    __tablename__ = "seat_results"
    __table_args__ = (Index("ix_seat_results_bot", "bot", "store_seq"),)

    game_id: str = Field(primary_key=True)
    seat: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    store_seq: int = Field(sa_column=Column(Integer, nullable=False))
    bot_id: int = Field(sa_column=Column(Integer, nullable=False))
    bot: str
    rank: int = Field(sa_column=Column(Integer, nullable=False))
    result: str
    forfeited: int = Field(sa_column=Column(Integer, nullable=False))


class TournamentStanding(Table, table=True):
    """A bot's sums in a tournament: games, first places, places, forfeits, half points and their squares."""

    __tablename__ = "tournament_standings"

    tournament_id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    bot: str = Field(primary_key=True)
    games: int
    firsts: int
    places: int
    forfeits: int
    points2: int
    points2_sq: int


class TournamentPair(Table, table=True):
    """Wins, draws and losses of a bot against another in a tournament, per pair of seats."""

    __tablename__ = "tournament_pairs"

    tournament_id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    bot: str = Field(primary_key=True)
    opponent: str = Field(primary_key=True)
    wins: int
    draws: int
    losses: int


class PlaceGames(Table, table=True):
    """How many games the read models count in one place, with a forfeit or without (revision 0021): in every game
    (``tournament_id`` and ``ladder_id`` 0), in one tournament's (``ladder_id`` 0) or in one ladder's
    (``tournament_id`` 0, voided games too: they stay listed). A list's total, the list of tournaments and a kept
    fit's stamp read these few rows, where a count of the games reads every one of them."""

    __tablename__ = "place_games"

    tournament_id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    ladder_id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    forfeited: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    games: int = Field(sa_column=Column(Integer, nullable=False))


class BotSeatRecord(Table, table=True):
    """A bot's (by name) results from one seat, over every finished game."""

    __tablename__ = "bot_seats"

    bot: str = Field(primary_key=True)
    seat: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    games: int
    wins: int
    draws: int
    losses: int


class BotOpponentRecord(Table, table=True):
    """A bot's (by name) results against another, game by game, over every finished game."""

    __tablename__ = "bot_opponents"

    bot: str = Field(primary_key=True)
    opponent: str = Field(primary_key=True)
    games: int
    wins: int
    draws: int
    losses: int
    points: float


class BotResult(Table, table=True):
    """How many seats a bot (by name) had with one result (win, draw or loss) and forfeit or not (revision 0020):
    in every game (``tournament_id`` and ``ladder_id`` 0), in one tournament's (``ladder_id`` 0) or in one ladder's
    (``tournament_id`` 0, voided games too): a list of a bot's games counts its total from a few of these rows."""

    __tablename__ = "bot_results"

    bot: str = Field(primary_key=True)
    tournament_id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    ladder_id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    result: str = Field(primary_key=True)
    forfeited: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    seats: int = Field(sa_column=Column(Integer, nullable=False))


class LadderRecord(Table, table=True):
    """A ladder entry's rated games: wins, draws, losses, forfeits, half points, when it last played."""

    __tablename__ = "ladder_records"
    __table_args__ = (Index("ix_ladder_records_ladder", "ladder_id"),)

    entry_id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    ladder_id: int = Field(sa_column=Column(Integer, nullable=False))
    wins: int
    draws: int
    losses: int
    forfeits: int
    points2: int
    points2_sq: int
    last_played: str | None = None


class LadderPair(Table, table=True):
    """Wins, draws and losses of a ladder entry against another in rated games, per pair of seats."""

    __tablename__ = "ladder_pairs"
    __table_args__ = (Index("ix_ladder_pairs_ladder", "ladder_id"),)

    entry_id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    opponent_id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    ladder_id: int = Field(sa_column=Column(Integer, nullable=False))
    wins: int
    draws: int
    losses: int


class LadderSnapshot(Table, table=True):
    """A ladder's sums kept as of its game ``number`` (revision 0019, ledger/ladder_snapshots.py): the mark that the
    snapshot is whole, and how many rows it has (which spaces the next)."""

    __tablename__ = "ladder_snapshots"

    ladder_id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    number: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    row_count: int = Field(sa_column=Column(Integer, nullable=False))


class LadderSnapshotRow(Table, table=True):
    """One row of a ladder's snapshot: an entry's record (``opponent_id`` 0: wins, draws, losses, forfeits, when it
    last played) or its wins, draws and losses against another entry, over the rated games numbered up to
    ``number``."""

    __tablename__ = "ladder_snapshot_rows"

    ladder_id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    number: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    entry_id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    opponent_id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    wins: int = Field(sa_column=Column(Integer, nullable=False))
    draws: int = Field(sa_column=Column(Integer, nullable=False))
    losses: int = Field(sa_column=Column(Integer, nullable=False))
    forfeits: int = Field(sa_column=Column(Integer, nullable=False))
    last_played: str | None = None


class TournamentFit(Table, table=True):
    """A tournament's Elo fit per bot (revision 0018, ledger/read_fits.py): its rating, 95% interval and score,
    stamped by the tournament's games it counts (their number and the newest's store_seq). A memo of the pairs,
    not a fold of the games: read while its stamp is the tournament's, refitted when it is not."""

    __tablename__ = "tournament_fits"

    tournament_id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    bot: str = Field(primary_key=True)
    elo: float = Field(sa_column=Column(Float, nullable=False))
    ci_low: float = Field(sa_column=Column(Float, nullable=False))
    ci_high: float = Field(sa_column=Column(Float, nullable=False))
    score: float = Field(sa_column=Column(Float, nullable=False))
    games: int = Field(sa_column=Column(Integer, nullable=False))
    store_seq: int = Field(sa_column=Column(Integer, nullable=False))
    fitted_at: str
