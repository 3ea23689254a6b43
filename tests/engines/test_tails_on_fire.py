"""Tails on Fire: rule tests (rulebook sections, rulings TOF-n) and properties of random games."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bots.heuristic_tails_on_fire as heuristic
import bots.random_bot as random_bot
from engines.base import CHANCE, TERMINAL, ConfigError, Event, IllegalAction, fold
from engines.chance import Prng
from engines.driver import play
from engines.tails_on_fire.cards import ACTIONS, ALL_OPOSSUMS, CHOOSE, HOME, MOVE_CAP, NUMBERS, SHUFFLE, START
from engines.tails_on_fire.engine import ENGINE, TailsOnFire
from engines.tails_on_fire.fold import FOLD
from engines.tails_on_fire.rules import follow_up, rogue_turn
from engines.tails_on_fire.state import Stack, flames, seat_bits, unknown
from tests.properties import examples

FOLDED_GAMES = examples(50)  # random games, each folded again at sampled steps
GAMES = examples(40)  # random games played to their end

# --- building positions -------------------------------------------------------------------


def lay(bonfires, iguana=(4, 1, 2, 3, 5, 6, 7, 8, 9), rogue=False, rogue_deck=None):
    """A table after setup, from hand-made setup events (bonfires, Iguana order, rogue deck)."""
    iguana = list(iguana)
    events = [
        Event("table_laid", {"seats": len(bonfires), "rogue": rogue}),
        Event("bonfires_lit", {"opossums": list(bonfires)}),
        Event("iguana_shuffled", {"top": iguana[0], "size": len(iguana)}, {"order": iguana}, ()),
    ]
    if rogue:
        deck = list(rogue_deck or NUMBERS)
        events.append(Event("rogue_shuffled", {"size": len(deck)}, {"order": deck}, ()))
    return fold(TailsOnFire(), events)


def act(state, *actions):
    """Decide and fold each action in turn; the state after them and the last decision's events."""
    events = []
    for action in actions:
        events = ENGINE.decide(state, action)
        for event in events:
            state = ENGINE.apply(state, event)
    return state, events


def choose(state, picks):
    """Every seat (in seat order) chooses its cards: ``picks`` maps seat -> cards (0 = trickster)."""
    for seat in sorted(picks):
        assert ENGINE.actor(state) == seat
        for card in picks[seat]:
            state, events = act(state, f"choose:{'trickster' if card == 0 else card}")
    return state, events


def hand(state, seat):
    return {card for card in range(10) if seat_bits(state.held, seat) >> card & 1}


def types(events):
    return [event.type for event in events]


# --- the rulebook's example and the round ---------------------------------------------------


def test_example_four_player_round():
    """Rulebook "Example: 4-Player Round": Iguana shows 4, Green plays 4, Yellow passes, Red plays 5,
    Pink passes holding a 6, Green and Yellow pass, and Red wins the round."""
    green, yellow, red, pink = range(4)
    state = lay([1, 2, 3, 7], iguana=[4, 1, 2, 3, 5, 6, 7, 8, 9])
    state, _ = choose(state, {green: [4, 8, 9], yellow: [1, 8, 9], red: [5, 8, 9], pink: [6, 8, 9]})
    assert state.phase == START and state.number == 4 and ENGINE.actor(state) == green
    state, _ = act(state, "play:4", "pass", "play:5")
    assert ENGINE.actor(state) == pink and "play:6" in ENGINE.legal_actions(state)
    state, _ = act(state, "pass", "pass")
    state, events = act(state, "pass")  # Yellow: the turn comes round to Red, whose 5 is on top
    assert types(events) == ["passed", "fire_won", "round_prepared"]
    assert events[1].data == {"seat": red, "card": 5, "number": 5, "fire": 4, "stolen": []}
    assert state.table.stacks[red] == (Stack(5, 5, (4,)),)
    assert flames(state) == [1, 1, 3, 1]  # bonfires 1 flame each; fire card 4 has 2 (TOF-1)
    # Prepare for next round: Green's 4 is exhausted, Red's 5 stays on its new stack, Red leads.
    assert seat_bits(state.table.exhausted, green) == 1 << 4
    assert 5 not in hand(state, red) and 4 not in hand(state, green) and 6 in hand(state, pink)
    assert state.table.leader == red and state.number == 1 and state.phase == CHOOSE


def test_seats_pick_one_card_at_a_time_in_seat_order():
    """ALL-3, TOF-4: each seat picks min(3, choosable) opossums one at a time, in seat order, each
    pick private to that seat."""
    state = lay([1, 2, 3])
    events = ENGINE.decide(state, "choose:5")
    assert events[0].private == {"card": 5} and events[0].audience == (0,) and events[0].data == {"seat": 0}
    state, _ = act(state, "choose:5", "choose:trickster")
    assert ENGINE.actor(state) == 0 and "choose:5" not in ENGINE.legal_actions(state)
    with pytest.raises(IllegalAction, match="already chosen"):
        ENGINE.decide(state, "choose:5")
    with pytest.raises(IllegalAction, match="bonfire"):
        ENGINE.decide(state, "choose:1")
    state, _ = act(state, "choose:9")
    assert ENGINE.actor(state) == 1
    view = ENGINE.view(state, 0)
    assert view["chosen"] == [0, 5, 9] and view["players"][0]["chosen_size"] == 3


def test_a_seat_with_few_cards_picks_them_all():
    """TOF-4, TOF-14: a seat with three or fewer choosable opossums picks every one, a decision each;
    a seat with none picks nothing."""
    state = lay([1, 2, 3])
    held = state.held & ~(ALL_OPOSSUMS << 10 | ALL_OPOSSUMS << 20) | (1 << 5 | 1 << 7) << 10  # a position
    state = state._replace(held=held)
    state, _ = choose(state, {0: [4, 5, 6]})
    assert ENGINE.actor(state) == 1 and list(ENGINE.legal_actions(state)) == ["choose:5", "choose:7"]
    state, events = act(state, "choose:7", "choose:5")  # seat 2 holds nothing: the Hunt starts
    assert types(events) == ["opossum_chosen", "hunt_started"]
    assert ENGINE.view(state, 1)["chosen"] == [5, 7] and ENGINE.view(state, 1)["players"][2]["chosen_size"] == 0
    assert ENGINE.actor(state) == 0


def test_starting_number_rises_each_circle_and_stalemate():
    """TOF-5, TOF-6, TOF-10: the first seat raises the starting number each time the turn comes round
    to it; after nine numbers with no play the top fire card leaves the game and the same seat leads."""
    state = lay([1, 2], iguana=[5, 1, 2, 3, 4, 6, 7, 8, 9])
    state, _ = choose(state, {0: [7, 8, 9], 1: [3, 4, 6]})
    offered = [state.number]
    for _ in range(8):
        state, events = act(state, "pass", "pass")
        assert types(events) == ["passed", "starting_number_raised"]
        offered.append(state.number)
    assert offered == [5, 6, 7, 8, 9, 1, 2, 3, 4]
    state, events = act(state, "pass", "pass")
    assert types(events) == ["passed", "stalemate", "round_prepared"]
    assert events[1].data == {"fire": 5} and state.table.boxed == (5,)
    assert state.table.leader == 0 and state.table.iguana_top == 1 and state.table.iguana_size == 8
    assert state.table.exhausted == 0  # nothing was played, so nothing is exhausted


def test_no_stalemate_once_a_number_is_played():
    """TOF-6: the stalemate needs all nine numbers offered with none played; a play at the ninth ends it."""
    state = lay([1, 2], iguana=[5, 1, 2, 3, 4, 6, 7, 8, 9])
    state, _ = choose(state, {0: [4, 7, 8], 1: [3, 6, 9]})
    for _ in range(8):
        state, _ = act(state, "pass", "pass")
    assert state.number == 4
    state, _ = act(state, "play:4", "pass")
    assert state.table.stacks[0] == (Stack(4, 4, (5,)),)


# --- tricksters (TOF-5) ---------------------------------------------------------------------


def test_trickster_takes_the_number_above_and_keeps_it_in_a_stack():
    """TOF-5: a trickster's number is the number below it plus one, and it keeps that number in a
    fire stack, where a win with that number steals it (TOF-7)."""
    state = lay([1, 2, 3, 4], iguana=[6, 7, 1, 2, 3, 4, 5, 8, 9])
    state, _ = choose(state, {0: [6, 8, 9], 1: [0, 8, 9], 2: [0, 5, 8], 3: [5, 8, 9]})
    state, events = act(state, "play:6", "trickster")
    assert events[0].data == {"seat": 1, "card": 0, "number": 7}
    # Never on top of another seat's trickster.
    assert ENGINE.actor(state) == 2 and "trickster" not in ENGINE.legal_actions(state)
    with pytest.raises(IllegalAction, match="on seat 1's trickster"):
        ENGINE.decide(state, "trickster")
    state, events = act(state, "pass", "pass", "pass")
    assert events[1].type == "fire_won" and state.table.stacks[1] == (Stack(0, 7, (6,)),)
    # Round 2 (Iguana 7), led by seat 1: seat 2's 7 wins and steals the trickster's stack.
    state, _ = choose(state, {0: [2, 3, 5], 1: [3, 4, 5], 2: [7, 9, 0], 3: [1, 2, 3]})
    state, events = act(state, "pass", "play:7", "pass", "pass", "pass")
    assert events[1].data["stolen"] == [{"seat": 1, "card": 0, "fire": [6]}]
    assert state.table.stacks[1] == () and 0 in hand(state, 1)  # the trickster is back in hand


def test_trickster_on_nine_becomes_one():
    """TOF-5: a trickster played on a 9 is a 1 (9 -> 1), and only 1 may follow a 9."""
    state = lay([1, 8], iguana=[9, 1, 2, 3, 4, 5, 6, 7, 8])
    state, _ = choose(state, {0: [9, 3, 4], 1: [0, 2, 5]})
    state, _ = act(state, "play:9")
    assert list(ENGINE.legal_actions(state)) == ["pass", "trickster"]
    with pytest.raises(IllegalAction, match="only 1 or a trickster"):
        ENGINE.decide(state, "play:2")
    state, events = act(state, "trickster")
    assert events[0].data["number"] == 1
    assert list(ENGINE.legal_actions(state)) == ["pass"]  # seat 0 holds 3 and 4, not 2


def test_trickster_is_never_the_starting_number():
    """TOF-5: a trickster can never be played as the starting number."""
    state = lay([1, 2], iguana=[3, 1, 2, 4, 5, 6, 7, 8, 9])
    state, _ = choose(state, {0: [0, 3, 5], 1: [4, 6, 7]})
    assert list(ENGINE.legal_actions(state)) == ["pass", "play:3"]
    with pytest.raises(IllegalAction, match="starting number"):
        ENGINE.decide(state, "trickster")


# --- winning, stealing, exhaustion ------------------------------------------------------------


def won(seat, card, fire):
    return Event("fire_won", {"seat": seat, "card": card, "number": card, "fire": fire, "stolen": []})


def prepared(round_number, leader, top, size):
    return Event("round_prepared", {"round": round_number, "leader": leader, "iguana": {"top": top, "size": size}})


def test_win_steals_from_every_matching_stack_never_own_or_bonfire():
    """TOF-7, TOF-2, TOF-16: a win never steals from the winner's own stacks; a win with a 5 steals the
    fire cards of EVERY other stack showing 5 (their opossums return to hand), never a bonfire's 5."""
    state = lay([1, 2, 3, 5], iguana=[2, 4, 7, 1, 3, 5, 6, 8, 9])
    state = fold(ENGINE, [won(1, 5, 2), prepared(2, 1, 4, 8)], state)  # round 1: seat 1 won fire 2 with its 5
    # Round 2 (4), led by seat 1: its trickster on seat 2's 4 shows 5; its own 5-stack stays its own.
    state, _ = choose(state, {0: [5, 8, 9], 1: [0, 8, 9], 2: [4, 8, 9], 3: [1, 8, 9]})
    state, events = act(state, "pass", "play:4", "pass", "pass", "trickster", "pass", "pass", "pass")
    assert events[1].data == {"seat": 1, "card": 0, "number": 5, "fire": 4, "stolen": []}
    assert state.table.stacks[1] == (Stack(5, 5, (2,)), Stack(0, 5, (4,)))
    # Round 3 (7), led by seat 1: nobody plays until 4 is offered; seat 3's 4, then seat 0's 5 wins.
    state, _ = choose(state, {0: [5, 8, 9]})
    with pytest.raises(IllegalAction, match="tops one of its fire stacks"):
        ENGINE.decide(state, "choose:5")  # seat 1's 5 tops a stack
    state, _ = choose(state, {1: [1, 8, 9], 2: [1, 8, 9], 3: [4, 8, 9]})
    state, _ = act(state, *["pass"] * 24)
    assert state.number == 4
    state, events = act(state, "pass", "pass", "play:4", "play:5", "pass", "pass", "pass")
    assert events[1].data["stolen"] == [{"seat": 1, "card": 5, "fire": [2]}, {"seat": 1, "card": 0, "fire": [4]}]
    assert state.table.stacks[0] == (Stack(5, 5, (7, 2, 4)),) and state.table.stacks[1] == ()
    assert {0, 5} <= hand(state, 1)
    assert state.table.bonfire[3] == 5 and flames(state) == [7, 1, 1, 1]


def test_played_cards_are_exhausted_for_one_round():
    """Prepare for next round: a seat's cards on the discard pile are exhausted (not choosable) for
    the next round, then return to hand; the other chosen cards return to hand at once."""
    state = lay([1, 2], iguana=[3, 6, 1, 2, 4, 5, 7, 8, 9])
    state, _ = choose(state, {0: [3, 5, 9], 1: [4, 7, 8]})
    state, _ = act(state, "play:3", "play:4", "play:5", "pass")  # seat 0 wins with 5
    assert seat_bits(state.table.exhausted, 0) == 1 << 3 and seat_bits(state.table.exhausted, 1) == 1 << 4
    assert ENGINE.view(state, None)["players"][1]["exhausted"] == [4]
    assert 9 in hand(state, 0) and 7 in hand(state, 1)
    with pytest.raises(IllegalAction, match="exhausted"):
        ENGINE.decide(state, "choose:3")
    # Round 2 (Iguana 6): a stalemate; in round 3 the exhausted cards are back in hand.
    state, _ = choose(state, {0: [2, 4, 7], 1: [1, 3, 5]})
    state, _ = act(state, *["pass"] * 8)  # 6, 7, 8 and 9 offered
    assert state.number == 1
    state, _ = act(state, "pass", "play:1", "pass")  # seat 1 wins with 1
    assert 3 in hand(state, 0) and 4 in hand(state, 1)


def test_a_seat_with_no_chosen_opossum_left_is_skipped():
    """TOF-4, TOF-11: a seat holding no chosen opossum passes automatically (turn_skipped), which is
    not a decision and not a turn under the move cap."""
    state = lay([1, 2], iguana=[3, 1, 2, 4, 5, 6, 7, 8, 9])
    state, _ = choose(state, {0: [4, 6, 8], 1: [3, 5, 7]})
    state, events = act(state, "pass", "play:3", "play:4", "play:5", "play:6", "play:7", "play:8")
    assert types(events) == ["opossum_played", "turn_skipped", "fire_won", "round_prepared"]
    assert state.table.stacks[0] == (Stack(8, 8, (3,)),)
    assert state.turns == 6 + 7  # six picks and seven Hunt decisions


def test_first_seat_with_no_cards_still_raises_the_number():
    """TOF-12: a first seat holding no opossums still raises the starting number each circle; its own
    turns are skipped."""
    state = lay([1, 2, 3], iguana=[4, 1, 2, 3, 5, 6, 7, 8, 9])
    state = state._replace(held=state.held & ~ALL_OPOSSUMS, picker=1)  # a position: seat 0 holds nothing
    state, events = choose(state, {1: [7, 8, 9], 2: [1, 2, 5]})
    assert types(events) == ["opossum_chosen", "hunt_started", "turn_skipped"] and ENGINE.actor(state) == 1
    state, events = act(state, "pass", "pass")
    assert types(events) == ["passed", "starting_number_raised", "turn_skipped"] and state.number == 5


# --- the Rogue (TOF-8) ------------------------------------------------------------------------


def test_rogue_script_turn_order_win_and_reshuffle():
    """TOF-8: the Rogue acts last in each circle: it plays its reserve's top card if it fits, else draws
    one and plays or reserves it; its win sends the fire card out of the game, the same first seat
    starts the next round, and the rogue deck is reshuffled (a chance step)."""
    state = lay([1, 2], iguana=[7, 1, 2, 3, 4, 5, 6, 8, 9], rogue=True, rogue_deck=[8, 1, 2, 3, 4, 5, 6, 7, 9])
    state, _ = choose(state, {0: [3, 4, 5], 1: [3, 4, 5]})
    state, events = act(state, "pass", "pass")
    assert types(events) == ["passed", "rogue_reserved", "starting_number_raised"]
    assert state.table.rogue_reserve == (8,) and state.table.rogue_deck_size == 8 and state.number == 8
    state, events = act(state, "pass", "pass")
    assert types(events) == ["passed", "rogue_played"] and events[1].data == {"card": 8, "from": "reserve"}
    assert state.phase == HOME and ENGINE.actor(state) == 0
    state, events = act(state, "pass", "pass")
    assert types(events) == ["passed", "rogue_won", "round_prepared"]
    assert state.table.boxed == (7,) and flames(state) == [1, 1]
    assert state.table.leader == 0  # the previous round's first seat starts again
    assert state.phase == SHUFFLE and ENGINE.actor(state) == CHANCE
    reshuffle = ENGINE.chance(state, Prng("seed", 7))
    assert reshuffle[0].type == "rogue_shuffled" and reshuffle[0].audience == ()
    assert sorted(reshuffle[0].private["order"]) == list(NUMBERS)
    state = ENGINE.apply(state, reshuffle[0])
    assert state.table.rogue_deck_size == 9 and state.table.rogue_reserve == () and state.phase == CHOOSE


def test_rogue_draws_and_plays_a_fitting_card():
    """TOF-8, TOF-15: a drawn card that can be played is played ("can be played" while bringing fire
    home: exactly one higher than the top card); a trickster may follow the Rogue's card."""
    state = lay([1, 2], iguana=[3, 1, 2, 4, 5, 6, 7, 8, 9], rogue=True, rogue_deck=[4, 1, 2, 3, 5, 6, 7, 8, 9])
    state, _ = choose(state, {0: [3, 0, 7], 1: [5, 6, 7]})
    state, events = act(state, "play:3", "pass")
    assert types(events) == ["passed", "rogue_played"] and events[1].data == {"card": 4, "from": "deck"}
    assert list(ENGINE.legal_actions(state)) == ["pass", "trickster"]
    state, events = act(state, "pass", "play:5")
    assert types(events) == ["opossum_played", "rogue_reserved"] and events[1].data == {"card": 1}


def test_rogue_win_steals_and_returns_opossums():
    """TOF-8, TOF-13: when the Rogue wins, the fire card and every stolen fire card leave the game and
    the opossums of the stolen stacks go back to their owners' hands."""
    state = lay([1, 2], iguana=[6, 8, 1, 2, 3, 4, 5, 7, 9], rogue=True, rogue_deck=[9, 1, 2, 3, 4, 5, 6, 7, 8])
    state = fold(ENGINE, [won(1, 9, 6), prepared(2, 1, 8, 8)], state)
    state = ENGINE.apply(state, Event("rogue_shuffled", {"size": 9}, {"order": [9, 1, 2, 3, 4, 5, 6, 7, 8]}, ()))
    state, _ = choose(state, {0: [8, 2, 3], 1: [3, 4, 5]})
    state, events = act(state, "pass", "play:8")  # seat 1 leads; seat 0 plays 8; then the Rogue
    assert types(events) == ["opossum_played", "rogue_played"] and events[1].data["card"] == 9
    state, events = act(state, "pass", "pass")
    assert types(events) == ["passed", "rogue_won", "round_prepared"]
    assert events[1].data["stolen"] == [{"seat": 1, "card": 9, "fire": [6]}]
    assert sorted(state.table.boxed) == [6, 8] and state.table.stacks[1] == ()
    assert 9 in hand(state, 1) and state.table.leader == 1 and flames(state) == [1, 1]


def test_rogue_with_an_empty_deck_passes():
    """TOF-8: with nothing playable on its reserve and an empty rogue deck, the Rogue passes."""
    state = lay([1, 2], rogue=True)
    empty = state._replace(table=state.table._replace(rogue_deck=(), rogue_deck_size=0, rogue_reserve=(3,)))
    assert rogue_turn(empty._replace(phase=START, number=4)).type == "rogue_passed"


def test_configuration_and_the_rogue_option():
    """TOF-8: the Rogue is on by default at 2-3 seats, {"rogue": false} turns it off, and it cannot
    play at 4-6 seats; seat counts outside 2-6 and unknown options are refused."""
    assert ENGINE.configure(2).options == {"rogue": True}
    assert ENGINE.configure(3, {"rogue": False}).options == {"rogue": False}
    assert ENGINE.configure(4).options == {"rogue": False}
    for seats, options in ((4, {"rogue": True}), (1, None), (7, None), (3, {"fast": True}), (2, {"rogue": 1})):
        with pytest.raises(ConfigError):
            ENGINE.configure(seats, options)


def test_move_cap_ends_the_game():
    """TOF-9, ALL-4: the 2,000th decision ends the game at once with move_cap_reached, scored by flames."""
    state = lay([1, 2, 3, 4])
    state = state._replace(turns=MOVE_CAP - 1)  # a position one decision before the cap
    state, events = act(state, "choose:5")
    assert types(events) == ["opossum_chosen", "move_cap_reached"]
    assert events[1].data == {"turns": MOVE_CAP, "flames": [1, 1, 1, 1]}
    assert ENGINE.actor(state) == TERMINAL and ENGINE.ranking(state) == [1, 1, 1, 1]
    with pytest.raises(IllegalAction, match="over"):
        ENGINE.decide(state, "pass")


def test_ranking_shares_ties():
    """TOF-9, ALL-6: seats rank by flames and tied seats share the rank."""
    state = lay([1, 2, 3, 4], iguana=[7, 8, 4, 1, 2, 3, 5, 6, 9])
    state = fold(ENGINE, [won(0, 5, 7), prepared(2, 0, 8, 8), won(2, 6, 8), prepared(3, 2, 4, 7)], state)
    assert flames(state) == [4, 1, 4, 1] and ENGINE.ranking(state) == [1, 3, 1, 3]


def test_garbage_is_refused_with_a_reason():
    """Engine protocol: garbage answers raise IllegalAction with a sentence, never another error."""
    state = lay([1, 2, 3])
    for garbage in ("", "play:5", "choose:10", "choose:", "CHOOSE:5", "pass", None, 5, ["choose:5"]):
        with pytest.raises(IllegalAction) as refused:
            ENGINE.decide(state, garbage)
        assert str(refused.value)


# --- properties of random games -------------------------------------------------------------

ALL_ACTIONS = sorted(ACTIONS)


def configs():
    return st.one_of(
        st.tuples(st.integers(2, 3), st.booleans()),
        st.tuples(st.integers(4, 6), st.just(False)),
    )


def random_game(seats, rogue, seed):
    """Play a random game step by step: every step's state and the events so far."""
    engine = TailsOnFire()
    rng = random.Random(seed)
    config = engine.configure(seats, {"rogue": rogue})
    state = fold(engine, engine.start(config))
    events = list(engine.start(config))
    states = [(state, len(events))]
    stream = 0
    while (actor := engine.actor(state)) != TERMINAL:
        if actor == CHANCE:
            step = engine.chance(state, Prng(f"game-{seed}", stream))
            stream += 1
        else:
            step = engine.decide(state, rng.choice(engine.legal_actions(state)))
        for event in step:
            state = engine.apply(state, event)
        events.extend(step)
        states.append((state, len(events)))
    return engine, states, events


def check_cards(state):
    """Every opossum of every seat, every fire card and every rogue card is in exactly one place."""
    table = state.table
    discard = [0] * table.seats
    rogue_cards = list(table.rogue_reserve)
    for owner, card, _ in state.discard:
        if owner < table.seats:
            assert not discard[owner] >> card & 1
            discard[owner] |= 1 << card
        else:
            rogue_cards.append(card)
    for seat in range(table.seats):
        places = [1 << table.bonfire[seat], seat_bits(state.held, seat), discard[seat]]
        places.append(seat_bits(table.exhausted, seat))
        places.extend(1 << stack.card for stack in table.stacks[seat])
        assert sum(bin(place).count("1") for place in places) == 10
        combined = 0
        for place in places:
            assert not combined & place
            combined |= place
        assert combined == ALL_OPOSSUMS
        chosen = seat_bits(state.chosen, seat)
        assert unknown(chosen) or (chosen & ~seat_bits(state.held, seat) == 0)
        assert unknown(chosen) or bin(chosen).count("1") == seat_bits(state.left, seat)
    fire = [card for stacks in table.stacks for stack in stacks for card in stack.fire]
    assert sorted([*table.iguana, *fire, *table.boxed]) == list(NUMBERS)
    assert len(table.iguana) == table.iguana_size
    if table.rogue and table.rogue_deck is not None:
        assert sorted([*table.rogue_deck, *rogue_cards]) == list(NUMBERS)
        assert len(table.rogue_deck) == table.rogue_deck_size


@FOLDED_GAMES
@given(configs(), st.integers(0, 2**32))
def test_random_games_end_fold_and_conserve_cards(config, seed):
    """Properties: a random legal game ends within the move cap (TOF-9); folding its events from scratch
    gives the live state at sampled steps and at the end; every card is in exactly one place."""
    seats, rogue = config
    engine, states, events = random_game(seats, rogue, seed)
    final = states[-1][0]
    assert engine.actor(final) == TERMINAL and final.turns <= MOVE_CAP
    assert events[-1].type in ("iguana_depleted", "move_cap_reached")
    for state, _ in states[3:]:
        check_cards(state)
    for state, count in [*random.Random(seed).sample(states, min(6, len(states))), states[-1]]:
        assert fold(TailsOnFire(), events[:count]) == state


@GAMES
@given(configs(), st.integers(0, 2**32))
def test_views_hide_other_seats_cards_and_deck_orders(config, seed):
    """Hidden information: views show no deck order, and two states differing only in one seat's chosen
    cards (or in the Iguana or rogue deck order beneath the top) look the same to everyone else."""
    seats, rogue = config
    engine, states, _ = random_game(seats, rogue, seed)
    rng = random.Random(seed)
    for state, _ in rng.sample(states, min(12, len(states))):
        for seat in [None, *range(seats)]:
            view = engine.view(state, seat)
            assert "order" not in str(view) and set(view["iguana"]) == {"top", "size"}
            if rogue:
                assert set(view["rogue"]) == {"deck_size", "reserve"}
        for secret in range(seats):
            held, chosen = seat_bits(state.held, secret), seat_bits(state.chosen, secret)
            cards = [card for card in range(10) if held >> card & 1]
            other = sum(1 << card for card in rng.sample(cards, bin(chosen).count("1")))
            shift = 10 * secret
            twin = state._replace(chosen=state.chosen & ~(ALL_OPOSSUMS << shift) | other << shift)
            table = twin.table
            if table.iguana and len(table.iguana) > 2:
                twin = twin._replace(table=table._replace(iguana=(table.iguana[0], *reversed(table.iguana[1:]))))
            if twin.table.rogue_deck:
                twin = twin._replace(table=twin.table._replace(rogue_deck=tuple(reversed(twin.table.rogue_deck))))
            for seat in [None, *range(seats)]:
                if seat != secret:
                    assert engine.view(twin, seat) == engine.view(state, seat)


@GAMES
@given(configs(), st.integers(0, 2**32))
def test_illegal_actions_are_refused_and_legal_ones_accepted(config, seed):
    """Every legal action is accepted; every other action string, and garbage, raises IllegalAction
    with a reason."""
    seats, rogue = config
    engine, states, _ = random_game(seats, rogue, seed)
    rng = random.Random(seed)
    for state, _ in rng.sample(states, min(15, len(states))):
        actor = engine.actor(state)
        legal = engine.legal_actions(state) if actor >= 0 else []
        for action in legal:
            assert engine.decide(state, action)
        for action in [*ALL_ACTIONS, "play:0", "choose:x", "pass ", "trickster:5", ""]:
            if action not in legal:
                with pytest.raises(IllegalAction) as refused:
                    engine.decide(state, action)
                assert len(str(refused.value)) > 10


@GAMES
@given(configs(), st.integers(0, 2**32))
def test_redacted_fold_replays_public_decisions(config, seed):
    """Redacted logs: with the private part of every pick removed, the fold still works, every later
    public decision re-decides to the recorded events, and the game ends with the same ranking."""
    seats, rogue = config
    engine, states, events = random_game(seats, rogue, seed)
    fresh = TailsOnFire()
    state = None
    for event in events:
        if event.type == "opossum_chosen":
            event = Event(event.type, event.data, None, event.audience)
        elif state is not None and fresh.action_of(event) is not None:
            replayed = fresh.decide(state, fresh.action_of(event))
            assert replayed[0] == event
        state = fresh.apply(state, event)
    assert fresh.actor(state) == TERMINAL and fresh.ranking(state) == engine.ranking(states[-1][0])


@GAMES
@given(configs(), st.integers(0, 2**32))
def test_common_follow_ups_agree_with_the_general_one(config, seed):
    """The engine's shortcut for the frequent automatic steps gives the same events as playing them out
    one by one (rules.follow_up)."""
    seats, rogue = config
    engine, states, _ = random_game(seats, rogue, seed)
    for state, _ in states:
        if engine.actor(state) >= 0:
            for action in engine.legal_actions(state):
                events = engine.decide(state, action)
                if events[-1].type != "move_cap_reached":
                    first = FOLD[events[0].type](state, events[0])
                    assert events == follow_up(lambda s, e: FOLD[e.type](s, e), first, events[:1], flames)


def test_action_of_maps_decisions_back():
    """Engine protocol: action_of gives each decision's action; automatic events open no decision."""
    state = lay([1, 2])
    assert ENGINE.action_of(ENGINE.decide(state, "choose:trickster")[0]) == "choose:trickster"
    state, _ = choose(state, {0: [4, 6, 0], 1: [5, 7, 8]})
    assert ENGINE.action_of(ENGINE.decide(state, "play:4")[0]) == "play:4"
    assert ENGINE.action_of(ENGINE.decide(state, "pass")[0]) == "pass"
    state, _ = act(state, "play:4", "play:5")
    assert ENGINE.action_of(ENGINE.decide(state, "trickster")[0]) == "trickster"
    events = ENGINE.decide(state, "pass")  # seat 1's 5 is on top when its turn comes: it wins
    assert types(events) == ["passed", "fire_won", "round_prepared"]
    assert all(ENGINE.action_of(event) is None for event in events[1:])


# --- the bots ----------------------------------------------------------------------------------


def test_heuristic_beats_random():
    """The heuristic bot beats the random bot clearly: 4 seats, two of each, seats rotated, 48 games."""
    kinds = ["heuristic", "heuristic", "random", "random"]
    ranks = {"heuristic": [], "random": []}
    wins = {"heuristic": 0.0, "random": 0.0}
    config = ENGINE.configure(4)
    for game in range(48):
        seating = kinds[game % 4 :] + kinds[: game % 4]
        bots = [heuristic if kind == "heuristic" else random_bot for kind in seating]
        agents = [bot.Bot("tails-on-fire", seat, random.Random(game * 7 + seat)) for seat, bot in enumerate(bots)]
        ranking = play(ENGINE, config, f"series-{game}", agents).outcome.ranking
        firsts = [seat for seat in range(4) if ranking[seat] == 1]
        for seat, kind in enumerate(seating):
            ranks[kind].append(ranking[seat])
            wins[kind] += (seat in firsts) / len(firsts)
    mean = {kind: sum(values) / len(values) for kind, values in ranks.items()}
    assert mean["heuristic"] < mean["random"] - 0.7
    assert wins["heuristic"] / 48 > 0.7


def test_random_bot_plays_every_seat_count():
    """bots/random_bot.py plays Tails on Fire unchanged, with and without the Rogue."""
    for seats, rogue in ((2, True), (2, False), (3, True), (5, False), (6, False)):
        config = ENGINE.configure(seats, {"rogue": rogue})
        agents = [random_bot.Bot("tails-on-fire", seat, random.Random(seat)) for seat in range(seats)]
        assert play(ENGINE, config, f"r{seats}{rogue}", agents).outcome.reason == "finished"
