"""Finished games sealed into the ledger, and their blocks read back: the ``sealed_games`` rows (one per game, keyed
by its store_seq) and the zstd dictionaries of ``sealed_dictionaries`` (one per game and rules version).

A game and rules version has no dictionary until its ``FIRST_GAMES``-th game is sealed: its first games are
compressed alone, and the dictionary is then the last ``SIZE`` bytes of their blocks, uncompressed (a zstd
raw-content dictionary: measured smaller than one zstd trains from so few samples, docs/benchmarks.md). Every
later game of that kind is compressed with it. Both tables are append-only (revision 0012's triggers).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import zstandard
from sqlalchemy import text
from sqlalchemy.engine import Connection

from ledger.chain import Record
from ledger.sealed import Block, Damaged, Unsealable, pack

FIRST_GAMES = 8
SIZE = 64 * 1024
LEVEL = 9
"""zstd's level: a block is read far more often than it is sealed (bench/store.py measures both)."""

INSERT_SEALED = text("INSERT INTO sealed_games (store_seq, dictionary_id, block) "
                     "VALUES ((SELECT store_seq FROM games WHERE id = :game_id), :dictionary_id, :block)")


@dataclass(frozen=True, slots=True)
class Sealable:
    """A finished game to seal: its id, game and rules version (which dictionary), revealed seed, records and
    (when its recorder gives it) the key of its decisions' salts."""

    game_id: str
    game: str
    engine_version: int
    seed: str | None
    records: Sequence[Record]
    salt_key: bytes | None = None


class _Codec:
    """zstd with one dictionary (or none), for one thread: zstandard's contexts are not to be shared."""

    def __init__(self, content: bytes | None) -> None:
        dictionary = None
        if content is not None:
            dictionary = zstandard.ZstdCompressionDict(content, dict_type=zstandard.DICT_TYPE_RAWCONTENT)
            dictionary.precompute_compress(level=LEVEL)
        options = {} if dictionary is None else {"dict_data": dictionary}
        self.compressor = zstandard.ZstdCompressor(level=LEVEL, write_checksum=True, **options)
        self.decompressor = zstandard.ZstdDecompressor(**options)


_local = threading.local()


def _codec(digest: str, content: bytes | None) -> _Codec:
    """The codec of a dictionary by its SHA-256 (its content is immutable, so any ledger's may share it)."""
    codecs = getattr(_local, "codecs", None)
    if codecs is None:
        codecs = _local.codecs = {}
    found = codecs.get(digest)
    if found is None:
        found = codecs[digest] = _Codec(content)
    return found


_NONE = ""


def _dictionary(connection: Connection, dictionary_id: int | None) -> _Codec:
    if dictionary_id is None:
        return _codec(_NONE, None)
    digest = connection.execute(text("SELECT digest FROM sealed_dictionaries WHERE id = :id"),
                                {"id": dictionary_id}).scalar()
    if digest is None:
        raise Damaged(f"its sealed block names dictionary {dictionary_id}, which the ledger does not hold")
    if digest in getattr(_local, "codecs", {}):
        return _codec(digest, None)
    content = bytes(connection.execute(text("SELECT content FROM sealed_dictionaries WHERE id = :id"),
                                       {"id": dictionary_id}).scalar())
    if hashlib.sha256(content).hexdigest() != digest:
        raise Damaged(f"dictionary {dictionary_id} of its sealed block is not the one its digest names")
    return _codec(digest, content)


@dataclass(slots=True)
class _Kind:
    """What sealing one game and rules version needs in one call: its dictionary, or the blocks made without one."""

    dictionary_id: int | None
    codec: _Codec
    stored_plain: int
    plain: list[bytes]


def store(connection: Connection, games: Sequence[Sealable], created_at: str) -> None:
    """Seal each game and insert its row (its games row is already in, numbered). The dictionary of a game and
    rules version is made as soon as its FIRST_GAMES-th game is sealed, and the games after it use it.
    ledger.sealed.Unsealable if a game's records do not chain."""
    kinds: dict[tuple[str, int], _Kind] = {}
    rows = []
    for game in games:
        key = (game.game, game.engine_version)
        kind = kinds.get(key)
        if kind is None:
            kind = kinds[key] = _kind(connection, *key)
        try:
            raw = pack(game.game_id, game.seed, game.records, game.salt_key)
        except Unsealable as error:
            raise Unsealable(error.seq, error.detail, game.game_id) from None
        rows.append({"game_id": game.game_id, "dictionary_id": kind.dictionary_id,
                     "block": kind.codec.compressor.compress(raw)})
        if kind.dictionary_id is None:
            kind.plain.append(raw)
            if kind.stored_plain + len(kind.plain) >= FIRST_GAMES:
                kind.dictionary_id, kind.codec = _make_dictionary(connection, *key, kind.plain, created_at)
    if rows:
        connection.execute(INSERT_SEALED, rows)


_PLAIN = ("FROM sealed_games s JOIN games g ON g.store_seq = s.store_seq WHERE s.dictionary_id IS NULL "
          "AND g.game = :game AND g.engine_version = :engine_version")


def _kind(connection: Connection, game: str, version: int) -> _Kind:
    kind = {"game": game, "engine_version": version}
    found = connection.execute(text(
        "SELECT id FROM sealed_dictionaries WHERE game = :game AND engine_version = :engine_version"), kind).scalar()
    if found is not None:
        return _Kind(found, _dictionary(connection, found), 0, [])
    stored = connection.execute(text(f"SELECT COUNT(*) {_PLAIN}"), kind).scalar()
    return _Kind(None, _codec(_NONE, None), stored, [])


def _make_dictionary(connection: Connection, game: str, version: int, plain: list[bytes],
                     created_at: str) -> tuple[int, _Codec]:
    """The dictionary of a game and rules version: the last SIZE bytes of its first FIRST_GAMES blocks."""
    decompress = _codec(_NONE, None).decompressor.decompress
    stored = [decompress(bytes(frame)) for (frame,) in connection.execute(
        text(f"SELECT s.block {_PLAIN} ORDER BY s.store_seq LIMIT :limit"),
        {"game": game, "engine_version": version, "limit": FIRST_GAMES}).all()]
    content = b"".join([*stored, *plain][:FIRST_GAMES])[-SIZE:]
    digest = hashlib.sha256(content).hexdigest()
    dictionary_id = connection.execute(text(
        "INSERT INTO sealed_dictionaries (game, engine_version, digest, content, created_at) "
        "VALUES (:game, :engine_version, :digest, :content, :created_at) RETURNING id"),
        {"game": game, "engine_version": version, "digest": digest, "content": content,
         "created_at": created_at}).scalar_one()
    return dictionary_id, _codec(digest, content)


class Opener:
    """Opens the sealed blocks of one read: each dictionary looked up once, not once per game."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.codecs: dict[int | None, _Codec] = {}

    def block(self, game_id: str, dictionary_id: int | None, frame: bytes) -> Block:
        """The parsed block of a game's sealed row; Damaged (naming what) if it cannot be read or is another
        game's."""
        codec = self.codecs.get(dictionary_id)
        if codec is None:
            codec = self.codecs[dictionary_id] = _dictionary(self.connection, dictionary_id)
        try:
            raw = codec.decompressor.decompress(frame)
        except zstandard.ZstdError as error:
            raise Damaged(f"its sealed block cannot be decompressed ({error})") from None
        block = Block(raw)
        if block.game_id != game_id:
            raise Damaged(f"its sealed block holds the events of game {block.game_id}")
        return block


def open_block(connection: Connection, game_id: str, dictionary_id: int | None, frame: bytes) -> Block:
    """The parsed block of one game's sealed row (``Opener`` for many)."""
    return Opener(connection).block(game_id, dictionary_id, frame)


def records(connection: Connection, game_id: str) -> list[Record] | None:
    """A sealed game's records, rebuilt (every hash recomputed); None if the game is not sealed."""
    row = connection.execute(text(
        "SELECT s.dictionary_id, s.block FROM games g JOIN sealed_games s ON s.store_seq = g.store_seq "
        "WHERE g.id = :game_id"), {"game_id": game_id}).first()
    if row is None:
        return None
    return open_block(connection, game_id, row[0], bytes(row[1])).records()
