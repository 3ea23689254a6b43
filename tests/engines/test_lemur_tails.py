"""Lemur Tails engine: the rulebook's examples, rulings LT-1..LT-9 and the new LT-10..

Positions come from ``lemur_tails_positions``; the properties and the heuristic bot are
tested in test_lemur_tails_properties.py.
"""

from __future__ import annotations

import random

import pytest

import bots.random_bot as random_bot
from engines import registry
from engines.base import CHANCE, TERMINAL, ConfigError, IllegalAction, fold
from engines.chance import Prng
from engines.driver import play, setup
from engines.lemur_tails.cards import END, NAMES
from engines.lemur_tails.engine import ENGINE
from engines.lemur_tails.rules import MOVE_CAP
from engines.lemur_tails.state import END_DRAWN, END_IN_DECK
from tests.engines.lemur_tails_positions import GAME, act, names, plays_on, resolve, table

# ---------------------------------------------------------------------- setup and config


def test_setup_deals_eight_each_and_an_open_market_of_eight():
    """Setup: two hands of eight, a market of eight, two present Sun lemurs each, eight aside, empty tails."""
    state = fold(ENGINE, setup(ENGINE, ENGINE.configure(2), "setup"))
    assert ENGINE.actor(state) == 0
    assert [len(h) for h in state.hands] == [8, 8]
    assert len(state.market) == 8
    assert state.present == (2, 2) and state.empty == (0, 0) and state.aside == 8
    assert state.tails == ((), (), (), ())
    assert len(state.deck) == 88 - 24 + 1


@pytest.mark.parametrize("seed", ["a", "b", "c", "d", "e", "f"])
def test_end_card_is_shuffled_among_the_bottom_ten(seed):
    """Setup: the End card lies among the deck's bottom eleven places (bottom ten plus itself)."""
    state = fold(ENGINE, setup(ENGINE, ENGINE.configure(2), seed))
    assert state.deck.index(END) >= len(state.deck) - 11
    assert state.end_card == END_IN_DECK


def test_setup_is_a_sequence_of_chance_steps_with_a_hidden_deck_order():
    """ALL-2: the shuffle is private to nobody, each hand private to its seat, the market public."""
    events = setup(ENGINE, ENGINE.configure(2), "x")
    shuffle = next(e for e in events if e.type == "deck_shuffled")
    assert shuffle.private is not None and shuffle.audience == ()
    hands = [e for e in events if e.type == "hand_dealt"]
    assert [e.audience for e in hands] == [(0,), (1,)]
    assert next(e for e in events if e.type == "market_laid").private is None


@pytest.mark.parametrize("seats", [1, 3, 4])
def test_only_two_seats(seats):
    """Lemur Tails is a two-player game: other seat counts are refused with a reason."""
    with pytest.raises(ConfigError, match="exactly 2 seats"):
        ENGINE.configure(seats)


def test_registry_names_the_engine():
    """The registry finds the engine under "lemur-tails" with its metadata."""
    engine = registry.get(GAME)
    assert engine is ENGINE and engine.move_cap == MOVE_CAP == 400
    with pytest.raises(ConfigError):
        ENGINE.configure(2, {"fast": True})


# ---------------------------------------------------------------------- playing tail cards


def test_white_six_takes_black_five_six_or_seven():
    """Rulebook "Adding Cards to Your Own Tails": after a white 6 only a black 5, 6 or 7 (or black joker)."""
    state = table(hands=(["B4", "B5", "B6", "B7", "B8", "W5", "BJ"], []), tails={"0b": ["W6"]})
    assert plays_on(state, "0b") == ["B5", "B6", "B7", "BJ"]
    with pytest.raises(IllegalAction, match="black 5, 6, 7"):
        ENGINE.decide(state, "play:B8:0b")
    with pytest.raises(IllegalAction, match="black"):
        ENGINE.decide(state, "play:W5:0b")


def test_zero_is_next_to_one_and_nine():
    """LT-1: numbers wrap, so a 0 takes a 9, 0 or 1 of the other colour, and a 9 takes a 0."""
    state = table(hands=(["B9", "B0", "B1", "B2", "B8", "W0"], []), tails={"0b": ["W0"], "0w": ["B9"]})
    assert plays_on(state, "0b") == ["B0", "B1", "B9"]
    assert plays_on(state, "0w") == ["W0"]


def test_first_card_has_the_rings_opposite_colour_and_any_number():
    """LT-2: a white-ring tail starts with any black card, a black-ring tail with any white card."""
    state = table(hands=(["B3", "W8", "BJ"], []))
    assert plays_on(state, "0w") == ["B3", "BJ"]
    assert plays_on(state, "0b") == ["W8"]


def test_joker_after_black_four_wants_black_three_four_or_five():
    """Rulebook "Jokers" and LT-3: black 4, white joker, then only a black 3, 4 or 5; never a joker on a joker."""
    state = table(hands=(["B2", "B3", "B4", "B5", "B6", "BJ", "WJ"], []), tails={"0w": ["B4", "WJ"]})
    assert plays_on(state, "0w") == ["B3", "B4", "B5"]
    with pytest.raises(IllegalAction, match="never a joker on a joker"):
        ENGINE.decide(state, "play:BJ:0w")


def test_joker_on_the_start_card_takes_any_number():
    """LT-3: a tail of start card plus joker takes any number of the other colour, but no joker."""
    state = table(hands=(["W0", "W5", "W9", "WJ", "B5"], []), tails={"0w": ["BJ"]})
    assert plays_on(state, "0w") == ["W0", "W5", "W9"]


def test_playing_on_the_opponents_tail_draws_two():
    """Rulebook "Adding Cards to Your Opponent's Tails": each card there draws two from the deck (chance step)."""
    state = table(hands=(["B5", "W1"], ["W2"]), tails={"1b": ["W6"]}, deck_top=["W7", "B8"])
    events = ENGINE.decide(state, "play:B5:1b")
    state = fold(ENGINE, events, state)
    assert ENGINE.actor(state) == CHANCE
    drawn = ENGINE.chance(state, Prng("s", 0))
    assert drawn[0].type == "cards_drawn" and drawn[0].audience == (0,) and drawn[0].data["count"] == 2
    state = fold(ENGINE, drawn, state)
    assert names(state.hands[0]) == ["B8", "W1", "W7"]
    assert names(state.tails[3]) == ["B5", "W6"] and state.added == 1


def test_cards_are_played_by_kind_and_must_be_held():
    """A seat can only play a card it holds; the event names its kind and the lowest id of that kind leaves
    its hand (LT-16, LT-21)."""
    state = table(hands=(["B5", "B5"], []), tails={"0b": ["W6"]})
    with pytest.raises(IllegalAction, match="does not hold a black 7"):
        ENGINE.decide(state, "play:B7:0b")
    event = ENGINE.decide(state, "play:B5:0b")[0]
    assert event.data["card"] == "B5"
    after = ENGINE.apply(state, event)
    assert after.hands[0] == (max(state.hands[0]),) and after.tails[1][-1] == min(state.hands[0])


# ---------------------------------------------------------------------- exchange


def test_exchange_joker_between_black_four_and_five():
    """Rulebook "Exchange", LT-4: black 4, white joker, black 5 swaps the joker for a white 4 or 5 only."""
    state = table(hands=(["W3", "W4", "W5", "W6", "B4"], []), tails={"0w": ["B4", "WJ", "B5"]})
    exchanges = sorted(a for a in ENGINE.legal_actions(state) if a.startswith("exchange:"))
    assert exchanges == ["exchange:0w:1:W4", "exchange:0w:1:W5"]
    with pytest.raises(IllegalAction, match="LT-4"):
        ENGINE.decide(state, "exchange:0w:1:W6")
    after = act(state, "exchange:0w:1:W5")
    assert [NAMES[c] for c in after.tails[0]] == ["B4", "W5", "B5"]
    assert "WJ" in names(after.hands[0])
    # An exchange adds no tail card (LT-4): the turn may still pass with discards.
    assert after.added == 0 and "discard:W3" in ENGINE.legal_actions(after)


def test_exchange_at_a_tails_ends():
    """LT-11: the replacement fits each numbered neighbour; the start card only sets the colour."""
    last = table(hands=(["W2", "W3", "W4", "W5", "W6"], []), tails={"0w": ["B4", "WJ"]})
    assert sorted(a for a in ENGINE.legal_actions(last) if a.startswith("exchange:")) == [
        "exchange:0w:1:W3",
        "exchange:0w:1:W4",
        "exchange:0w:1:W5",
    ]
    first = table(hands=(["B3", "B4", "B5", "B6", "B7"], []), tails={"0w": ["BJ", "W5"]})
    assert sorted(a for a in ENGINE.legal_actions(first) if a.startswith("exchange:")) == [
        "exchange:0w:0:B4",
        "exchange:0w:0:B5",
        "exchange:0w:0:B6",
    ]
    alone = table(hands=(["B0", "B9", "W5"], []), tails={"0w": ["BJ"]})
    assert sorted(a for a in ENGINE.legal_actions(alone) if a.startswith("exchange:")) == [
        "exchange:0w:0:B0",
        "exchange:0w:0:B9",
    ]


def test_exchange_on_the_opponents_tail_draws_nothing():
    """LT-4: a joker in the opponent's tail may be exchanged too; it is not an added card, so no draw."""
    state = table(hands=(["W4"], []), tails={"1w": ["B4", "WJ", "B5"]})
    after = act(state, "exchange:1w:1:W4")
    assert names(after.hands[0]) == ["WJ"] and ENGINE.actor(after) == 0 and after.added == 0


def test_exchange_refuses_a_position_without_a_joker():
    """LT-4: only a joker can be exchanged; the reason names what lies there."""
    state = table(hands=(["W4"], []), tails={"0w": ["B4", "WJ", "B5"]})
    with pytest.raises(IllegalAction, match="not a joker"):
        ENGINE.decide(state, "exchange:0w:0:W4")
    with pytest.raises(IllegalAction, match="positions from 0"):
        ENGINE.decide(state, "exchange:0w:7:W4")


# ---------------------------------------------------------------------- Sun lemurs


def test_sun_lemur_market_take_then_place_or_keep():
    """LT-7: a market take flips a Sun lemur to empty; placing or keeping is the next decision."""
    state = table(hands=(["B1"], []), tails={"0b": ["W6"]}, market=["B5", "W2"])
    state = act(state, "lemur:market:B5")
    assert state.present[0] == 1 and state.empty[0] == 1
    # Any tail it fits, the opponent's empty white-ring tail included (LT-20).
    assert ENGINE.legal_actions(state) == ["place:0w", "place:0b", "place:1w", "keep"]
    with pytest.raises(IllegalAction, match="place the B5"):
        ENGINE.decide(state, "play:B1:0w")
    placed = act(state, "place:0b")
    assert names(placed.tails[1]) == ["B5", "W6"] and placed.added == 1
    kept = act(state, "keep")
    assert names(kept.hands[0]) == ["B1", "B5"] and kept.added == 0 and names(kept.market) == ["W2"]


def test_sun_lemur_takes_the_most_recent_card_of_an_opponents_tail():
    """LT-7: the opponent's newest tail card is taken; an empty tail's start card and own tails are not."""
    state = table(hands=(["W9"], []), tails={"1w": ["B4", "W5"], "0w": ["B1"]})
    with pytest.raises(IllegalAction, match="never taken"):
        ENGINE.decide(state, "lemur:tail:1b")
    with pytest.raises(IllegalAction, match="opponent's tails"):
        ENGINE.decide(state, "lemur:tail:0w")
    state = act(state, "lemur:tail:1w")
    assert [NAMES[c] for c in state.tails[2]] == ["B4"] and "W5" in names(state.hands[0])
    assert "place:0b" in ENGINE.legal_actions(state) and "place:0w" not in ENGINE.legal_actions(state)


def test_sun_lemur_blind_draw_is_a_chance_step_seen_by_both_seats():
    """LT-7: the blind draw from the opponent's hand is a chance step, private to the two seats."""
    state = table(hands=(["W9"], ["B2", "B3", "W7"]))
    state = fold(ENGINE, ENGINE.decide(state, "lemur:blind"), state)
    assert ENGINE.actor(state) == CHANCE
    event = ENGINE.chance(state, Prng("blind", 0))[0]
    assert event.type == "card_drawn_blind" and event.audience == (0, 1)
    state = ENGINE.apply(state, event)
    card = event.private["card"]
    assert card in names(state.hands[0]) and card not in names(state.hands[1]) and len(state.hands[1]) == 2
    assert ENGINE.view(state, 1)["taken"] == card and ENGINE.view(state, None)["taken"] is None


def test_sun_lemur_swap_discards_one_to_three_then_draws_as_many():
    """LT-7: the swap discards 1-3 cards face up and then draws the same number."""
    state = table(hands=(["W1", "W2", "W3", "W4"], []), deck_top=["B7", "B8", "B9"])
    state = act(state, "lemur:swap")
    assert ENGINE.legal_actions(state) == ["discard:W1", "discard:W2", "discard:W3", "discard:W4"]
    with pytest.raises(IllegalAction, match="at least one"):
        ENGINE.decide(state, "draw")
    state = act(state, "discard:W1", "discard:W2", "discard:W3")
    assert ENGINE.legal_actions(state) == ["draw"]
    with pytest.raises(IllegalAction, match="3 cards already"):
        ENGINE.decide(state, "discard:W4")
    state = act(state, "draw")
    assert names(state.hands[0]) == ["B7", "B8", "B9", "W4"] and names(state.discard) == ["W1", "W2", "W3"]
    # LT-13: the discard pile is face up, in everyone's view.
    assert ENGINE.view(state, None)["discard_pile"] == ["W1", "W2", "W3"]


def test_a_taken_card_may_go_back_on_the_opponents_tail_and_draws_two():
    """LT-20: a card a Sun lemur took may be placed on any tail it fits, the opponent's too (drawing two)."""
    state = table(hands=(["W9"], []), tails={"1w": ["B4", "W5"]}, deck_top=["B0", "W0"])
    state = act(state, "lemur:tail:1w", "place:1w")
    assert [NAMES[c] for c in state.tails[2]] == ["B4", "W5"] and names(state.hands[0]) == ["B0", "W0", "W9"]
    assert state.present[0] == 1 and state.added == 1


def test_no_sun_lemur_action_without_a_present_sun_lemur():
    """Rulebook "Sun Worshipping Lemurs": an empty Sun lemur cannot act."""
    state = table(hands=(["W1"], ["B1"]), market=["B5", "B6"])
    state = act(state, "lemur:market:B5", "keep", "lemur:market:B6", "keep")
    assert state.present[0] == 0 and not any(a.startswith("lemur:") for a in ENGINE.legal_actions(state))
    with pytest.raises(IllegalAction, match="no present Sun lemur"):
        ENGINE.decide(state, "lemur:blind")


# ---------------------------------------------------------------------- series (LT-6)


def test_series_of_three_reactivates_an_empty_sun_lemur():
    """LT-6: three cards in a row on one own tail turn an empty Sun lemur back to present."""
    state = table(hands=(["B1", "W2", "B3", "W9"], []), market=["B7"])
    state = act(state, "lemur:market:B7", "keep")
    assert state.present[0] == 1
    events = ENGINE.decide(state, "play:B1:0w")
    state = act(state, "play:B1:0w", "play:W2:0w")
    events = ENGINE.decide(state, "play:B3:0w")
    assert [e.type for e in events] == ["tail_card_played", "sun_lemur_reactivated"]
    state = fold(ENGINE, events, state)
    assert state.present[0] == 2 and state.empty[0] == 0 and state.aside == 8


def test_series_with_all_present_gains_a_new_sun_lemur():
    """LT-6: with every Sun lemur present, a series of three takes a new one from those set aside."""
    state = table(hands=(["B1", "W2", "B3"], []))
    state = act(state, "play:B1:0w", "play:W2:0w", "play:B3:0w")
    assert state.present[0] == 3 and state.aside == 7


def test_six_in_a_row_earn_two_and_none_when_none_are_left():
    """LT-18: every third card of a series earns a reward; with all present and none aside, nothing."""
    state = table(hands=(["B1", "W2", "B3", "W4", "B5", "W6"], []))
    state = act(state, "play:B1:0w", "play:W2:0w", "play:B3:0w", "play:W4:0w", "play:B5:0w", "play:W6:0w")
    assert state.present[0] == 4 and state.aside == 6
    empty_pool = table(hands=(["B1", "W2", "B3"], []))._replace(aside=0)
    events = ENGINE.decide(act(empty_pool, "play:B1:0w", "play:W2:0w"), "play:B3:0w")
    assert [e.type for e in events] == ["tail_card_played"]


def test_a_card_elsewhere_interrupts_the_series():
    """LT-6: a card on the other own tail or an opponent's tail breaks the series; exchanges do not (LT-4)."""
    state = table(hands=(["B1", "W2", "W7", "B3", "B6"], []), tails={"1b": ["W6"]}, deck_top=["W0", "W0"])
    state = act(state, "play:B1:0w", "play:W2:0w", "play:B6:1b")
    events = ENGINE.decide(state, "play:B3:0w")
    assert [e.type for e in events] == ["tail_card_played"]
    other = table(hands=(["B1", "W2", "W7", "B3"], []))
    other = act(other, "play:B1:0w", "play:W2:0w", "play:W7:0b", "play:B3:0w")
    assert other.series_len == 1 and other.present[0] == 2 and other.aside == 8
    exchange = table(hands=(["B1", "W2", "B3", "W4"], []), tails={"1w": ["B4", "WJ", "B5"]})
    exchange = act(exchange, "play:B1:0w", "play:W2:0w", "exchange:1w:1:W4")
    assert [e.type for e in ENGINE.decide(exchange, "play:B3:0w")][-1] == "sun_lemur_gained"


def test_a_card_placed_from_a_sun_lemur_counts_toward_a_series():
    """LT-10: a card a Sun lemur brought and placed at once is an added card and continues the series."""
    state = table(hands=(["B1", "W2"], []), market=["B3"])
    state = act(state, "play:B1:0w", "play:W2:0w", "lemur:market:B3")
    events = ENGINE.decide(state, "place:0w")
    assert [e.type for e in events] == ["tail_card_played", "sun_lemur_reactivated"]
    assert events[0].data["taken"] is True


# ---------------------------------------------------------------------- passing and turn end


def test_pass_discards_zero_to_three_only_when_nothing_was_added():
    """LT-5/LT-19: a turn without an added card may discard 0-3 cards, and then only discard more or end."""
    state = table(hands=(["B1", "W5", "W6", "W7", "W8"], []))
    played = act(state, "play:B1:0w")
    with pytest.raises(IllegalAction, match="not passing"):
        ENGINE.decide(played, "discard:W5")
    state = act(state, "discard:W5")
    assert not any(a.startswith("play:") for a in ENGINE.legal_actions(state))
    with pytest.raises(IllegalAction, match="has passed"):
        ENGINE.decide(state, "play:B1:0w")
    state = act(state, "discard:W6", "discard:W7")
    assert ENGINE.legal_actions(state) == ["end"]
    events = ENGINE.decide(state, "end")
    assert events[0].type == "turn_ended" and events[0].data["passed"] is True


def test_end_of_turn_refills_the_hand_and_the_market_to_eight():
    """LT-8/LT-12: at the end of a turn the hand and then the market are filled to eight from the deck."""
    state = table(hands=(["B1", "W2"], []), market=["B5", "W6"], deck_top=["W0"] * 4 + ["B0"] * 4)
    state = act(state, "play:B1:0w", "end")
    assert len(state.hands[0]) == 8 and len(state.market) == 8 and ENGINE.actor(state) == 1
    assert names(state.hands[0]).count("W0") == 4 and state.turns == (1, 0)


def test_end_card_drawn_by_seat_zero_lets_seat_one_finish_the_round():
    """LT-8: seat 0 draws the End card; seat 1 still has its turn, then the game ends at equal turns."""
    state = table(hands=([], []), deck_top=["B0"] * 4 + ["W0"] * 4, end_below=0)
    # Put the End card right under the first seven cards of the deck.
    deck = list(state.deck)
    deck.remove(END)
    deck.insert(7, END)
    state = state._replace(deck=tuple(deck))
    events = ENGINE.decide(state, "end")
    state = fold(ENGINE, events, state)
    refill = ENGINE.chance(state, Prng("e", 0))
    assert [e.type for e in refill][:2] == ["end_card_revealed", "cards_drawn"]
    state = fold(ENGINE, refill, state)
    assert state.end_card == END_DRAWN and len(state.hands[0]) == 8 and ENGINE.actor(state) == 1
    state = resolve(state)
    events = ENGINE.decide(state, "end")
    assert [e.type for e in events] == ["turn_ended", "lemurs_counted"]
    state = fold(ENGINE, events, state)
    assert ENGINE.actor(state) == TERMINAL and state.turns == (1, 1) and state.over == "end card"


def test_end_card_drawn_mid_turn_by_seat_one_ends_that_turn_the_game():
    """LT-8: seat 1 draws the End card in its turn; the round is complete when that turn ends."""
    state = table(hands=([], ["B5", "W1"]), tails={"0b": ["W6"]}, deck_top=["B7"], turn=1)
    deck = list(state.deck)
    deck.remove(END)
    deck.insert(1, END)
    state = state._replace(deck=tuple(deck), turns=(1, 0))
    state = act(state, "play:B5:0b")
    assert state.ending and len(state.hands[1]) == 3  # W1 plus two drawn, the End card replaced
    assert ENGINE.actor(state) == 1
    state = act(state, "end")
    assert ENGINE.actor(state) == TERMINAL and state.turns == (1, 1)


def test_end_card_in_seat_ones_refill_ends_the_game_at_once():
    """LT-17: the End card coming up in seat 1's end-of-turn refill ends the game after that refill."""
    state = table(hands=([], []), turn=1)
    deck = list(state.deck)
    deck.remove(END)
    deck.insert(3, END)
    state = state._replace(deck=tuple(deck), turns=(1, 0))
    state = fold(ENGINE, ENGINE.decide(state, "end"), state)
    refill = ENGINE.chance(state, Prng("r", 0))
    assert refill[-1].type == "lemurs_counted" and refill[-1].data["reason"] == "end card"
    state = fold(ENGINE, refill, state)
    assert ENGINE.actor(state) == TERMINAL and state.turns == (1, 1)


def test_an_empty_deck_ends_the_game_the_same_way():
    """LT-8/LT-15: when the deck runs out the round is completed as with the End card."""
    state = table(hands=(["B5", "W4"], []), tails={"1b": ["W6"]})
    # Leave only one tail card (and the End card under it) in the deck.
    state = state._replace(deck=(state.deck[0], END))
    state = act(state, "play:B5:1b")
    assert state.ending and state.deck == () and state.end_card == END_DRAWN
    assert len(state.hands[0]) == 2  # W4 plus the only card left
    state = act(state, "play:W4:1b")  # an empty deck draws nothing, the play is still allowed
    assert ENGINE.actor(state) == 0 and len(state.hands[0]) == 1
    state = act(state, "end")
    assert ENGINE.actor(state) == 1
    with pytest.raises(IllegalAction, match="no tail card left"):
        ENGINE.decide(state._replace(hands=(state.hands[0], (1,))), "lemur:swap")
    state = act(state, "end")
    assert ENGINE.actor(state) == TERMINAL


def test_move_cap_ends_the_game_after_four_hundred_turns():
    """LT-9/ALL-4: after 400 turns the game ends at once with a move_cap_reached event."""
    state = table()
    for _ in range(MOVE_CAP - 1):
        state = act(state, "end")
    assert ENGINE.actor(state) == 1
    events = ENGINE.decide(state, "end")
    assert events[-1].type == "move_cap_reached" and events[-1].data["turns"] == MOVE_CAP
    state = fold(ENGINE, events, state)
    assert ENGINE.actor(state) == TERMINAL and sum(state.turns) == MOVE_CAP


# ---------------------------------------------------------------------- scoring (LT-9)


def ranked(tails) -> list[int]:
    return ENGINE.ranking(table(tails=tails))


def test_longest_shortest_tail_wins():
    """LT-9: the seat whose shortest tail is longer wins, whatever the long tails."""
    assert ranked({"0w": ["B1", "W2"], "0b": ["W1", "B2"], "1w": ["B1"], "1b": ["W1", "B2", "W3", "B4"]}) == [1, 2]


def test_tie_on_short_tail_goes_to_the_longest_tail():
    """LT-9 first tie-break: equal shortest tails, the longer long tail wins."""
    assert ranked({"0w": ["B1"], "0b": ["W1", "B2"], "1w": ["B1"], "1b": ["W1", "B2", "W3"]}) == [2, 1]


def test_tie_on_both_goes_to_fewer_jokers_in_the_short_tail():
    """LT-9 second tie-break: with equal tails, fewer jokers in the shortest tail wins."""
    assert ranked({"0w": ["BJ", "W2"], "0b": ["W1", "B2", "W3"], "1w": ["B1", "W2"], "1b": ["W1", "BJ", "W3"]}) == [
        2,
        1,
    ]


def test_full_tie_is_shared():
    """LT-9/ALL-6: equal on every count, both seats share rank 1."""
    assert ranked({"0w": ["B1"], "0b": ["W1"], "1w": ["B5"], "1b": ["W5"]}) == [1, 1]


def test_equal_tails_count_the_one_with_fewer_jokers():
    """LT-14: with two equally long tails, the one with fewer jokers is the short tail for the joker count."""
    assert ranked({"0w": ["BJ", "W2"], "0b": ["W1", "B2"], "1w": ["B1", "W2"], "1b": ["W1", "B2"]}) == [1, 1]
    assert ranked({"0w": ["BJ", "W2"], "0b": ["WJ", "B2"], "1w": ["B1", "W2"], "1b": ["WJ", "B2"]}) == [2, 1]


# ---------------------------------------------------------------------- actions and views


@pytest.mark.parametrize(
    "action",
    [
        "",
        "fly",
        "play",
        "play:W5",
        "play:X5:0w",
        "play:W5:2w",
        "play:W5:0w:1",
        "lemur",
        "lemur:steal",
        "exchange:0w:a:W5",
        "exchange:0w:0",
        "discard",
        "place:0w",
        "keep",
        "draw",
        "end:now",
        "lemur:market:Q1",
    ],
)
def test_garbage_is_refused_with_a_reason(action):
    """decide refuses malformed and impossible actions with IllegalAction and a readable reason."""
    state = table(hands=(["B1"], ["W1"]))
    with pytest.raises(IllegalAction) as refused:
        ENGINE.decide(state, action)
    assert str(refused.value)


def test_view_shows_public_table_and_own_hand_only():
    """Views: own hand, every tail, market, Sun lemurs, deck size, hand sizes, discard pile; no other hand."""
    state = table(hands=(["B1", "W5"], ["W1"]), tails={"1b": ["W6"]}, market=["B3"])
    view = ENGINE.view(state, 0)
    assert view["hand"] == ["W5", "B1"]  # ascending ids: white before black (LT-16)
    assert view["tails"]["1b"] == ["W6"] and view["market"] == ["B3"] and view["hand_sizes"] == [2, 1]
    assert view["sun_lemurs"] == [{"present": 2, "empty": 0}] * 2 and view["sun_lemurs_aside"] == 8
    assert view["deck_size"] == len(state.deck)
    assert "hand" not in ENGINE.view(state, None)


def test_action_of_maps_every_decision_back():
    """action_of gives back the action for the first event of every decision of a playout."""
    played = play(ENGINE, ENGINE.configure(2), "actions", [random_bot.Bot(GAME, s, random.Random(s)) for s in (0, 1)])
    checked = 0
    for step in played.steps:
        if step.actor >= 0:
            assert ENGINE.action_of(step.events[0]) == step.action
            assert all(ENGINE.action_of(e) is None for e in step.events[1:])
            checked += 1
        else:
            assert all(ENGINE.action_of(e) is None for e in step.events)
    assert checked > 10
