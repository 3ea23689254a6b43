"""Tampering with a real ledger the way an attacker with write access would, with plain sqlite3.

Each tamper leaves every event of the games it does not touch intact. `replay verify --db` must
fail naming the game and the reason; `standings`, `games` and `ladder standings` must refuse;
`ladder rebuild` must not adopt forged ranks. The ledger key (beside the database) is never
given to the attacker: a game re-sealed with tourney's own recorder has consistent hashes
but no valid signature.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import stat
from contextlib import closing
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner

from engines import registry
from engines.driver import play
from ledger import checkpoints, seeds
from ledger import keys as ledger_keys
from ledger import ladders as rows
from ledger import tournaments as tournament_rows
from ledger.canonical import canonical, loads
from ledger.dialect import INSERT_EVENT
from ledger.keys import LedgerKey, checkpoint_message, log_message
from ledger.store import Ledger
from replays import archive
from replays import log as logfmt
from replays.record import SeatInfo, record
from tests.replays.forgery import RandomAgent, real_log
from tests.tournaments.test_protocol import GAME, make_folder, run
from tournaments.cli import app
from tournaments.ladder import league as ladder
from tournaments.ladder import sessions

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "bots"
FAST = ladder.Limits(move_time=2.0, time_bank=5.0)
EVENT_TRIGGERS = ("events_no_update", "events_no_delete", "events_contiguous")
cli = CliRunner()


def invoke(*args: str):
    return cli.invoke(app, [*args], terminal_width=200)


def copy_ledger(source: Path, target: Path) -> Path:
    """A copy of a database (WAL included, through SQLite's backup) with its ledger key and public key beside it."""
    with closing(sqlite3.connect(source)) as original, closing(sqlite3.connect(target)) as copy:
        original.backup(copy)
    for suffix in (".key", ".pub"):
        shutil.copy(source.with_name(source.name + suffix), target.with_name(target.name + suffix))
    return target


def sql(db: Path, *statements: tuple) -> None:
    """Run statements with plain sqlite3, as an attacker with write access to the file would."""
    with closing(sqlite3.connect(db)) as connection:
        for statement in statements:
            connection.execute(*statement) if isinstance(statement, tuple) else connection.execute(statement)
        connection.commit()


def drop_triggers(db: Path) -> None:
    sql(db, *[f"DROP TRIGGER {name}" for name in EVENT_TRIGGERS])


def first_game(db: Path, where: str = "1 = 1") -> str:
    with closing(sqlite3.connect(db)) as connection:
        return connection.execute(f"SELECT id FROM games WHERE {where} ORDER BY store_seq LIMIT 1").fetchone()[0]


def winner_seat(db: Path, game_id: str) -> int:
    with closing(sqlite3.connect(db)) as connection:
        return connection.execute("SELECT seat FROM seats WHERE game_id = ? ORDER BY rank, seat LIMIT 1",
                                  (game_id,)).fetchone()[0]


def assert_verify_fails(db: Path, game_id: str | None, reason: str, *scope: str) -> None:
    result = invoke("replay", "verify", "--db", str(db), "--quiet", *scope)
    assert result.exit_code == 1, result.output
    failing = [line for line in result.output.splitlines() if line.startswith("FAIL")]
    assert any((game_id is None or game_id in line) and reason in line for line in failing), result.output


def assert_refused(result, game_id: str | None, reason: str) -> None:
    assert result.exit_code == 1, result.output
    assert result.output.startswith("error: ") and len(result.output.strip().splitlines()) == 1, result.output
    assert (game_id is None or f"game {game_id}" in result.output) and reason in result.output, result.output


def assert_tournament_reads_refused(db: Path, game_id: str | None, reason: str) -> None:
    for args in (("standings", "cup"), ("standings", "cup", "--json"), ("standings", "cup", "--csv"),
                 ("games", "cup")):
        assert_refused(invoke(*args, "--db", str(db)), game_id, reason)


class Forfeits:
    """A random bot that answers an illegal action on its first turn (it forfeits and ranks last, ALL-5)."""

    def act(self, turn):
        return "no-such-action"


def reseal(db: Path, game_id: str, loser: int) -> None:
    """Replace a stored game by another one recorded with tourney's own recorder under the same id and seats,
    in which seat ``loser`` forfeits at once: every hash and derived row consistent, no ledger key."""
    with closing(sqlite3.connect(db)) as connection:
        seats = [SeatInfo(name, content_hash) for name, content_hash in connection.execute(
            "SELECT b.name, b.content_hash FROM seats s JOIN bots b ON b.id = s.bot_id WHERE s.game_id = ? "
            "ORDER BY s.seat", (game_id,))]
    engine = registry.get(GAME)
    config = engine.configure(len(seats))
    agents = [Forfeits() if seat == loser else RandomAgent(seat) for seat in range(len(seats))]
    forged = record(engine, config, "forged", play(engine, config, "forged", agents), seats, game_id=game_id)
    assert forged.ranking[loser] == len(seats)
    drop_triggers(db)
    sql(db, ("DELETE FROM events WHERE game_id = ?", (game_id,)),
        *[(INSERT_EVENT, (game_id, *r)) for r in forged.records],
        ("UPDATE games SET head = ?, events = ?, seed = ?, seed_commitment = ?, end_reason = ? WHERE id = ?",
         (forged.head, len(forged.records), forged.seed, forged.seed_commitment, forged.reason, game_id)),
        *[("UPDATE seats SET rank = ? WHERE game_id = ? AND seat = ?", (rank, game_id, seat))
          for seat, rank in enumerate(forged.ranking)])


# -- a tournament -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cup(tmp_path_factory) -> Path:
    """A finished tournament named cup, three random bots, with a checkpoint over every game."""
    tmp = tmp_path_factory.mktemp("cup")
    db = tmp / "cup.db"
    result = run(make_folder(tmp, good=3), db, "--name", "cup", games=1, jobs=0)
    assert result.exit_code == 0, result.output
    return db


@pytest.fixture
def cup_copy(cup, tmp_path) -> Path:
    return copy_ledger(cup, tmp_path / "tampered.db")


def test_the_untouched_tournament_verifies_and_reads(cup):
    """Before any tamper: verify passes every game and the tournament, standings print the checkpoint."""
    verified = invoke("replay", "verify", "--db", str(cup))
    assert verified.exit_code == 0 and "all passed" in verified.output, verified.output
    checkpoint = re.search(r"ok   tournament 'cup': .*checkpoint ([0-9a-f]{16}) over (\d+) games \(complete\)",
                           verified.output)
    assert checkpoint, verified.output
    standings = invoke("standings", "cup", "--db", str(cup))
    assert standings.exit_code == 0, standings.output
    assert f"checkpoint {checkpoint.group(1)} over {checkpoint.group(2)} games (complete)" in standings.output


def test_a_changed_rank_is_refused_everywhere(cup_copy):
    """seats.rank changed (the events intact): verify names the game and the rank; reads refuse."""
    game_id = first_game(cup_copy)
    sql(cup_copy, ("UPDATE seats SET rank = 3 - rank WHERE game_id = ?", (game_id,)))
    assert_verify_fails(cup_copy, game_id, "its row says rank")
    assert_tournament_reads_refused(cup_copy, game_id, "its row says rank")


def test_a_status_set_to_playing_does_not_hide_a_game(cup_copy):
    """A finished game set to 'playing' is verified anyway and reported; reads refuse it."""
    game_id = first_game(cup_copy)
    sql(cup_copy, ("UPDATE games SET status = 'playing' WHERE id = ?", (game_id,)))
    assert_verify_fails(cup_copy, game_id, "its status is 'playing', but its events end with game_ended")
    assert_tournament_reads_refused(cup_copy, game_id, "its status is 'playing'")


def test_a_rewritten_result_without_new_hashes_breaks_the_link(cup_copy):
    """game_ended's ranking rewritten in place (triggers dropped, hash kept): verify and reads name the game."""
    game_id = first_game(cup_copy)
    drop_triggers(cup_copy)
    with closing(sqlite3.connect(cup_copy)) as connection:
        seq, body = connection.execute("SELECT seq, body FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1",
                                       (game_id,)).fetchone()
    envelope = loads(body)
    ranking = envelope["data"]["ranking"]
    envelope["data"]["ranking"] = ranking[::-1] if ranking != ranking[::-1] else [1, 2]
    sql(cup_copy, ("UPDATE events SET body = ? WHERE game_id = ? AND seq = ?", (canonical(envelope), game_id, seq)))
    assert_verify_fails(cup_copy, game_id, "hash")
    assert_tournament_reads_refused(cup_copy, game_id, "does not hash to its stored hash")


def test_a_game_resealed_without_the_key_is_caught_by_its_signature_and_the_checkpoint(cup_copy):
    """A game replaced by another one recorded with tourney's own recorder (a forged loss for its winner, every
    hash recomputed): verify fails on its signature; reads refuse it through the checkpoint."""
    game_id = first_game(cup_copy)
    reseal(cup_copy, game_id, winner_seat(cup_copy, game_id))
    assert_verify_fails(cup_copy, game_id, "signature does not match the head")
    assert_tournament_reads_refused(cup_copy, None, "a game it covers was changed, re-sealed, replaced or moved")


def test_a_dropped_game_is_caught_by_the_checkpoint(cup_copy):
    """A whole game deleted (triggers dropped): the tournament's checkpoint says one is missing."""
    game_id = first_game(cup_copy)
    drop_triggers(cup_copy)
    sql(cup_copy, ("DELETE FROM events WHERE game_id = ?", (game_id,)), ("DELETE FROM seats WHERE game_id = ?",
                                                                          (game_id,)),
        ("DELETE FROM games WHERE id = ?", (game_id,)))
    assert_verify_fails(cup_copy, None, "a game was removed", "--tournament", "cup")
    assert_tournament_reads_refused(cup_copy, None, "a game was removed")


def test_a_game_moved_in_from_elsewhere_is_caught_by_the_checkpoint(cup_copy, tmp_path):
    """A signed game of another tournament moved into cup: its own signature holds, but cup's complete
    checkpoint does not cover it, and the other tournament's misses it."""
    (tmp_path / "other").mkdir()
    assert run(make_folder(tmp_path / "other", good=2), cup_copy, "--name", "other", games=1, jobs=0).exit_code == 0
    moved = first_game(cup_copy, "tournament_id = (SELECT id FROM tournaments WHERE name = 'other')")
    sql(cup_copy, ("UPDATE games SET tournament_id = (SELECT id FROM tournaments WHERE name = 'cup'), "
                   "game_key = 'moved' WHERE id = ?", (moved,)))
    assert_verify_fails(cup_copy, moved, "stored after the complete checkpoint", "--tournament", "cup")
    assert_verify_fails(cup_copy, None, "a game was removed", "--tournament", "other")
    assert_tournament_reads_refused(cup_copy, moved, "a game was added")


def test_a_forged_reveal_of_the_seed_fails_verification(cup_copy):
    """A tournament seed replaced by another value: its commitment no longer holds."""
    sql(cup_copy, "UPDATE tournaments SET seed = 'forged' WHERE name = 'cup'")
    assert_verify_fails(cup_copy, None, "its revealed seed does not match its commitment", "--tournament", "cup")


def test_a_replaced_ledger_key_is_caught_by_the_published_key_and_the_key_file(cup_copy):
    """An attacker who puts their own public key in the database and re-signs every game and checkpoint passes
    a verify that trusts the database (which prints the attacker's fingerprint), but not one given the
    published public key, nor one run beside the real key file."""
    real_key = cup_copy.with_name(cup_copy.name + ".key")
    published = cup_copy.with_name(cup_copy.name + ".pub")
    attacker = LedgerKey(Ed25519PrivateKey.generate(), Path("attacker.key"))
    with closing(sqlite3.connect(cup_copy)) as connection:
        games = connection.execute("SELECT id, head FROM games").fetchall()
        stored = connection.execute("SELECT seq, games, root, state FROM checkpoints").fetchall()
    sql(cup_copy, "DROP TRIGGER checkpoints_no_update",
        ("UPDATE ledger_keys SET public_key = ?", (attacker.public.hex(),)),
        *[("UPDATE games SET signature = ? WHERE id = ?", (attacker.sign(log_message(g, h)), g)) for g, h in games],
        *[("UPDATE checkpoints SET signature = ? WHERE seq = ?",
           (attacker.sign(checkpoint_message("tournament", "cup", n, root, state)), seq))
          for seq, n, root, state in stored])
    beside = invoke("replay", "verify", "--db", str(cup_copy), "--quiet")
    assert beside.exit_code == 1 and "FAIL ledger key: the key at" in beside.output, beside.output
    real_key.unlink()
    trusting = invoke("replay", "verify", "--db", str(cup_copy), "--quiet")
    assert trusting.exit_code == 0 and f"ledger key {attacker.fingerprint}" in trusting.output, trusting.output
    assert invoke("standings", "cup", "--db", str(cup_copy)).exit_code == 0
    pinned = invoke("replay", "verify", "--db", str(cup_copy), "--quiet", "--key", str(published))
    assert pinned.exit_code == 1 and "not the given key" in pinned.output, pinned.output


# -- a game still playing, a game after the last checkpoint ------------------------------------


def test_a_game_still_playing_is_reported_as_such(tmp_path):
    """A game whose events do not end yet (stored through append) is verified so far and reported as still
    playing, not failed; standings leave it out and say so."""
    ledger = Ledger(str(tmp_path / "open.db"))
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
    verified = invoke("replay", "verify", "--db", str(tmp_path / "open.db"))
    assert verified.exit_code == 0, verified.output
    assert "open game still-open: still playing (status 'playing')" in verified.output
    assert "1 game still playing" in verified.output
    standings = invoke("standings", "mixed", "--db", str(tmp_path / "open.db"))
    assert standings.exit_code == 0 and "1 game still playing (not counted)" in standings.output, standings.output


def test_a_game_resealed_after_the_last_checkpoint_is_caught_by_its_own_signature(tmp_path):
    """With no checkpoint over it yet, a re-sealed game's own signature refuses it on read."""
    db = tmp_path / "late.db"
    ledger = Ledger(str(db))
    archive.import_log(ledger, real_log(GAME, "a"), tournament="cup")
    checkpoints.write(ledger, tournament_rows.scope(tournament_rows.get(ledger, "cup")))
    archive.import_log(ledger, real_log(GAME, "b", game_id="late"), tournament="cup")
    ledger.close()
    assert invoke("standings", "cup", "--db", str(db)).exit_code == 0
    reseal(db, "late", winner_seat(db, "late"))
    assert_tournament_reads_refused(db, "late", "its signature does not hold under the ledger key")
    assert_verify_fails(db, "late", "signature does not match the head")


# -- a ladder -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def spring(tmp_path_factory) -> Path:
    """A ladder named spring: random against the heuristic, 4 games."""
    db = tmp_path_factory.mktemp("spring") / "league.db"
    ledger = Ledger(str(db))
    rows.create(ledger, "spring", GAME, 2)
    ladder.submit(ledger, "spring", BOTS / "random_bot.py", None, FAST)
    ladder.submit(ledger, "spring", BOTS / "heuristic_lemur_tails.py", None, FAST)
    sessions.play(ledger, "spring", 4, 0, FAST, "7")
    ledger.close()
    return db


def ratings(db: Path) -> dict[str, float]:
    ledger = Ledger(str(db), read_only=True)
    try:
        return {e["name"]: e["rating"] for e in rows.entries(ledger, 1, active_only=False)}
    finally:
        ledger.close()


def test_a_forged_ladder_rank_is_refused_and_never_adopted_by_a_rebuild(spring, tmp_path):
    """seats.rank of a ladder game swapped: ladder standings refuse it, `ladder rebuild` refuses and rewrites
    nothing, verify names the game."""
    db = copy_ledger(spring, tmp_path / "league.db")
    game_id = first_game(db)
    before = ratings(db)
    sql(db, ("UPDATE seats SET rank = 3 - rank WHERE game_id = ?", (game_id,)))
    assert_refused(invoke("ladder", "standings", "spring", "--db", str(db)), game_id, "its row says rank")
    assert_refused(invoke("ladder", "rebuild", "spring", "--db", str(db)), game_id, "its row says rank")
    assert ratings(db) == before
    assert_verify_fails(db, game_id, "its row says rank", "--ladder", "spring")


def test_a_forged_ladder_rating_is_refused_and_a_rebuild_restores_the_fold(spring, tmp_path):
    """A rating edited in ladder_entries: standings refuse it (it is not the fold of the games), verify fails,
    and `ladder rebuild` replaces it by the fold of the hashed results."""
    db = copy_ledger(spring, tmp_path / "league.db")
    before = ratings(db)
    sql(db, "UPDATE ladder_entries SET rating = 2400 WHERE name = 'random_bot'")
    assert_refused(invoke("ladder", "standings", "spring", "--db", str(db)), None, "is stored with rating 2400")
    assert_verify_fails(db, None, "is stored with rating 2400", "--ladder", "spring")
    rebuilt = invoke("ladder", "rebuild", "spring", "--db", str(db))
    assert rebuilt.exit_code == 0 and "1 of 2 ratings differed" in rebuilt.output, rebuilt.output
    assert ratings(db) == before
    restored = invoke("ladder", "standings", "spring", "--db", str(db))
    assert restored.exit_code == 0 and "checkpoint " in restored.output, restored.output


def test_a_resealed_ladder_game_is_caught(spring, tmp_path):
    """A ladder game re-sealed without the key: verify fails on its signature and the ladder's checkpoint;
    ladder standings and rebuild refuse."""
    db = copy_ledger(spring, tmp_path / "league.db")
    game_id = first_game(db)
    reseal(db, game_id, winner_seat(db, game_id))
    assert_verify_fails(db, game_id, "signature does not match the head", "--ladder", "spring")
    assert_refused(invoke("ladder", "standings", "spring", "--db", str(db)), None, "re-sealed")
    assert_refused(invoke("ladder", "rebuild", "spring", "--db", str(db)), None, "re-sealed")


# -- a ledger written before ledger keys ------------------------------------------------------


@pytest.fixture
def unsigned(cup, tmp_path) -> Path:
    """The cup tournament as a tourney before ledger keys left it: no key, no signature, no checkpoint."""
    db = copy_ledger(cup, tmp_path / "old.db")
    for suffix in (".key", ".pub"):
        db.with_name(db.name + suffix).unlink()
    old = Ledger(str(db), upgrade=False)
    old.downgrade("0004")
    old.upgrade()
    old.close()
    return db


def test_a_ledger_written_before_keys_verifies_as_unsigned_and_reads_with_a_note(unsigned):
    """Games written before ledger keys are reported "unsigned (written before ledger keys)", not failed."""
    verified = invoke("replay", "verify", "--db", str(unsigned))
    assert verified.exit_code == 0, verified.output
    assert "unsigned (written before ledger keys)" in verified.output and "no ledger key" in verified.output
    standings = invoke("standings", "cup", "--db", str(unsigned))
    assert standings.exit_code == 0 and "games unsigned (written before ledger keys)" in standings.output


def test_db_sign_signs_old_games_after_an_audit_and_refuses_when_the_audit_fails(unsigned, tmp_path):
    """`tourney db sign` refuses, signing nothing, while any game fails verification; on a sound ledger it
    signs every old game and checkpoints the tournament, after which verify checks those signatures."""
    broken = tmp_path / "broken.db"
    with closing(sqlite3.connect(unsigned)) as original, closing(sqlite3.connect(broken)) as copy:
        original.backup(copy)
    game_id = first_game(broken)
    sql(broken, ("UPDATE seats SET rank = 3 - rank WHERE game_id = ?", (game_id,)))
    refused = invoke("db", "sign", "--db", str(broken))
    assert refused.exit_code == 1 and "nothing was signed" in refused.output, refused.output
    with closing(sqlite3.connect(broken)) as connection:
        assert connection.execute("SELECT COUNT(*) FROM games WHERE signature IS NOT NULL").fetchone() == (0,)
    signed = invoke("db", "sign", "--db", str(unsigned))
    assert signed.exit_code == 0 and "signed 6 games" in signed.output, signed.output
    verified = invoke("replay", "verify", "--db", str(unsigned))
    assert verified.exit_code == 0 and "unsigned" not in verified.output and "(the ledger's key)" in verified.output
    assert "checkpoint " in invoke("standings", "cup", "--db", str(unsigned)).output


# -- exports: the manifest of a whole tournament, checked offline ---------------------------------


def export(db: Path, out: Path, *scope: str) -> Path:
    result = invoke("replay", "export", *scope, "--out", str(out), "--view", "spectator", "--db", str(db))
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
    published = cup.with_name(cup.name + ".pub")
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


def test_an_exported_ladder_verifies_offline_with_its_sessions(spring, tmp_path):
    """A ladder's export lists its games in rating order and its sessions' seeds; it verifies offline, and a
    game's seed that its session's seed does not give fails."""
    out = export(spring, tmp_path / "logs", "--ladder", "spring")
    assert verify_folder(out, "--key", str(spring.with_name(spring.name + ".pub"))).exit_code == 0
    edit_manifest(out / "ladder.manifest", lambda m: m["sessions"][0].update(
        seed="0" * 64, commitment=seeds.commitment("0" * 64)))
    result = verify_folder(out)
    assert result.exit_code == 1 and "its seed is not the one its key" in result.output, result.output


# -- making the ledger key ---------------------------------------------------------------------


def test_db_upgrade_makes_the_ledger_key_beside_the_database_and_keeps_it(tmp_path):
    """`tourney db upgrade` makes <db>.key (mode 0600) and <db>.pub and stores the public half; upgrading again
    keeps the same key, and the games stored afterwards are signed by it."""
    db = tmp_path / "league.db"
    made = invoke("db", "upgrade", "--db", str(db))
    assert made.exit_code == 0, made.output
    key_file, public = db.with_name("league.db.key"), db.with_name("league.db.pub")
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600 and public.exists()
    ledger = Ledger(str(db), read_only=True)
    fingerprint = ledger_keys.fingerprint(ledger.public_key())
    assert ledger_keys.load_public(public) == ledger.public_key()
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
