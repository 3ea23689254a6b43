"""The round-robin schedule: fair seats, shared deals, stable keys and seeds."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from tournaments.play.schedule import ScheduleError, schedule, seat_count


@pytest.mark.parametrize(("bots", "players"), [(2, 2), (5, 2), (4, 4), (6, 4), (7, 3)])
def test_every_bot_sits_in_every_seat_equally_often(bots, players):
    """ALL-1: over the schedule each bot occupies each seat the same number of times."""
    names = [f"bot{i}" for i in range(bots)]
    games = schedule(names, players, 3, "seed")
    seats = Counter((bot, seat) for g in games for seat, bot in enumerate(g.bots))
    assert len(set(seats.values())) == 1
    assert {bot for bot, _ in seats} == set(names) and {seat for _, seat in seats} == set(range(players))


def test_every_table_plays_every_deal_from_every_rotation_with_one_seed():
    """Each table of k bots plays N deals; each deal once per rotation, with the same seed."""
    games = schedule(["a", "b", "c", "d"], 3, 2, "s")
    assert len(games) == len(list(combinations("abcd", 3))) * 2 * 3
    by_deal = {}
    for g in games:
        by_deal.setdefault((g.table, g.deal), []).append(g)
    for deal_games in by_deal.values():
        assert len({g.seed for g in deal_games}) == 1
        assert len({g.bots for g in deal_games}) == 3
        assert {frozenset(g.bots) for g in deal_games} == {frozenset(deal_games[0].bots)}
    assert len({g.seed for g in games}) == len(by_deal)


def test_the_seed_reproduces_the_schedule_and_changes_every_deal():
    """The same seed gives the same schedule; another seed changes every deal's seed."""
    first, again = schedule(["x", "y", "z"], 2, 2, "7"), schedule(["z", "x", "y"], 2, 2, "7")
    assert first == again
    other = schedule(["x", "y", "z"], 2, 2, "8")
    assert {g.key for g in other} == {g.key for g in first}
    assert not {g.seed for g in other} & {g.seed for g in first}


def test_keys_are_unique_and_bot_seeds_distinct():
    """Each game has its own key, and each seat of each game its own bot RNG seed."""
    games = schedule(["a", "b", "c"], 2, 3, "k")
    assert len({g.key for g in games}) == len(games)
    seeds = [g.bot_seed("k", seat) for g in games for seat in range(2)]
    assert len(set(seeds)) == len(seeds)


def test_seat_count_defaults_and_limits():
    """k is --players or the game's usual count, at most the number of bots; too few bots is an error."""
    assert seat_count(None, 4, 2, 6, 3, "tails-on-fire") == 3
    assert seat_count(None, 4, 2, 6, 9, "tails-on-fire") == 4
    assert seat_count(2, 4, 2, 6, 9, "tails-on-fire") == 2
    with pytest.raises(ScheduleError, match="needs at least 2 bots, found 1"):
        seat_count(None, 4, 2, 6, 1, "tails-on-fire")
    with pytest.raises(ScheduleError, match="2 to 6 players, not 7"):
        seat_count(7, 4, 2, 6, 9, "tails-on-fire")


def test_bad_schedules_are_refused():
    """No deals, or two bots with one name, cannot be scheduled."""
    with pytest.raises(ScheduleError):
        schedule(["a", "b"], 2, 0, "s")
    with pytest.raises(ScheduleError, match="share a name"):
        schedule(["a", "a"], 2, 1, "s")
