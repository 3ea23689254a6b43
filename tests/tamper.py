"""Tampering with a real ledger the way an attacker with the database would, and how tourney must answer.

The attacker uses the raw driver (sqlite3 on the file, psycopg with a role's password: tests/backends.py), never
tourney's ledger, and never holds the ledger key: a game re-sealed with tourney's own recorder has consistent
hashes but no valid signature. `replay verify --db` must fail naming the game and the reason; reads must refuse
in one line.
"""

from __future__ import annotations

import functools
from typing import Any

import zstandard

from engines import registry
from engines.driver import play
from ledger import sealed
from ledger.chain import Record, link
from replays.record import SeatInfo, record
from tests import cli
from tests.backends import Backend
from tests.replays.forgery import RandomAgent
from tests.tournaments.play.test_protocol import GAME

Statement = str | tuple[str, tuple[Any, ...]]


invoke = functools.partial(cli.invoke, width=200)


def tamper(backend: Backend, *statements: Statement) -> None:
    """Run statements (SQL, or SQL and its parameters, with ``?`` placeholders) with the raw driver, and commit."""
    with backend.raw() as connection:
        for statement in statements:
            text, parameters = (statement, ()) if isinstance(statement, str) else statement
            connection.execute(backend.sql(text), parameters)
        connection.commit()


def fetch(backend: Backend, query: str, *parameters: Any) -> list[tuple]:
    with backend.raw() as connection:
        return [tuple(row) for row in connection.execute(backend.sql(query), parameters).fetchall()]


def first_game(backend: Backend, where: str = "1 = 1") -> str:
    return fetch(backend, f"SELECT id FROM games WHERE {where} ORDER BY store_seq LIMIT 1")[0][0]


def winner_seat(backend: Backend, game_id: str) -> int:
    return fetch(backend, "SELECT seat FROM seats WHERE game_id = ? ORDER BY rank, seat LIMIT 1", game_id)[0][0]


def swap_ranks(game_id: str) -> Statement:
    """The forged result of a two-seat game: its seats' ranks swapped, its events left as they were."""
    return "UPDATE seats SET rank = 3 - rank WHERE game_id = ?", (game_id,)


def assert_verify_fails(backend: Backend, game_id: str | None, reason: str, *scope: str) -> None:
    result = invoke("replay", "verify", "--db", backend.url, "--quiet", *scope)
    assert result.exit_code == 1, result.output
    failing = [line for line in result.output.splitlines() if line.startswith("FAIL")]
    assert any((game_id is None or game_id in line) and reason in line for line in failing), result.output


def assert_refused(result, game_id: str | None, reason: str) -> None:
    assert result.exit_code == 1, result.output
    assert result.output.startswith("error: ") and len(result.output.strip().splitlines()) == 1, result.output
    assert (game_id is None or f"game {game_id}" in result.output) and reason in result.output, result.output


class Forfeits:
    """A random bot that answers an illegal action on its first turn (it forfeits and ranks last, ALL-5)."""

    def act(self, turn):
        return "no-such-action"


def reseal(backend: Backend, game_id: str, loser: int) -> None:
    """Replace a stored game by another one recorded with tourney's own recorder under the same id and seats,
    in which seat ``loser`` forfeits at once: every hash and derived row consistent, no ledger key. The
    attacker has the owner's rights: the append-only rule is lifted first."""
    seats = [SeatInfo(name, content_hash) for name, content_hash in fetch(
        backend, "SELECT b.name, b.content_hash FROM seats s JOIN bots b ON b.id = s.bot_id WHERE s.game_id = ? "
                 "ORDER BY s.seat", game_id)]
    engine = registry.get(GAME)
    config = engine.configure(len(seats))
    agents = [Forfeits() if seat == loser else RandomAgent(seat) for seat in range(len(seats))]
    forged = record(engine, config, "forged", play(engine, config, "forged", agents), seats, game_id=game_id)
    assert forged.ranking[loser] == len(seats)
    backend.lift_append_only("sealed_games")
    tamper(backend, rewrite_block(backend, game_id, sealed.pack(game_id, forged.seed, forged.records)),
           ("UPDATE games SET head = ?, events = ?, seed = ?, seed_commitment = ?, end_reason = ? WHERE id = ?",
            (forged.head, len(forged.records), forged.seed, forged.seed_commitment, forged.reason, game_id)),
           *[("UPDATE seats SET rank = ? WHERE game_id = ? AND seat = ?", (rank, game_id, seat))
             for seat, rank in enumerate(forged.ranking)])


# -- a sealed game's block (ledger.sealed), opened and rewritten with tourney's own code ----------------


def _dictionary(backend: Backend, game_id: str) -> tuple[int, zstandard.ZstdCompressionDict | None]:
    store_seq, dictionary_id = fetch(backend, "SELECT s.store_seq, s.dictionary_id FROM sealed_games s JOIN games g "
                                              "ON g.store_seq = s.store_seq WHERE g.id = ?", game_id)[0]
    if dictionary_id is None:
        return store_seq, None
    content = bytes(fetch(backend, "SELECT content FROM sealed_dictionaries WHERE id = ?", dictionary_id)[0][0])
    return store_seq, zstandard.ZstdCompressionDict(content, dict_type=zstandard.DICT_TYPE_RAWCONTENT)


def sealed_records(backend: Backend, game_id: str) -> list[Record]:
    """A sealed game's records, as its block rebuilds them."""
    store_seq, dictionary = _dictionary(backend, game_id)
    frame = bytes(fetch(backend, "SELECT block FROM sealed_games WHERE store_seq = ?", store_seq)[0][0])
    options = {} if dictionary is None else {"dict_data": dictionary}
    return sealed.Block(zstandard.ZstdDecompressor(**options).decompress(frame)).records()


def rewrite_block(backend: Backend, game_id: str, raw: bytes) -> Statement:
    """The UPDATE that puts ``raw`` (an uncompressed block) in the game's sealed row, compressed as the ledger does
    (refused until the sealed rows' append-only rule is lifted)."""
    store_seq, dictionary = _dictionary(backend, game_id)
    options = {} if dictionary is None else {"dict_data": dictionary}
    frame = zstandard.ZstdCompressor(write_checksum=True, **options).compress(raw)
    return "UPDATE sealed_games SET block = ? WHERE store_seq = ?", (frame, store_seq)


def pack_forged(backend: Backend, game_id: str, records: list[Record]) -> bytes:
    """The uncompressed block of ``records`` changed by an attacker: each body as given, every hash made to follow
    (the block keeps none but the one before its tail)."""
    prev = None
    chained = []
    for forged in records:
        prev = link(prev, forged.body)
        chained.append(forged._replace(hash=prev))
    seed = fetch(backend, "SELECT seed FROM games WHERE id = ?", game_id)[0][0]
    return sealed.pack(game_id, seed, chained)
