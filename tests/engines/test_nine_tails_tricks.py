"""Nine Tails engine: the ten tricks (NT-6), each played with real decisions through ``Table.do``.

Positions are built with the helpers in ``nine_tails_positions``; the setup, the windows, the
counters and the rest of the rules are tested in test_nine_tails.py.
"""

from __future__ import annotations

import pytest

from engines.base import IllegalAction
from engines.nine_tails.engine import ENGINE
from tests.engines.nine_tails_positions import (
    conserved,
    fox_of,
    lay,
    place_fox,
    to_village,
    trick_table,
)

# --- the ten tricks (NT-6) ----------------------------------------------------------------------




def test_quick_paws_takes_a_village_card_as_in_sneak():
    """NT-6 1: Quick Paws (Q) takes one Village card and resolves it as in SNEAK."""
    table = trick_table("quick-paws", "F-CCGQ", state=to_village(lay(), "T-CG"))
    assert table.last("trick_performed").data["slots"] == [3]
    assert table.legal == ["take:T-CG", "none"]
    table.do("take:T-CG", "fox:F-CCGQ")
    assert fox_of(table.state, "F-CCGQ").tails == ("T-CG",) and table.state.discard == ("quick-paws",)
    assert table.state.phase == "action" and table.actor == 1
    conserved(table.state)


def test_tail_swipe_moves_the_most_recent_tail():
    """NT-6 2, NT-17: Tail Swipe (SSC) moves another seat's fox's most recent Tail card to this fox; counters stay."""
    state = place_fox(lay(), 2, "F-GGSA", tails=["T-AC", "T-ACG"], spent=[0])
    table = trick_table("tail-swipe", "F-SSQC", state=state)
    assert table.legal == ["fox:F-GGSA"]
    table.do("fox:F-GGSA")
    assert fox_of(table.state, "F-SSQC").tails == ("T-ACG",) and fox_of(table.state, "F-SSQC").count == 3
    victim = fox_of(table.state, "F-GGSA")
    assert victim.tails == ("T-AC",) and victim.count == 2 and victim.spent == 1
    conserved(table.state)


def test_tail_swipe_respects_the_nine_tail_limit_and_can_ascend():
    """NT-6 2: Tail Swipe only if this fox stays at nine or fewer; reaching nine ascends it."""
    state = place_fox(lay(), 2, "F-GGSA", tails=["T-ACG"])
    state = place_fox(state, 1, "F-SSQC", tails=["T-AAG*", "T-CCS*", "T-AC"], first=True)  # 8 tails
    table = trick_table("tail-swipe", "F-SSQC", state=state)
    assert table.legal == ["none"]
    table.do("none")
    assert table.last("trick_fizzled").data["trick"] == "tail-swipe"
    state = place_fox(state, 1, "F-SSQC", tails=["T-AAG*", "T-CCS*"], first=True)  # 7 tails
    table = trick_table("tail-swipe", "F-SSQC", state=state).do("fox:F-GGSA")
    assert table.last("fox_ascended").data["fox"] == "F-SSQC" and table.state.ascended == (0, 1, 0)
    conserved(table.state)


def test_befuddle_puts_up_to_two_counters_on_another_seats_fox():
    """NT-6 3, NT-15: Befuddle (AG) puts up to two counters from the pile on open slots of another seat's fox."""
    table = trick_table("befuddle", "F-QQAG")
    assert table.legal == ["fox:F-AACS", "fox:W-SAC", "fox:F-GGSA"]
    table.do("fox:F-AACS")
    assert table.legal == ["slot:0", "slot:1", "slot:2", "slot:3", "stop"]
    table.do("slot:1", "slot:3")
    assert fox_of(table.state, "F-AACS").spent == 0b1010 and table.state.pile == 36
    assert table.state.phase == "action"
    table = trick_table("befuddle", "F-QQAG").do("fox:F-GGSA", "slot:0", "stop")
    assert fox_of(table.state, "F-GGSA").spent == 1 and table.state.phase == "action"


def test_befuddle_offers_only_foxes_with_an_open_slot():
    """NT-19: Befuddle's targets are the other seats' foxes with at least one open slot; a full fox is not one."""
    state = place_fox(lay(), 2, "F-GGSA", spent=[0, 1, 2, 3])
    table = trick_table("befuddle", "F-QQAG", state=state)
    assert table.state.phase == "target" and table.legal == ["fox:F-AACS", "fox:W-SAC"]
    with pytest.raises(IllegalAction, match="cannot aim befuddle"):
        ENGINE.decide(table.state, "fox:F-GGSA")


def test_befuddle_ends_without_asking_once_its_target_is_full():
    """NT-19: when the target's last open slot takes a counter, Befuddle ends there: no `stop` is asked."""
    state = place_fox(lay(), 2, "F-GGSA", spent=[0, 1, 2])
    table = trick_table("befuddle", "F-QQAG", state=state).do("fox:F-GGSA")
    assert table.legal == ["slot:3", "stop"]
    table.do("slot:3")
    assert fox_of(table.state, "F-GGSA").spent == 0b1111
    assert table.types()[-1] == "counter_befuddled" and "befuddle_done" not in table.types()
    assert table.state.phase == "action" and table.actor == 1
    conserved(table.state)


def test_befuddle_places_no_more_counters_than_the_pile_holds():
    """NT-19: with one counter left after paying, Befuddle ends after placing it; with none left, its only
    target is `none` (the trick fizzles)."""
    table = trick_table("befuddle", "F-QQAG", state=lay()._replace(pile=3)).do("fox:F-AACS")
    assert table.state.pile == 1 and table.legal == ["slot:0", "slot:1", "slot:2", "slot:3", "stop"]
    table.do("slot:0")
    assert table.state.pile == 0 and table.state.phase == "action" and "befuddle_done" not in table.types()
    table = trick_table("befuddle", "F-QQAG", state=lay()._replace(pile=2))
    assert table.state.pile == 0 and table.state.phase == "target" and table.legal == ["none"]
    table.do("none")
    assert table.last("trick_fizzled").data == {"seat": 1, "trick": "befuddle"} and table.state.phase == "action"


def test_second_wind_returns_all_counters_on_this_fox():
    """NT-6 4: Second Wind (Any) returns all counters on this fox, its own cost included."""
    state = place_fox(lay(), 1, "F-QQAG", spent=[0, 1])
    table = trick_table("second-wind", "F-QQAG", state=state)
    assert table.last("counters_returned").data["counters"] == 3
    assert fox_of(table.state, "F-QQAG").spent == 0 and table.state.pile == 40
    assert table.state.phase == "action"


def test_foxfire_insight_draws_two():
    """NT-6 5: Foxfire Insight (C) draws two trickery cards."""
    table = trick_table("foxfire-insight", "F-CCGQ")
    assert len(table.state.hands[1]) == 2 and table.last("trickery_drawn").data["count"] == 2
    assert table.state.discard[-1] == "foxfire-insight"
    conserved(table.state)


def test_study_heist_moves_a_study_and_returns_its_counters():
    """NT-6 6, NT-17: Study Heist (CG) moves any study of another seat's fox to this fox; its counters return."""
    state = place_fox(lay(), 0, "F-AACS", studies=["S-A*", "S-SQ"], spent=[0, 4], first=True)
    table = trick_table("study-heist", "F-CCGQ", state=state)
    assert table.legal == ["study:S-A*", "study:S-SQ"]
    table.do("study:S-A*")
    assert fox_of(table.state, "F-AACS").slots == "AACSSQ" and fox_of(table.state, "F-AACS").spent == 1
    thief = fox_of(table.state, "F-CCGQ")
    assert thief.studies == ("S-A*",) and thief.slots == "CCGQA*"
    assert table.state.pile == 40 - 1 - 2  # F-AACS slot 0, and the C and G of the cost
    conserved(table.state)


def test_pickpocket_takes_a_random_card_from_a_hand():
    """NT-6 7: Pickpocket (A) takes a random trickery card from another seat's hand (a chance step, private)."""
    table = trick_table("pickpocket", "F-QQAG", hand0=["hex"])
    assert table.legal == ["seat:0", "seat:2"]
    table.do("seat:0")
    stolen = table.last("card_pickpocketed")
    assert stolen.private == {"trick": "hex"} and stolen.audience == (0, 1)
    assert table.state.hands[0] == () and table.state.hands[1] == ("hex",)
    conserved(table.state)


def test_lure_claims_a_wild_fox_from_the_village():
    """NT-6 8, NT-15: Lure (AA) claims a Wild Fox card from the Village; with one there it must."""
    table = trick_table("lure", "W-AA*", state=to_village(lay(), "W-CSQ", "T-AC"))
    assert table.legal == ["take:W-CSQ"]
    table.do("take:W-CSQ")
    assert [fox.card for fox in table.state.foxes[1]] == ["W-AA*", "F-CCGQ", "W-CSQ"]
    table = trick_table("lure", "W-AA*")
    assert table.legal == ["none"]


def test_hex_sends_the_most_recent_study_to_the_village():
    """NT-6 9: Hex (GS) puts another seat's fox's most recent study in the Village; its counters return."""
    state = place_fox(lay(), 0, "F-AACS", studies=["S-A*", "S-SQ"], spent=[6], first=True)
    table = trick_table("hex", "F-GGSA", state=state).do("fox:F-AACS")
    fox = fox_of(table.state, "F-AACS")
    assert fox.studies == ("S-A*",) and fox.spent == 0 and table.state.village[-1] == "S-SQ"
    conserved(table.state)


def test_windfall_resolves_the_top_wilds_card_or_villages_it():
    """NT-6 10, NT-14: Windfall (QA) reveals the top Wilds card: venture with it alone, or put it in the Village."""
    table = trick_table("windfall", "F-QQAG", state=lay(wilds=["T-GQ"]), hand0=["hex"])
    assert table.state.revealed == ("T-GQ",) and table.legal == ["take:T-GQ", "none"]
    table.do("take:T-GQ", "fox:F-QQAG")
    assert fox_of(table.state, "F-QQAG").tails == ("T-GQ",)
    table = trick_table("windfall", "F-QQAG", state=lay(wilds=["T-GQ"]), hand0=["hex"]).do("none")
    assert table.state.village[-1] == "T-GQ" and table.state.phase == "action"  # no discard-and-draw
    state = lay()
    state = state._replace(wilds=(), village=state.wilds)
    table = trick_table("windfall", "F-QQAG", state=state, hand0=["hex"])
    assert table.types()[-1] == "windfall_missed" and table.state.phase == "action"


def test_quick_paws_may_take_nothing():
    """NT-15: Quick Paws resolves as in SNEAK, whose "you may" lets it take nothing."""
    table = trick_table("quick-paws", "F-CCGQ", state=to_village(lay(), "T-CG")).do("none")
    assert "T-CG" in table.state.village and table.state.phase == "action"
