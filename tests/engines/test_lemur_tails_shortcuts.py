"""Lemur Tails engine: its shortcuts for speed give what the rules written out plainly give.

The engine lists legal actions through masks of kinds and tables of tuples kept between calls
(cards.ActionsOf, rules._EXCHANGES, rules._PARTS), decides plays and discards through a table of parsed actions
(rules._QUICK), builds the fold's commonest states with state.replacer and draws without a
loop when the End card is not among the cards drawn. Each is checked here against a plain version,
over the decision states of random and heuristic playouts.
"""

from __future__ import annotations

import random
from typing import NamedTuple
from unittest import mock

import pytest
from hypothesis import given

from engines.base import Event, IllegalAction
from engines.lemur_tails import cards, engine, fold, rules
from engines.lemur_tails.cards import COLOR, END, FIT, KIND, KIND_NAMES, NUMBER, NUMBERED, TAILS
from engines.lemur_tails.engine import ENGINE
from engines.lemur_tails.state import END_IN_DECK, PASS, SWAP, TAKEN, TURN_START, State, replacer
from tests.engines.test_lemur_tails_properties import decision_states, playout, quick, seeds, tables

# ---------------------------------------------------------------------- legal actions, written out


def fits(t: int, tail: tuple[int, ...]) -> set[int]:
    """The kinds a tail takes next (LT-2, LT-3), as sets."""
    if not tail:
        color = 1 - (t & 1)
        return {color * 11 + n for n in range(11)}
    last = tail[-1]
    color = 1 - COLOR[last]
    if NUMBER[last] >= 0:
        return {color * 11 + n for n in FIT[NUMBER[last]]} | {color * 11 + 10}
    if len(tail) == 1:
        return {color * 11 + n for n in range(10)}
    return {color * 11 + n for n in FIT[NUMBER[tail[-2]]]}


def replacing(tail: tuple[int, ...], position: int) -> list[int]:
    """The kinds that may replace the joker at ``position`` (LT-4, LT-11), ascending."""
    numbers = set(range(10))
    for neighbour in (position - 1, position + 1):
        if 0 <= neighbour < len(tail) and NUMBER[tail[neighbour]] >= 0:
            numbers &= FIT[NUMBER[tail[neighbour]]]
    return sorted(COLOR[tail[position]] * 11 + n for n in numbers)


def plain_legal_actions(state: State) -> list[str]:
    """rules.legal_actions as the rules say it, with sets and loops, in its order (ALL-3)."""
    seat, tails = state.turn, state.tails
    hand = state.hands[seat]
    kinds = sorted({KIND[card] for card in hand})
    discards = [f"discard:{KIND_NAMES[k]}" for k in kinds]
    if state.phase == TAKEN:
        return [f"place:{TAILS[t]}" for t in range(4) if KIND[state.held] in fits(t, tails[t])] + ["keep"]
    if state.phase == SWAP:
        return (discards if state.discards < 3 else []) + (["draw"] if state.discards else [])
    if state.phase == PASS:
        return (discards if state.discards < 3 else []) + ["end"]
    out = [f"play:{KIND_NAMES[k]}:{TAILS[t]}" for t in range(4) for k in kinds if k in fits(t, tails[t])]
    out += [
        f"exchange:{TAILS[t]}:{position}:{KIND_NAMES[k]}"
        for t in range(4) for position, card in enumerate(tails[t]) if card >= NUMBERED
        for k in replacing(tails[t], position) if k in kinds
    ]  # fmt: skip
    if state.present[seat]:
        out += [f"lemur:market:{KIND_NAMES[k]}" for k in sorted({KIND[card] for card in state.market})]
        other = 1 - seat
        out += [f"lemur:tail:{TAILS[t]}" for t in (2 * other, 2 * other + 1) if tails[t]]
        if state.hands[other]:
            out.append("lemur:blind")
        if hand and len(state.deck) - (state.end_card == END_IN_DECK) > 0:
            out.append("lemur:swap")
    if not state.added:
        out += discards
    return [*out, "end"]


def _forget_tables() -> None:
    for table in (*rules._EXCHANGES, rules._PARTS, *cards.PLAYS, cards.DISCARDS, cards.MARKETS):
        table.clear()


@quick
@given(seeds, tables)
def test_legal_actions_are_the_rules_written_out(seed, bots):
    """Legal actions equal the plain enumeration: tables fresh, filled in play order (each tail's exchanges from
    the tail before it), or cleared every few tails and asked in any order."""
    game = playout(seed, bots)
    states = [state for _, state in game.snapshots if ENGINE.actor(state) >= 0]
    _forget_tables()
    for state in states:
        assert ENGINE.legal_actions(state) == plain_legal_actions(state)
    _forget_tables()
    with mock.patch.object(rules, "_EXCHANGES_KEPT", 3):
        for state in random.Random(seed).sample(states, min(40, len(states))):
            assert ENGINE.legal_actions(state) == plain_legal_actions(state)


def test_the_masks_are_the_kinds():
    """cards.accepts and cards.exchange_kinds as masks hold exactly the kinds the rules name."""
    ids = range(cards.TAIL_CARDS)
    tails = [(), *((first,) for first in ids), *((first, second) for first in ids for second in ids if second != first)]
    for tail in tails:
        for t in range(4):
            assert set(cards.kinds_of(cards.accepts(t, tail))) == fits(t, tail)
        for position, card in enumerate(tail):
            if card >= NUMBERED:
                assert list(cards.kinds_of(cards.exchange_kinds(tail, position))) == replacing(tail, position)
    assert [cards.kinds_of(cards.kinds_mask(kinds)) for kinds in ((), (0, 10, 11, 21), tuple(range(22)))] == [
        (), (0, 10, 11, 21), tuple(range(22))
    ]  # fmt: skip


# ---------------------------------------------------------------------- decide


def _decided(state: State, action: str) -> list[Event] | str:
    try:
        return ENGINE.decide(state, action)
    except IllegalAction as refused:
        return f"IllegalAction: {refused}"


@quick
@given(seeds, tables)
def test_quick_decisions_are_the_handlers_decisions(seed, bots):
    """Every play and discard decides through rules._QUICK exactly as through its handler: same events, same refusal."""
    actions = [*cards.DISCARD_ACTIONS, *(action for per_kind in cards.PLAY_ACTIONS for action in per_kind)]
    for state in decision_states(playout(seed, bots), seed, 20):
        quick_ones = [_decided(state, action) for action in actions]
        with mock.patch.dict(rules._QUICK, clear=True):
            assert [_decided(state, action) for action in actions] == quick_ones


@quick
@given(seeds, tables)
def test_events_made_without_their_new_are_whole_events(seed, bots):
    """The events rules._event makes (tuple.__new__) are Events of all four fields, equal to Event(...)'s."""
    for event in playout(seed, bots).events:
        assert type(event) is Event and len(event) == 4
        assert event == Event(event.type, event.data, event.private, event.audience)
        assert event.private is not None or event.audience == ()


# ---------------------------------------------------------------------- the fold


class Row(NamedTuple):
    a: int
    b: str
    c: tuple
    d: bool


def test_replacer_is_replace():
    """engines.base.replacer gives what _replace gives; unknown or repeated fields are refused at once."""
    row = Row(1, "x", (), False)
    assert replacer(Row, "c", "a")(row, (5,), 7) == row._replace(a=7, c=(5,)) == Row(7, "x", (5,), False)
    assert replacer(Row, "b", d=True)(row, "y") == Row(1, "y", (), True)
    assert type(replacer(Row)(row)) is Row and replacer(Row)(row) == row
    for names, fixed in (((), {"e": 1}), (("a", "a"), {}), (("a",), {"a": 1})):
        with pytest.raises(ValueError):
            replacer(Row, *names, **fixed)


@quick
@given(seeds, tables)
def test_the_folds_replacers_are_replace(seed, bots):
    """Each of the fold's replacers sets its fields as State._replace does (and the rest as they were)."""
    for state in decision_states(playout(seed, bots), seed, 10):
        assert fold._PLAYED(state, 1, 2, 3, 4, 5, 6) == state._replace(
            tails=1, hands=2, added=3, series_tail=4, series_len=5, pending=6, phase="play", held=-1, held_public=False
        )
        assert fold._DISCARDED(state, 1, 2, 3, 4) == state._replace(hands=1, discard=2, discards=3, phase=4)
        assert fold._TURN_ENDED(state, 1, 2, 3) == state._replace(turns=1, turn=2, pending=3, **TURN_START)
        assert fold._DREW(state, 1, 2) == state._replace(hands=1, deck=2, pending=())


def plain_draw(deck: tuple[int, ...], count: int) -> tuple[list[int], bool, tuple[int, ...]]:
    """Draw ``count`` off ``deck`` one by one, the End card set aside and replaced (LT-8, LT-15)."""
    drawn, index, end_seen = [], 0, False
    if count <= 0 or not deck:
        return drawn, end_seen, deck
    while len(drawn) < count and index < len(deck):
        index += 1
        if deck[index - 1] == END:
            end_seen = True
        else:
            drawn.append(deck[index - 1])
    if deck[index:] == (END,):
        index, end_seen = index + 1, True
    return drawn, end_seen, deck[index:]


def test_draws_are_the_card_by_card_draw():
    """engine._draw_into gives the events and the deck of a card-by-card draw, wherever the End card lies."""
    for size in range(0, 12):
        for at in range(-1, size):
            deck = tuple(range(size))
            if at >= 0:
                deck = (*deck[:at], END, *deck[at + 1 :])
            for count in range(0, 5):
                events: list[Event] = []
                rest = engine._draw_into(events, 0, deck, count, "cards_drawn", cards.NAMES)
                drawn, end_seen, plain_rest = plain_draw(deck, count)
                assert rest == plain_rest
                assert [e.type for e in events] == ["end_card_revealed"] * end_seen + ["cards_drawn"] * bool(drawn)
                if drawn:
                    assert events[-1].private == {"cards": [cards.NAMES[c] for c in sorted(drawn)]}
