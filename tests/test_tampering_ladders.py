"""Tampering with a real ladder's ledger on every backend, as an attacker with the database would (tests/tamper.py).

`ladder standings --check` (which reads every game's result from its events; plain `ladder standings` reads the
ratings and read models, checking the checkpoints and signatures only) and `ladder rebuild` must refuse a forged
result in one line and never adopt it, `replay verify --db --ladder` must name it, and a ladder's export must
verify offline, on SQLite and on PostgreSQL alike.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ledger import checkpoints, seeds
from ledger.rows import ladder_rows
from ledger.store import Ledger
from replays import projections
from tests import tamper as attack
from tests.backends import Backend, copied_ledger
from tests.held import AliveFacts
from tests.tournaments.play.test_protocol import GAME
from tournaments.ladder import ladder_audit, rating_fold, sessions
from tournaments.ladder import league as ladder

BOTS = Path(__file__).resolve().parents[1] / "bots"
FAST = ladder.Limits(move_time=2.0, time_bank=5.0)


def build_spring(template: Backend) -> None:
    """A ladder named spring: random against the heuristic, 4 games."""
    ledger = Ledger(template.url, ledger_key=template.key)
    ladder_rows.create(ledger, "spring", GAME, 2)
    ladder.submit(ledger, "spring", BOTS / "random_bot.py", None, FAST)
    ladder.submit(ledger, "spring", BOTS / "heuristic_lemur_tails.py", None, FAST)
    sessions.play(ledger, "spring", 4, 0, FAST, "7")
    ledger.close()


spring_templates, spring = copied_ledger("spring", build_spring)


def on_spring(command: str, backend: Backend, *extra: str):
    """`tourney ladder COMMAND spring --db URL` in this process."""
    return attack.invoke("ladder", command, "spring", *extra, "--db", backend.url)


def ratings(backend: Backend) -> dict[str, float]:
    ledger = Ledger(backend.url, read_only=True)
    try:
        return {e["name"]: e["rating"] for e in ladder_rows.entries(ledger, 1, active_only=False)}
    finally:
        ledger.close()


def test_a_forged_ladder_rank_is_refused_and_never_adopted_by_a_rebuild(spring):
    """seats.rank of a ladder game swapped: ladder standings --check refuse it, `ladder rebuild` refuses and
    rewrites nothing, verify names the game."""
    game_id = attack.first_game(spring)
    before = ratings(spring)
    attack.tamper(spring, attack.swap_ranks(game_id))
    attack.assert_refused(on_spring("standings", spring, "--check"), game_id, "its row says rank")
    attack.assert_refused(on_spring("rebuild", spring), game_id, "its row says rank")
    assert ratings(spring) == before
    attack.assert_verify_fails(spring, game_id, "its row says rank", "--ladder", "spring")


def test_a_forged_ladder_rating_is_refused_and_a_rebuild_restores_the_fold(spring):
    """A rating edited in ladder_entries: standings --check and `db audit` refuse it (it is not the fold of the
    games), verify fails, and `ladder rebuild` replaces it by the fold of the hashed results."""
    before = ratings(spring)
    attack.tamper(spring, "UPDATE ladder_entries SET rating = 2400 WHERE name = 'random_bot'")
    attack.assert_refused(on_spring("standings", spring, "--check"), None, "is stored with rating 2400")
    attack.assert_refused(attack.invoke("db", "audit", "--db", spring.url), None, "is stored with rating 2400")
    attack.assert_verify_fails(spring, None, "is stored with rating 2400", "--ladder", "spring")
    rebuilt = on_spring("rebuild", spring)
    assert rebuilt.exit_code == 0 and "1 of 2 ratings differed" in rebuilt.output, rebuilt.output
    assert ratings(spring) == before
    restored = on_spring("standings", spring)
    assert restored.exit_code == 0 and "checkpoint " in restored.output, restored.output


def test_a_removed_void_is_refused_by_the_triggers_and_caught_once_they_are_lifted(spring):
    """A voided game's void event deleted, to make the game count again: both backends refuse it while the
    ladder_events triggers stand; once the owner lifts them, standings --check refuse the ratings (not the fold
    of the games that count) and verify fails."""
    game_id = attack.first_game(spring)
    voided = attack.invoke("ladder", "void", "spring", game_id, "--reason", "a test", "--db", spring.url)
    assert voided.exit_code == 0, voided.output
    assert on_spring("standings", spring).exit_code == 0
    remove = "DELETE FROM ladder_events WHERE kind = 'void'"
    with pytest.raises(spring.errors, match="ladder events are append-only: DELETE refused"):
        attack.tamper(spring, remove)
    spring.lift_append_only("ladder_events")
    attack.tamper(spring, remove)
    attack.assert_refused(on_spring("standings", spring, "--check"), None, "is stored with rating")
    attack.assert_verify_fails(spring, None, "is stored with rating", "--ladder", "spring")


def test_a_resealed_ladder_game_is_caught(spring):
    """A ladder game re-sealed without the key: verify fails on its signature and the ladder's checkpoint;
    ladder standings and rebuild refuse."""
    game_id = attack.first_game(spring)
    attack.reseal(spring, game_id, attack.winner_seat(spring, game_id))
    attack.assert_verify_fails(spring, game_id, "signature does not match the head", "--ladder", "spring")
    attack.assert_refused(on_spring("standings", spring), None, "re-sealed")
    attack.assert_refused(on_spring("rebuild", spring), None, "re-sealed")


def test_a_forged_reveal_of_a_session_seed_fails_verification(spring):
    """A ladder session's revealed seed replaced by another value: its commitment no longer holds."""
    attack.tamper(spring, "UPDATE ladder_sessions SET seed = 'forged'")
    attack.assert_verify_fails(spring, None, "session 1: its revealed seed does not match its commitment",
                               "--ladder", "spring")


def test_a_forged_history_row_is_named_with_its_game(spring):
    """A rating of the history (ladder_ratings) edited: verify names the game whose row differs from the fold."""
    game_id = attack.first_game(spring)
    attack.tamper(spring, f"UPDATE ladder_ratings SET rating = rating + 1 WHERE game_seq = (SELECT seq FROM "
                          f"ladder_games WHERE game_id = '{game_id}')")
    attack.assert_verify_fails(spring, game_id, "history row says", "--ladder", "spring")


def test_a_history_row_no_rated_game_gives_is_named(spring):
    """A history row added for a voided game (which the fold leaves out): verify names that game."""
    game_id = attack.first_game(spring)
    voided = attack.invoke("ladder", "void", "spring", game_id, "--reason", "a test", "--db", spring.url)
    assert voided.exit_code == 0, voided.output
    attack.tamper(spring, f"INSERT INTO ladder_ratings (game_seq, entry_id, rank, rating) VALUES ((SELECT seq FROM "
                          f"ladder_games WHERE game_id = '{game_id}'), 1, 0, 1500.0)")
    attack.assert_verify_fails(spring, game_id, "a history row for entry 1 that no rated game gives", "--ladder",
                               "spring")


def test_the_ladder_check_holds_a_page_of_games_not_the_ladder(spring, monkeypatch):
    """The whole-ladder check reads its games a page at a time and keeps none: when its fold is done (every game
    read), no more results of games are alive than a page holds, whatever the ladder's size; a page whose game is
    voided (no rated game on it) passes as the others do."""
    voided = attack.invoke("ladder", "void", "spring", attack.first_game(spring), "--reason", "a test", "--db",
                           spring.url)
    assert voided.exit_code == 0, voided.output
    page = 1
    monkeypatch.setattr(checkpoints, "PAGE", page)
    alive = AliveFacts()
    alive.before_each_call(monkeypatch, rating_fold.Fold, "done")
    ledger = Ledger(spring.url, read_only=spring.path is not None)
    try:
        assert len(ladder_rows.game_ids(ledger, 1)) > 2 * page
        verdict = ladder_audit.ladder(ledger, ladder_rows.get(ledger, "spring"), ledger.public_key())
    finally:
        ledger.close()
    assert verdict.problems == [] and alive.counts and max(alive.counts) <= page, (verdict.problems, alive.counts)


def test_ladder_standings_check_holds_a_page_and_prints_what_standings_print(spring, monkeypatch):
    """`ladder standings --check` reads its games a page at a time (its ratings' fold and read models' sums beside
    each other): when it compares the sums (every game read and folded), no more results of games are alive than a
    page holds; on the sound ledger it prints what plain `ladder standings` prints, who vouches included."""
    for extra in ((), ("--json",)):
        plain, checked = on_spring("standings", spring, *extra), on_spring("standings", spring, "--check", *extra)
        assert plain.exit_code == 0 and checked.output == plain.output, (plain.output, checked.output)
    assert "checkpoint " in on_spring("standings", spring, "--check").output
    page = 1
    monkeypatch.setattr(checkpoints, "PAGE", page)
    alive = AliveFacts()
    alive.before_each_call(monkeypatch, projections.LadderSums, "check")
    ledger = Ledger(spring.url, read_only=spring.path is not None)
    try:
        assert len(ladder_rows.game_ids(ledger, 1)) > 2 * page
        _rows, trust = ladder.checked_standings(ledger, "spring", check=True)
    finally:
        ledger.close()
    assert len(alive.counts) == 1 and alive.counts[0] <= page and trust.checkpoint is not None, alive.counts


def test_a_forged_ladder_read_model_is_named_by_the_check(spring):
    """A ladder's record changed by hand: `ladder standings --check` refuses, naming the row and what the games'
    hashed results give; plain `ladder standings` shows it (it is the audit's and the check's to find)."""
    entry = attack.fetch(spring, "SELECT entry_id FROM ladder_records ORDER BY entry_id LIMIT 1")[0][0]
    attack.tamper(spring, f"UPDATE ladder_records SET wins = wins + 5 WHERE entry_id = {entry}")
    attack.assert_refused(on_spring("standings", spring, "--check"), None,
                          f"a read model differs from the games' hashed results: ladder_records (entry_id={entry})")
    assert on_spring("standings", spring).exit_code == 0


def test_an_exported_ladder_verifies_offline_with_its_sessions(spring, tmp_path):
    """A ladder's export lists its games in rating order and its sessions' seeds; it verifies offline, and a
    game's seed that its session's seed does not give fails."""
    out = tmp_path / "logs"
    exported = attack.invoke("replay", "export", "--ladder", "spring", "--out", str(out), "--view", "spectator",
                             "--db", spring.url)
    assert exported.exit_code == 0 and ".manifest" in exported.output, exported.output
    published = spring.key.with_suffix(".pub")
    assert attack.invoke("replay", "verify", str(out), "--quiet", "--key", str(published)).exit_code == 0
    manifest = json.loads((out / "ladder.manifest").read_text())
    manifest["sessions"][0].update(seed="0" * 64, commitment=seeds.commitment("0" * 64))
    (out / "ladder.manifest").write_text(json.dumps(manifest))
    result = attack.invoke("replay", "verify", str(out), "--quiet")
    assert result.exit_code == 1 and "its seed is not the one its key" in result.output, result.output
