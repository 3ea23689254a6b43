"""Nine Tails engine: scripted rule tests (rulebook sections, NT-1..NT-18, ALL-n).

Positions are built with the helpers in ``nine_tails_positions`` (``lay``, ``place_fox``,
``set_hand``, ``to_village``) and played with real decisions through ``Table.do``.
The properties and the heuristic bot are tested in test_nine_tails_properties.py.
"""

from __future__ import annotations

import json

import pytest

from engines import registry
from engines.base import TERMINAL, IllegalAction, fold
from engines.driver import setup
from engines.nine_tails.cards import MOVE_CAP, WILDS_IDS
from engines.nine_tails.engine import ENGINE
from engines.nine_tails.state import put, sort_hand, without
from tests.engines.nine_tails_positions import (
    Table,
    conserved,
    fox_of,
    lay,
    place_fox,
    set_hand,
    to_village,
    trick_table,
    wasted_window,
)

# --- setup and the three actions ------------------------------------------------------------


def test_setup_deals_one_fox_and_three_trickery_cards_each():
    """Setup 3-5: one starting fox face up and three trickery cards per seat; seat 0 starts (ALL-1)."""
    events = setup(ENGINE, ENGINE.configure(4), "deal")
    state = fold(ENGINE, events)
    assert [len(foxes) for foxes in state.foxes] == [1, 1, 1, 1]
    assert [len(hand) for hand in state.hands] == [3, 3, 3, 3]
    assert (len(state.starting), len(state.wilds), len(state.trickery)) == (6, 45, 18)
    assert ENGINE.actor(state) == 0 and ENGINE.legal_actions(state) == ["venture", "rest"]
    assert state.pile == 40 and state.stack == 10
    conserved(state)
    shuffles = [e for e in events if e.type.endswith("_shuffled")]
    assert len(shuffles) == 3 and all(e.private and e.audience == () for e in shuffles)


def test_venture_reveals_three_and_the_rest_go_to_the_village():
    """VENTURE 1-2: three Wilds cards are revealed (public), one is taken, the others go to the Village."""
    table = Table(lay(wilds=["T-AC", "W-AGS", "S-A*"]))
    table.do("venture")
    assert table.view(None)["revealed"] == ["T-AC", "W-AGS", "S-A*"]
    assert table.legal == ["take:T-AC", "take:W-AGS", "take:S-A*", "none"]
    table.do("take:T-AC")
    assert table.state.village == ("W-AGS", "S-A*") and table.state.phase == "place"
    table.do("fox:F-AACS")
    assert table.last("tail_gained").data["slots"] == [0, 2]
    fox = fox_of(table.state, "F-AACS")
    assert fox.tails == ("T-AC",) and fox.count == 2 and fox.spent == 0b101 and table.state.pile == 38
    assert table.state.phase == "trick window" and table.actor == 1
    conserved(table.state)


def test_venture_claims_a_wild_fox_and_tucks_a_study():
    """VENTURE "A Fox Card" and "A Study Card": a wild fox is claimed; a study adds its slots to a fox."""
    table = Table(lay(wilds=["W-AGS", "T-QQC*", "S-A*"]))
    table.do("venture", "take:W-AGS")
    assert [fox.card for fox in table.state.foxes[0]] == ["F-AACS", "W-AGS"]
    wasted_window(table, 0)
    table.do("sneak")
    assert table.legal == ["take:S-A*"]  # F-CCGQ cannot pay T-QQC*
    table.do("take:S-A*")
    assert table.legal == ["fox:F-CCGQ"]
    table.do("fox:F-CCGQ")
    fox = fox_of(table.state, "F-CCGQ")
    assert fox.slots == "CCGQA*" and fox.studies == ("S-A*",)


def test_any_symbols_and_slots_follow_the_documented_rule():
    """NT-5: trait symbols take exact-trait slots first and Any slots last; an Any symbol takes a trait slot first."""
    state = place_fox(lay(), 0, "F-ACG*", first=True)
    table = Table(state._replace(wilds=("T-AA*", *without(state.wilds, "T-AA*"))))
    table.do("venture", "take:T-AA*", "fox:F-ACG*")
    # A -> slot 0 (A), A -> slot 3 (Any: no A left), Any -> slot 1 (first open trait slot)
    assert table.last("tail_gained").data["slots"] == [0, 3, 1]


def test_a_tail_needs_open_slots_and_at_most_nine_tails():
    """VENTURE "A Tail Card": no tail without open slots for the whole cost, nor beyond nine tails."""
    state = place_fox(lay(wilds=["T-AC", "T-ACG", "T-CS"]), 0, "F-AACS", tails=["T-AAG*", "T-CCS*", "T-SA"])
    table = Table(state)
    table.do("venture")
    assert fox_of(table.state, "F-AACS").count == 8
    assert "take:T-ACG" not in table.legal  # 8 + 2 > 9
    with pytest.raises(IllegalAction, match="more tail"):
        ENGINE.decide(table.state, "take:T-ACG")
    exhausted = place_fox(state, 0, "F-AACS", tails=["T-AAG*", "T-CCS*", "T-SA"], spent=[2])
    table = Table(exhausted).do("venture")
    assert table.legal == ["none"]  # no open C slot for T-AC or T-CS
    with pytest.raises(IllegalAction, match="open slots"):
        ENGINE.decide(table.state, "take:T-AC")


def test_taking_nothing_lets_the_seat_discard_and_draw_one_more():
    """VENTURE 3: after taking nothing the seat discards any number, one at a time, and draws that many plus one."""
    state = lay(trickery=["hex", "lure", "befuddle"] + ["windfall"] * 3 + ["pickpocket"] * 3 + ["second-wind"] * 3)
    table = Table(state).do("venture", "none")
    assert table.state.village == WILDS_IDS[:3] and table.state.phase == "discard"
    assert table.legal == ["discard:befuddle", "discard:hex", "discard:lure", "stop"]
    table.do("discard:hex", "discard:lure", "stop")
    assert table.state.hands[0] == ("befuddle", "second-wind", "second-wind", "second-wind")
    assert table.state.discard == ("hex", "lure")
    drawn = table.last("trickery_drawn")
    assert drawn.data["count"] == 3 and drawn.private == {"cards": ["second-wind"] * 3} and drawn.audience == (0,)


def test_venture_reveals_what_is_left_of_the_wilds_deck():
    """NT-8: VENTURE reveals min(3, cards left); with none left it goes straight to discard-and-draw."""
    state = lay()
    table = Table(state._replace(wilds=state.wilds[:2], village=state.wilds[2:]))
    table.do("venture")
    assert table.state.revealed == WILDS_IDS[:2]
    table = Table(state._replace(wilds=(), village=state.wilds)).do("venture")
    assert table.state.phase == "discard" and table.last("wilds_revealed").data["cards"] == []


def test_sneak_takes_one_card_from_the_village():
    """SNEAK: one Village card, claimed or given to a fox as when venturing."""
    table = Table(to_village(lay(), "T-AC", "T-GQ"))
    assert table.legal == ["venture", "sneak", "rest"]
    table.do("sneak")
    assert table.legal == ["take:T-AC"]  # F-AACS cannot pay G and Q
    table.do("take:T-AC", "fox:F-AACS")
    assert table.state.village == ("T-GQ",) and fox_of(table.state, "F-AACS").tails == ("T-AC",)


def test_sneak_needs_a_village_card_the_seat_can_use():
    """NT-13: SNEAK is offered only when some Village card can be claimed or given to one of the seat's foxes."""
    table = Table(to_village(lay(), "T-GQ"))
    assert "sneak" not in table.legal
    with pytest.raises(IllegalAction, match="cannot sneak"):
        ENGINE.decide(table.state, "sneak")
    with pytest.raises(IllegalAction, match="cannot sneak: the Village is empty"):
        ENGINE.decide(lay(), "sneak")


def test_rest_returns_counters_and_draws_one_card_per_fox():
    """REST and NT-8: all counters of the seat's foxes go back; one trickery card per fox it has."""
    state = place_fox(lay(), 0, "F-AACS", spent=[0, 1, 2])
    state = place_fox(state, 0, "W-AGS", spent=[1])
    table = Table(state)
    assert table.state.pile == 36
    table.do("rest")
    assert table.state.pile == 40 and all(fox.spent == 0 for fox in table.state.foxes[0])
    assert len(table.state.hands[0]) == 5 and table.last("rested").data["counters"] == 4
    conserved(table.state)


def test_an_empty_trickery_deck_is_reshuffled_from_its_discards():
    """NT-8: drawing from an empty Trickery Deck first shuffles the discard pile into a new deck (chance step)."""
    state = lay()
    state = state._replace(trickery=state.trickery[:1], discard=state.trickery[1:])
    state = place_fox(state, 0, "W-AGS")
    table = Table(state).do("rest")
    assert table.types()[-3:] == ["trickery_drawn", "trickery_reshuffled", "trickery_drawn"]
    assert table.last("trickery_reshuffled").audience == () and len(table.state.hands[0]) == 5
    assert table.state.discard == () and len(table.state.trickery) == 19
    conserved(table.state)


def test_drawing_stops_when_deck_and_discards_are_empty():
    """NT-12: with no trickery card left in the deck or the discard pile, a draw gets what there is."""
    state = lay()
    state = state._replace(
        hands=put(state.hands, 1, sort_hand(state.hands[1] + state.trickery[:-1])), trickery=state.trickery[-1:]
    )
    state = place_fox(state, 0, "W-AGS")
    table = Table(state).do("rest")
    assert len(table.state.hands[0]) == 4 and table.state.trickery == () and table.state.owed == 0
    conserved(table.state)


# --- the trick window and the cancel window (NT-7) --------------------------------------------


def test_the_trick_window_asks_clockwise_from_the_next_seat_and_skips_empty_hands():
    """NT-7, NT-10: after "Done" seats are asked clockwise from the next seat; empty hands are skipped."""
    state = set_hand(lay(4), 1, [])
    table = Table(state).do("venture", "take:W-AA*")
    assert table.state.phase == "trick window" and table.actor == 2
    assert table.legal == ["decline", "trick:befuddle"]  # seat 2 holds befuddle x3 (default deal)
    table.do("decline")
    assert table.actor == 3
    table.do("decline")
    assert table.state.phase == "action" and table.actor == 1 and table.state.turns == 1


def test_the_first_trick_closes_the_window_and_can_be_wasted():
    """Trickery Cards 1-2: the first seat to play a trick plays the window's only one; it may be wasted."""
    table = Table(lay(4)).do("venture", "take:W-AA*")
    assert table.actor == 1
    table.do("trick:tail-swipe")
    assert table.state.phase == "perform" and table.legal == ["waste"]  # F-CCGQ has no S slots
    table.do("waste")
    assert table.state.discard == ("tail-swipe",) and table.actor == 1 and table.state.phase == "action"
    assert "trick_declined" not in table.types()  # seats 2 and 3 were never asked


def test_a_trick_is_cancelled_by_a_card_of_the_same_name():
    """Trickery Cards 3, NT-6, NT-7: every other seat, clockwise from the trick's player, may cancel (same name)."""
    state = set_hand(lay(), 1, ["lure"])
    state = set_hand(state, 2, ["hex"])
    state = set_hand(state, 0, ["lure", "hex"])
    state = place_fox(to_village(state, "W-AGS"), 1, "W-AA*", first=True)
    table = Table(state).do("rest")  # seat 0 draws one more card
    table.do("trick:lure", "fox:W-AA*")
    assert fox_of(table.state, "W-AA*").spent == 0b011  # paid before the cancel window
    assert table.actor == 2 and table.legal == ["decline"]  # seat 2 holds no lure
    with pytest.raises(IllegalAction, match="no lure"):
        ENGINE.decide(table.state, "cancel")
    table.do("decline")
    assert table.actor == 0 and "cancel" in table.legal  # the active seat is asked too
    table.do("cancel")
    assert table.state.discard == ("lure", "lure")
    assert fox_of(table.state, "W-AA*").spent == 0b011 and "W-AGS" in table.state.village
    assert table.state.phase == "action" and table.actor == 1
    conserved(table.state)


def test_a_cancel_ends_the_cancel_window():
    """NT-16: one cancel ends the window; nobody is asked after it and a cancel cannot itself be cancelled."""
    state = set_hand(set_hand(set_hand(lay(4), 1, ["hex"]), 2, ["hex"]), 3, ["hex"])
    state = place_fox(state, 1, "F-GGSA", first=True)
    table = Table(state).do("venture", "take:W-AA*", "trick:hex", "fox:F-GGSA", "cancel")
    assert table.types()[-1] == "trick_cancelled" and table.state.phase == "action" and table.actor == 1
    assert table.state.hands[3] == ("hex",)


# --- counters, ascension, winning, the cap ----------------------------------------------------


def test_a_short_counter_pile_lets_the_seat_choose_what_it_pays():
    """Trickery Cards (last paragraph), NT-5, NT-18: a short pile pays the symbols the seat chooses; empty, none."""
    state = lay(wilds=["T-ACG"])
    state = place_fox(state, 0, "F-ACG*", first=True)._replace(pile=2)
    table = Table(state).do("venture", "take:T-ACG", "fox:F-ACG*")
    assert table.state.phase == "pay" and table.legal == ["pay:A", "pay:C", "pay:G"]
    assert table.view(1)["paying"] == {"fox": "F-ACG*", "cost": "ACG", "chosen": ""}
    table.do("pay:G", "pay:A")
    assert sorted(table.last("cost_part_chosen").data["slots"]) == [0, 2]
    assert fox_of(table.state, "F-ACG*").spent == 0b101 and table.state.pile == 0
    assert fox_of(table.state, "F-ACG*").count == 3
    # an empty pile pays nothing, and the tail is still tucked
    state = place_fox(lay(wilds=["T-AC"]), 0, "F-AACS")._replace(pile=0)
    table = Table(state).do("venture", "take:T-AC", "fox:F-AACS")
    assert table.last("tail_gained").data["slots"] == [] and fox_of(table.state, "F-AACS").count == 2


def test_a_starting_fox_ascends_in_five_steps():
    """Fox Ascension 1,3,4,5: counters back, fox under the Starting Fox Deck, its cards under the Wilds, a new fox."""
    tails = ["T-AAG*", "T-CCS*", "T-AC"]
    state = place_fox(lay(wilds=["T-SA"]), 0, "F-AACS", tails=tails, studies=["S-GS"], spent=[1, 4])
    table = Table(state).do("venture", "take:T-SA", "fox:F-AACS")
    ascended = table.last("fox_ascended")
    assert ascended.data == {"seat": 0, "fox": "F-AACS", "new_fox": "F-SSQC", "ascended": 1}
    assert ascended.audience == () and sorted(ascended.private["order"]) == sorted(
        ["T-AAG*", "T-CCS*", "T-AC", "T-SA", "S-GS"]
    )
    assert [fox.card for fox in table.state.foxes[0]] == ["F-SSQC"]
    assert table.state.starting[-1] == "F-AACS" and table.state.wilds[-5:] == tuple(ascended.private["order"])
    assert table.state.pile == 40 and table.state.ascended == (1, 0, 0) and table.state.stack == 9
    assert table.state.phase == "trick window"
    conserved(table.state)


def test_a_wild_fox_ascends_with_its_cards_into_the_wilds():
    """Fox Ascension 2: a wild fox is shuffled with its tails and studies to the bottom of the Wilds Deck."""
    state = place_fox(lay(wilds=["T-AC"]), 0, "W-AA*", tails=["T-AAG*", "T-CCS*", "T-SA"], first=True)
    table = Table(state).do("venture", "take:T-AC", "fox:W-AA*")
    order = table.last("fox_ascended").private["order"]
    assert sorted(order) == sorted(["W-AA*", "T-AAG*", "T-CCS*", "T-SA", "T-AC"])
    assert [fox.card for fox in table.state.foxes[0]] == ["F-AACS", "F-SSQC"]
    assert table.state.starting[-1] != "W-AA*" and table.state.wilds[-5:] == tuple(order)
    conserved(table.state)


def win_table(fast, ascended):
    state = place_fox(lay(wilds=["T-SA"], fast=fast), 0, "F-AACS", tails=["T-AAG*", "T-CCS*", "T-AC"])
    cards = (ascended, 0, 0)
    state = state._replace(ascended=cards, ascended_cards=cards, stack=10 - ascended)
    return Table(state).do("venture", "take:T-SA", "fox:F-AACS")


def test_the_third_ascended_fox_wins_at_once():
    """Winning the Game: a seat's third ascended fox wins immediately; no trick window follows."""
    table = win_table(False, 2)
    assert table.types()[-1] == "game_won" and table.actor == TERMINAL
    assert ENGINE.ranking(table.state) == [1, 2, 2] and ENGINE.legal_actions(table.state) == []
    with pytest.raises(IllegalAction, match="no seat decides"):
        ENGINE.decide(table.state, "venture")
    table = win_table(False, 1)  # a second one does not
    assert table.state.phase == "trick window" and table.state.ascended == (2, 0, 0)


def test_the_fast_game_is_won_at_two():
    """NT-9 (fast game option): two ascended foxes win."""
    table = win_table(True, 1)
    assert table.last("game_won").data == {"seat": 0, "ascended": 2} and table.actor == TERMINAL


def test_ascension_with_empty_stack_and_empty_starting_deck():
    """NT-11: with the Ascended Fox stack empty the fox still counts; with no Starting Fox left none is drawn."""
    state = place_fox(lay(5, wilds=["T-AC"]), 0, "W-AA*", tails=["T-AAG*", "T-CCS*", "T-SA"], first=True)
    for seat, card in enumerate(state.starting):  # every Starting Fox is in front of a seat
        state = place_fox(state, seat % 4 + 1, card)
    state = state._replace(ascended=(2,) * 5, ascended_cards=(2,) * 5, stack=0)  # only possible with 5 seats
    table = Table(state).do("venture", "take:T-AC", "fox:W-AA*")
    assert table.state.ascended == (3, 2, 2, 2, 2) and table.state.ascended_cards == (2,) * 5
    assert [fox.card for fox in table.state.foxes[0]] == ["F-AACS"]
    assert table.last("fox_ascended").data["new_fox"] == "" and table.types()[-1] == "game_won"
    conserved(table.state)


def test_an_ascending_starting_fox_is_drawn_again_from_an_empty_starting_deck():
    """NT-11, Fox Ascension 3 and 5: an ascending starting fox goes under the Starting Fox Deck before the new
    fox is drawn, so even with that deck empty the seat draws one: the same fox, fresh."""
    state = place_fox(lay(5, wilds=["T-SA"]), 0, "F-AACS", tails=["T-AAG*", "T-CCS*", "T-AC"])
    for seat, card in enumerate(state.starting):  # every other Starting Fox is in front of seats 1-4
        state = place_fox(state, seat % 4 + 1, card)
    assert state.starting == ()
    table = Table(state).do("venture", "take:T-SA", "fox:F-AACS")
    assert table.last("fox_ascended").data["new_fox"] == "F-AACS"
    fox = fox_of(table.state, "F-AACS")
    assert [f.card for f in table.state.foxes[0]] == ["F-AACS"] and (fox.count, fox.tails, fox.spent) == (1, (), 0)
    assert table.state.starting == ()
    conserved(table.state)


def test_the_move_cap_ends_the_game_with_tie_breaks():
    """NT-9, ALL-4: after 3,000 turns the game ends at once; rank by ascended foxes, then most tails on one fox."""
    state = place_fox(lay(), 1, "F-CCGQ", tails=["T-AAG*"])
    state = place_fox(state, 2, "F-GGSA", tails=["T-CCS*"])
    state = state._replace(turns=MOVE_CAP - 1)
    table = Table(set_hand(set_hand(state, 1, []), 2, [])).do("rest")
    assert table.types()[-1] == "move_cap_reached" and table.actor == TERMINAL
    assert table.last("move_cap_reached").data == {"turns": 3000, "ascended": [0, 0, 0]}
    assert ENGINE.ranking(table.state) == [3, 1, 1] and table.view()["capped"]


def test_the_move_cap_can_be_reached_in_a_chance_step():
    """ALL-4: when a chance step (here Pickpocket's draw) completes the 3,000th turn, it records the cap."""
    table = trick_table("pickpocket", "F-QQAG", state=lay()._replace(turns=MOVE_CAP - 1))
    table.do("seat:0")
    assert table.types()[-2:] == ["card_pickpocketed", "move_cap_reached"] and table.actor == TERMINAL


def test_ranking_as_it_stands():
    """NT-9, ALL-6: ranking works on any state: ascended foxes first, then the most tails on one fox."""
    state = place_fox(lay(), 0, "F-AACS", tails=["T-AC"])
    state = place_fox(state, 2, "F-GGSA", tails=["T-AAG*"])
    assert ENGINE.ranking(state) == [2, 3, 1]
    assert ENGINE.ranking(state._replace(ascended=(1, 1, 0))) == [1, 2, 3]


# --- configuration, views, errors -------------------------------------------------------------


def test_configure_checks_seats_and_options():
    """Nine Tails takes 2-5 seats and one option, fast (NT-9); the registry serves it as "nine-tails"."""
    assert registry.get("nine-tails") is ENGINE
    assert ENGINE.configure(5, {"fast": True}).options == {"fast": True}
    assert ENGINE.start(ENGINE.configure(2))[0].data == {"seats": 2, "goal": 3}
    for seats, options, reason in [(1, {}, "2-5 seats"), (6, {}, "2-5 seats"), (3, {"slow": 1}, "no option slow")]:
        with pytest.raises(Exception, match=reason):
            ENGINE.configure(seats, options)
    with pytest.raises(Exception, match="true or false"):
        ENGINE.configure(3, {"fast": "yes"})


def test_views_show_public_table_and_only_the_own_hand():
    """Views: own trickery hand, public foxes, counts and piles; never another hand or a deck order."""
    state = place_fox(set_hand(lay(), 1, ["hex", "lure"]), 0, "F-AACS", tails=["T-AC"], studies=["S-A*"], spent=[4])
    table = Table(to_village(state, "W-GQA"))
    mine, other, spectator = table.view(1), table.view(0), table.view(None)
    assert mine["hand"] == ["hex", "lure"] and other["hand"] == ["quick-paws"] * 3 and "hand" not in spectator
    assert spectator["hand_sizes"] == [3, 2, 3] and spectator["decks"] == {"starting": 7, "wilds": 42, "trickery": 22}
    assert spectator["foxes"][0][0] == {
        "card": "F-AACS", "kind": "starting fox", "slots": "AACSA*",
        "exhausted": [False, False, False, False, True, False], "studies": ["S-A*"], "tails": ["T-AC"], "tail_count": 2,
    }  # fmt: skip
    assert spectator["pile"] == 39 and spectator["village"] == ["W-GQA"] and spectator["discard"] == []
    json.dumps(mine)
    assert {key: value for key, value in mine.items() if key not in ("seat", "hand")} == {
        key: value for key, value in spectator.items() if key != "seat"
    }


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ("dance", "answer 'venture', 'sneak' or 'rest'"),
        ("", "answer 'venture', 'sneak' or 'rest'"),
        ("sneak", "cannot sneak: the Village is empty"),
        (None, "an action is a string"),
    ],
)
def test_illegal_turn_actions_are_refused_with_a_reason(action, reason):
    """decide refuses garbage and illegal actions with IllegalAction and a sentence naming the problem."""
    with pytest.raises(IllegalAction, match=reason):
        ENGINE.decide(lay(), action)


def test_illegal_choices_inside_a_turn_name_the_problem():
    """decide names the problem in every small decision: a card not revealed, a fox not owned, a trick not held."""
    table = Table(lay(wilds=["T-AC", "W-AGS", "S-A*"])).do("venture")
    with pytest.raises(IllegalAction, match="not revealed"):
        ENGINE.decide(table.state, "take:T-CG")
    table.do("take:T-AC")
    with pytest.raises(IllegalAction, match="not one of its foxes"):
        ENGINE.decide(table.state, "fox:F-CCGQ")
    table.do("fox:F-AACS")
    with pytest.raises(IllegalAction, match="holds no lure"):
        ENGINE.decide(table.state, "trick:lure")
    with pytest.raises(IllegalAction, match="no such trick"):
        ENGINE.decide(table.state, "trick:joker")
