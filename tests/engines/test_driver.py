"""The generic driver on the toy game: play, chance streams, laziness, forfeits (ALL-5)."""

from __future__ import annotations

import random

import pytest

from engines import registry
from engines.base import CHANCE, SETUP, Event, competition_ranks, fold
from engines.driver import MAX_REASON_BYTES, BotFailure, FirstLegal, forfeit_ranking, play, redact, setup
from tests.toy import ENGINE as TOY


class RandomAgent:
    def __init__(self, seed):
        self.rng = random.Random(seed)

    def act(self, turn):
        return self.rng.choice(turn.legal)


class Scripted:
    """Answers with fixed values, then the first legal action."""

    def __init__(self, *answers):
        self.answers = list(answers)

    def act(self, turn):
        return self.answers.pop(0) if self.answers else turn.legal[0]


class Raises:
    def act(self, turn):
        raise BotFailure("timed out after 1.0 s")


class CountsViews:
    def __init__(self):
        self.turns = 0

    def act(self, turn):
        self.turns += 1
        return turn.legal[0]


def test_same_seed_same_game():
    """A seed reproduces every chance outcome and so, with the same agents, the whole game."""
    config = TOY.configure(3)
    first = play(TOY, config, "s1", [RandomAgent(i) for i in range(3)])
    second = play(TOY, config, "s1", [RandomAgent(i) for i in range(3)])
    assert first.events == second.events
    assert first.outcome == second.outcome
    assert play(TOY, config, "s2", [RandomAgent(i) for i in range(3)]).events != first.events


def test_fold_of_the_events_is_the_final_state():
    """Folding the recorded events from nothing gives a terminal state with the same ranking."""
    config = TOY.configure(2)
    played = play(TOY, config, "fold", [FirstLegal(), FirstLegal()])
    state = fold(TOY, played.events)
    assert TOY.actor(state) < 0 and TOY.actor(state) != CHANCE
    assert tuple(TOY.ranking(state)) == played.outcome.ranking


def test_setup_gives_the_opening_events_with_chance():
    """setup(config, seed) is the start events plus the setup's chance outcomes."""
    events = setup(TOY, TOY.configure(2), "s")
    assert [e.type for e in events] == ["table_laid", "hand_dealt", "hand_dealt"]
    played = play(TOY, TOY.configure(2), "s", [FirstLegal(), FirstLegal()])
    assert played.events[:3] == events
    assert played.steps[0].actor == SETUP and played.steps[1].actor == CHANCE


@pytest.mark.parametrize(
    ("agent", "reason"),
    [
        (Scripted("commit:99"), "illegal action: seat 1 cannot commit 99"),
        (Scripted("dance"), "illegal action: seat 1 must commit a card"),
        (Scripted(7), "bot failure: answered int 7"),
        (Raises(), "bot failure: timed out after 1.0 s"),
    ],
    ids=["illegal", "garbage-string", "not-a-string", "raises"],
)
def test_a_failing_agent_forfeits_and_ranks_last_alone(agent, reason):
    """ALL-5: the game ends at once, the offender ranks last alone, with the reason recorded."""
    played = play(TOY, TOY.configure(3), "f", [FirstLegal(), agent, FirstLegal()])
    outcome = played.outcome
    assert outcome.reason == "forfeit" and outcome.forfeit_seat == 1
    assert outcome.forfeit_reason.startswith(reason)
    assert outcome.ranking[1] == 3
    assert sorted(outcome.ranking[s] for s in (0, 2)) in ([1, 1], [1, 2])


@pytest.mark.parametrize("answer", ["x" * 1_000_000, "é" * 600_000, Raises()], ids=["ascii", "two-byte", "short"])
def test_a_forfeit_reason_is_kept_to_1_kib_with_a_marker(answer):
    """Whatever a bot sent, its forfeit reason is at most 1 KiB of UTF-8, cut on a character boundary with a
    marker saying how long it was; a short reason is kept whole."""
    agent = answer if isinstance(answer, Raises) else Scripted(answer)
    reason = play(TOY, TOY.configure(2), "f", [FirstLegal(), agent]).outcome.forfeit_reason
    if isinstance(answer, Raises):
        assert reason == "bot failure: timed out after 1.0 s"
        return
    assert len(reason.encode()) <= MAX_REASON_BYTES and reason.startswith("illegal action: seat 1 ")
    assert answer[:400] in reason and reason.endswith(" bytes in all]") and " ... [cut: " in reason


def test_forfeit_ranking_keeps_the_others_order():
    """ALL-5: the others keep their order as it stands; ties still share."""
    assert forfeit_ranking([1, 2, 3, 4], 0) == (4, 1, 2, 3)
    assert forfeit_ranking([2, 1, 1], 1) == (2, 3, 1)
    assert forfeit_ranking([1, 1, 1], 2) == (1, 1, 3)


def test_views_are_built_only_when_asked():
    """The driver never builds a view for an agent that does not read it (hot loop)."""
    calls = []
    original = TOY.view
    TOY.view = lambda state, seat: calls.append(seat) or original(state, seat)  # type: ignore[method-assign]
    try:
        play(TOY, TOY.configure(2), "lazy", [CountsViews(), CountsViews()])
        assert calls == []
    finally:
        del TOY.view


def test_turn_events_are_redacted_for_the_seat():
    """An agent sees its own hidden cards in its events, never another seat's."""
    seen = {}

    class Watcher:
        def __init__(self, seat):
            self.seat = seat

        def act(self, turn):
            seen.setdefault(self.seat, []).extend(turn.events)
            assert "hand" in turn.view
            return turn.legal[0]

    play(TOY, TOY.configure(2), "watch", [Watcher(0), Watcher(1)])
    for seat, events in seen.items():
        for event in events:
            if event.private is not None:
                assert seat in event.audience
        dealt = [e for e in events if e.type == "hand_dealt" and e.data["seat"] != seat]
        assert dealt and all(e.private is None for e in dealt)


@pytest.mark.parametrize("game", ["tails-on-fire", "lemur-tails"])
def test_a_seats_turn_events_add_up_to_the_game_before_its_turn(game):
    """Over a game, the events each turn hands a seat are every event before that turn, once each, its own
    decisions' events (and what they set off, such as the Rogue's turns) included."""
    engine = registry.get(game)
    got: dict[int, list] = {}

    class Collect:
        def __init__(self, seat):
            self.seat = seat
            self.rng = random.Random(seat)

        def act(self, turn):
            got.setdefault(self.seat, []).extend(turn.events)
            assert got[self.seat] == [redact(event, self.seat) for event in turn._history]
            return self.rng.choice(turn.legal)

    played = play(engine, engine.configure(2), "add-up", [Collect(0), Collect(1)])
    assert played.outcome.reason == "finished" and got[0] and got[1]
    assert any(event.type == "rogue_played" for event in got[0]) or game != "tails-on-fire"


def test_redact_drops_only_what_the_viewer_may_not_see():
    """redact keeps public events and the audience's own private parts."""
    event = Event("hand_dealt", {"seat": 1}, {"cards": [3]}, (1,))
    assert redact(event, 1) is event
    assert redact(event, 0).private is None and redact(event, None).private is None
    public = Event("trick_taken", {"winner": 0})
    assert redact(public, None) is public


def test_competition_ranks():
    """ALL-6: 1 is best and ties share the best rank ("1224")."""
    assert competition_ranks([5, 9, 5, 1]) == [2, 1, 2, 4]


def test_agent_count_must_match_seats():
    """Playing with the wrong number of agents is a programming error."""
    with pytest.raises(ValueError, match="needs 3 agents"):
        play(TOY, TOY.configure(3), "x", [FirstLegal()])


def test_agents_hear_the_end():
    """Agents with an end() hook are told the outcome."""
    heard = []

    class Listener(FirstLegal):
        def end(self, outcome):
            heard.append(outcome.ranking)

    played = play(TOY, TOY.configure(2), "end", [Listener(), Listener()])
    assert heard == [played.outcome.ranking] * 2
