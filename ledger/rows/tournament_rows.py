"""Tournament rows: entrants, games, the seed (committed, then revealed), the checkpoint scope (no game knowledge)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.engine import Connection

from ledger import read_fits, read_models, seeds
from ledger.canonical import canonical, loads
from ledger.checkpoints import TOURNAMENT, Scope
from ledger.models import Tournament
from ledger.rows import listed, named
from ledger.store import Ledger, LedgerError, now

IMPORTED = "imported"
"""The kind (in its spec) of a tournament that collects imported games rather than playing them."""


class UnknownTournament(LedgerError):
    """No tournament with that id or name."""


def create(ledger: Ledger, name: str, game: str, spec: str, seed: str, bot_ids: Sequence[int],
           committed: seeds.Committed | None = None) -> int:
    """Store a tournament and its entrants; LedgerError if the name is taken.

    A drawn seed (``committed.secret``) is not stored: ``seed`` is then stored as "" until
    ``reveal``; the commitment and nonce are.
    """
    committed = committed or seeds.chosen(seed)
    with ledger.write() as connection:
        if connection.execute(select(Tournament.id).where(Tournament.name == name)).first() is not None:
            raise LedgerError(f"a tournament named {name!r} already exists")
        tournament_id = connection.execute(text(
            "INSERT INTO tournaments (name, game, spec, seed, created_at, seed_commitment, seed_origin, seed_nonce) "
            "VALUES (:name, :game, :spec, :seed, :created_at, :seed_commitment, :seed_origin, :seed_nonce) "
            "RETURNING id"),
            {"name": name, "game": game, "spec": spec, "seed": "" if committed.secret else seed, "created_at": now(),
             "seed_commitment": committed.commitment, "seed_origin": committed.origin,
             "seed_nonce": committed.nonce},
        ).scalar_one()
        connection.execute(
            text("INSERT INTO tournament_bots (tournament_id, bot_id) VALUES (:tournament_id, :bot_id)"),
            [{"tournament_id": tournament_id, "bot_id": bot_id} for bot_id in sorted(set(bot_ids))],
        )
        return tournament_id


def collecting_imports(connection: Connection, name: str, game: str, bot_ids: Sequence[int]) -> int:
    """The id of the tournament ``name`` that imported games of ``game`` are recorded in (made if
    new), with ``bot_ids`` among its entrants; LedgerError for a played tournament or another game."""
    row = connection.execute(text("SELECT id, game, spec FROM tournaments WHERE name = :name"), {"name": name}).first()
    if row is None:
        tournament_id = connection.execute(text(
            "INSERT INTO tournaments (name, game, spec, seed, created_at) "
            "VALUES (:name, :game, :spec, '', :created_at) RETURNING id"),
            {"name": name, "game": game, "spec": canonical({"kind": IMPORTED, "game": game}).decode(),
             "created_at": now()}).scalar_one()
    else:
        tournament_id, stored_game, spec = row
        if loads(spec).get("kind") != IMPORTED:
            raise LedgerError(f"tournament {name!r} was played in this database: imported games go to another "
                              "--tournament")
        if stored_game != game:
            raise LedgerError(f"tournament {name!r} holds {stored_game} games, not {game}")
    connection.execute(text(
        "INSERT INTO tournament_bots (tournament_id, bot_id) VALUES (:tournament_id, :bot_id) ON CONFLICT DO NOTHING"),
        [{"tournament_id": tournament_id, "bot_id": bot_id} for bot_id in sorted(set(bot_ids))])
    return tournament_id


def kind(row: dict[str, Any]) -> str:
    """"played" for a tournament run here, IMPORTED for one that collects imported games."""
    return loads(row["spec"]).get("kind", "played")


def find(ledger: Ledger, ref: str) -> dict[str, Any] | None:
    """A tournament by id (digits) or by name, as a dict; None if there is none."""
    table = Tournament.__table__
    with ledger.read() as connection:
        row = None
        # ASCII digits that fit an SQL integer: "²" and a 30-digit number are names, never ids.
        if ref.isascii() and ref.isdigit() and len(ref) <= 18:
            row = connection.execute(select(table).where(table.c.id == int(ref))).mappings().first()
        if row is None:
            row = connection.execute(select(table).where(table.c.name == ref)).mappings().first()
        return dict(row) if row is not None else None


def get(ledger: Ledger, ref: str) -> dict[str, Any]:
    """Like ``find``, but UnknownTournament (listing what exists) when absent."""
    found = find(ledger, ref)
    if found is None:
        with ledger.read() as connection:
            names = [r[0] for r in connection.execute(text("SELECT name FROM tournaments ORDER BY id DESC LIMIT 5"))]
        hint = f" (recent: {', '.join(names)})" if names else " (the database has none)"
        raise UnknownTournament(f"no tournament {ref!r} in {ledger.url}{hint}")
    return found


def latest(ledger: Ledger) -> dict[str, Any] | None:
    with ledger.read() as connection:
        row = connection.execute(text("SELECT id FROM tournaments ORDER BY id DESC LIMIT 1")).first()
    return find(ledger, str(row[0])) if row else None


def entrants(ledger: Ledger, tournament_id: int) -> dict[str, int]:
    """A tournament's bots: name -> bot id (the short id tables show), the first version of a name that has several."""
    with ledger.read() as connection:
        rows = connection.execute(text(
            "SELECT b.name, b.id FROM tournament_bots t JOIN bots b ON b.id = t.bot_id "
            "WHERE t.tournament_id = :tournament_id ORDER BY b.id DESC"), {"tournament_id": tournament_id}).all()
    return dict(rows)


def game_keys(ledger: Ledger, tournament_id: int) -> set[str]:
    """Keys of the games of a tournament already stored (each stored whole, so finished)."""
    with ledger.read() as connection:
        rows = connection.execute(text("SELECT game_key FROM games WHERE tournament_id = :tournament_id"),
                                  {"tournament_id": tournament_id})
        return {row[0] for row in rows}


def first_game_id(ledger: Ledger, tournament_id: int) -> str | None:
    """``game_ids(...)[0]`` (None: no game), without reading the others."""
    with ledger.read() as connection:
        return connection.execute(text("SELECT id FROM games WHERE tournament_id = :tournament_id ORDER BY game_key "
                                       "LIMIT 1"), {"tournament_id": tournament_id}).scalar()


def game_ids(ledger: Ledger, tournament_id: int) -> list[str]:
    with ledger.read() as connection:
        rows = connection.execute(text(
            "SELECT id FROM games WHERE tournament_id = :tournament_id ORDER BY game_key"),
            {"tournament_id": tournament_id})
        return [row[0] for row in rows]


SUMMARY = ("SELECT t.id, t.name, t.game, t.spec, t.created_at, "
           "(SELECT COUNT(*) FROM tournament_bots b WHERE b.tournament_id = t.id), "
           f"{read_fits.kept_games('t.id')} FROM tournaments t")
SUMMARY_KEYS = ("id", "name", "game", "spec", "created_at", "bots", "games")


def all_tournaments(ledger: Ledger, counted: bool = False) -> list[dict[str, Any]]:
    """Every tournament with its entrants and its finished games (as the read models count them: a kept count, not
    a count of its games), oldest first. ``counted``: where the games are shown, refuse unless the read models
    count every game (``rows.listed``)."""
    return listed(ledger, f"{SUMMARY} ORDER BY t.id", SUMMARY_KEYS, counted=counted)


def newest(ledger: Ledger, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
    """One page of the tournaments, newest first, as ``all_tournaments`` gives them, and how many there are."""
    with ledger.read() as connection:
        read_models.require_current(connection)  # the games shown are the read models' count
        total = connection.execute(text("SELECT COUNT(*) FROM tournaments")).scalar()
        rows = connection.execute(text(f"{SUMMARY} ORDER BY t.id DESC LIMIT :limit OFFSET :offset"),
                                  {"limit": limit, "offset": offset})
        return named(SUMMARY_KEYS, rows), total


def summary(ledger: Ledger, tournament_id: int) -> dict[str, Any]:
    """One tournament as ``all_tournaments`` gives it."""
    with ledger.read() as connection:
        read_models.require_current(connection)
        row = connection.execute(text(f"{SUMMARY} WHERE t.id = :id"), {"id": tournament_id}).first()
        return dict(zip(SUMMARY_KEYS, row, strict=True))


def scope(row: dict[str, Any]) -> Scope:
    """What a tournament's checkpoints cover."""
    return Scope(TOURNAMENT, row["id"], row["name"])


def committed(row: dict[str, Any]) -> seeds.Committed | None:
    """What a tournament row keeps of its seed (None: imported games, or a row with no seed at all)."""
    if row.get("seed_origin") is None:
        return None
    return seeds.Committed(row["seed_origin"], row["seed_commitment"] or seeds.commitment(row["seed"]),
                           row.get("seed_nonce"))


def revealed(row: dict[str, Any]) -> str | None:
    """The tournament's seed, if it may be shown: chosen by the organiser, or drawn and revealed."""
    return row["seed"] or None


def reveal(ledger: Ledger, tournament_id: int, seed: str) -> bool:
    """Store a drawn seed at the end of its tournament; False if it was revealed already.

    LedgerError if it is not the committed seed (never stored then).
    """
    with ledger.write() as connection:
        row = connection.execute(text(
            "SELECT seed, seed_commitment FROM tournaments WHERE id = :id"), {"id": tournament_id}).first()
        if row is None or row[0]:
            return False
        if seeds.commitment(seed) != row[1]:
            raise LedgerError(f"tournament {tournament_id}: the seed to reveal does not match its commitment")
        connection.execute(text("UPDATE tournaments SET seed = :seed WHERE id = :id"),
                           {"seed": seed, "id": tournament_id})
        return True
