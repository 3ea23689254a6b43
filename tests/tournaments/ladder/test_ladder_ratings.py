"""Ladder rating models: Elo or OpenSkill chosen at creation, new versions, matchmaking, rebuild = incremental.

Real SQLite files and real bot processes, as in test_ladder.py.
"""

from __future__ import annotations

import json
import math
import random
import sqlite3
from collections import Counter
from contextlib import closing

import pytest

from ledger.rows import ladder_rows
from ledger.store import Ledger
from tests import cli
from tests.tournaments.ladder.test_ladder import BOTS, FAST, GAME, bot_file
from tournaments.ladder import league as ladder
from tournaments.ladder import matchmaking, sessions
from tournaments.ratings import openskill


def test_the_rating_model_defaults_by_seats_and_is_stored(tmp_path):
    """`ladder create` rates 2-seat ladders by Elo and 3 or more seats by OpenSkill unless --rating says;
    an unknown model exits 2."""
    db = str(tmp_path / "l.db")
    for args, expected in ((["two", "--game", "lemur-tails"], "elo"),
                           (["three", "--game", "nine-tails"], "openskill"),
                           (["duel", "--game", "lemur-tails", "--rating", "openskill"], "openskill"),
                           (["four", "--game", "tails-on-fire", "--rating", "elo"], "elo")):
        result = cli.invoke("ladder", "create", *args, "--db", db)
        assert result.exit_code == 0, result.output
        assert result.stdout.strip().endswith(f"{expected} ratings)")
        assert ladder_rows.get(Ledger(db), args[0])["rating"] == expected
    assert cli.invoke("ladder", "create", "x", "--game", "lemur-tails", "--rating", "glicko", "--db", db).exit_code == 2


def refolded_equals_incremental(ledger: Ledger, name: str) -> dict:
    """Rebuild the ladder; assert every entry's rating and sigma came out exactly as they were."""
    changes = ladder.rebuild(ledger, name)
    assert changes and all(before == after for before, after in changes.values()), changes
    return changes


@pytest.mark.slow
def test_an_openskill_ladder_rates_by_mu_minus_three_sigma_and_rebuilds_to_the_same_numbers(tmp_path):
    """OpenSkill ladder: games move mu and shrink sigma, standings order by mu - 3 sigma, a new version starts at
    its predecessor's mu with sigma widened, and a rebuild or a void (versions entering where they were
    submitted) reproduces the incremental mu and sigma exactly."""
    ledger = Ledger(str(tmp_path / "l.db"))
    ladder.create(ledger, "skill", GAME, 2, "openskill")
    ladder.submit(ledger, "skill", BOTS / "heuristic_lemur_tails.py", "pro", FAST)
    ladder.submit(ledger, "skill", BOTS / "random_bot.py", None, FAST)
    ladder.submit(ledger, "skill", BOTS / "first_legal.sh", None, FAST)
    fresh = ladder.standings(ledger, "skill")
    assert {(s.mu, s.sigma) for s in fresh} == {(openskill.MU, openskill.SIGMA)}
    sessions.play(ledger, "skill", 12, 0, FAST, "2")
    played = ladder.standings(ledger, "skill")
    assert all(s.sigma < openskill.SIGMA for s in played)
    assert [s.rating for s in played] == sorted((s.rating for s in played), reverse=True)
    assert all(s.rating == pytest.approx(s.mu - 3 * s.sigma) for s in played)
    assert played[0].name == "pro"
    refolded_equals_incremental(ledger, "skill")

    before = {s.name: s for s in played}["random_bot"]
    changed = bot_file(tmp_path, "random_bot", "        return turn.legal[0]")
    ladder.submit(ledger, "skill", changed, None, FAST)
    v2 = {(s.name, s.version): s for s in ladder.standings(ledger, "skill")}[("random_bot", 2)]
    assert v2.mu == before.mu
    assert v2.sigma == pytest.approx(min(openskill.SIGMA, math.sqrt(before.sigma**2 + openskill.VERSION_SIGMA**2)))
    sessions.play(ledger, "skill", 6, 0, FAST, "3")
    refolded_equals_incremental(ledger, "skill")
    first_game = ladder_rows.game_ids(ledger, ladder_rows.get(ledger, "skill")["id"])[0]
    ladder.void(ledger, "skill", first_game, "a test of the refold")  # refolds without it, versions included
    refolded_equals_incremental(ledger, "skill")
    history = ladder.history(ledger, "skill", "random_bot")
    assert {row["version"] for row in history} == {1, 2} and all("sigma" in row for row in history)

    shown = cli.invoke("ladder", "standings", "skill", "--json", "--db", str(tmp_path / "l.db"))
    assert shown.exit_code == 0, shown.output
    listed = json.loads(shown.stdout)
    assert all({"mu", "sigma"} <= set(row) for row in listed)
    table = cli.invoke("ladder", "standings", "skill", "--db", str(tmp_path / "l.db"), width=200)
    assert "mu - 3σ" in table.stdout
    # `ladder history` says "rating" as the leaderboard does (mu - 3 sigma), and mu under its own name (issue 41).
    shown = cli.invoke("ladder", "history", "skill", "random_bot", "--json", "--db", str(tmp_path / "l.db"))
    assert shown.exit_code == 0, shown.output
    told = json.loads(shown.stdout)
    assert [(row["rating"], row["mu"]) for row in told] == [
        (pytest.approx(openskill.Skill(row["rating"], row["sigma"]).ordinal), row["rating"]) for row in history]
    last = next(s for s in ladder.standings(ledger, "skill") if (s.name, s.version) == ("random_bot", 2))
    assert told[-1]["rating"] == pytest.approx(last.rating)
    table = cli.invoke("ladder", "history", "skill", "random_bot", "--db", str(tmp_path / "l.db"), width=200)
    assert "mu - 3σ" in table.stdout and f"{told[-1]['mu']:.1f}" in table.stdout


@pytest.mark.slow
def test_an_elo_ladder_with_a_new_version_rebuilds_to_the_same_numbers(tmp_path):
    """Elo ladders keep their rule (a new version starts at 1500, no sigma) and rebuild exactly across versions."""
    ledger = Ledger(str(tmp_path / "l.db"))
    ladder.create(ledger, "classic", GAME, 2)
    ladder.submit(ledger, "classic", BOTS / "random_bot.py", "alpha", FAST)
    ladder.submit(ledger, "classic", BOTS / "first_legal.sh", None, FAST)
    sessions.play(ledger, "classic", 4, 0, FAST, "1")
    ladder.submit(ledger, "classic", bot_file(tmp_path, "alpha", "        return turn.legal[-1]"), "alpha", FAST)
    entries = ladder_rows.entries(ledger, ladder_rows.get(ledger, "classic")["id"], active_only=False)
    newest = next(e for e in entries if e["name"] == "alpha" and e["version"] == 2)
    assert (newest["rating"], newest["sigma"], newest["joined_after"]) == (1500.0, None, 4)
    sessions.play(ledger, "classic", 4, 0, FAST, "2")
    refolded_equals_incremental(ledger, "classic")
    assert all(s.mu is None for s in ladder.standings(ledger, "classic"))


def test_openskill_matchmaking_prefers_uncertain_anchors_and_close_opponents():
    """With OpenSkill's spread (beta), the most uncertain bot anchors most tables, and an anchor's opponent is far
    more often the bot of close mu than the one 20 mu away."""
    candidates = [matchmaking.Candidate("steady", 25.0, 50, 1.0), matchmaking.Candidate("near", 26.0, 50, 1.0),
                  matchmaking.Candidate("far", 45.0, 50, 1.0), matchmaking.Candidate("new", 25.0, 0, 8.0)]
    rng = random.Random(11)
    tables = [matchmaking.next_table(candidates, 2, rng, spread=openskill.BETA) for _ in range(3000)]
    anchors = Counter(table[0] for table in tables)
    assert anchors.most_common(1)[0][0] == "new" and anchors["new"] > 0.9 * len(tables)
    steady = Counter(table[1] for table in tables if table[0] == "steady")
    assert steady["near"] > 5 * max(1, steady["far"])


def test_a_ladder_made_before_rating_models_upgrades_to_elo(tmp_path):
    """A database at revision 0003 with a ladder and an entry: after the upgrade the ladder rates by Elo, the entry
    has no sigma and joined the fold at its start."""
    path = tmp_path / "old.db"
    ledger = Ledger(str(path), upgrade=False)
    ledger.upgrade("0003")
    with closing(sqlite3.connect(path)) as raw:
        raw.execute("INSERT INTO ladders (name, game, players, created_at) VALUES ('old', 'lemur-tails', 2, 'then')")
        raw.execute("INSERT INTO bots (name, content_hash, kind, created_at) VALUES ('b', 'h', 'python', 'then')")
        raw.execute("INSERT INTO ladder_entries (ladder_id, bot_id, name, version, status, rating, games, "
                    "submitted_at) VALUES (1, 1, 'b', 1, 'active', 1512.5, 0, 'then')")
        raw.commit()
    upgraded = Ledger(str(path))
    assert ladder_rows.get(upgraded, "old")["rating"] == "elo"
    entry = ladder_rows.entries(upgraded, 1)[0]
    assert (entry["rating"], entry["sigma"], entry["joined_after"]) == (1512.5, None, 0)
