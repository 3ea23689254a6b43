"""Games read by id, whatever holds them (a tournament, a ladder, imports): their seats, the bodies
of their events of one type, a bot's games, what bot processes wrote on stderr, and why a seat's
bot forfeited in its own terms (its diagnosis: a traceback or its last stderr lines). Logs and
diagnoses are private to the bot's owner, who reads them on the web; nothing here is hashed."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import bindparam, text

from ledger import sealing
from ledger.rows import named
from ledger.sealed import Damaged
from ledger.store import Ledger, LedgerError

MIN_GAME_PREFIX = 4
"""The fewest characters of a game id a command takes (git's minimum for an abbreviated hash): a shorter one,
such as a ladder game's number typed by mistake, would match some game by chance."""


def check_game_prefix(ref: str) -> str:
    """``ref`` if it may name a game (a whole id, or a prefix of ``MIN_GAME_PREFIX`` characters or more); else
    LedgerError in one line, saying what to give. Every command that takes a game id by prefix checks it here."""
    if not ref:
        raise LedgerError("give a game id, as `tourney games` and `ladder history` print it")
    if len(ref) < MIN_GAME_PREFIX:
        raise LedgerError(f"{ref!r} is too short for a game id: give the game id (at least {MIN_GAME_PREFIX} "
                          "characters of it) as `tourney games` and `ladder history` print it")
    return ref

SEAT_KEYS = ("key", "game_id", "end_reason", "created_at", "seat", "bot", "rank", "score")
_IDS = bindparam("ids", expanding=True)
_SEATS = text(
    "SELECT g.game_key, g.id, g.end_reason, g.created_at, s.seat, b.name, s.rank, s.score FROM games g "
    "JOIN seats s ON s.game_id = g.id JOIN bots b ON b.id = s.bot_id WHERE g.id IN :ids").bindparams(_IDS)
_SEALED_BLOCKS = text(
    "SELECT g.id, s.dictionary_id, s.block FROM games g JOIN sealed_games s ON s.store_seq = g.store_seq "
    "WHERE g.id IN :ids").bindparams(_IDS)
_BODIES = text("SELECT game_id, body FROM events WHERE type = :type AND game_id IN :ids").bindparams(_IDS)


def seats(ledger: Ledger, game_ids: Sequence[str]) -> list[dict[str, Any]]:
    """Every seat of the given games, in the order of ``game_ids`` and then seat (the same rows as
    ``ledger.rows.tournament_rows.game_seats``)."""
    if not game_ids:
        return []
    with ledger.read() as connection:
        rows = connection.execute(_SEATS, {"ids": list(game_ids)}).all()
    order = {game_id: position for position, game_id in enumerate(game_ids)}
    found = named(SEAT_KEYS, rows)
    return sorted(found, key=lambda seat: (order[seat["game_id"]], seat["seat"]))


def event_bodies(ledger: Ledger, game_ids: Sequence[str], event_type: str) -> list[tuple[str, bytes]]:
    """(game id, hashed body) of every event of one type in the given games (a sealed game's rebuilt from its
    block, whose chain this does not walk; a block that cannot be read gives none, and `replay verify` and the
    game's page name it)."""
    if not game_ids:
        return []
    out = []
    with ledger.read() as connection:
        opener = sealing.Opener(connection)
        for game_id, dictionary_id, frame in connection.execute(_SEALED_BLOCKS, {"ids": list(game_ids)}).all():
            try:
                block = opener.block(game_id, dictionary_id, bytes(frame))
            except Damaged:
                continue
            out += [(game_id, body) for body in block.bodies_of(event_type)]
        rows = connection.execute(_BODIES, {"type": event_type, "ids": list(game_ids)}).all()
    return out + [(game_id, bytes(body)) for game_id, body in rows]


def versions(ledger: Ledger, name: str) -> list[dict[str, Any]]:
    """Every version (content hash) stored under a bot name, oldest first."""
    with ledger.read() as connection:
        rows = connection.execute(text(
            "SELECT id, content_hash, kind, created_at FROM bots WHERE name = :name ORDER BY id"), {"name": name}).all()
    return [{"id": id_, "content_hash": content_hash, "kind": kind, "created_at": created}
            for id_, content_hash, kind, created in rows]


def of_bot(ledger: Ledger, name: str) -> list[dict[str, Any]]:
    """Every finished game a bot (any version) sat in, newest first: game id, its seat, its rank,
    and how many seats shared first place (a shared first is a draw)."""
    with ledger.read() as connection:
        rows = connection.execute(text(
            "SELECT g.id, s.seat, s.rank, (SELECT COUNT(*) FROM seats f WHERE f.game_id = g.id AND f.rank = 1) "
            "FROM seats s JOIN bots b ON b.id = s.bot_id JOIN games g ON g.id = s.game_id "
            "WHERE b.name = :name AND g.status = 'finished' ORDER BY g.created_at DESC, g.id DESC"),
            {"name": name}).all()
    return [{"game_id": game_id, "seat": seat, "rank": rank, "firsts": firsts} for game_id, seat, rank, firsts in rows]


def event_bodies_of_bot(ledger: Ledger, name: str, event_type: str) -> list[tuple[str, bytes]]:
    """(game id, hashed body) of every event of one type in the games a bot (any version) sat in."""
    with ledger.read() as connection:
        game_ids = [row[0] for row in connection.execute(text(
            "SELECT DISTINCT s.game_id FROM seats s JOIN bots b ON b.id = s.bot_id WHERE b.name = :name"),
            {"name": name})]
    out = []
    for start in range(0, len(game_ids), 500):  # bound the number of parameters of one statement
        out += event_bodies(ledger, game_ids[start:start + 500], event_type)
    return out


def store_logs(ledger: Ledger, game_id: str, logs: Sequence[tuple[int, bytes]], connection=None) -> None:
    """Keep what bot processes wrote on stderr in a game: (seat, its end) per seat that wrote any."""
    if connection is None:
        with ledger.write() as connection:
            return store_logs(ledger, game_id, logs, connection)
    if logs:
        connection.execute(text("INSERT INTO bot_logs (game_id, seat, stderr) VALUES (:game_id, :seat, :stderr)"),
                           [{"game_id": game_id, "seat": seat, "stderr": stderr} for seat, stderr in logs])
    return None


def logs_of(ledger: Ledger, name: str, limit: int, offset: int) -> tuple[list[dict[str, Any]], int]:
    """What a bot (any version) wrote on stderr, newest game first: one page and the total."""
    rows, total = _of_bot(ledger, "bot_logs", "l.game_id, l.seat, b.content_hash, g.created_at, l.stderr",
                          ("game_id", "seat", "content_hash", "created_at", "stderr"), name, limit, offset)
    return [{**row, "stderr": bytes(row["stderr"])} for row in rows], total


def _of_bot(ledger: Ledger, table: str, columns: str, keys: Sequence[str], name: str, limit: int, offset: int
            ) -> tuple[list[dict[str, Any]], int]:
    """A page of ``table``'s rows (aliased ``l``) of a bot's seats (any version: seat ``s``, bot ``b``, game ``g``),
    newest game first, its ``columns`` as ``keys``, and how many there are."""
    query = (f"FROM {table} l JOIN seats s ON s.game_id = l.game_id AND s.seat = l.seat "
             "JOIN bots b ON b.id = s.bot_id JOIN games g ON g.id = l.game_id WHERE b.name = :name")
    with ledger.read() as connection:
        total = connection.execute(text(f"SELECT COUNT(*) {query}"), {"name": name}).scalar()
        rows = connection.execute(text(
            f"SELECT {columns} {query} ORDER BY g.created_at DESC, g.id DESC LIMIT :limit OFFSET :offset"),
            {"name": name, "limit": limit, "offset": offset}).all()
    return named(keys, rows), total


DIAGNOSIS_KEYS = ("game_id", "seat", "kind", "summary", "detail", "log")


def store_diagnoses(connection, diagnoses: Sequence[tuple[str, int, str, str, str, str | None]]) -> None:
    """Keep why seats' bots forfeited: (game id, seat, kind, summary, detail, log path) per forfeiting seat that
    left one (tournaments.bots.diagnosis bounds them), in the caller's transaction (the games' own)."""
    if diagnoses:
        values = ", ".join(f":{key}" for key in DIAGNOSIS_KEYS)
        connection.execute(text(f"INSERT INTO diagnoses ({', '.join(DIAGNOSIS_KEYS)}) VALUES ({values})"),
            named(DIAGNOSIS_KEYS, diagnoses))


def diagnoses(ledger: Ledger, game_ids: Sequence[str], stderr: bool = False) -> dict[tuple[str, int], dict[str, Any]]:
    """(game id, seat) -> its diagnosis, for the given games (the organiser's `tourney games --forfeits`), with
    ``stderr_kept``: whether the game kept the end of what the seat's process wrote on stderr (``bot_logs``: a
    ladder's games do), and with ``stderr`` that end itself (None when not kept; up to 64 KiB a seat: read only
    when asked for)."""
    if not game_ids:
        return {}
    columns = ", ".join(f"d.{key}" for key in DIAGNOSIS_KEYS)
    kept = "l.stderr" if stderr else "l.game_id IS NOT NULL"
    with ledger.read() as connection:
        rows = connection.execute(text(
            f"SELECT {columns}, {kept} FROM diagnoses d LEFT JOIN bot_logs l ON l.game_id = d.game_id AND "
            "l.seat = d.seat WHERE d.game_id IN :ids").bindparams(_IDS), {"ids": list(game_ids)}).all()
    out = {}
    for row in rows:
        found = dict(zip(DIAGNOSIS_KEYS, row[:-1], strict=True))
        if stderr:
            found["stderr"] = None if row[-1] is None else bytes(row[-1])
        out[row[0], row[1]] = {**found, "stderr_kept": bool(row[-1] is not None if stderr else row[-1])}
    return out


def diagnoses_of_bot(ledger: Ledger, name: str, limit: int, offset: int) -> tuple[list[dict[str, Any]], int]:
    """Why a bot (any version) forfeited, newest game first: one page (each with the game's seat's bot version
    and when it was played) and the total. For its owner's eyes only: the caller checks who asks."""
    columns = ", ".join(f"l.{key}" for key in DIAGNOSIS_KEYS)
    return _of_bot(ledger, "diagnoses", f"{columns}, b.name, b.content_hash, g.created_at",
                   (*DIAGNOSIS_KEYS, "bot", "content_hash", "created_at"), name, limit, offset)


PAGE = 1000
"""Ids read at once by ``ids_in_order``: the most a reader of every game holds of them."""
_ORDER = {
    "all": text("SELECT id, created_at, id FROM games WHERE created_at > :key OR (created_at = :key AND id > :id) "
                "ORDER BY created_at, id LIMIT :page"),
    "tournament": text("SELECT id, COALESCE(game_key, ''), id FROM games WHERE tournament_id = :scope AND "
                       "(COALESCE(game_key, '') > :key OR (COALESCE(game_key, '') = :key AND id > :id)) "
                       "ORDER BY COALESCE(game_key, ''), id LIMIT :page"),
    "ladder": text("SELECT game_id, seq FROM ladder_games WHERE ladder_id = :scope AND seq > :key "
                   "ORDER BY seq LIMIT :page"),
}


def ids_in_order(ledger: Ledger, tournament_id: int | None = None, ladder_id: int | None = None,
                 page: int | None = None) -> Iterator[str]:
    """Every stored game's id (of a tournament by key, of a ladder in the order it rated them; else every game,
    oldest first: the orders of ``ledger.rows.tournament_rows.game_ids``, ``ledger.rows.ladder_rows.game_ids`` and
    ``Ledger.game_ids``), read ``page`` (default ``PAGE``) at a time after the last one read (keyset paging), each
    page in a read of its own: a reader of every game holds a page of ids, never all of them, nor a read open while
    it works."""
    page = page or PAGE
    if tournament_id is not None:
        sql, after = _ORDER["tournament"], {"scope": tournament_id, "key": "", "id": ""}
    elif ladder_id is not None:
        sql, after = _ORDER["ladder"], {"scope": ladder_id, "key": -1}
    else:
        sql, after = _ORDER["all"], {"key": "", "id": ""}
    while True:
        with ledger.read() as connection:
            rows = connection.execute(sql, {**after, "page": page}).all()
        for row in rows:
            yield row[0]
        if len(rows) < page:
            return
        last = rows[-1]
        after = {**after, "key": last[1], "id": last[2]} if "id" in after else {**after, "key": last[1]}
