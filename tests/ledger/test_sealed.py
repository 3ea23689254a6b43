"""Sealed games (ledger.sealed, ledger.sealing): every game kind rebuilt byte for byte, dictionaries, refusals."""

from __future__ import annotations

import pytest

from engines import registry
from engines.driver import play
from ledger import sealed, sealing
from ledger.chain import Chain, link
from ledger.store import DamagedGame, Ledger, LedgerError, SeatRow
from replays import archive
from replays.record import SeatInfo, record
from replays.verify import verify_log
from tests.backends import opened_ledger
from tests.replays.forgery import RandomAgent


@pytest.fixture
def ledger(backend):
    yield from opened_ledger(backend)


def recorded(game: str, seed: str, game_id: str):
    engine = registry.get(game)
    config = engine.configure(engine.default_seats)
    agents = [RandomAgent(f"{seed}-{seat}") for seat in range(config.seats)]
    return record(engine, config, seed, play(engine, config, seed, agents),
                  [SeatInfo(f"bot{seat}", "0" * 64) for seat in range(config.seats)], game_id=game_id)


def store(ledger: Ledger, played) -> str:
    bots = [ledger.ensure_bot(seat.name, seat.hash, "python") for seat in played.seats]
    return archive.store_recorded(ledger, played, bots)


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(registry.names()))
def test_every_game_kind_is_rebuilt_byte_for_byte(ledger, game):
    """A stored game of each kind reads back as the very records recorded (bodies, private parts, salts, every
    hash), its export verifies; its block keeps no salt (each is the seed's or the salt key's) and its first and
    last events are the records' own."""
    played = recorded(game, "seed-1", f"{game}-1")
    assert store(ledger, played) == played.head
    assert ledger.records(played.game_id) == played.records
    verify_log(archive.export(ledger, played.game_id))
    raw = sealed.pack(played.game_id, played.seed, played.records, played.salt_key)
    assert not [r.seq for r in played.records if r.salt is not None and r.salt in raw]  # derived, not kept
    block = sealed.Block(raw)
    assert block.records() == played.records
    first, last = block.closing()
    assert first == (0, played.records[0].body, played.records[0].hash)
    assert last == [(r.seq, r.body, r.hash) for r in played.records[-sealed.TAIL:]]


def test_what_the_template_cannot_spell_is_kept_whole():
    """A body not in the canonical frame, a decision's salt and a game without a seed all come back as they were:
    kept, not derived."""
    chain = Chain("odd")
    records = [chain.seal("game_started", {"n": 1}),
               chain.seal("moved", {"seat": 0}, {"card": 7}, (0,), b"d" * 16, step=1),
               chain.seal("moved", {"seat": 1}, {"card": 8}, (1,), b"e" * 16, step=2)]
    spaced = b'{"audience": "public", "commitment": null, "data": {}, "game": "odd", "seq": 3, "step": 3, ' \
             b'"type": "game_ended"}'
    records.append(records[0]._replace(seq=3, type="game_ended", body=spaced, hash=link(records[-1].hash, spaced)))
    for seed in ("a seed", None):
        raw = sealed.pack("odd", seed, records)
        assert sealed.Block(raw).records() == records
    assert b"d" * 16 in raw and spaced in raw


def test_records_that_do_not_chain_are_refused_and_nothing_is_stored(ledger):
    """A record whose hash is not SHA-256 of the previous hash and its body cannot be sealed (its hash would be
    lost): store_games refuses the game, naming it and the seq, and stores nothing of it."""
    played = recorded("tails-on-fire", "seed-2", "broken")
    records = list(played.records)
    records[5] = records[5]._replace(hash="0" * 64)
    bot = ledger.ensure_bot("bot", "0" * 64, "python")
    with pytest.raises(LedgerError, match=r"game broken: its records cannot be sealed: seq 5: its hash 0{64} is not"):
        ledger.store_game({"id": "broken", "game": "tails-on-fire", "engine_version": played.engine_version,
                           "config": "{}", "seed_commitment": played.seed_commitment}, records, played.seed,
                          "finished", [SeatRow(seat, bot, 1, None) for seat in range(len(played.seats))])
    assert ledger.game("broken") is None


def test_a_dictionary_is_made_from_the_first_games_and_used_after(ledger):
    """No dictionary until a game and rules version's FIRST_GAMES-th game is sealed; from the next game on its
    blocks are compressed with it, smaller, and still read back byte for byte."""
    games = [recorded("lemur-tails", f"seed-{n}", f"g{n:02}") for n in range(sealing.FIRST_GAMES + 3)]
    for played in games[:sealing.FIRST_GAMES - 1]:
        store(ledger, played)
    with ledger.read() as connection:
        assert connection.exec_driver_sql("SELECT COUNT(*) FROM sealed_dictionaries").scalar() == 0
    for played in games[sealing.FIRST_GAMES - 1:]:
        store(ledger, played)
    with ledger.read() as connection:
        rows = connection.exec_driver_sql(
            "SELECT s.dictionary_id, LENGTH(s.block) FROM sealed_games s ORDER BY s.store_seq").all()
        assert connection.exec_driver_sql("SELECT game, engine_version FROM sealed_dictionaries").all() == [
            ("lemur-tails", games[0].engine_version)]
    assert [dictionary for dictionary, _size in rows] == [None] * sealing.FIRST_GAMES + [1, 1, 1]
    alone = sum(size for _id, size in rows[:sealing.FIRST_GAMES]) / sealing.FIRST_GAMES
    assert max(size for _id, size in rows[sealing.FIRST_GAMES:]) < alone
    for played in games:
        assert ledger.records(played.game_id) == played.records


def test_a_changed_dictionary_is_named(ledger, backend):
    """A dictionary whose content was changed no longer matches its digest: reading a game compressed with it
    fails naming the game and the dictionary (in a process that had not read the genuine one yet)."""
    games = [recorded("lemur-tails", f"seed-{n}", f"g{n:02}") for n in range(sealing.FIRST_GAMES + 1)]
    for played in games:
        store(ledger, played)
    backend.lift_append_only("sealed_dictionaries")
    with backend.raw() as connection:
        connection.execute("UPDATE sealed_dictionaries SET content = " + backend.blob("00" * 64))
        connection.commit()
    sealing._local.codecs.clear()  # what a new process starts with
    with pytest.raises(DamagedGame, match=f"game {games[-1].game_id}: dictionary 1 of its sealed block is not"):
        ledger.records(games[-1].game_id)


@pytest.mark.parametrize("statement", ["UPDATE sealed_games SET block = block", "DELETE FROM sealed_games",
                                       "UPDATE sealed_dictionaries SET digest = 'x'",
                                       "DELETE FROM sealed_dictionaries"])
def test_sealed_rows_cannot_be_changed_or_removed(ledger, backend, statement):
    """The database refuses UPDATE and DELETE of a sealed game or a dictionary (revision 0012's triggers)."""
    for played in [recorded("lemur-tails", f"seed-{n}", f"g{n:02}") for n in range(sealing.FIRST_GAMES)]:
        store(ledger, played)
    with backend.raw() as connection, pytest.raises(backend.errors, match="are append-only"):
        connection.execute(statement)
