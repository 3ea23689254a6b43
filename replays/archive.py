"""Moving games between the ledger and JSON log files (export and import)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ledger import dialect
from ledger.canonical import canonical, loads
from ledger.rows import ladder_rows, tournament_rows
from ledger.store import DamagedGame, FinishedGame, GameExists, Ledger, SeatRow
from replays import log as logfmt
from replays import signing
from replays.record import Recorded, forfeit_seat
from replays.verify import read_file, verify_log


@dataclass(frozen=True, slots=True)
class Imported:
    game_id: str
    events: int
    new: bool
    tournament: str | None = None
    """The tournament the game is stored in (for a game already stored: where it was, a ladder's games in none)."""
    place: str | None = None
    """Where the game is stored, as import prints it: a tournament's name, ``ladder NAME`` (None: in neither)."""


def export(ledger: Ledger, game_id: str) -> dict[str, Any]:
    """The full-view log of a stored game, carrying the ledger key's signature of its head (if it has one)."""
    with ledger.read() as connection:
        game = ledger.game(game_id, connection)
        if game is None:
            raise logfmt.LogError(f"no game {game_id} in {ledger.url}")
        seats = ledger.seats(game_id, connection)
        try:
            records = ledger.records(game_id, connection)
        except DamagedGame as error:  # a sealed block that does not open: what verify reports, as a broken chain is
            raise logfmt.LogError(str(error)) from None
        public = ledger.public_key(connection) if game["signature"] else None
    header = [{"seat": s["seat"], "bot": s["bot"], "hash": s["hash"]} for s in seats]
    if not header and records:  # a game still playing has no seat rows yet: its hashed game_started names them
        header = loads(records[0].body)["data"].get("seats", [])
    log = logfmt.build(game_id, game["game"], game["engine_version"], loads(game["config"]), header, records)
    if public is not None:
        log["signature"] = signing.signature(public, game["signature"])
    return log


def labels(ledger: Ledger, game_id: str) -> dict[str, str]:
    """Where a stored game was played, for a text record's label tags: Event (its tournament's or ladder's name),
    Date (the UTC day it was stored) and Key (its place in its tournament's schedule), each where known."""
    game = ledger.game(game_id)
    if game is None:
        raise logfmt.LogError(f"no game {game_id} in {ledger.url}")
    out = {"Date": str(game["created_at"])[:10]}
    if game["tournament_id"] is not None:
        out["Event"] = tournament_rows.get(ledger, str(game["tournament_id"]))["name"]
    else:
        ladder = ladder_rows.ladder_of_game(ledger, game_id)
        if ladder is not None:
            out["Event"] = ladder["name"]
    if game["game_key"] is not None:
        out["Key"] = game["game_key"]
    return out


def import_file(ledger: Ledger, path: str | Path, tournament: str | None = None,
                public_key: bytes | None = None) -> Imported:
    """``import_log`` of a JSON log file or a text record (a record's failure named by its line); LogError, before a
    byte is read, for the ledger's own database or a file SQLite keeps beside it (a shell's ``*`` names them)."""
    what = dialect.database_file(path, ledger.path)
    if what is not None:
        raise logfmt.LogError(f"{path}: {what}, not a log: only SQLite opens it")
    log, rebuilt = read_file(path)
    try:
        return import_log(ledger, log, str(path), tournament or f"imported-{log.get('game')}", public_key)
    except logfmt.LogError as error:
        if rebuilt is None:
            raise
        raise rebuilt.located(error) from None


def import_log(ledger: Ledger, log: dict[str, Any], name: str = "log", tournament: str | None = None,
               public_key: bytes | None = None) -> Imported:
    """Verify a full log completely and store it; the same log twice stores one game.

    With ``tournament``, the game is recorded as that tournament's (one that collects imports,
    made if new), so standings can be computed from imported games. With ``public_key`` (raw
    Ed25519), the log must carry a valid signature by that key. Nothing of a log that fails
    verification is stored.
    """
    verify_log(log, name, public_key)
    if log.get("view") != "full" or any("private" not in e for e in log["events"] if e.get("commitment")):
        raise logfmt.LogError(f"{name}: only full logs can be imported; this is a {log.get('view')} view")
    records = logfmt.records_of(log, name)
    game_id = log["game_id"]
    last = log["events"][-1]
    if last["type"] != "game_ended":
        raise logfmt.LogError(f"{name}: the game did not end (last event is {last['type']}); nothing stored")
    ranking = last["data"]["ranking"]
    with ledger.write() as connection:
        existing = ledger.game(game_id, connection)
        if existing is not None and existing["head"] != log["head"]:
            raise GameExists(f"{name}: game {game_id} is already stored with a different history "
                             f"(head {existing['head']})")
        if existing is None:
            seats = [
                SeatRow(s["seat"], ledger.ensure_bot(s["bot"], s["hash"], "imported", connection), ranking[i], None)
                for i, s in enumerate(log["seats"])
            ]
            game = {
                "id": game_id,
                "game": log["game"],
                "engine_version": log["engine_version"],
                "config": canonical(log["config"]).decode(),
                "seed_commitment": log["seed_commitment"],
            }
            if tournament is not None:
                game["tournament_id"] = tournament_rows.collecting_imports(
                    connection, tournament, log["game"], [seat.bot_id for seat in seats])
                game["game_key"] = game_id
            ledger.store_game(game, records, log["seed"], last["data"]["reason"], seats, connection,
                              forfeit_seat(records))
    if existing is not None:
        return _already_stored(ledger, existing, len(records))
    return Imported(game_id, len(records), True, tournament, tournament)


def _already_stored(ledger: Ledger, game: dict[str, Any], events: int) -> Imported:
    """A game stored before, named by where it really is (not the tournament the import would have put it in)."""
    if game["tournament_id"] is not None:
        name = tournament_rows.get(ledger, str(game["tournament_id"]))["name"]
        return Imported(game["id"], events, False, name, name)
    ladder = ladder_rows.ladder_of_game(ledger, game["id"])
    return Imported(game["id"], events, False, None, None if ladder is None else f"ladder {ladder['name']}")


def store_recorded(ledger: Ledger, recorded: Recorded, bot_ids: list[int], scores: list[int] | None = None,
                   tournament_id: int | None = None, game_key: str | None = None, connection=None) -> str:
    """Store a game just recorded, in one transaction; returns its head hash."""
    return ledger.store_games([finished_game(recorded, bot_ids, scores, tournament_id, game_key)], connection)[0]


def finished_game(recorded: Recorded, bot_ids: list[int], scores: list[int] | None = None,
                  tournament_id: int | None = None, game_key: str | None = None) -> FinishedGame:
    """A game just recorded, as the ledger stores it (``Ledger.store_games`` stores many in one go)."""
    game = {
        "id": recorded.game_id,
        "game": recorded.game,
        "engine_version": recorded.engine_version,
        "config": canonical(recorded.config).decode(),
        "seed_commitment": recorded.seed_commitment,
        "tournament_id": tournament_id,
        "game_key": game_key,
    }
    seats = [
        SeatRow(i, bot_id, recorded.ranking[i], None if scores is None else scores[i])
        for i, bot_id in enumerate(bot_ids)
    ]
    return FinishedGame(game, recorded.records, recorded.seed, recorded.reason, seats, recorded.salt_key,
                        forfeit_seat(recorded.records))
