"""Moving games between the ledger and JSON log files (export and import)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ledger.canonical import canonical, loads
from ledger.chain import ChainError, verify_chain
from ledger.store import GameExists, Ledger, SeatRow
from replays import log as logfmt
from replays.record import Recorded, seed_commitment


@dataclass(frozen=True, slots=True)
class Imported:
    game_id: str
    events: int
    new: bool


def export(ledger: Ledger, game_id: str) -> dict[str, Any]:
    """The full-view log of a stored game."""
    with ledger.read() as connection:
        game = ledger.game(game_id, connection)
        if game is None:
            raise logfmt.LogError(f"no game {game_id} in {ledger.url}")
        seats = ledger.seats(game_id, connection)
        records = ledger.records(game_id, connection)
    return logfmt.build(
        game_id, game["game"], game["engine_version"], loads(game["config"]),
        [{"seat": s["seat"], "bot": s["bot"], "hash": s["hash"]} for s in seats], records,
    )


def check(log: dict[str, Any], name: str = "log") -> None:
    """The checks a log must pass before it is stored: shape, chain, header, seed, result.

    Raises LogError naming the first bad seq.
    """
    logfmt.check_shape(log, name)
    records = logfmt.records_of(log, name)
    try:
        head = verify_chain(log["game_id"], records)
    except ChainError as error:
        raise logfmt.LogError(f"{name}: game {log['game_id']}: {error}", error.seq) from None
    if head != log["head"]:
        raise logfmt.LogError(f"{name}: head {log['head']} is not the last event's hash {head}",
                              len(records) - 1)
    started = logfmt.started(log)
    for key in ("game", "engine_version", "config", "seed_commitment"):
        if started.get(key) != log[key]:
            raise logfmt.LogError(f"{name}: seq 0: {key} is {started.get(key)!r} in the hashed events "
                                  f"but {log[key]!r} in the header", 0)
    seats = [{"seat": s["seat"], "bot": s["bot"], "hash": s["hash"]} for s in log["seats"]]
    if started.get("seats") != seats:
        raise logfmt.LogError(f"{name}: seq 0: the seats in the header differ from the hashed seats", 0)
    last = log["events"][-1]
    if last["type"] == "game_ended":
        ended = last["data"]
        if seed_commitment(str(ended.get("seed"))) != log["seed_commitment"]:
            raise logfmt.LogError(f"{name}: seq {last['seq']}: the revealed seed does not match its commitment",
                                  last["seq"])
        if log.get("seed") != ended.get("seed"):
            raise logfmt.LogError(f"{name}: seq {last['seq']}: the header's seed differs from the revealed seed",
                                  last["seq"])
        result = {"ranking": ended.get("ranking"), "reason": ended.get("reason")}
        if log.get("result") != result:
            raise logfmt.LogError(f"{name}: seq {last['seq']}: the header's result {log.get('result')} differs "
                                  f"from the hashed result {result}", last["seq"])


def import_log(
    ledger: Ledger, log: dict[str, Any], name: str = "log", verify: Callable[[dict[str, Any], str], None] = check
) -> Imported:
    """Store a verified full log; the same log twice stores one game.

    Nothing of a log that fails verification is stored.
    """
    verify(log, name)
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
        if existing is not None:
            if existing["head"] == log["head"]:
                return Imported(game_id, len(records), False)
            raise GameExists(f"{name}: game {game_id} is already stored with a different history "
                             f"(head {existing['head']})")
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
        ledger.store_game(game, records, log["seed"], last["data"]["reason"], seats, connection)
    return Imported(game_id, len(records), True)


def store_recorded(ledger: Ledger, recorded: Recorded, bot_ids: list[int], scores: list[int] | None = None,
                   tournament_id: int | None = None, game_key: str | None = None, connection=None) -> str:
    """Store a game just recorded, in one transaction; returns its head hash."""
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
    return ledger.store_game(game, recorded.records, recorded.seed, recorded.reason, seats, connection)
