"""Views leak nothing: two games that differ only in one seat's hidden cards give the same
spectator log, byte for byte, up to the commitments (and so the hashes).

Tails on Fire's hidden information is a decision (the chosen opossums), so its twins differ
in what seat 1 chooses. Nine Tails is not here: every seat there draws from the one Trickery deck in the normal
course of play, so no card can be swapped into one hand without changing another's; its
views are checked for leaks state by state in tests/engines/test_nine_tails.py.
"""

from __future__ import annotations

import random

import orjson
import pytest

from engines import registry
from engines.base import Event
from engines.driver import play
from engines.lemur_tails.cards import END
from engines.lemur_tails.engine import LemurTails
from replays import log as logfmt
from replays.record import SeatInfo, record


class Twin:
    """Mixin: swap two positions of one hidden shuffle, so one seat is dealt another card."""

    shuffle_type = ""

    def __init__(self, i: int, j: int) -> None:
        super().__init__()
        self.swap = (i, j)

    def chance(self, state, rng):
        out = []
        for event in super().chance(state, rng):
            if event.type == self.shuffle_type:
                order = list(event.private["order"])
                i, j = self.swap
                order[i], order[j] = order[j], order[i]
                event = Event(event.type, event.data, {**event.private, "order": order}, event.audience)
            out.append(event)
        return out


class LemurTwin(Twin, LemurTails):
    shuffle_type = "deck_shuffled"


class Filtered:
    """A random bot that never takes the actions named, and ends its turn when it can."""

    def __init__(self, seed, banned=(), prefer=()):
        self.rng = random.Random(seed)
        self.banned = banned
        self.prefer = prefer

    def act(self, turn):
        for action in self.prefer:
            if action in turn.legal:
                return action
        allowed = [a for a in turn.legal if not a.startswith(self.banned)]
        return self.rng.choice(allowed or turn.legal)


def spectator_bytes(engine, seed, agents):
    """The spectator log without commitments and hashes, the shuffled order, and the final state."""
    config = engine.configure(len(agents))
    played = play(engine, config, seed, agents)
    seats = [SeatInfo(f"b{i}", "0" * 64) for i in range(config.seats)]
    full = logfmt.from_recorded(record(engine, config, seed, played, seats, game_id="twin", salt_key=b"t" * 32))
    log = logfmt.redact(full, "spectator")
    stripped = {**log, "head": None, "events": [{k: v for k, v in e.items() if k not in ("commitment", "hash")}
                                                for e in log["events"]]}
    order = next(e["private"]["order"] for e in full["events"] if e["type"] == engine.shuffle_type)
    return orjson.dumps(stripped, option=orjson.OPT_SORT_KEYS), order, played.state, full


def lemur_deep_card_stayed(order, j, state, log):
    # Tail cards leave the deck from the top, so the bottom one (j = 87) stayed while any tail card did.
    return any(card != END for card in state.deck)


CASES = {
    # Seat 1 is dealt order[8:16] and holds it all game (it only ends its turns, never discards);
    # seat 0 never draws blind from it. Position 87 is the bottom of the deck, below the End card
    # unless that was shuffled to the very bottom: deals where it was drawn are skipped.
    "lemur-tails": (LemurTwin, 8, 87, lemur_deep_card_stayed,
                    lambda s: [Filtered(f"{s}/0", banned=("lemur:blind",)), Filtered(f"{s}/1", prefer=("end",))]),
}


class Chooser:
    """Seat 1 of the Tails on Fire twins: picks the first (or the last) opossum it may, then always passes."""

    def __init__(self, last: bool) -> None:
        self.last = last

    def act(self, turn):
        picks = [action for action in turn.legal if action.startswith("choose:")]
        if picks:
            return picks[-1] if self.last else picks[0]
        return "pass"


def test_tails_on_fire_spectator_logs_hide_a_seats_chosen_opossums():
    """TOF: two games in which seat 1 chooses other opossums (and never plays them) give byte-identical
    spectator logs up to the commitments, though their full logs differ."""
    engine = registry.get("tails-on-fire")
    compared = 0
    for attempt in range(3):
        seed = f"tof-leak-{attempt}"
        logs = []
        for last in (False, True):
            agents = [Filtered(f"{seed}/0"), Chooser(last), Filtered(f"{seed}/2"), Filtered(f"{seed}/3")]
            config = engine.configure(4)
            played = play(engine, config, seed, agents)
            seats = [SeatInfo(f"b{i}", "0" * 64) for i in range(4)]
            logs.append(logfmt.from_recorded(record(engine, config, seed, played, seats, game_id="twin",
                                                    salt_key=b"t" * 32)))
        full_a, full_b = logs
        assert [e.get("private") for e in full_a["events"]] != [e.get("private") for e in full_b["events"]]
        spectator = [logfmt.redact(log, "spectator") for log in logs]
        stripped = [[{k: v for k, v in e.items() if k not in ("commitment", "hash")} for e in log["events"]]
                    for log in spectator]
        assert stripped[0] == stripped[1], f"seed {seed}: seat 1's hidden choice changed the spectator log"
        compared += 1
    assert compared == 3


@pytest.mark.parametrize("game", sorted(CASES))
def test_spectator_logs_are_identical_when_only_a_hidden_hand_differs(game):
    """Swap one of seat 1's dealt cards with a deep card no one draws: the spectator log is unchanged."""
    twin, i, j, stayed, agents = CASES[game]
    compared = 0
    for attempt in range(10):
        seed = f"leak-{attempt}"
        first, order, state_a, log_a = spectator_bytes(twin(0, 0), seed, agents(seed))
        second, _, _, _ = spectator_bytes(twin(i, j), seed, agents(seed))
        if order[i] == order[j] or not stayed(order, j, state_a, log_a):
            continue  # same kind of card, or the deep card was drawn: the games differ in more than a hand
        assert first == second, f"seed {seed}: a hidden card changed the spectator log"
        compared += 1
    assert compared >= 3, "too few deals kept the swapped card in the deck to compare"
