"""Rules versions: an older engine's log still verifies; a future one is refused clearly."""

from __future__ import annotations

import copy

import pytest

from engines import registry
from engines.base import Event
from engines.driver import play
from replays import log as logfmt
from replays.record import SeatInfo, record
from replays.verify import VerifyError, verify_log
from tests.replays.forgery import RandomAgent, reseal
from tests.toy import HighCards


class HighCardsV1(HighCards):
    name = "high-cards-versioned"
    version = 1


class HighCardsV2(HighCardsV1):
    """Version 2 changed a rule: the lowest card takes the trick."""

    version = 2

    def decide(self, state, action):
        events = super().decide(state, action)
        last = events[-1]
        if last.type == "trick_taken":
            cards = last.data["cards"]
            winner = min(range(state.seats), key=lambda s: cards[s])
            events[-1] = Event("trick_taken", {"cards": cards, "winner": winner})
        return events


@pytest.fixture(autouse=True)
def versions():
    registry.register(HighCardsV2(), HighCardsV1())


def log_of(engine, seed="v"):
    config = engine.configure(3)
    played = play(engine, config, seed, [RandomAgent(i) for i in range(3)])
    infos = [SeatInfo(f"b{i}", "0" * 64) for i in range(3)]
    return logfmt.from_recorded(record(engine, config, seed, played, infos, game_id=f"g{engine.version}",
                                       salt_key=b"s" * 32))


def test_current_version_is_the_newest():
    """A new game is played with the newest rules; older ones stay reachable by version."""
    assert registry.get("high-cards-versioned").version == 2
    assert registry.get("high-cards-versioned", 1).version == 1


def test_a_log_of_the_older_rules_still_verifies():
    """A log written by rules version 1 verifies with version 1, though version 2 is current."""
    old = log_of(HighCardsV1())
    assert old["engine_version"] == 1
    assert verify_log(old).decisions == 9
    assert verify_log(log_of(HighCardsV2())).decisions == 9


def test_claiming_the_other_version_fails_where_the_rules_differ():
    """The same game relabelled as version 2 (hashes recomputed) fails at a trick the rules disagree on."""
    forged = copy.deepcopy(log_of(HighCardsV1(), "differ"))
    forged["engine_version"] = forged["events"][0]["data"]["engine_version"] = 2
    with pytest.raises(VerifyError, match="trick_taken"):
        verify_log(reseal(forged))


def test_a_future_rules_version_is_refused():
    """A log naming rules newer than this tourney knows is refused, saying to upgrade."""
    forged = copy.deepcopy(log_of(HighCardsV2()))
    forged["engine_version"] = forged["events"][0]["data"]["engine_version"] = 7
    with pytest.raises(VerifyError, match=r"newer than this tourney knows \(1, 2\); upgrade tourney"):
        verify_log(reseal(forged))
