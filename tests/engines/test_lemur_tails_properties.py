"""Lemur Tails engine: properties of random and heuristic playouts (Hypothesis) and the heuristic bot."""

from __future__ import annotations

import random
from typing import Any, NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bots.heuristic_lemur_tails as heuristic
import bots.random_bot as random_bot
from engines.base import CHANCE, TERMINAL, Event, IllegalAction, fold
from engines.chance import Prng
from engines.driver import Turn, opening, play
from engines.lemur_tails.cards import CARDS, END, KIND, KIND_NAMES
from engines.lemur_tails.engine import ENGINE
from engines.lemur_tails.rules import MOVE_CAP
from engines.lemur_tails.state import END_IN_DECK
from tests.engines.lemur_tails_positions import GAME
from tests.properties import examples

# ---------------------------------------------------------------------- properties


class Playout(NamedTuple):
    events: list[Event]
    steps: list[tuple[int, str | None, int, int]]
    """(actor, action, first event index, end event index) per step after the opening."""
    snapshots: list[tuple[int, Any]]
    """(events so far, live state) after every step."""
    final: Any


def playout(seed: int, bots: tuple[str, str]) -> Playout:
    """A game played step by step like the driver does, keeping every live state (shared, never copied)."""
    config = ENGINE.configure(2)
    key = f"prop{seed}"
    state, opening_steps, stream = opening(ENGINE, config, key)
    events = [event for step in opening_steps for event in step.events]
    rng = random.Random(seed)
    agents = [
        heuristic.Bot(GAME, s, rng) if kind == "heuristic" else random_bot.Bot(GAME, s, rng)
        for s, kind in enumerate(bots)
    ]
    steps, snapshots = [], [(len(events), state)]
    while (seat := ENGINE.actor(state)) != TERMINAL:
        if seat == CHANCE:
            action = None
            new = ENGINE.chance(state, Prng(key, stream))
            stream += 1
        else:
            legal = ENGINE.legal_actions(state)
            action = agents[seat].act(Turn(ENGINE, state, seat, legal, events, 0))
            new = ENGINE.decide(state, action)
        for event in new:
            state = ENGINE.apply(state, event)
        steps.append((seat, action, len(events), len(events) + len(new)))
        events.extend(new)
        snapshots.append((len(events), state))
        assert len(steps) < 100_000
    return Playout(events, steps, snapshots, state)


def where(state) -> list[int]:
    """How many places hold each card id (should be exactly one, LT-1)."""
    count = [0] * CARDS
    for place in (state.deck, *state.hands, state.market, *state.tails, state.discard):
        for card in place:
            count[card] += 1
    if state.end_card != END_IN_DECK:
        count[END] += 1  # set aside (before setup, or drawn)
    return count


seeds = st.integers(min_value=0, max_value=10**9)
tables = st.tuples(st.sampled_from(["random", "heuristic"]), st.sampled_from(["random", "heuristic"]))
quick = examples(40)


def decision_states(game: Playout, seed: int, count: int) -> list[Any]:
    states = [state for _, state in game.snapshots if ENGINE.actor(state) >= 0]
    return random.Random(seed).sample(states, min(count, len(states)))


@quick
@given(seeds, tables)
def test_playouts_end_and_fold_equals_live(seed, bots):
    """Every playout reaches TERMINAL within the cap; folding its events from scratch equals the live state."""
    game = playout(seed, bots)
    assert ENGINE.actor(game.final) == TERMINAL and sum(game.final.turns) <= MOVE_CAP
    assert fold(ENGINE, game.events) == game.final
    for count, live in random.Random(seed).sample(game.snapshots, min(8, len(game.snapshots))):
        assert fold(ENGINE, game.events[:count]) == live


@quick
@given(seeds, tables)
def test_every_card_is_in_exactly_one_place(seed, bots):
    """All 89 cards (80 numbered, 8 jokers, End) are each in exactly one place at every step (LT-1)."""
    game = playout(seed, bots)
    for _, state in game.snapshots:
        assert where(state) == [1] * CARDS
        assert sum(state.present) + sum(state.empty) + state.aside == 12


def _hide_differently(state, seat):
    """The same state with one of ``seat``'s hand cards swapped for a deck card of another kind."""
    hand = list(state.hands[seat])
    deck = list(state.deck)
    for i, card in enumerate(hand):
        if card == state.held:
            continue
        for j, other in enumerate(deck):
            if other != END and KIND[other] != KIND[card]:
                hand[i], deck[j] = other, card
                hands = list(state.hands)
                hands[seat] = tuple(sorted(hand))
                return state._replace(hands=tuple(hands), deck=tuple(deck))
    return None


@quick
@given(seeds, tables)
def test_views_leak_no_hidden_card(seed, bots):
    """States differing only in one seat's hand (or the deck order) look the same to the other seat and spectators."""
    game = playout(seed, bots)
    for state in decision_states(game, seed, 12):
        for seat in (0, 1):
            other = _hide_differently(state, seat)
            if other is None:
                continue
            assert ENGINE.view(other, 1 - seat) == ENGINE.view(state, 1 - seat)
            assert ENGINE.view(other, None) == ENGINE.view(state, None)
            assert ENGINE.view(other, seat) != ENGINE.view(state, seat)
        shuffled = state._replace(deck=tuple(reversed(state.deck)))
        for seat in (0, 1, None):
            assert ENGINE.view(shuffled, seat) == ENGINE.view(state, seat)
        assert "hand" not in ENGINE.view(state, None)


@quick
@given(seeds, tables)
def test_illegal_actions_are_refused_with_a_reason(seed, bots):
    """Plausible but illegal actions (not in the legal list) raise IllegalAction with a non-empty reason."""
    game = playout(seed, bots)
    candidates = [f"play:{k}:{t}" for k in KIND_NAMES for t in ("0w", "0b", "1w", "1b")]
    candidates += ["keep", "draw", "end", "lemur:blind", "lemur:swap", "place:0w", "discard:W5", "exchange:0w:0:W1"]
    candidates += [f"lemur:tail:{t}" for t in ("0w", "0b", "1w", "1b")] + ["lemur:market:BJ", "nonsense", "end:0"]
    for state in decision_states(game, seed, 10):
        legal = ENGINE.legal_actions(state)
        assert legal and len(legal) == len(set(legal))
        for action in legal:
            assert ENGINE.decide(state, action)
        for action in candidates:
            if action in legal:
                continue
            with pytest.raises(IllegalAction) as refused:
                ENGINE.decide(state, action)
            assert str(refused.value)
    with pytest.raises(IllegalAction, match="game is over"):
        ENGINE.decide(game.final, "end")


@quick
@given(seeds, tables)
def test_redacted_fold_redecides_and_reaches_the_same_end(seed, bots):
    """With decision events' private parts dropped, every decision re-decides to the same events and the end matches."""
    game = playout(seed, bots)
    state = fold(ENGINE, game.events[: game.steps[0][2]])
    for actor, action, first, last in game.steps:
        recorded = game.events[first:last]
        if actor >= 0:
            assert ENGINE.action_of(recorded[0]) == action
            again = ENGINE.decide(state, action)
            assert [(e.type, e.data) for e in again] == [(e.type, e.data) for e in recorded]
            recorded = [Event(e.type, e.data, None, e.audience) if e.private is not None else e for e in recorded]
        state = fold(ENGINE, recorded, state)
    assert ENGINE.actor(state) == TERMINAL
    assert ENGINE.ranking(state) == ENGINE.ranking(game.final)


# ---------------------------------------------------------------------- the heuristic bot


def test_heuristic_beats_random_clearly():
    """The heuristic bot wins at least 90% of 60 fixed-seed games against random, seats alternating."""
    wins = 0
    ranks = []
    games = 60
    for index in range(games):
        seat = index % 2
        agents = [None, None]
        agents[seat] = heuristic.Bot(GAME, seat, random.Random(index))
        agents[1 - seat] = random_bot.Bot(GAME, 1 - seat, random.Random(10_000 + index))
        outcome = play(ENGINE, ENGINE.configure(2), f"heuristic-{index}", agents).outcome
        assert outcome.reason == "finished"
        ranks.append(outcome.ranking[seat])
        wins += outcome.ranking[seat] == 1 and outcome.ranking[1 - seat] == 2
    assert wins / games >= 0.9
    assert sum(ranks) / games <= 1.1
