"""Nine Tails: the active seat's decisions (rulebook "A Player's Turn"), what each may do and the events
it causes, and the move cap's closing event (NT-9). The trick and cancel windows are tricks.py's;
``LEGAL`` and ``DECIDE`` name, per phase, the function that answers.
"""

from __future__ import annotations

import engines.nine_tails.tricks as tricks
from engines.base import (
    Event,
    IllegalAction,
)
from engines.nine_tails.cards import (
    ANY,
    KIND,
    MOVE_CAP,
    NINE,
    ORDERED_COST,
    REVEAL,
    STUDY,
    TAIL_VALUE,
    TRICK_NAMES,
    WILD_FOX,
    WILDS_IDS,
)
from engines.nine_tails.fold import fold_ahead
from engines.nine_tails.state import (
    ACTION,
    BEFUDDLE,
    CANCEL,
    CAP,
    CHOOSE,
    DISCARD,
    FOX_ACTION,
    PAY,
    PERFORM,
    PLACE,
    TARGET,
    WINDOW,
    State,
    assign,
    can_use_any,
    fits,
    locate,
    usable,
    usable_cards,
)

OPTIONS = {"fast": "bool: win at two ascended foxes instead of three (NT-9)"}
TAKE = {card: f"take:{card}" for card in WILDS_IDS}  # the CHOOSE actions, made once
DISCARD_ACTION = {trick: f"discard:{trick}" for trick in TRICK_NAMES}  # and the DISCARD ones

# --- the active seat's decisions (rulebook "A Player's Turn") -------------------------------


def _legal_action(state: State, seat: int) -> list[str]:
    if can_use_any(state, seat, state.village):
        return ["venture", "sneak", "rest"]
    return ["venture", "rest"]


def _decide_action(state: State, seat: int, action: str) -> list[Event]:
    if action == "venture":
        cards = list(state.wilds[:REVEAL])  # NT-8: min(3, cards left)
        return [Event("wilds_revealed", {"seat": seat, "cards": cards})]
    if action == "sneak":
        if not can_use_any(state, seat, state.village):
            why = "the Village is empty" if not state.village else "no Village card is one it can claim or give"
            raise IllegalAction(f"seat {seat} cannot sneak: {why} (NT-13)")
        return [Event("sneaked", {"seat": seat})]
    if action == "rest":
        foxes = state.foxes[seat]
        counters = sum(fox.spent.bit_count() for fox in foxes)
        # NT-8: one trickery card per fox in front of the seat (its unascended foxes)
        return [Event("rested", {"seat": seat, "counters": counters}), *tricks.draw_events(state, seat, len(foxes))]
    raise IllegalAction(f"seat {seat} is on turn: answer 'venture', 'sneak' or 'rest', not {action!r}")


def _choice_cards(state: State) -> tuple[str, ...]:
    source = state.source
    if source in ("venture", "windfall"):
        return state.revealed
    if source == "lure":
        return tuple(card for card in state.village if KIND[card] == WILD_FOX)
    return state.village  # sneak, quick-paws


def _may_take_none(state: State, can_take: bool) -> bool:
    # VENTURE and Windfall may take nothing; Quick Paws resolves "as in SNEAK", whose
    # "you may" lets it take nothing (NT-15); Lure and SNEAK must take a card when one fits.
    source = state.source
    return source in ("venture", "windfall", "quick-paws") or (source == "lure" and not can_take)


def _legal_choose(state: State, seat: int) -> list[str]:
    legal = [TAKE[card] for card in usable_cards(state, seat, _choice_cards(state))]
    if _may_take_none(state, bool(legal)):
        legal.append("none")
    return legal


def _decide_choose(state: State, seat: int, action: str) -> list[Event]:
    cards = _choice_cards(state)
    if action == "none":
        can_take = can_use_any(state, seat, cards)
        if not _may_take_none(state, can_take):
            raise IllegalAction(f"seat {seat} must take a card now ({state.source}): one of them fits (NT-13)")
        return [Event("nothing_taken", {"seat": seat})]
    kind, _, card = action.partition(":")
    if kind != "take":
        raise IllegalAction(f"seat {seat} chooses a card: answer 'take:<card>' or 'none', not {action!r}")
    if card not in cards:
        where = "revealed" if state.source in ("venture", "windfall") else "in the Village"
        if state.source == "lure":
            where = "a Wild Fox card in the Village"
        listed = ", ".join(cards) or "none"
        raise IllegalAction(f"seat {seat} cannot take {card!r}: it is not {where} ({listed})")
    if not usable(state, seat, card):
        raise IllegalAction(f"seat {seat} cannot take {card}: {_unusable_reason(state, seat, card)} (NT-13)")
    return [Event("card_taken", {"seat": seat, "card": card, "source": state.source})]


def _legal_place(state: State, seat: int) -> list[str]:
    card = state.held
    if KIND[card] == STUDY:
        return [FOX_ACTION[fox.card] for fox in state.foxes[seat]]
    return [FOX_ACTION[fox.card] for fox in state.foxes[seat] if fits(fox, card)]


def _decide_place(state: State, seat: int, action: str) -> list[Event]:
    card = state.held
    kind, _, name = action.partition(":")
    if kind != "fox":
        raise IllegalAction(f"seat {seat} gives {card} to a fox: answer 'fox:<card>', not {action!r}")
    fox = tricks.own_fox(state, seat, name, f"give {card} to a fox")
    if KIND[card] == STUDY:
        return [Event("study_tucked", {"seat": seat, "fox": name, "card": card})]
    if fox.count + TAIL_VALUE[card] > NINE:
        raise IllegalAction(f"fox {name} cannot take {card}: it would have more than nine tails")
    if not fits(fox, card):
        raise IllegalAction(f"fox {name} cannot pay {card}: it has no open slots for the cost {ORDERED_COST[card]}")
    slots = tricks.payment(state, fox, card)
    if slots is None:  # NT-5: the pile is short, the seat chooses which part it pays
        return [Event("fox_chosen", {"seat": seat, "fox": name})]
    return [Event("tail_gained", {"seat": seat, "fox": name, "card": card, "slots": slots})]


def _remaining_cost(state: State) -> str:
    cost = ORDERED_COST[state.held or state.trick]
    for symbol in state.chosen:
        cost = cost.replace(symbol, "", 1)
    return cost


def _legal_pay(state: State, seat: int) -> list[str]:
    return [f"pay:{symbol}" for symbol in dict.fromkeys(_remaining_cost(state))]


def _decide_pay(state: State, seat: int, action: str) -> list[Event]:
    remaining = _remaining_cost(state)
    kind, _, symbol = action.partition(":")
    if kind != "pay" or symbol not in remaining or not symbol:
        raise IllegalAction(
            f"seat {seat} chooses which part of the cost its {state.pile} counter(s) pay: "
            f"answer 'pay:<symbol>' with one of {', '.join(dict.fromkeys(remaining))}, not {action!r}"
        )
    chosen = state.chosen + symbol
    rest = remaining.replace(symbol, "", 1)
    if len(chosen) < state.pile and len(set(rest)) > 1:
        return [Event("cost_part_chosen", {"seat": seat, "symbol": symbol})]
    chosen += rest[: state.pile - len(chosen)]  # what is left to choose is all one symbol
    fox = locate(state, state.paying, seat)[2]
    slots = assign(fox, "".join(sorted(chosen, key=lambda s: s == ANY)))
    events = [Event("cost_part_chosen", {"seat": seat, "symbol": symbol, "slots": slots})]
    return events if state.held else tricks.resolve_if_due(state, events)


def _legal_discard(state: State, seat: int) -> list[str]:
    return [*map(DISCARD_ACTION.__getitem__, tricks.distinct(state.hands[seat])), "stop"]


def _decide_discard(state: State, seat: int, action: str) -> list[Event]:
    if action == "stop":  # rulebook VENTURE 3: draw as many as discarded, plus one
        done = Event("discards_done", {"seat": seat, "count": state.discarded})
        return [done, *tricks.draw_events(state, seat, state.discarded + 1)]
    kind, _, trick = action.partition(":")
    if kind != "discard":
        raise IllegalAction(
            f"seat {seat} may discard trickery cards: answer 'discard:<trick>' or 'stop', not {action!r}"
        )
    if not tricks.holds(state.hands[seat], trick):
        raise IllegalAction(f"seat {seat} cannot discard {trick!r}: it holds no such trickery card")
    return [Event("trickery_discarded", {"seat": seat, "trick": trick})]


def _unusable_reason(state: State, seat: int, card: str) -> str:
    if not state.foxes[seat]:
        return "it has no fox to give it to"
    cost, more = ORDERED_COST[card], TAIL_VALUE[card]
    return f"none of its foxes has open slots for the cost {cost} and room for {more} more tail(s)"


LEGAL = {
    ACTION: _legal_action, CHOOSE: _legal_choose, PLACE: _legal_place, PAY: _legal_pay, DISCARD: _legal_discard,
    WINDOW: tricks.legal_window, PERFORM: tricks.legal_perform, CANCEL: tricks.legal_cancel,
    TARGET: tricks.legal_target, BEFUDDLE: tricks.legal_befuddle,
}  # fmt: skip
DECIDE = {
    ACTION: _decide_action, CHOOSE: _decide_choose, PLACE: _decide_place, PAY: _decide_pay, DISCARD: _decide_discard,
    WINDOW: tricks.decide_window, PERFORM: tricks.decide_perform, CANCEL: tricks.decide_cancel,
    TARGET: tricks.decide_target, BEFUDDLE: tricks.decide_befuddle,
}  # fmt: skip

ACTION_OF = {
    "wilds_revealed": lambda d: "venture",
    "sneaked": lambda d: "sneak",
    "rested": lambda d: "rest",
    "card_taken": lambda d: f"take:{d['card']}",
    "nothing_taken": lambda d: "none",
    "trick_fizzled": lambda d: "none",
    "study_tucked": lambda d: f"fox:{d['fox']}",
    "tail_gained": lambda d: f"fox:{d['fox']}",
    "fox_chosen": lambda d: f"fox:{d['fox']}",
    "trick_performed": lambda d: f"fox:{d['fox']}",
    "cost_part_chosen": lambda d: f"pay:{d['symbol']}",
    "trickery_discarded": lambda d: f"discard:{d['trick']}",
    "discards_done": lambda d: "stop",
    "befuddle_done": lambda d: "stop",
    "trick_declined": lambda d: "decline",
    "cancel_declined": lambda d: "decline",
    "trick_revealed": lambda d: f"trick:{d['trick']}",
    "trick_wasted": lambda d: "waste",
    "trick_cancelled": lambda d: "cancel",
    "tail_swiped": lambda d: f"fox:{d['victim']}",
    "befuddle_aimed": lambda d: f"fox:{d['fox']}",
    "study_hexed": lambda d: f"fox:{d['fox']}",
    "study_heisted": lambda d: f"study:{d['card']}",
    "pickpocket_aimed": lambda d: f"seat:{d['target']}",
    "counter_befuddled": lambda d: f"slot:{d['slot']}",
}



LAST_TURN = MOVE_CAP - 1  # only a step of the last turn pays for ``close``'s fold


def close(state: State, events: list[Event]) -> list[Event]:
    """NT-9, ALL-4: the step that completes turn 3,000 ends the game at once, with an event saying so."""
    if state.turns < LAST_TURN:
        return events
    after = fold_ahead(state, events)
    return [*events, cap_event(after)] if after.phase == CAP else events


def cap_event(state: State) -> Event:
    return Event("move_cap_reached", {"turns": state.turns, "ascended": list(state.ascended)})


