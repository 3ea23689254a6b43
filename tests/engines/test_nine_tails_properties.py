"""Nine Tails engine: properties of random playouts (Hypothesis) and the heuristic bot."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

import engines.nine_tails.tricks as tricks
from bots import heuristic_nine_tails, random_bot
from engines import registry
from engines.base import CHANCE, SETUP, TERMINAL, Event, IllegalAction, fold
from engines.chance import Prng
from engines.driver import opening, play
from engines.nine_tails.cards import (
    MOVE_CAP,
    NEED,
    NINE,
    ORDERED_COST,
    STARTING_FOX_IDS,
    TAIL_IDS,
    TAIL_VALUE,
    TRICK_NAMES,
    WILD_FOX_IDS,
    WILDS_IDS,
)
from engines.nine_tails.engine import ENGINE
from engines.nine_tails.state import (
    CANCEL,
    PERFORM,
    TARGET,
    State,
    _assign,
    assign,
    can_pay,
    fits,
    locate,
    put,
    sort_hand,
)
from tests.engines.nine_tails_positions import conserved
from tests.properties import examples
from tests.strategies import seeds

# --- properties -----------------------------------------------------------------------------------

PROPERTY = examples(15)
seat_counts = st.integers(min_value=2, max_value=5)

UNIVERSE = [
    "venture", "sneak", "rest", "none", "stop", "waste", "cancel", "decline", "", "dance", "take:", "fox:",
    "slot:-1", "slot:x", "slot:99", "seat:9", "seat:x", "pay:", "pay:Z", "pay:AC", "trick:joker", "discard:joker",
    "VENTURE", "take:F-AACS", "fox:T-AC", "study:W-AA*", "take:T-AC:F-AACS",
    *(f"take:{card}" for card in WILDS_IDS),
    *(f"fox:{card}" for card in STARTING_FOX_IDS + WILD_FOX_IDS),
    *(f"{kind}:{trick}" for kind in ("trick", "discard") for trick in TRICK_NAMES),
    *(f"pay:{symbol}" for symbol in "ACGSQ*"),
    *(f"study:{card}" for card in WILDS_IDS[10:20]),
    *(f"seat:{seat}" for seat in range(5)),
    *(f"slot:{slot}" for slot in range(14)),
]  # fmt: skip


def random_game(seed: str, seats: int, fast: bool = False):
    """Yield (state, events so far) after every step of a random legal playout (the driver's loop)."""
    config = ENGINE.configure(seats, {"fast": True} if fast else {})
    state, steps, stream = opening(ENGINE, config, seed)
    events = [event for step in steps for event in step.events]
    rng = random.Random(seed)
    yield state, events
    while (actor := ENGINE.actor(state)) != TERMINAL:
        if actor == CHANCE:
            new = ENGINE.chance(state, Prng(seed, stream))
            stream += 1
        else:
            new = ENGINE.decide(state, rng.choice(ENGINE.legal_actions(state)))
        for event in new:
            state = ENGINE.apply(state, event)
        events += new
        yield state, events


def test_the_states_a_decision_folds_ahead_are_only_a_cache():
    """A trick performed or a cancel declined folds its events ahead; apply hands those states back
    for the very same state and event objects only, and they equal a fold from equal copies."""
    checked = Counter()
    for seed in ("ahead-1", "ahead-2", "ahead-3"):
        for state, _ in random_game(seed, 3):
            if state.phase not in (PERFORM, CANCEL):
                continue
            events = ENGINE.decide(state, ENGINE.legal_actions(state)[0])
            served, fresh = state, State(*state)  # an equal state, not the same object
            for event in events:
                served = ENGINE.apply(served, event)
                fresh = ENGINE.apply(fresh, Event(*event))
            assert served == fresh
            checked[state.phase] += 1
    assert checked[PERFORM] and checked[CANCEL]


@pytest.mark.slow
def test_the_shortcuts_of_the_rules_agree_with_the_long_way():
    """What the engine keeps or skips for speed equals what it would work out in full, at every step of random games:
    a decision skips folding ahead only where nothing resolves, ``targets`` keeps the last state's answer, ``assign``
    is cached, ``_fitting`` unrolls ``_pays``, ``locate`` looks at a hinted seat first, and a draw of nothing keeps
    the hands (each sorted)."""
    checked = Counter()
    for seed in ("shortcut-1", "shortcut-2", "shortcut-3", "shortcut-4"):
        for state, _ in random_game(seed, 3 + len(seed) % 3):
            assert all(hand == sort_hand(hand) for hand in state.hands)
            for seat, foxes in enumerate(state.foxes):
                for index, fox in enumerate(foxes):
                    for hint in range(state.seats):
                        assert locate(state, fox.card, hint) == (seat, index, fox) == locate(state, fox.card)
                    for card in TAIL_IDS:  # _fitting's table against can_pay's count of open slots
                        assert fits(fox, card) == (fox.count + TAIL_VALUE[card] <= NINE and can_pay(fox, NEED[card]))
                    for key in ("quick-paws", "study-heist", "tail-swipe", "second-wind", "T-AA*", "T-QQC*"):
                        if can_pay(fox, NEED[key]):
                            cost = ORDERED_COST[key]
                            assert assign(fox, cost) == [*_assign.__wrapped__(fox.slots, fox.spent, cost)]
            if state.phase == TARGET:
                first = tricks.targets(state)
                assert tricks.targets(state) is first and first == tricks._targets(State(*state))
                checked[TARGET] += 1
            if state.phase in (PERFORM, CANCEL) and state.turns < MOVE_CAP - 1:  # (no move-cap event to add)
                for action in ENGINE.legal_actions(state):
                    events = ENGINE.decide(state, action)
                    full = tricks.resolve_if_due(state, events[:1]) if events[0].type != "fox_chosen" else events
                    assert events == full
                    checked[state.phase] += 1
    assert checked[PERFORM] and checked[CANCEL] and checked[TARGET]


@PROPERTY
@given(seed=seeds, seats=seat_counts, fast=st.booleans())
def test_random_playouts_end_within_the_cap(seed, seats, fast):
    """NT-9, ALL-4: random bots (bots/random_bot.py, unchanged) always finish a game within 3,000 turns."""
    config = ENGINE.configure(seats, {"fast": True} if fast else {})
    agents = [random_bot.Bot("nine-tails", seat, random.Random(f"{seed}/{seat}")) for seat in range(seats)]
    played = play(ENGINE, config, seed, agents)
    state = fold(ENGINE, played.events)
    assert played.outcome.reason == "finished" and ENGINE.actor(state) == TERMINAL
    assert state.turns <= MOVE_CAP
    assert (state.winner >= 0) != state.capped
    assert played.events[-1].type in ("game_won", "move_cap_reached")


@PROPERTY
@given(seed=seeds, seats=seat_counts)
def test_fold_of_the_events_equals_the_live_state(seed, seats):
    """state = fold(events): folding the log from nothing gives the live state, at sampled steps and at the end."""
    sampled = set(random.Random(seed).sample(range(1500), 4))
    for index, (state, events) in enumerate(random_game(seed, seats)):
        if index in sampled:
            assert fold(ENGINE, events) == state
    assert fold(ENGINE, events) == state and ENGINE.actor(state) == TERMINAL


@PROPERTY
@given(seed=seeds, seats=seat_counts)
def test_every_card_and_counter_is_in_exactly_one_place(seed, seats):
    """Components: 10 starting foxes, 45 Wilds cards, 30 trickery cards, 10 Ascended Fox cards, 40 counters, always."""
    for state, _ in random_game(seed, seats):
        conserved(state)


def hidden_variants(state: State, seat: int):
    """States that differ from ``state`` only in ``seat``'s hand or in deck orders."""
    hand = state.hands[seat]
    for index, card in enumerate(state.trickery):
        if hand and card != hand[0]:
            deck = (*state.trickery[:index], hand[0], *state.trickery[index + 1 :])
            yield "hand", state._replace(hands=put(state.hands, seat, sort_hand((*hand[1:], card))), trickery=deck)
            break
    yield "decks", state._replace(wilds=state.wilds[::-1], starting=state.starting[::-1], trickery=state.trickery[::-1])


@PROPERTY
@given(seed=seeds, seats=seat_counts)
def test_views_leak_nothing_hidden(seed, seats):
    """Views never show another seat's trickery cards or any deck order: changing those changes no other view."""
    sample = random.Random(seed).randrange(30, 70)
    for index, (state, _) in enumerate(random_game(seed, seats)):
        if index % sample:
            continue
        seat = index % seats
        for kind, variant in hidden_variants(state, seat):
            for viewer in [None, *range(seats)]:
                if kind == "hand" and viewer == seat:
                    continue
                assert ENGINE.view(variant, viewer) == ENGINE.view(state, viewer)
        view = ENGINE.view(state, seat)
        assert all(isinstance(size, int) for size in view["decks"].values())
        json.dumps(view)


@PROPERTY
@given(seed=seeds, seats=seat_counts)
def test_illegal_actions_are_refused_and_legal_ones_accepted(seed, seats):
    """ALL-3: legal lists are small and exact: every listed action is accepted, anything else raises IllegalAction."""
    sample = random.Random(seed).randrange(60, 140)
    for index, (state, _) in enumerate(random_game(seed, seats)):
        if index % sample or ENGINE.actor(state) < 0:
            continue
        legal = ENGINE.legal_actions(state)
        assert legal and len(legal) == len(set(legal))
        for action in UNIVERSE + legal:
            if action in legal:
                assert ENGINE.decide(state, action)
            else:
                with pytest.raises(IllegalAction) as refused:
                    ENGINE.decide(state, action)
                assert str(refused.value)
    with pytest.raises(IllegalAction):
        ENGINE.decide(state, "venture")  # the game is over


@PROPERTY
@given(seed=seeds, seats=seat_counts)
def test_a_redacted_log_verifies(seed, seats):
    """A log whose decisions lost their private parts still re-decides every decision and ends in the same ranking."""
    agents = [random_bot.Bot("nine-tails", seat, random.Random(f"{seed}/{seat}")) for seat in range(seats)]
    played = play(ENGINE, ENGINE.configure(seats), seed, agents)
    state = None
    for step in played.steps:
        events = step.events
        if step.actor >= 0:
            action = ENGINE.action_of(events[0])
            assert action == step.action
            again = ENGINE.decide(state, action)
            assert [(e.type, e.data) for e in again] == [(e.type, e.data) for e in events]
            events = [Event(e.type, e.data, None, e.audience) for e in events]
        else:
            assert all(ENGINE.action_of(event) is None for event in events)
        for event in events:
            state = ENGINE.apply(state, event)
    assert ENGINE.actor(state) == TERMINAL and tuple(ENGINE.ranking(state)) == played.outcome.ranking


ASKED_ALONE = frozenset(("choose", "place", "discard", "perform", "cancel window", "target"))
"""NT-20: the decisions a seat is still asked when it has a single legal action."""
NEVER_ALONE = frozenset(("action", "trick window", "pay", "befuddle"))
"""NT-20: the decisions never asked with a single legal action (the engine goes on without asking)."""


class Recorder:
    """A random agent that records, through the public Turn, each decision it was asked: phase, legal, hand."""

    def __init__(self, seed: str, asked: list) -> None:
        self.rng = random.Random(seed)
        self.asked = asked

    def act(self, turn):
        view = turn.view
        self.asked.append((view["phase"], tuple(turn.legal), len(view["hand"])))
        return self.rng.choice(turn.legal)


FEWER = examples(8)  # a view at every decision or step: a dearer playout


@FEWER
@given(seed=seeds, seats=seat_counts)
def test_decisions_with_one_legal_action_are_asked_as_documented(seed, seats):
    """NT-20, NT-10, NT-19: a seat is asked with a single legal action only in the phases documented as still
    asked; the trick and cancel windows ask only seats holding a card; Befuddle asks only while a slot is open."""
    engine = registry.get("nine-tails")
    asked: list = []
    play(engine, engine.configure(seats), seed, [Recorder(f"{seed}/{seat}", asked) for seat in range(seats)])
    assert asked
    for phase, legal, hand in asked:
        assert phase in ASKED_ALONE | NEVER_ALONE, phase
        if phase in NEVER_ALONE:
            assert len(legal) >= 2, (phase, legal)
        if phase in ("trick window", "cancel window"):
            assert hand > 0, (phase, legal)
        if phase == "befuddle":
            assert "stop" in legal and any(action.startswith("slot:") for action in legal), legal


@FEWER
@given(seed=seeds, seats=seat_counts)
def test_every_seat_always_has_a_starting_fox(seed, seats):
    """NT-11: a seat's starting fox leaves it only by ascending, and then goes under the Starting Fox Deck before
    the new one is drawn, so no seat is ever without a fox (seen in the spectator's view after every step)."""
    engine = registry.get("nine-tails")
    agents = [random_bot.Bot("nine-tails", seat, random.Random(f"{seed}/{seat}")) for seat in range(seats)]
    played = play(engine, engine.configure(seats), seed, agents)
    state = None
    for step in played.steps:
        for event in step.events:
            state = engine.apply(state, event)
        if step.actor == SETUP:
            continue
        for foxes in engine.view(state, None)["foxes"]:
            assert any(fox["kind"] == "starting fox" for fox in foxes), foxes


# --- the heuristic bot --------------------------------------------------------------------------


def test_heuristic_bot_beats_random_bots():
    """bots/heuristic_nine_tails.py beats two random bots clearly over 36 3-seat games, seats rotated."""
    ranks, wins = [], 0
    for deal in range(12):
        for hero in range(3):
            agents = [
                (heuristic_nine_tails if seat == hero else random_bot).Bot("nine-tails", seat, random.Random(deal))
                for seat in range(3)
            ]
            played = play(ENGINE, ENGINE.configure(3), f"duel-{deal}", agents)
            assert played.outcome.reason == "finished"
            ranks.append(played.outcome.ranking[hero])
            wins += played.outcome.ranking.count(1) == 1 and played.outcome.ranking[hero] == 1
    assert sum(ranks) / len(ranks) < 1.3
    assert wins / len(ranks) > 0.75
