"""Divisions (issue 41 item 5): promotion and relegation past bosses, membership as a fold of the ladder's games and
events, its audit, matchmaking within divisions and challenges, and the CLI.

The rules are checked on their own (tournaments.ladder.divisions is pure), then on real SQLite files with real
games: tourney's builtin random player against a program that crashes at its first move (so it loses every game,
and the builtin wins), stored and rated as a ladder match is (sessions.rated_game inside store_games).
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from ledger.rows import ladder_rows
from ledger.store import Ledger
from replays import facts
from tests import cli
from tournaments.bots.discovery import describe
from tournaments.bots.spec import BUILTIN, BotSpec
from tournaments.ladder import divisions, league, matchmaking, membership, rating_fold, sessions
from tournaments.play import runner
from tournaments.play.schedule import Scheduled, deal_seed
from tournaments.ratings import elo

GAME = "lemur-tails"
NAMES = ["bronze", "silver", "gold"]


# -- the rules, pure ------------------------------------------------------------------------------------------


def duel(membership_: divisions.Membership, games: int, winner: int, loser: int,
         ratings: dict[int, divisions.Rating], first_seq: int = 1) -> dict[int, divisions.Rating]:
    """``games`` Elo games ``winner`` wins against ``loser``, each folded into ``membership_``."""
    for seq in range(first_seq, first_seq + games):
        new = elo.multiplayer_update([ratings[winner][0], ratings[loser][0]], [1, 2])
        ratings = {**ratings, winner: (new[0], None), loser: (new[1], None)}
        membership_(seq, [(winner, 1), (loser, 2)], ratings)
    return ratings


def test_promotion_waits_for_95_percent_confidence_over_the_boss():
    """A bot that keeps beating the boss of its division is promoted at the first game after which its Elo is above
    the boss's by more than 1.96 combined standard errors (Fisher information of their pairwise results), not
    before: every game before that it stays put, though its rating is above the boss's."""
    boss, climber = 1, 2
    fold = divisions.Membership(NAMES, [divisions.Boss(1, boss, 0, 0)])
    ratings = {boss: (1500.0, None), climber: (1500.0, None)}
    for seq in range(1, 40):
        ratings = duel(fold, 1, climber, boss, ratings, seq)
        se = elo.SCALE / math.log(10) / math.sqrt(matchmaking.PRIOR_INFORMATION + seq * _pq(ratings, climber, boss))
        z = (ratings[climber][0] - ratings[boss][0]) / math.hypot(se, se)
        assert fold.z(climber, boss, ratings) == pytest.approx(z)
        if z > divisions.Z:
            break
        assert fold.of(climber) == 0 and not fold.moves and ratings[climber][0] > ratings[boss][0]
    assert fold.of(climber) == 1 and [(m.seq, m.entry, m.kind, m.division) for m in fold.moves] == [
        (seq, climber, divisions.PROMOTE, 1)]
    assert fold.of(boss) == 0  # a boss stays in the division it guards


def _pq(ratings, a, b) -> float:
    p = elo.expected(ratings[a][0], ratings[b][0])
    return p * (1 - p)


def test_without_a_boss_nobody_is_promoted_past_the_boundary():
    """Silver has no boss: a bot promoted out of bronze stays in silver however often it wins."""
    boss, climber, other = 1, 2, 3
    fold = divisions.Membership(NAMES, [divisions.Boss(1, boss, 0, 0)])
    ratings = {e: (1500.0, None) for e in (boss, climber, other)}
    ratings = duel(fold, 30, climber, boss, ratings)
    assert fold.of(climber) == 1
    duel(fold, 60, climber, other, ratings, 31)
    assert fold.of(climber) == 1 and [m.kind for m in fold.moves] == [divisions.PROMOTE]


def test_relegation_when_the_boss_below_passes_it_with_confidence():
    """A silver bot that keeps losing to bronze's boss is relegated once the boss is above it with 95% confidence;
    the top division has no boss, and a boss event places its bot in the division it guards."""
    bronze_boss, fallen, silver_boss = 1, 2, 3
    fold = divisions.Membership(NAMES, [divisions.Boss(1, bronze_boss, 0, 0), divisions.Boss(2, fallen, 1, 0),
                                        divisions.Boss(3, silver_boss, 1, 0)])
    ratings = {e: (1500.0, None) for e in (1, 2, 3)}
    ratings = duel(fold, 10, bronze_boss, fallen, ratings)
    assert fold.of(fallen) == 1 and fold.boss_of == {0: bronze_boss, 1: silver_boss}  # replaced: a member now
    duel(fold, 20, bronze_boss, fallen, ratings, 11)
    assert [(m.entry, m.kind, m.division) for m in fold.moves] == [(fallen, divisions.RELEGATE, 0)]
    assert fold.of(fallen) == 0


def test_openskill_compares_mu_over_the_combined_sigma():
    """On OpenSkill ratings, z = (mu - mu_boss) / sqrt(sigma^2 + sigma_boss^2): 1.95 stays put, 1.97 promotes."""
    fold = divisions.Membership(NAMES[:2], [divisions.Boss(1, 1, 0, 0)])
    sigma = 2.0
    for z, promoted in ((1.95, False), (1.97, True)):
        ratings = {1: (25.0, sigma), 2: (25.0 + z * math.hypot(sigma, sigma), sigma)}
        fold.evaluate(1, [2], ratings)
        assert (fold.of(2) == 1) is promoted


def test_division_names_parse_lowest_first_and_refuse_what_cannot_be():
    assert divisions.parse("bronze, silver,gold") == NAMES
    for bad in ("gold", "a,,b", "a,b,a"):
        with pytest.raises(divisions.DivisionsError):
            divisions.parse(bad)


def test_stored_membership_is_each_entrys_latest_event_and_an_unknown_division_is_refused():
    """Replaying the stored events: a boss event places and pins its bot, a later move wins over an earlier one, and an
    event naming a division the ladder does not have is an error naming it (the audit reports it as tampering)."""
    stored = divisions.replayed(NAMES, [("boss", 1, "bronze"), ("promote", 2, "silver"), ("promote", 2, "gold"),
                                        ("relegate", 3, "bronze")])
    assert (stored.of(1), stored.of(2), stored.of(3), stored.of(4), stored.boss_of) == (0, 2, 0, 0, {0: 1})
    with pytest.raises(divisions.DivisionsError, match="a promote event of entry 2 names division 'iron'"):
        divisions.replayed(NAMES, [("promote", 2, "iron")])


# -- matchmaking ----------------------------------------------------------------------------------------------


def field_of(divided: bool) -> list[matchmaking.Candidate]:
    return [matchmaking.Candidate(f"b{i}", 1300.0 + 40 * i, 30, 60.0 + i, (i // 4) if divided else None)
            for i in range(12)]


def test_a_ladder_without_divisions_matchmakes_exactly_as_before():
    """The same seed gives the tables it gave before divisions existed (drawn with that code, seed 7)."""
    rng = random.Random(7)
    tables = [matchmaking.next_table(field_of(False), 2, rng) for _ in range(6)]
    assert tables == [["b11", "b10"], ["b6", "b1"], ["b4", "b2"], ["b0", "b3"], ["b0", "b3"], ["b1", "b0"]]


def test_tables_stay_within_a_division_but_for_challenges_to_the_division_above():
    """Every table's other seats come from the anchor's division, or, about CHALLENGE of the time when the anchor
    is below the top, from the division above; never from further away; the same seed gives the same tables."""
    candidates = field_of(True)
    division = {c.name: c.division for c in candidates}
    rng = random.Random(3)
    tables = [matchmaking.next_table(candidates, 3, rng) for _ in range(3000)]
    same = challenge = 0
    for anchor, *others in tables:
        gaps = {division[o] - division[anchor] for o in others}
        assert gaps in ({0}, {1}), (anchor, others)
        if gaps == {1}:
            challenge += 1
        else:
            same += 1
    below_top = sum(1 for anchor, *_ in tables if division[anchor] < 2)
    assert 0.07 < challenge / below_top < 0.13
    again = random.Random(3)
    assert [matchmaking.next_table(candidates, 3, again) for _ in range(3000)] == tables


def test_a_division_too_small_for_a_table_takes_in_the_nearest():
    """One bot alone in gold plays with silver (the nearest), not bronze."""
    candidates = [matchmaking.Candidate("top", 1900.0, 10, 80.0, 2),
                  *(matchmaking.Candidate(f"s{i}", 1600.0, 10, 1.0, 1) for i in range(3)),
                  *(matchmaking.Candidate(f"b{i}", 1900.0, 10, 1.0, 0) for i in range(3))]
    rng = random.Random(1)
    for _ in range(40):
        table = matchmaking.next_table(candidates, 2, rng)
        if table[0] == "top":
            assert table[1].startswith("s")


# -- on a ledger, with real games ----------------------------------------------------------------------------


def crasher(tmp_path: Path) -> BotSpec:
    path = tmp_path / "crash.sh"
    path.write_text("#!/bin/sh\nexit 3\n")
    path.chmod(0o755)
    return describe(path)


def builtin(name: str) -> BotSpec:
    import hashlib

    return BotSpec(name, BUILTIN, "", hashlib.sha256(name.encode()).hexdigest())


def make(tmp_path: Path, bosses: list[tuple[str, str]], names: str = "bronze,silver,gold", rating: str = "elo"
         ) -> tuple[Ledger, dict]:
    """A 2-seat ladder with divisions: ``win`` (builtin), ``lose`` (crashes), ``other`` (builtin)."""
    ledger = Ledger(str(tmp_path / "league.db"))
    league.create(ledger, "divided", GAME, 2, rating, names)
    ladder = ladder_rows.get(ledger, "divided")
    crash = crasher(tmp_path)
    _spec, entry_point, files = league.package(Path(crash.path))
    start = league.MODELS[rating].start
    for bot in (builtin("win"), builtin("other")):
        ladder_rows.submit(ledger, ladder["id"], bot.name, bot.content_hash, BUILTIN, "builtin", b"", start)
    ladder_rows.submit(ledger, ladder["id"], "lose", crash.content_hash, crash.kind, entry_point, files, start)
    for bot, division in bosses:
        league.boss(ledger, "divided", bot, division, "a test")
    specs = {"win": builtin("win"), "other": builtin("other"),
             "lose": dataclasses.replace(crash, name="lose")}
    return ledger, specs


def play(ledger: Ledger, specs: dict, pair: tuple[str, str], deals: int, seed: str) -> None:
    """``deals`` matches of ``pair`` (both seat rotations each), stored as a worker stores a match."""
    ladder = ladder_rows.get(ledger, "divided")
    entries = {e["name"]: e for e in ladder_rows.entries(ledger, ladder["id"])}
    spec = runner.Spec(GAME, 2, 1, seed, 1.0, 5.0, tuple(specs[name] for name in pair))
    for deal in range(deals):
        jobs = [runner.Job(spec, Scheduled(f"{seed}-d{deal}-r{r}", 0, deal, r, (pair[r:] + pair[:r]),
                                           deal_seed(seed, 0, deal))) for r in range(2)]
        games = [sessions.rated_game(ledger, result, [entries[seat.name] for seat in result.recorded.seats])
                 for result in runner.results(jobs, 0)]
        ladder_rows.store_games(ledger, ladder["id"], games, league.model(ladder).update, None,
                         membership.keeper(ladder))


def division_of(ledger: Ledger) -> dict[str, str]:
    return {s.name: s.division for s in league.standings(ledger, "divided")}


def stored_moves(ledger: Ledger) -> list[tuple[int, int, str, str, str | None]]:
    return [(e["after_seq"], e["entry_id"], e["kind"], e["division"], e["game_id"]) for e in _events(ledger)
            if e["kind"] in divisions.MOVES]


def _events(ledger: Ledger) -> list[dict]:
    with closing(sqlite3.connect(ledger.url.removeprefix("sqlite:///"))) as db:
        db.row_factory = sqlite3.Row
        return [dict(row) for row in db.execute("SELECT * FROM ladder_events ORDER BY seq")]


def folded(ledger: Ledger) -> divisions.Membership:
    ladder = ladder_rows.get(ledger, "divided")
    rules = membership.keeper(ladder)
    with ledger.read() as connection:
        observer = rules.observer(connection)
        league.folded(ledger, ladder, connection, observer)
    return observer.finish()


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.mark.slow
def test_a_bot_is_promoted_in_the_transaction_of_the_game_that_passed_the_boss(tmp_path):
    """``win`` beats bronze's boss ``lose`` game after game: it stays in bronze while not confident, then one promote
    event names the game that made it confident (appended with it), the standings show it in silver, and the fold
    of the games and the operator's facts gives the same moves at the same games."""
    ledger, specs = make(tmp_path, [("lose", "bronze")])
    assert division_of(ledger) == {"win": "bronze", "other": "bronze", "lose": "bronze"}
    play(ledger, specs, ("win", "lose"), 5, "a")
    assert division_of(ledger)["win"] == "bronze" and stored_moves(ledger) == []  # above the boss, not confident
    play(ledger, specs, ("win", "lose"), 6, "b")
    moves = stored_moves(ledger)
    ids = {e["name"]: e["id"] for e in ladder_rows.entries(ledger, ladder_rows.get(ledger, "divided")["id"])}
    assert [(entry, kind, division) for _seq, entry, kind, division, _game in moves] == [
        (ids["win"], "promote", "silver")]
    seq, _entry, _kind, _division, game_id = moves[0]
    assert ladder_rows.game_ids(ledger, ladder_rows.get(ledger, "divided")["id"])[seq - 1] == game_id
    assert division_of(ledger) == {"win": "silver", "other": "bronze", "lose": "bronze"}
    fold = folded(ledger)
    assert [(m.seq, m.entry, m.kind, NAMES[m.division]) for m in fold.moves] == [m[:4] for m in moves]
    league.checked_fold(ledger, ladder_rows.get(ledger, "divided"))  # membership included: no Tampered


@pytest.mark.slow
def test_relegation_a_void_and_a_tampered_membership_are_refolded_and_audited(tmp_path):
    """``lose`` is put in silver (made its boss, then replaced by ``other``) and loses to bronze's boss ``win`` until
    relegated. Voiding five of its 22 games refolds membership: the fold keeps it in silver, so a move back is
    appended and the stored membership equals the fold again. An inserted promotion fails `tourney db audit` and
    `ladder standings --check`, naming the entry; `ladder rebuild` appends the fold's division and the audit
    passes."""
    ledger, specs = make(tmp_path, [("win", "bronze"), ("lose", "silver"), ("other", "silver")])
    assert division_of(ledger) == {"win": "bronze", "other": "silver", "lose": "silver"}
    play(ledger, specs, ("win", "lose"), 11, "c")
    ladder = ladder_rows.get(ledger, "divided")
    ids = {e["name"]: e["id"] for e in ladder_rows.entries(ledger, ladder["id"])}
    assert [(entry, kind, division) for _seq, entry, kind, division, _game in stored_moves(ledger)] == [
        (ids["lose"], "relegate", "bronze")]
    assert division_of(ledger)["lose"] == "bronze"
    games = ladder_rows.game_ids(ledger, ladder["id"])
    for game_id in games[:5]:
        league.void(ledger, "divided", game_id, "a test of the refold")
    assert division_of(ledger)["lose"] == "silver" == NAMES[folded(ledger).of(ids["lose"])]
    assert stored_moves(ledger)[-1][1:4] == (ids["lose"], "promote", "silver")
    league.checked_fold(ledger, ladder)

    db = str(tmp_path / "league.db")
    assert cli.invoke("db", "audit", "--db", db).exit_code == 0
    with closing(sqlite3.connect(db)) as raw:
        raw.execute("INSERT INTO ladder_events (ladder_id, kind, entry_id, reason, created_at, division, after_seq) "
                    "VALUES (?, 'promote', ?, 'forged', 'now', 'gold', 0)", (ladder["id"], ids["other"]))
        raw.commit()
    with pytest.raises(facts.Tampered, match=f"entry {ids['other']} \\(other v1\\) is in division gold by its stored "
                                             "events, but the games and the operator's facts fold it to silver"):
        league.checked_fold(ledger, ladder)
    audited = cli.invoke("db", "audit", "--db", db)
    assert audited.exit_code != 0 and f"entry {ids['other']} (other v1) is in division gold" in audited.output
    checked = cli.invoke("ladder", "standings", "divided", "--check", "--db", db)
    assert checked.exit_code != 0 and f"entry {ids['other']} (other v1)" in checked.output
    rebuilt = cli.invoke("ladder", "rebuild", "divided", "--db", db)
    assert rebuilt.exit_code == 0 and "divisions: 1 entry moved to the division the fold gives" in rebuilt.stdout
    assert division_of(ledger)["other"] == "silver"
    again = cli.invoke("ladder", "rebuild", "divided", "--db", db)
    assert "divisions: every entry's division equals the fold" in again.stdout
    assert cli.invoke("db", "audit", "--db", db).exit_code == 0


@pytest.mark.slow
def test_standings_show_divisions_top_first_and_json_adds_the_field(tmp_path):
    """`ladder standings` groups rows by division, the top first, with a division column; --json adds
    ``division`` to each row; a ladder without divisions has neither."""
    ledger, specs = make(tmp_path, [("lose", "bronze")])
    play(ledger, specs, ("win", "lose"), 11, "b")
    db = str(tmp_path / "league.db")
    shown = json.loads(cli.invoke("ladder", "standings", "divided", "--json", "--db", db).stdout)
    assert [(row["bot"], row["division"], row["boss"]) for row in shown] == [
        ("win", "silver", False), ("other", "bronze", False), ("lose", "bronze", True)]
    table = cli.invoke("ladder", "standings", "divided", "--db", db).stdout.splitlines()
    rows_ = [line.split() for line in table if line.split()[:1] in (["silver"], ["bronze"])]
    assert [row[0] for row in rows_] == ["silver", "bronze", "bronze"] and rows_[0][3] == "win"
    assert rows_[2][3] == "lose" and rows_[2][-1] == "boss"
    assert "division" in table[1]
    assert cli.invoke("ladder", "create", "plain", "--game", GAME, "--db", db).exit_code == 0
    plain = cli.invoke("ladder", "standings", "plain", "--json", "--db", db)
    assert plain.exit_code == 0 and json.loads(plain.stdout) == []
    assert "division" not in cli.invoke("ladder", "standings", "plain", "--db", db).stdout


def test_the_cli_creates_divisions_and_sets_bosses_or_says_why_not(tmp_path):
    """`ladder create --divisions` and `ladder boss`; a boss for the top division, an unknown division, a bot that
    guards one already, or a ladder without divisions: one line and a non-zero exit."""
    db = str(tmp_path / "l.db")
    made = cli.invoke("ladder", "create", "d", "--game", GAME, "--divisions", "bronze,silver,gold", "--db", db)
    assert made.exit_code == 0 and made.stdout.strip().endswith("divisions bronze, silver, gold)")
    assert cli.invoke("ladder", "create", "x", "--game", GAME, "--divisions", "solo", "--db", db).exit_code != 0
    ledger = Ledger(db)
    for bot in (builtin("a"), builtin("b")):
        ladder_rows.submit(ledger, ladder_rows.get(ledger, "d")["id"], bot.name, bot.content_hash, BUILTIN, "builtin",
                           b"")
    set_ = cli.invoke("ladder", "boss", "d", "a", "--division", "bronze", "--db", db)
    assert set_.exit_code == 0 and set_.stdout.strip() == "a v1 is the boss of bronze on d"
    assert [(e["kind"], e["entry_id"], e["division"]) for e in _events(ledger)] == [("boss", 1, "bronze")]
    for args, said in ((["b", "--division", "gold"], "'gold' is the top division"),
                       (["b", "--division", "iron"], "no division 'iron'"),
                       (["a", "--division", "silver"], "a v1 is already the boss of 'bronze'"),
                       (["nobody", "--division", "silver"], "no active bot 'nobody'")):
        refused = cli.invoke("ladder", "boss", "d", *args, "--db", db)
        assert refused.exit_code != 0 and said in refused.output, refused.output
    assert cli.invoke("ladder", "create", "plain", "--game", GAME, "--db", db).exit_code == 0
    refused = cli.invoke("ladder", "boss", "plain", "a", "--division", "bronze", "--db", db)
    assert refused.exit_code != 0 and "has no divisions" in refused.output


@pytest.mark.slow
def test_revision_0016_upgrades_a_ladder_from_0015_and_keeps_its_events_append_only(backend):
    """A ladder and a retire event at revision 0015: after the upgrade the ladder has no divisions (its standings as
    before, no division field), the event reads the same, ladder events still refuse UPDATE; a ladder with divisions
    and a boss can then be made. Down to 0015 the new columns go and the event stays."""
    old = Ledger(backend.url, upgrade=False)
    old.upgrade("0015")
    old.close()
    with backend.raw() as raw:
        for statement, parameters in (
                ("INSERT INTO ladders (name, game, players, created_at, rating, publish) VALUES "
                 "('old', ?, 2, 'then', 'elo', 'spectator')", (GAME,)),
                ("INSERT INTO bots (name, content_hash, kind, created_at) VALUES ('b', 'h', 'builtin', 'then')", ()),
                ("INSERT INTO ladder_entries (ladder_id, bot_id, name, version, status, rating, games, submitted_at, "
                 "joined_after) VALUES (1, 1, 'b', 1, 'retired', 1500.0, 0, 'then', 0)", ()),
                ("INSERT INTO ladder_events (ladder_id, kind, entry_id, reason, created_at) VALUES "
                 "(1, 'retire', 1, 'gone', 'then')", ())):
            raw.cursor().execute(backend.sql(statement), parameters)
        raw.commit()
    ledger = Ledger(backend.url)
    assert ledger.current() >= "0016"  # the head: later revisions add to it
    ladder = ladder_rows.get(ledger, "old")
    assert ladder["divisions"] is None and membership.keeper(ladder) is None
    assert [s.division for s in league.standings(ledger, "old", include_retired=True)] == [None]
    assert [(e["kind"], e["entry_id"], e["reason"]) for e in ladder_rows.events(ledger, 1)] == [("retire", 1, "gone")]
    with backend.raw() as raw, pytest.raises(backend.errors or Exception, match="append-only"):
        raw.cursor().execute("UPDATE ladder_events SET reason = 'forged'")
    league.create(ledger, "new", GAME, 2, "elo", "low,high")
    ladder_rows.submit(ledger, ladder_rows.get(ledger, "new")["id"], "c", "h2", BUILTIN, "builtin", b"")
    assert league.boss(ledger, "new", "c", "low", "a test") == 1
    assert [s.division for s in league.standings(ledger, "new")] == ["low"]
    ledger.downgrade("0015")
    ledger.close()
    with backend.raw() as raw:
        kept = raw.cursor().execute("SELECT kind, reason FROM ladder_events ORDER BY seq").fetchall()
    assert [tuple(row) for row in kept] == [("retire", "gone"), ("boss", "a test")]


@pytest.mark.slow
def test_the_api_and_the_ladder_page_show_divisions_and_filter_by_one(tmp_path):
    """The leaderboard API's rows gain ``division`` and the ladder its ``divisions``; ``?division=NAME`` keeps that
    division's rows on the API, the page and its live fragment, and an unknown one is a 404 saying which there are;
    the page labels each row and links each division, top first. A ladder without divisions: nulls and []."""
    from tests.web.league import Api
    from web.app import create_app
    from web.settings import Settings

    ledger, specs = make(tmp_path, [("lose", "bronze")])
    play(ledger, specs, ("win", "lose"), 11, "b")
    league.create(ledger, "plain", GAME, 2, "elo")
    app = create_app(Settings(db=str(tmp_path / "league.db")))
    try:
        api = Api(app)
        shown = api.get("/api/ladders/divided").json()
        assert shown["divisions"] == NAMES
        assert {row["bot"]: (row["division"], row["boss"]) for row in shown["leaderboard"]} == {
            "win": ("silver", False), "other": ("bronze", False), "lose": ("bronze", True)}
        silver = api.get("/api/ladders/divided?division=silver").json()["leaderboard"]
        assert [(row["bot"], row["rank"]) for row in silver] == [("win", 1)]
        bronze = api.get("/api/ladders/divided?division=bronze").json()["leaderboard"]
        assert sorted(row["bot"] for row in bronze) == ["lose", "other"]
        unknown = api.get("/api/ladders/divided?division=iron")
        assert unknown.status_code == 404 and unknown.json()["detail"] == (
            "no division 'iron' on ladder 'divided' (its divisions: bronze, silver, gold)")
        assert api.get("/api/ladders/plain?division=bronze").status_code == 404
        plain = api.get("/api/ladders/plain").json()
        assert plain["divisions"] == [] and plain["leaderboard"] == []
        page = api.get("/ladders/divided?division=silver").text
        table = page[page.index('<table class="leaderboard">'):]
        table = table[:table.index("</table>")]
        assert 'title="its division">silver</small>' in table and ">lose<" not in table and ">win<" in table
        # "=" says "tied with the row above"; filtered to a division, the row above may be another rank: none shown
        assert "statistically tied" in api.get("/ladders/divided/leaderboard").text
        assert "statistically tied" not in api.get("/ladders/divided/leaderboard?division=bronze").text
        assert page.index('?division=gold"') < page.index('?division=silver"') < page.index('?division=bronze"')
        fragment = api.get("/ladders/divided/leaderboard?division=bronze").text
        assert fragment.count('pass it">boss</small>') == 1
        assert 'title="its division">bronze</small>' in fragment and "silver</small>" not in fragment
        assert api.get("/ladders/divided?division=iron").status_code == 404
    finally:
        app.state.site.ledger.close()


@pytest.mark.slow
def test_a_ladder_worker_promotes_past_the_boss_as_it_stores_the_games(tmp_path):
    """Through `ladder play`'s worker (sandboxed bots, the match queue): ``steady`` (first legal action) beats bronze's
    boss ``lose`` (crashes) in every game; at the 18th, 1.96 combined standard errors up, it is promoted by an event
    naming that game, and the audit's fold agrees."""
    from tests.tournaments.ladder.test_ladder import BOTS, FAST

    ledger = Ledger(str(tmp_path / "league.db"))
    league.create(ledger, "divided", GAME, 2, "elo", "bronze,silver")
    ladder = ladder_rows.get(ledger, "divided")
    for name, path in (("steady", BOTS / "first_legal.sh"), ("lose", Path(crasher(tmp_path).path))):
        spec, entry_point, files = league.package(path)
        ladder_rows.submit(ledger, ladder["id"], name, spec.content_hash, spec.kind, entry_point, files)
    league.boss(ledger, "divided", "lose", "bronze", "a test")
    assert sessions.play(ledger, "divided", 20, 2, FAST, "7") == 20
    ids = {e["name"]: e["id"] for e in ladder_rows.entries(ledger, ladder["id"])}
    games = ladder_rows.game_ids(ledger, ladder["id"])
    assert stored_moves(ledger) == [(18, ids["steady"], "promote", "silver", games[17])]
    assert division_of(ledger) == {"steady": "silver", "lose": "bronze"}
    assert [(m.seq, m.entry) for m in folded(ledger).moves] == [(18, ids["steady"])]
    league.checked_fold(ledger, ladder)


@pytest.mark.slow
def test_a_void_folds_on_the_promotions_stored_while_it_reads_without_beginning_again(tmp_path):
    """Promotions and relegations are not operators' facts: a game stored (with its promotion) while a void folds
    makes it neither wait nor begin again; it folds that game on, and membership equals the fold after."""
    ledger, specs = make(tmp_path, [("lose", "bronze")])
    play(ledger, specs, ("win", "lose"), 8, "a")
    ladder = ladder_rows.get(ledger, "divided")
    rating = league.model(ladder)
    reads = []

    def results(connection, after):
        reads.append(after)
        if len(reads) == 1:
            other = Ledger(str(tmp_path / "league.db"))
            play(other, specs, ("win", "lose"), 3, "meanwhile")
            other.close()
            assert [kind for _seq, _entry, kind, _division, _game in stored_moves(ledger)] == ["promote"]
        return league.rated_after(ledger, ladder, connection, after)

    first = ladder_rows.game_ids(ledger, ladder["id"])[0]
    rating_fold.void(ledger, ladder["id"], first, "a test", rating.update, results, rating.start,
                     membership.keeper(ladder))
    assert reads == [0, 16]  # read once, then only the 6 games stored meanwhile: it did not begin again
    win = next(e["id"] for e in ladder_rows.entries(ledger, ladder["id"]) if e["name"] == "win")
    assert division_of(ledger)["win"] == "silver" == NAMES[folded(ledger).of(win)]
    league.checked_fold(ledger, ladder)


@pytest.mark.slow
def test_an_openskill_ladder_promotes_on_mu_and_sigma_and_a_void_relegates_by_the_fold(tmp_path):
    """OpenSkill: ``win`` passes bronze's boss at its 7th straight win (mu 35.1 against 14.9, sigma 7.0 each: z =
    2.03); the stored move is the fold's. Voiding two of its eight games leaves six, not yet confident: the void
    appends the relegation the fold gives, and membership equals the fold."""
    ledger, specs = make(tmp_path, [("lose", "bronze")], rating="openskill")
    play(ledger, specs, ("win", "lose"), 4, "o")
    ladder = ladder_rows.get(ledger, "divided")
    win = next(e["id"] for e in ladder_rows.entries(ledger, ladder["id"]) if e["name"] == "win")
    assert [m[:4] for m in stored_moves(ledger)] == [(7, win, "promote", "silver")]
    assert [(m.seq, m.entry, m.kind) for m in folded(ledger).moves] == [(7, win, "promote")]
    league.checked_fold(ledger, ladder)
    for game_id in ladder_rows.game_ids(ledger, ladder["id"])[:2]:
        league.void(ledger, "divided", game_id, "a test")
    assert stored_moves(ledger)[-1][1:4] == (win, "relegate", "bronze")
    assert division_of(ledger)["win"] == "bronze" == NAMES[folded(ledger).of(win)]
    league.checked_fold(ledger, ladder)
