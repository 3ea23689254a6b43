"""Tampering with a real tournament's ledger on every backend, as an attacker with the database would.

Each tamper (tests/tamper.py) leaves every event of the games it does not touch intact. `replay verify --db`
must fail naming the game and the reason; `standings` and `games` must refuse, with the same one line on
SQLite and on PostgreSQL. Ladders are tampered with in tests/test_tampering_ladders.py.
"""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ledger import checkpoints, signing_keys
from ledger.canonical import canonical, loads
from ledger.dialect import INSERT_EVENT
from ledger.rows import tournament_rows
from ledger.sealed import TAIL, Block
from ledger.signing_keys import LedgerKey, checkpoint_message, log_message
from ledger.store import Ledger
from replays import archive, projections
from replays import log as logfmt
from tests.backends import Backend, copied_ledger, two_roles
from tests.replays.forgery import real_log
from tests.tamper import (
    assert_refused,
    assert_verify_fails,
    fetch,
    first_game,
    invoke,
    pack_forged,
    reseal,
    rewrite_block,
    sealed_records,
    swap_ranks,
    tamper,
    winner_seat,
)
from tests.tournaments.play.test_protocol import GAME, make_folder, run


def assert_tournament_reads_refused(backend: Backend, game_id: str | None, reason: str, plain: bool = False) -> None:
    """`standings --check` (each format) and `games`, which read every game's result from its events, refuse;
    with ``plain``, so does `standings` itself, which reads the read models and checks the checkpoints and the
    signatures after them (a tamper of a derived row only is the audit's: `tourney db audit`, `--check`)."""
    reads = [("standings", "cup", "--check"), ("standings", "cup", "--check", "--json"),
             ("standings", "cup", "--check", "--csv"), ("games", "cup")]
    for args in reads + ([("standings", "cup"), ("standings", "cup", "--json")] if plain else []):
        assert_refused(invoke(*args, "--db", backend.url), game_id, reason)


# -- a tournament -------------------------------------------------------------------------


def build_cup(template: Backend) -> None:
    """A finished tournament named cup, three random bots, with a checkpoint over every game."""
    result = run(make_folder(template.key.parent, good=3), template.url, "--name", "cup",
                 "--ledger-key", str(template.key), games=1, jobs=0)
    assert result.exit_code == 0, result.output


cup_templates, cup = copied_ledger("cup", build_cup)


def test_the_untouched_tournament_verifies_and_reads(cup):
    """Before any tamper: verify passes every game and the tournament, standings print the checkpoint."""
    verified = invoke("replay", "verify", "--db", cup.url)
    assert verified.exit_code == 0 and "all passed" in verified.output, verified.output
    checkpoint = re.search(r"ok   tournament 'cup': .*checkpoint ([0-9a-f]{16}) over (\d+) games \(complete\)",
                           verified.output)
    assert checkpoint, verified.output
    standings = invoke("standings", "cup", "--db", cup.url)
    assert standings.exit_code == 0, standings.output
    assert f"checkpoint {checkpoint.group(1)} over {checkpoint.group(2)} games (complete)" in standings.output


def test_a_changed_rank_is_refused_everywhere(cup):
    """seats.rank changed (the events intact): verify names the game and the rank; reads refuse."""
    game_id = first_game(cup)
    tamper(cup, swap_ranks(game_id))
    assert_verify_fails(cup, game_id, "its row says rank")
    assert_tournament_reads_refused(cup, game_id, "its row says rank")


def test_a_status_set_to_playing_does_not_hide_a_game(cup):
    """A finished game set to 'playing' is verified anyway and reported; reads refuse it."""
    game_id = first_game(cup)
    tamper(cup, ("UPDATE games SET status = 'playing' WHERE id = ?", (game_id,)))
    assert_verify_fails(cup, game_id, "its status is 'playing', but its events end with game_ended")
    assert_tournament_reads_refused(cup, game_id, "its status is 'playing'")


def test_a_rewritten_result_in_a_sealed_block_breaks_the_link_to_the_head(cup):
    """game_ended's ranking rewritten inside the game's sealed block (the hashes it does not keep follow): both
    backends' triggers refuse the UPDATE until the owner lifts them; then verify and reads name the game."""
    game_id = first_game(cup)
    records = sealed_records(cup, game_id)
    envelope = loads(records[-1].body)
    ranking = envelope["data"]["ranking"]
    envelope["data"]["ranking"] = ranking[::-1] if ranking != ranking[::-1] else [1, 2]
    records[-1] = records[-1]._replace(body=canonical(envelope))
    rewrite = rewrite_block(cup, game_id, pack_forged(cup, game_id, records))
    with pytest.raises(cup.errors, match="sealed games are append-only: UPDATE is not allowed"):
        tamper(cup, rewrite)
    cup.lift_append_only("sealed_games")
    tamper(cup, rewrite)
    assert_verify_fails(cup, game_id, "signature does not match the head")
    assert_tournament_reads_refused(cup, game_id, "is not its last event's hash")


def test_a_middle_event_rewritten_behind_the_kept_tail_hash_passes_reads_but_not_verify(cup):
    """A move rewritten inside a block whose kept tail hash is put back as it was: the result's reads cannot see
    it (they hash only the last events, docs/replays.md), `replay verify --db` walks the chain and names the game."""
    game_id = first_game(cup)
    records = sealed_records(cup, game_id)
    middle = len(records) // 2
    envelope = loads(records[middle].body)
    envelope["step"] += 1000
    records[middle] = records[middle]._replace(body=canonical(envelope))
    kept = bytes.fromhex(records[-TAIL - 1].hash)
    forged = pack_forged(cup, game_id, records)
    forged = forged.replace(bytes.fromhex(Block(forged).records()[-TAIL - 1].hash), kept, 1)
    cup.lift_append_only("sealed_games")
    tamper(cup, rewrite_block(cup, game_id, forged))
    assert invoke("standings", "cup", "--db", cup.url).exit_code == 0
    assert_verify_fails(cup, game_id, f"tail hash is not the hash of its seq {len(records) - TAIL - 1}")


def test_a_damaged_or_moved_block_is_refused_everywhere(cup):
    """A sealed block with a byte changed fails its zstd checksum; another game's block put in its row names the
    game it holds: verify and reads say so, naming the game."""
    first, second = [row[0] for row in fetch(cup, "SELECT id FROM games ORDER BY store_seq LIMIT 2")]
    frame = bytearray(fetch(cup, "SELECT block FROM sealed_games s JOIN games g ON g.store_seq = s.store_seq "
                                 "WHERE g.id = ?", first)[0][0])
    frame[len(frame) // 2] ^= 0xFF
    cup.lift_append_only("sealed_games")
    tamper(cup, ("UPDATE sealed_games SET block = ? WHERE store_seq = (SELECT store_seq FROM games WHERE id = ?)",
                 (bytes(frame), first)))
    assert_verify_fails(cup, first, "its sealed block cannot be")
    assert_tournament_reads_refused(cup, first, "its sealed block cannot be")
    number = "(SELECT store_seq FROM games WHERE id = ?)"
    tamper(cup, (f"UPDATE sealed_games SET block = (SELECT block FROM sealed_games WHERE store_seq = {number}) "
                 f"WHERE store_seq = {number}", (second, first)))
    assert_verify_fails(cup, first, f"its sealed block holds the events of game {second}")
    assert_tournament_reads_refused(cup, first, f"its sealed block holds the events of game {second}")


def test_rows_added_beside_a_sealed_game_are_refused(cup):
    """Event rows inserted for a game that is sealed (the events table takes inserts): a reader would not know which
    to believe, so reads and verify refuse the game."""
    game_id = first_game(cup)
    tamper(cup, *[(INSERT_EVENT, (game_id, *record)) for record in sealed_records(cup, game_id)])
    assert_verify_fails(cup, game_id, "its events are both sealed and stored as rows")
    assert_tournament_reads_refused(cup, game_id, "its events are both sealed and stored as rows")


def test_the_triggers_fire_per_row_on_sqlite_and_per_statement_on_postgres(cup):
    """SQLite's append-only triggers fire for each row a statement touches, PostgreSQL's for the statement: a
    DELETE that matches no event or sealed game is a harmless no-op on SQLite and refused on PostgreSQL, which also
    refuses TRUNCATE (SQLite has none). Nothing is lost either way."""
    counts = "SELECT (SELECT COUNT(*) FROM events), (SELECT COUNT(*) FROM sealed_games)"
    before = fetch(cup, counts)
    assert before[0][1] == 6
    for table, label, nothing in (("events", "events", "DELETE FROM events WHERE game_id = 'no-such-game'"),
                                  ("sealed_games", "sealed games", "DELETE FROM sealed_games WHERE store_seq = -1")):
        if cup.path is not None:
            tamper(cup, nothing)
            continue
        for statement in (nothing, f"TRUNCATE {table} CASCADE"):
            with pytest.raises(cup.errors, match=rf"{label} are append-only: (DELETE|TRUNCATE) is not allowed"):
                tamper(cup, statement)
    assert fetch(cup, counts) == before
    assert invoke("replay", "verify", "--db", cup.url, "--quiet").exit_code == 0


def test_a_game_resealed_without_the_key_is_caught_by_its_signature_and_the_checkpoint(cup):
    """A game replaced by another one recorded with tourney's own recorder (a forged loss for its winner, every
    hash recomputed): verify fails on its signature; reads refuse it through the checkpoint."""
    game_id = first_game(cup)
    reseal(cup, game_id, winner_seat(cup, game_id))
    assert_verify_fails(cup, game_id, "signature does not match the head")
    assert_tournament_reads_refused(cup, None, "a game it covers was changed, re-sealed, replaced or moved", plain=True)


def test_a_dropped_game_is_caught_by_the_checkpoint(cup):
    """A whole game deleted (refused by both backends' triggers until the owner lifts them): the tournament's
    checkpoint says one is missing."""
    game_id = first_game(cup)
    drop = [("DELETE FROM sealed_games WHERE store_seq = (SELECT store_seq FROM games WHERE id = ?)", (game_id,)),
            ("DELETE FROM seats WHERE game_id = ?", (game_id,)), ("DELETE FROM games WHERE id = ?", (game_id,))]
    with pytest.raises(cup.errors, match="sealed games are append-only: DELETE is not allowed"):
        tamper(cup, *drop)
    cup.lift_append_only("sealed_games")
    tamper(cup, *drop)
    assert_verify_fails(cup, None, "a game was removed", "--tournament", "cup")
    assert_tournament_reads_refused(cup, None, "a game was removed", plain=True)


def test_a_game_moved_in_from_elsewhere_is_caught_by_the_checkpoint(cup, tmp_path):
    """A signed game of another tournament moved into cup: its own signature holds, but cup's complete
    checkpoint does not cover it, and the other tournament's misses it."""
    (tmp_path / "other").mkdir()
    assert run(make_folder(tmp_path / "other", good=2), cup.url, "--name", "other", games=1, jobs=0).exit_code == 0
    moved = first_game(cup, "tournament_id = (SELECT id FROM tournaments WHERE name = 'other')")
    tamper(cup, ("UPDATE games SET tournament_id = (SELECT id FROM tournaments WHERE name = 'cup'), "
                 "game_key = 'moved' WHERE id = ?", (moved,)))
    assert_verify_fails(cup, moved, "stored after the complete checkpoint", "--tournament", "cup")
    assert_verify_fails(cup, None, "a game was removed", "--tournament", "other")
    assert_tournament_reads_refused(cup, moved, "a game was added", plain=True)


def test_a_forged_reveal_of_the_seed_fails_verification(cup):
    """A tournament seed replaced by another value: its commitment no longer holds."""
    tamper(cup, "UPDATE tournaments SET seed = 'forged' WHERE name = 'cup'")
    assert_verify_fails(cup, None, "its revealed seed does not match its commitment", "--tournament", "cup")


def test_a_replaced_ledger_key_is_caught_by_the_published_key_and_the_key_file(cup):
    """An attacker who puts their own public key in the database and re-signs every game and checkpoint passes
    a verify that trusts the database (which prints the attacker's fingerprint), but not one given the
    published public key, nor one run where the real key file is (beside the file, or $TOURNEY_LEDGER_KEY)."""
    published = cup.key.with_suffix(".pub")
    attacker = LedgerKey(Ed25519PrivateKey.generate(), Path("attacker.key"))
    games = fetch(cup, "SELECT id, head FROM games")
    stored = fetch(cup, "SELECT seq, games, root, state FROM checkpoints")
    cup.lift_append_only("checkpoints")
    tamper(cup, ("UPDATE ledger_keys SET public_key = ?", (attacker.public.hex(),)),
           *[("UPDATE games SET signature = ? WHERE id = ?", (attacker.sign(log_message(g, h)), g)) for g, h in games],
           *[("UPDATE checkpoints SET signature = ? WHERE seq = ?",
              (attacker.sign(checkpoint_message("tournament", "cup", n, root, state)), seq))
             for seq, n, root, state in stored])
    beside = invoke("replay", "verify", "--db", cup.url, "--quiet")
    assert beside.exit_code == 1 and "FAIL ledger key: the key at" in beside.output, beside.output
    cup.key.unlink()
    trusting = invoke("replay", "verify", "--db", cup.url, "--quiet")
    assert trusting.exit_code == 0 and f"ledger key {attacker.fingerprint}" in trusting.output, trusting.output
    assert invoke("standings", "cup", "--db", cup.url).exit_code == 0
    pinned = invoke("replay", "verify", "--db", cup.url, "--quiet", "--key", str(published))
    assert pinned.exit_code == 1 and "not the given key" in pinned.output, pinned.output


@pytest.mark.postgres
@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_the_application_role_cannot_touch_events_and_its_forged_rank_is_caught(backend, tmp_path):
    """On PostgreSQL the role tourney runs as (docs/scaling.md) may neither edit events nor lift the rule that
    forbids it (SQLite has no roles: whoever can write the file is the owner); what it may edit, a seat's
    rank, verify and reads catch as on SQLite."""
    with two_roles(backend) as roles:
        application = Backend(backend.name, roles.url(roles.app), backend.key, database=backend.database)
        build_cup(application)
        game_id = first_game(backend)
        for statement, refusal in (("UPDATE events SET type = 'forged'", "permission denied"),
                                   ("DELETE FROM events", "permission denied"),
                                   ("UPDATE sealed_games SET block = block", "permission denied"),
                                   ("DELETE FROM sealed_games", "permission denied"),
                                   ("DELETE FROM sealed_dictionaries", "permission denied"),
                                   ("ALTER TABLE sealed_games DISABLE TRIGGER USER", "must be owner"),
                                   ("UPDATE checkpoints SET signature = '00'", "permission denied"),
                                   ("ALTER TABLE events DISABLE TRIGGER USER", "must be owner"),
                                   ("DROP TRIGGER events_no_update ON events", "must be owner")):
            with roles.connect(roles.app) as connection, pytest.raises(backend.errors, match=refusal):
                connection.execute(statement)
        statement, parameters = swap_ranks(game_id)
        with roles.connect(roles.app) as connection:  # committed on leaving
            connection.execute(backend.sql(statement), parameters)
        assert_verify_fails(application, game_id, "its row says rank")
        assert_tournament_reads_refused(application, game_id, "its row says rank")


# -- a game still playing, a game after the last checkpoint ------------------------------------


def test_a_game_still_playing_is_reported_as_such(backend):
    """A game whose events do not end yet (stored through append) is verified so far and reported as still
    playing, not failed; standings leave it out and say so."""
    ledger = Ledger(backend.url)
    archive.import_log(ledger, real_log(GAME, "done"), tournament="mixed")
    log = real_log(GAME, "open", game_id="still-open")
    records = logfmt.records_of(log)[:-1]
    started = records[0].envelope["data"]
    with ledger.write() as connection:
        tournament_id = tournament_rows.get(ledger, "mixed")["id"]
        ledger.create_game({"id": "still-open", "game": GAME, "engine_version": started["engine_version"],
                            "config": canonical(started["config"]).decode(),
                            "seed_commitment": started["seed_commitment"], "tournament_id": tournament_id,
                            "game_key": "still-open"}, connection)
        ledger.append("still-open", 0, records, connection)
    ledger.close()
    verified = invoke("replay", "verify", "--db", backend.url)
    assert verified.exit_code == 0, verified.output
    assert "open game still-open: still playing (status 'playing')" in verified.output
    assert "1 game still playing" in verified.output
    standings = invoke("standings", "mixed", "--db", backend.url)
    assert standings.exit_code == 0 and "1 game still playing (not counted)" in standings.output, standings.output


def test_a_game_resealed_after_the_last_checkpoint_is_caught_by_its_own_signature(backend):
    """With no checkpoint over it yet, a re-sealed game's own signature refuses it on read."""
    ledger = Ledger(backend.url)
    archive.import_log(ledger, real_log(GAME, "a"), tournament="cup")
    checkpoints.write(ledger, tournament_rows.scope(tournament_rows.get(ledger, "cup")))
    archive.import_log(ledger, real_log(GAME, "b", game_id="late"), tournament="cup")
    ledger.close()
    assert invoke("standings", "cup", "--db", backend.url).exit_code == 0
    reseal(backend, "late", winner_seat(backend, "late"))
    assert_tournament_reads_refused(backend, "late", "its signature does not hold under the ledger key", plain=True)
    assert_verify_fails(backend, "late", "signature does not match the head")


# -- a ledger written before ledger keys ------------------------------------------------------


@pytest.fixture
def unsigned(cup) -> Backend:
    """The cup tournament as a tourney before ledger keys left it: no key, no signature, no checkpoint."""
    for key_file in (cup.key, cup.key.with_suffix(".pub")):
        key_file.unlink()
    old = Ledger(cup.url, upgrade=False)
    old.downgrade("0004")
    old.upgrade()
    projections.catch_up(old)  # what `tourney db upgrade` adds: the read models count the old games
    old.close()
    return cup


def test_a_ledger_written_before_keys_verifies_as_unsigned_and_reads_with_a_note(unsigned):
    """Games written before ledger keys are reported "unsigned (written before ledger keys)", not failed."""
    verified = invoke("replay", "verify", "--db", unsigned.url)
    assert verified.exit_code == 0, verified.output
    assert "unsigned (written before ledger keys)" in verified.output and "no ledger key" in verified.output
    standings = invoke("standings", "cup", "--db", unsigned.url)
    assert standings.exit_code == 0 and "games unsigned (written before ledger keys)" in standings.output


def test_db_sign_signs_old_games_after_an_audit_and_refuses_when_the_audit_fails(unsigned):
    """`tourney db sign` refuses, signing nothing, while any game fails verification; on a sound ledger (the
    tamper undone) it signs every old game and checkpoints the tournament, after which verify checks those
    signatures."""
    game_id = first_game(unsigned)
    tamper(unsigned, swap_ranks(game_id))
    refused = invoke("db", "sign", "--db", unsigned.url)
    assert refused.exit_code == 1 and "nothing was signed" in refused.output, refused.output
    assert fetch(unsigned, "SELECT COUNT(*) FROM games WHERE signature IS NOT NULL") == [(0,)]
    tamper(unsigned, swap_ranks(game_id))
    signed = invoke("db", "sign", "--db", unsigned.url)
    assert signed.exit_code == 0 and "signed 6 games" in signed.output, signed.output
    verified = invoke("replay", "verify", "--db", unsigned.url)
    assert verified.exit_code == 0 and "unsigned" not in verified.output and "(the ledger's key)" in verified.output
    assert "checkpoint " in invoke("standings", "cup", "--db", unsigned.url).output


# -- exports: the manifest of a whole tournament, checked offline ---------------------------------


def export(backend: Backend, out: Path, *scope: str) -> Path:
    result = invoke("replay", "export", *scope, "--out", str(out), "--view", "spectator", "--db", backend.url)
    assert result.exit_code == 0 and ".manifest" in result.output, result.output
    return out


def verify_folder(out: Path, *extra: str):
    return invoke("replay", "verify", str(out), "--quiet", *extra)


def edit_manifest(path: Path, change) -> None:
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest))


def test_an_exported_tournament_verifies_offline_with_its_manifest(cup, tmp_path):
    """The export's logs carry the ledger's signature and its manifest the checkpoint and the revealed seed:
    `replay verify FOLDER --key` checks every log, the checkpoint, the seed and the game seeds offline."""
    out = export(cup, tmp_path / "logs", "--tournament", "cup")
    published = cup.key.with_suffix(".pub")
    result = verify_folder(out, "--key", str(published))
    assert result.exit_code == 0 and "all passed" in result.output, result.output
    assert invoke("replay", "verify", str(out / "tournament.manifest"), "--key", str(published)).exit_code == 0
    assert invoke("keys", "new", str(tmp_path / "other")).exit_code == 0
    other = verify_folder(out, "--key", str(tmp_path / "other.pub"))
    assert other.exit_code == 1 and "not the given key" in other.output


def test_a_dropped_or_added_log_or_a_forged_manifest_fails_offline(cup, tmp_path):
    """A log removed from the folder, a log of another tournament added, the manifest rewritten without a game
    (its checkpoint root breaks) or with a forged seed: each fails naming what."""
    out = export(cup, tmp_path / "logs", "--tournament", "cup")
    manifest = out / "tournament.manifest"
    dropped = sorted(out.glob("*.json"))[0]
    dropped.rename(tmp_path / dropped.name)
    result = verify_folder(out)
    assert result.exit_code == 1 and "is listed but its log is not in the folder" in result.output
    edit_manifest(manifest, lambda m: m.__setitem__("games", [g for g in m["games"] if g["game_id"] != dropped.stem]))
    result = verify_folder(out)
    assert result.exit_code == 1 and "do not give the checkpoint's root" in result.output, result.output
    (tmp_path / dropped.name).rename(dropped)
    (out / "stranger.json").write_text(json.dumps(real_log(GAME, "stranger")))
    result = verify_folder(out)
    assert result.exit_code == 1 and "its log is in the folder but not in the manifest" in result.output
    (out / "stranger.json").unlink()
    edit_manifest(manifest, lambda m: m["seed"].__setitem__("seed", "forged"))
    result = verify_folder(out)
    assert result.exit_code == 1 and "the tournament's seed does not match its commitment" in result.output


# -- making the ledger key: SQLite only, for the key's default place is beside the database file -----------


def test_db_upgrade_makes_the_ledger_key_beside_the_database_and_keeps_it(tmp_path):
    """`tourney db upgrade` makes <db>.key (mode 0600) and <db>.pub and stores the public half; upgrading again
    keeps the same key, and the games stored afterwards are signed by it."""
    db = tmp_path / "league.db"
    made = invoke("db", "upgrade", "--db", str(db))
    assert made.exit_code == 0, made.output
    key_file, public = db.with_name("league.db.key"), db.with_name("league.db.pub")
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600 and public.exists()
    ledger = Ledger(str(db), read_only=True)
    fingerprint = signing_keys.fingerprint(ledger.public_key())
    assert signing_keys.load_public(public) == ledger.public_key()
    ledger.close()
    assert f"ledger key {fingerprint} at {key_file}" in made.output
    again = invoke("db", "upgrade", "--db", str(db))
    assert again.exit_code == 0 and f"ledger key {fingerprint}" in again.output
    folder = make_folder(tmp_path, good=2)
    assert run(folder, db, "--name", "cup", "--seed", "3", games=1).exit_code == 0
    verified = invoke("replay", "verify", "--db", str(db), "--key", str(public))
    assert verified.exit_code == 0 and "all passed" in verified.output, verified.output


def test_keys_new_ledger_makes_the_key_where_told_and_refuses_a_second(tmp_path):
    """`tourney keys new --ledger --ledger-key PATH` writes the key there (mode 0600) for the database; a second
    `keys new --ledger` is refused in one line, and a database whose key file is elsewhere refuses to store
    without it."""
    db, key_file = tmp_path / "t.db", tmp_path / "secret" / "ledger.key"
    key_file.parent.mkdir()
    made = invoke("keys", "new", "--ledger", "--db", str(db), "--ledger-key", str(key_file))
    assert made.exit_code == 0, made.output
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600 and not db.with_name("t.db.key").exists()
    second = invoke("keys", "new", "--ledger", "--db", str(db), "--ledger-key", str(key_file))
    assert second.exit_code == 1 and second.output.startswith("error: ") and "has a ledger key already" in second.output
    folder = make_folder(tmp_path, good=2)
    refused = run(folder, db, "--name", "cup", "--seed", "3", games=1)
    assert refused.exit_code == 1 and "error: " in refused.output and "Traceback" not in refused.output
    stored = run(folder, db, "--name", "cup", "--seed", "3", "--ledger-key", str(key_file), games=1)
    assert stored.exit_code == 0, stored.output
