"""Tournament formats: the gauntlet's and the Swiss system's schedules are fair, and resume after a kill.

Schedules are checked as pure functions with results made up by a seeded RNG; the resume tests run
real `python -m tournaments run` processes on real SQLite files and kill them with SIGKILL.
"""

from __future__ import annotations

import random
import shutil
from collections import Counter
from itertools import combinations

import pytest

from tests import cli
from tests.tournaments.play.test_protocol import SHIPPED, make_folder
from tests.tournaments.play.test_runner import (
    LINUX,
    dawdle,
    descendants,
    key_counts,
    results_by_key,
    same_results,
    standings_json,
    start,
    stored_count,
    wait_gone,
    wait_until_partly_stored,
)
from tournaments.play import formats
from tournaments.play.candidate_match import Match
from tournaments.play.formats import Gauntlet, RoundRobin, Swiss, game_score, pair
from tournaments.play.runner import Spec
from tournaments.play.schedule import ScheduleError
from tournaments.ratings.sprt import Sprt


class Entrants:
    """The little of a spec a format reads."""

    def __init__(self, bots, players, games=1, seed="s", deals=None):
        self.bot_names, self.players, self.games, self.seed = list(bots), players, games, seed
        self.deals = deals


def play_out(plan, strength: dict[str, float], rng: random.Random) -> tuple[dict, list[list]]:
    """Play a plan to its end with made-up results (a noisy strength decides the places); the stored
    results and each stage's games."""
    stored: dict[str, list[tuple[str, int]]] = {}
    stages = []
    while (stage := plan.next_stage(stored)) is not None:
        stages.append(stage)
        for game in stage:
            noisy = {bot: strength[bot] + rng.gauss(0, 1) for bot in game.bots}
            order = sorted(game.bots, key=lambda bot: -noisy[bot])
            stored[game.key] = [(bot, order.index(bot) + 1) for bot in game.bots]
    return stored, stages


def tables_of(stage) -> list[frozenset]:
    return sorted({frozenset(g.bots) for g in stage}, key=sorted)


def seat_counts(games) -> Counter:
    return Counter((bot, seat) for g in games for seat, bot in enumerate(g.bots))


# -- gauntlet -------------------------------------------------------------------------------


@pytest.mark.parametrize(("bots", "players"), [(4, 2), (5, 3), (6, 4)])
def test_the_gauntlet_seats_the_candidate_at_every_table_of_the_others(bots, players):
    """The candidate plays every table of k - 1 of the others exactly once, every deal from every rotation,
    so every bot sits in every seat equally often at its tables."""
    names = [f"bot{i}" for i in range(bots)]
    plan = Gauntlet("bot2").plan(Entrants(names, players, games=2))
    stored, stages = play_out(plan, dict.fromkeys(names, 0.0), random.Random(1))
    assert len(stages) == 1 and plan.total == len(stored) == len(stages[0])
    games = stages[0]
    assert all("bot2" in g.bots for g in games)
    others = [n for n in names if n != "bot2"]
    assert tables_of(games) == sorted((frozenset({"bot2", *rest}) for rest in combinations(others, players - 1)),
                                      key=sorted)
    seats = seat_counts(games)
    assert {seats[("bot2", seat)] for seat in range(players)} == {len(games) // players}
    for other in others:
        assert len({seats[(other, seat)] for seat in range(players)}) == 1
    by_deal = Counter((g.table, g.deal, g.seed) for g in games)
    assert set(by_deal.values()) == {players}


def test_a_gauntlet_needs_its_candidate_among_the_bots():
    """A candidate that is not one of the bots is refused with the names that are."""
    with pytest.raises(ScheduleError, match=r"candidate 'nobody' is not among the bots \(a, b\)"):
        Gauntlet("nobody").plan(Entrants(["a", "b"], 2))


# -- Swiss ----------------------------------------------------------------------------------


def repeat_free_draw_exists(bots: list[str], k: int, met: set) -> bool:
    """Whether ``bots`` split into tables of k with no two bots that met before (exhaustive search)."""
    if not bots:
        return True
    top, rest = bots[0], bots[1:]
    for others in combinations(rest, k - 1):
        table = (top, *others)
        if any(frozenset(p) in met for p in combinations(table, 2)):
            continue
        if repeat_free_draw_exists([b for b in rest if b not in others], k, met):
            return True
    return False


@pytest.mark.parametrize(("bots", "players", "rounds"), [(8, 2, 5), (9, 3, 3), (12, 4, 3), (7, 2, 4), (6, 3, 4)])
def test_swiss_rounds_never_repeat_a_meeting_when_they_can_avoid_it(bots, players, rounds):
    """A round repeats a meeting only if no draw of its bots could avoid it (checked exhaustively); each round
    seats every bot once or gives it a bye, byes go to the bots with the fewest, and each table plays each
    deal from every rotation."""
    names = [f"bot{i}" for i in range(bots)]
    plan = Swiss(rounds).plan(Entrants(names, players, games=2, seed="7"))
    strength = {name: i / 3 for i, name in enumerate(names)}
    stored, stages = play_out(plan, strength, random.Random(3))
    assert len(stages) == rounds and plan.total == len(stored)
    met: set = set()
    byes = Counter()
    for stage in stages:
        tables = tables_of(stage)
        seated = [bot for table in tables for bot in table]
        assert len(seated) == len(set(seated)) == bots - bots % players
        resting = set(names) - set(seated)
        assert all(byes[bot] == min(byes[b] for b in names) for bot in resting)
        byes.update(resting)
        pairs = {frozenset(p) for table in tables for p in combinations(sorted(table), 2)}
        if pairs & met:
            assert not repeat_free_draw_exists(sorted(seated), players, met)
        met |= pairs
        seats = seat_counts(stage)
        for bot in seated:
            assert len({seats[(bot, seat)] for seat in range(players)}) == 1
        deals = Counter((g.table, g.deal) for g in stage)
        assert set(deals.values()) == {players}
        assert len({g.seed for g in stage}) == 2  # a round's tables all play the round's two deals


def test_swiss_pairs_bots_of_similar_score():
    """After a round, the winners meet the winners: 8 bots whose strengths always decide the game play
    round 2 as 1st-2nd, 3rd-4th, ... of the scores, and the strongest bot ends alone on top."""
    names = [f"bot{i}" for i in range(8)]
    plan = Swiss(3).plan(Entrants(names, 2, games=1, seed="x"))
    strength = {name: 100.0 * i for i, name in enumerate(names)}  # noise of 1 never changes a result
    stored, _ = play_out(plan, strength, random.Random(0))
    played = []
    for number in (1, 2, 3):
        drawn = plan.draw(number, played, stored)
        score = {s.bot: s.score for s in formats.standings(plan.bots, played, stored, "x", 2)}
        if number > 1:
            assert all(score[a] == score[b] for a, b in drawn.tables)
        played.append(drawn)
    final = formats.standings(plan.bots, played, stored, "x", 2)
    assert final[0].bot == "bot7" and final[0].score == 6.0 and final[1].score < 6.0


def test_swiss_repeats_a_meeting_only_when_none_is_left():
    """Four bots, two seats, five rounds: the first three rounds meet every pair once; the next two must repeat."""
    names = ["a", "b", "c", "d"]
    plan = Swiss(5).plan(Entrants(names, 2))
    _, stages = play_out(plan, dict.fromkeys(names, 0.0), random.Random(5))
    first_three = [t for stage in stages[:3] for t in tables_of(stage)]
    assert sorted(first_three, key=sorted) == sorted((frozenset(p) for p in combinations(names, 2)), key=sorted)
    assert all(len(tables_of(stage)) == 2 for stage in stages)


def test_pairing_falls_back_to_the_fewest_repeats():
    """When every table must repeat a meeting, each table takes the nearest bots with the fewest repeats."""
    met = {frozenset(p) for p in [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c")]}
    assert pair(["a", "b", "c", "d"], 2, met) == [("a", "d"), ("b", "c")] or \
        pair(["a", "b", "c", "d"], 2, met) == [("a", "b"), ("c", "d")]
    assert pair(["a", "b", "c", "d"], 2, set()) == [("a", "b"), ("c", "d")]


def test_the_swiss_draw_depends_only_on_results_and_seed():
    """Two plans with the same bots and seed draw the same rounds from the same results; another seed draws
    another first round (the lot) and other deals."""
    names = [f"bot{i}" for i in range(6)]
    first = Swiss(3).plan(Entrants(names, 2, seed="1"))
    again = Swiss(3).plan(Entrants(list(reversed(names)), 2, seed="1"))
    other = Swiss(3).plan(Entrants(names, 2, seed="2"))
    _, stages = play_out(first, {n: 0.0 for n in names}, random.Random(9))
    _, stages_again = play_out(again, {n: 0.0 for n in names}, random.Random(9))
    assert stages == stages_again
    assert other.next_stage({}) != stages[0]


def test_game_scores_are_pairwise_and_shared_on_ties():
    """A seat scores its pairwise results over the others, divided by their number: 1st of 3 scores 1,
    two tied 2nd places 1/4 each (one tie and one loss of two)."""
    assert game_score([("a", 1), ("b", 2), ("c", 2)]) == {"a": 1.0, "b": 0.25, "c": 0.25}
    assert game_score([("a", 2), ("b", 1)]) == {"a": 0.0, "b": 1.0}


@pytest.mark.parametrize(("bots", "players", "games"), [(2, 2, 1), (5, 2, 3), (7, 3, 2), (9, 4, 1)])
def test_each_format_counts_the_games_it_plays_without_drawing_them(bots, players, games):
    """``counted``, the arithmetic a tournament's page uses to tell that it is over (a round robin of 120 bots
    plans 7,140 tables: too many to draw per view), is the number of games the format's plan plays to its end,
    byes of a Swiss round included; a match counts its deals from every seat, and only the SPRT leaves it open."""
    names = [f"bot{i}" for i in range(bots)]
    entrants = Entrants(names, players, games=games)
    for form in (RoundRobin(), Gauntlet("bot1"), Swiss(3)):
        stored, _ = play_out(form.plan(entrants), {name: i / 3 for i, name in enumerate(names)}, random.Random(bots))
        assert form.counted(entrants) == len(stored) == form.plan(entrants).total, form
    match, pair_of = Match("a", ("b",)), Entrants(["a", "b"], 2, games=games)
    stored, _ = play_out(match.plan(pair_of), {"a": 0.0, "b": 0.0}, random.Random(0))
    assert match.counted(pair_of) == len(stored) == 2 * games
    assert Match("a", ("b",), sprt=Sprt()).counted(pair_of) is None


def test_default_rounds_and_formats_of_stored_specs():
    """Default Swiss rounds are ceil(log_k(bots)); a spec without a format is a round robin, whose JSON is
    exactly the one every tournament stored before formats (so old tournaments still resume), plus the
    sandbox's keys, which a resume fills in for specs stored before them (tests/tournaments/sandbox/test_sandbox.py)."""
    assert formats.default_rounds(8, 2) == 3 and formats.default_rounds(9, 2) == 4
    assert formats.default_rounds(9, 3) == 2 and formats.default_rounds(2, 2) == 1
    assert formats.of_json(None) == RoundRobin()
    assert formats.of_json({"name": "swiss", "rounds": 4}) == Swiss(4)
    assert formats.of_json({"name": "gauntlet", "candidate": "x"}) == Gauntlet("x")
    spec = Spec("lemur-tails", 2, 3, "1", 1.0, 5.0, ())
    assert spec.to_json() == {"game": "lemur-tails", "players": 2, "games": 3, "seed": "1", "move_time_ms": 1000,
                              "time_bank_ms": 5000, "options": {}, "bots": [], "sandbox": False,
                              "resources": {"memory_mb": 1024, "cpu_seconds": 60, "max_processes": 64},
                              "clock": "wall", "ponder": True}
    swiss = Spec("lemur-tails", 2, 3, "1", 1.0, 5.0, (), format=Swiss(2))
    assert swiss.to_json()["format"] == {"name": "swiss", "rounds": 2}


# -- the command: run, kill, resume ---------------------------------------------------------


def folder_of_four(tmp_path):
    """Four Lemur Tails bots: three dawdlers (random bots that wait before each game: every table has one,
    so a run cannot end before it is interrupted) and the heuristic bot."""
    folder = make_folder(tmp_path, good=3, shipped=("heuristic_lemur_tails.py",))
    for bot in folder.glob("random_*.py"):
        dawdle(bot)
    return folder


def format_command(folder, db, *extra: str, jobs: int = 2) -> list[str]:
    return ["run", str(folder), "--game", "lemur-tails", "--seed", "4", "--jobs", str(jobs),
            "--move-time", "2", "--db", str(db), *extra]


@pytest.mark.slow
@pytest.mark.skipif(not LINUX, reason="the runner's workers die with it through Linux's PR_SET_PDEATHSIG")
@pytest.mark.parametrize("form", [("--format", "swiss", "--rounds", "3", "--games", "2"),
                                  ("--format", "gauntlet", "--candidate", "heuristic_lemur_tails", "--games", "4")])
def test_a_format_killed_with_sigkill_resumes_to_the_games_of_an_uninterrupted_run(tmp_path, form):
    """SIGKILL mid-tournament, then the same command plus --resume: every planned game stored once, and the
    same tables, rankings and standings as a run never interrupted (Swiss rounds drawn again alike)."""
    folder = folder_of_four(tmp_path)
    db = tmp_path / "killed.db"
    total = 24  # Swiss: 3 rounds of 2 tables of 2 deals; gauntlet: 3 tables of 4 deals; 2 rotations each
    with start(format_command(folder, db, *form), tmp_path) as process:
        wait_until_partly_stored(process, db, total)
        below = descendants(process.pid)
        process.kill()
        process.wait()
        assert wait_gone(below) == []
    before = stored_count(db)
    assert 2 <= before < total
    with start([*format_command(folder, db, *form), "--resume"], tmp_path) as process:
        out, err = process.communicate(timeout=180)
    assert process.returncode == 0, err
    assert f"({before} already stored)" in out
    counts = key_counts(db)
    assert len(counts) == total and set(counts.values()) == {1}
    reference = tmp_path / "reference.db"
    result = cli.invoke(*format_command(folder, reference, *form, jobs=0))
    assert result.exit_code == 0, result.output
    assert results_by_key(db) == results_by_key(reference)
    assert same_results(db, reference)


def test_format_options_are_checked(tmp_path):
    """--candidate without a gauntlet, --rounds without Swiss, an unknown format or candidate: exit 2 or one
    error line, nothing played."""
    folder = make_folder(tmp_path, good=2)
    db = tmp_path / "t.db"
    assert cli.invoke(*format_command(folder, db, "--candidate", "random_bot")).exit_code == 2
    assert cli.invoke(*format_command(folder, db, "--rounds", "2")).exit_code == 2
    assert cli.invoke(*format_command(folder, db, "--format", "ladder")).exit_code == 2
    unknown = cli.invoke(*format_command(folder, db, "--format", "gauntlet", "--candidate", "zed"))
    assert unknown.exit_code == 1 and "error: the gauntlet's candidate 'zed' is not among the bots" in unknown.stderr
    assert stored_count(db) == 0


@pytest.mark.slow
def test_a_swiss_run_names_itself_and_shows_standings(tmp_path):
    """A small Swiss run in this process: default name with the format, every round played, standings printed."""
    folder = make_folder(tmp_path, good=3)
    shutil.copy(SHIPPED / "random_bot.py", folder / "random_d.py")
    db = tmp_path / "t.db"
    result = cli.invoke(*format_command(folder, db, "--format", "swiss", "--games", "1", jobs=0))
    assert result.exit_code == 0, result.output
    assert "bots-lemur-tails-swiss-seed4: 4 bots, 2 per table, 8 games" in result.stdout
    assert stored_count(db) == 8  # ceil(log2 4) = 2 rounds of 2 tables of 2 games
    assert standings_json(db)["games"] == 8
