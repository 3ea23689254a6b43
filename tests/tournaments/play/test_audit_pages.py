"""The whole-tournament check reads a page at a time (tournaments.play.tournament_audit, tournaments.play.plan_pages).

Its answers are held against the check as it was before it streamed (kept here as ``whole_walk`` and
``whole_problems``: the plan listed whole, every game's result in a dict): the same problems, in the same order,
with a page of one or two games as with a page larger than the tournament; and what it reads at once is held to
the page (a spy on its reads), so a check that reads everything at once fails here.
"""

from __future__ import annotations

import random
import sqlite3
from contextlib import closing
from itertools import combinations

import pytest

from ledger import closing as closing_rows
from ledger.canonical import loads
from ledger.rows import tournament_rows
from ledger.store import Ledger
from tests.tournaments.play.test_protocol import make_folder, run
from tournaments.play import plan_pages, schedule, tournament_audit
from tournaments.play.candidate_match import Match
from tournaments.play.formats import Gauntlet, Swiss
from tournaments.play.schedule import ScheduleError
from tournaments.ratings.sprt import Sprt


def whole_walk(spec: dict, seed: str, results: dict) -> tuple[dict, bool]:
    """Every game the plan gives, stage by stage as far as ``results`` reach, by key; whether it is over (the
    whole-list walk the audit made before it read in pages)."""
    form, entrants = plan_pages.form_of(spec)
    entrants = plan_pages._Entrants(entrants.players, entrants.games, seed, entrants.bot_names, entrants.deals)
    plan = form.plan(entrants)
    known, reached = {}, {}
    while (stage := plan.next_stage(reached)) is not None:
        known.update((game.key, game) for game in stage)
        reached.update((game.key, results[game.key]) for game in stage if game.key in results)
        if any(game.key not in results for game in stage):
            return known, False
    return known, True


def whole_problems(ledger: Ledger, row: dict) -> tuple[list[str], bool]:
    """The plan's problems of a tournament whose seed is revealed, every game held at once (the check before it
    read in pages), and whether its plan is over."""
    with ledger.read() as connection:
        found = tournament_audit.checked_facts(closing_rows.of_scope(connection, tournament_rows.scope(row)))
    spec = loads(row["spec"])
    planned, over = whole_walk(spec, tournament_rows.revealed(row), {
        fact.key: [(seat.bot, seat.rank) for seat in fact.seats] for fact in found})
    verdict = tournament_audit.Verdict("whole")
    hashes = {bot["name"]: bot["hash"] for bot in spec["bots"]}
    for fact in found:
        if (problem := tournament_audit.misplaced(fact, planned.get(fact.key), hashes,
                                                  spec.get("deals") is not None)) is not None:
            verdict.fail(fact.game_id, problem)
    return verdict.problems, over


# -- the plan found by key --------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(0, 9))
def test_unrank_is_the_combinations_order(n):
    items = [f"b{i}" for i in range(n)]
    for k in range(1, 5):
        listed = list(combinations(items, k))
        assert [schedule.unrank(items, k, index) for index in range(len(listed))] == listed
        assert schedule.unrank(items, k, len(listed)) is None and schedule.unrank(items, k, -1) is None


def spec_of(bots: int, players: int, games: int, form: dict | None = None, deals: list | None = None) -> dict:
    spec = {"players": players, "games": games, "bots": [{"name": f"bot{i}", "hash": f"h{i}"} for i in range(bots)]}
    if form is not None:
        spec["format"] = form
    if deals is not None:
        spec["deals"] = deals
    return spec


def played_out(spec: dict, seed: str, rng: random.Random) -> dict:
    """Made-up results of every game of the plan, played to its end (a random order of places a game)."""
    stored: dict = {}
    while True:
        known, over = whole_walk(spec, seed, stored)
        if over:
            return stored
        for key, game in known.items():
            if key not in stored:
                ranks = rng.sample(range(len(game.bots)), len(game.bots))
                stored[key] = [(bot, rank) for bot, rank in zip(game.bots, ranks, strict=True)]


SPECS = {
    "round robin": spec_of(5, 2, 2),
    "round robin of three seats": spec_of(6, 3, 1),
    "a deal book": spec_of(4, 2, 2, deals=["a" * 64, "b" * 64, "c" * 64]),
    "gauntlet": spec_of(5, 3, 2, Gauntlet("bot3").to_json()),
    "swiss with a bye a round": spec_of(9, 2, 1, Swiss(4).to_json()),
    "swiss of three seats": spec_of(8, 3, 1, Swiss(2).to_json()),
    "match": spec_of(2, 2, 9, Match("bot0", ("bot1",), (), None, 2).to_json()),
    "match with an sprt": spec_of(2, 2, 40, Match("bot0", ("bot1",), (), Sprt(0.0, 200.0, 0.2, 0.2), 3).to_json()),
}


@pytest.mark.parametrize("name", SPECS)
@pytest.mark.parametrize("page", [1, 3, 500])
def test_the_walk_in_pages_finds_what_the_whole_plan_lists(name, page):
    """At every point of the tournament (none stored, some, all but one, all), each game the whole plan lists is
    found by its key, equal; no other key is found; over is the same; and no read asks for more than a page."""
    spec, seed = SPECS[name], "seed-1"
    everything = played_out(spec, seed, random.Random(name))
    order = sorted(everything)
    random.Random(page).shuffle(order)
    everywhere = set(everything) | {"t01-d0-r0", "t0-d0-r9", "t999-d0-r0", "s9-t0-d0-r0", "t0-d99-r0", "x", ""}
    for stored_count in sorted({0, 1, len(order) // 2, len(order) - 1, len(order)}):
        stored = {key: everything[key] for key in order[:stored_count]}
        asked: list[int] = []

        def results(keys, stored=stored, asked=asked):
            asked.append(len(keys))
            return {key: stored[key] for key in keys if key in stored}

        known, over = whole_walk(spec, seed, stored)
        walked = plan_pages.walk(spec, seed, results, page)
        for key in everywhere | set(known):
            assert walked.find(key) == known.get(key), (name, stored_count, key)
        held = sum(1 for key in stored if walked.find(key) is not None)
        assert (walked.over if walked.total is None else held >= walked.total) == over, (name, stored_count)
        assert max(asked, default=0) <= page


def test_a_spec_that_makes_no_plan_fails_as_the_whole_plan_does():
    for spec in (spec_of(3, 2, 0), {**spec_of(3, 2, 1), "bots": [{"name": "a", "hash": ""}] * 3},
                 spec_of(3, 2, 1, Gauntlet("nobody").to_json()), spec_of(3, 2, 4, deals=["a" * 64])):
        with pytest.raises(ScheduleError) as whole:
            whole_walk(spec, "s", {})
        with pytest.raises(ScheduleError) as paged:
            plan_pages.walk(spec, "s", lambda keys: {})
        assert str(paged.value) == str(whole.value)


# -- a stored tournament, tampered ------------------------------------------------------------------


def test_a_tournament_with_a_missing_an_extra_and_a_reordered_game_is_checked_alike_in_pages(tmp_path, monkeypatch):
    """A stored round robin loses a game to another tournament, gains one from it at a key past its plan, and has
    two games' keys swapped: its check names the same games for the same reasons, in the same order, with a page
    of one or two games as with a page larger than it and as the whole-list check; it reads a page at a time."""
    db = tmp_path / "t.db"
    (tmp_path / "cup").mkdir()
    (tmp_path / "other").mkdir()
    assert run(make_folder(tmp_path / "cup", good=3), db, "--name", "cup", games=2, jobs=0).exit_code == 0
    assert run(make_folder(tmp_path / "other", good=2), db, "--name", "other", games=1, jobs=0).exit_code == 0
    with closing(sqlite3.connect(db)) as connection:
        cup, other = (connection.execute("SELECT id FROM tournaments WHERE name = ?", (name,)).fetchone()[0]
                      for name in ("cup", "other"))
        keys = dict(connection.execute("SELECT game_key, id FROM games WHERE tournament_id = ?", (cup,)).fetchall())
        moved_in = connection.execute("SELECT id FROM games WHERE tournament_id = ?", (other,)).fetchone()[0]
        connection.executescript(f"""
            UPDATE games SET tournament_id = {other}, game_key = 'gone' WHERE id = '{keys["t1-d0-r1"]}';
            UPDATE games SET tournament_id = {cup}, game_key = 't3-d0-r0' WHERE id = '{moved_in}';
            UPDATE games SET game_key = 'swap' WHERE id = '{keys["t2-d1-r0"]}';
            UPDATE games SET game_key = 't2-d1-r0' WHERE id = '{keys["t2-d1-r1"]}';
            UPDATE games SET game_key = 't2-d1-r1' WHERE id = '{keys["t2-d1-r0"]}';
        """)
        connection.commit()
    ledger = Ledger(str(db), read_only=True)
    row = tournament_rows.get(ledger, "cup")
    expected, over = whole_problems(ledger, row)
    assert not over
    assert expected[0].startswith(f"game {min(moved_in, keys['t2-d1-r0'], keys['t2-d1-r1'])}: ")
    assert sorted(expected) == sorted([
        f"game {moved_in}: its key 't3-d0-r0' is not one of the tournament's plan",
        *(line for line in expected if "its seats hold" in line)])
    assert {line.split(":")[0] for line in expected if "its seats hold" in line} == {
        f"game {keys['t2-d1-r0']}", f"game {keys['t2-d1-r1']}"}
    read: list[int] = []
    of_games = closing_rows.of_games

    def spied(connection, game_ids):
        read.append(len(game_ids))
        return of_games(connection, game_ids)

    monkeypatch.setattr(tournament_audit.closing, "of_games", spied)
    verdicts = {}
    for page in (1, 2, 10_000):
        read.clear()
        verdicts[page] = tournament_audit.tournament(ledger, row, ledger.public_key(), page)
        assert max(read) <= page
        assert [line for line in verdicts[page].problems if line.startswith("game ")
                and "checkpoint" not in line] == expected
    assert verdicts[1] == verdicts[2] == verdicts[10_000]
    assert verdicts[1].games == 12  # one out, one in
    assert any("a game was removed" in line or "changed" in line for line in verdicts[1].problems)
    assert not tournament_audit.over(row, ledger, page=2)
    ledger.close()


def test_the_finished_untouched_tournament_is_over_in_pages(tmp_path):
    db = tmp_path / "t.db"
    assert run(make_folder(tmp_path, good=3), db, "--name", "cup", games=1, jobs=0).exit_code == 0
    ledger = Ledger(str(db), read_only=True)
    row = tournament_rows.get(ledger, "cup")
    assert whole_problems(ledger, row) == ([], True)
    assert tournament_audit.over(row, ledger, page=1) and tournament_audit.over(row, ledger)
    verdict = tournament_audit.tournament(ledger, row, ledger.public_key(), page=1)
    assert verdict.ok and verdict.games == 6, verdict
    ledger.close()


@pytest.mark.parametrize("stored", ["every game", "two rounds and a half"])
def test_a_stored_swiss_is_checked_alike_in_pages(tmp_path, stored):
    """A Swiss tournament played for real: its rounds' draws from the stored results, a page at a time, give the
    same verdict as the whole-list check; with a game of the third round gone, its plan is not over."""
    db = tmp_path / "t.db"
    result = run(make_folder(tmp_path, good=5), db, "--name", "cup", "--format", "swiss", "--rounds", "3",
                 games=1, jobs=0)
    assert result.exit_code == 0, result.output
    if stored != "every game":
        with closing(sqlite3.connect(db)) as connection:
            connection.execute("UPDATE games SET game_key = 'gone' WHERE game_key = 's3-t1-d0-r1'")
            connection.commit()
    ledger = Ledger(str(db), read_only=True)
    row = tournament_rows.get(ledger, "cup")
    expected, over = whole_problems(ledger, row)
    assert over == (stored == "every game")
    assert len(expected) == (0 if over else 1)
    for page in (1, 3):
        verdict = tournament_audit.tournament(ledger, row, ledger.public_key(), page)
        assert [line for line in verdict.problems if "checkpoint" not in line] == expected
        assert tournament_audit.over(row, ledger, page) == over
    ledger.close()

