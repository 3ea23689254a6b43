"""Nine Tails: the trick window, the cancel window and the ten tricks' effects (NT-6, NT-7).

After "Done" the other seats are asked one at a time, clockwise from the seat after the
active one, to play a trick or decline; the first that plays one plays the only trick of
the window. It names the fox that performs it, which pays the cost (or the trick is
wasted); then every other seat, clockwise from the trick's player, may cancel it with a
card of the same name. A trick that stands is resolved by its player, one small
decision at a time (ALL-3). Each ``legal_*`` / ``decide_*`` pair serves one phase.
"""

from __future__ import annotations

from typing import Any

from engines.base import Event, IllegalAction
from engines.nine_tails.cards import NEED, NINE, ORDERED_COST, TAIL_VALUE, TRICKS
from engines.nine_tails.fold import fold_ahead
from engines.nine_tails.state import (
    FOX_ACTION,
    RESOLVED_AT_ONCE,
    RESOLVING,
    State,
    assign,
    can_pay,
    cancel_asker,
    locate,
    slots_pay,
)

# --- the trick window ---------------------------------------------------------------------


def legal_window(state: State, seat: int) -> list[str]:
    return ["decline", *map(PLAY.__getitem__, distinct(state.hands[seat]))]


PLAY = {trick: f"trick:{trick}" for trick in TRICKS}  # the WINDOW actions, made once


def decide_window(state: State, seat: int, action: str) -> list[Event]:
    if action == "decline":
        return [Event("trick_declined", {"seat": seat})]
    kind, _, trick = action.partition(":")
    if kind != "trick":
        raise IllegalAction(f"seat {seat} is asked for a trick: answer 'decline' or 'trick:<name>', not {action!r}")
    if trick not in TRICKS:
        raise IllegalAction(f"seat {seat} cannot play {trick!r}: there is no such trick (tricks: {', '.join(TRICKS)})")
    if not holds(state.hands[seat], trick):
        raise IllegalAction(f"seat {seat} cannot play {trick}: it holds no {trick} card")
    return [Event("trick_revealed", {"seat": seat, "trick": trick})]


def legal_perform(state: State, seat: int) -> list[str]:
    need = NEED[state.trick]
    legal = [FOX_ACTION[fox.card] for fox in state.foxes[seat] if slots_pay(fox.slots, fox.spent, need)]
    legal.append("waste")
    return legal


def decide_perform(state: State, seat: int, action: str) -> list[Event]:
    trick = state.trick
    if action == "waste":
        return [Event("trick_wasted", {"seat": seat, "trick": trick})]
    kind, _, card = action.partition(":")
    if kind != "fox":
        raise IllegalAction(
            f"seat {seat} must name the fox performing {trick} ('fox:<card>') or 'waste', not {action!r}"
        )
    fox = own_fox(state, seat, card, f"perform {trick}")
    if not can_pay(fox, NEED[trick]):
        cost = ORDERED_COST[trick]
        raise IllegalAction(f"fox {card} cannot perform {trick}: it has no open slots for the cost {cost}")
    slots = payment(state, fox, trick)
    if slots is None:  # NT-5: the pile is short, the seat chooses which part it pays
        return [Event("fox_chosen", {"seat": seat, "fox": card})]
    events = [Event("trick_performed", {"seat": seat, "fox": card, "trick": trick, "slots": slots})]
    return resolve_if_due(state, events) if _may_resolve(state, seat) else events


def legal_cancel(state: State, seat: int) -> list[str]:
    return ["decline", "cancel"] if holds(state.hands[seat], state.trick) else ["decline"]


def decide_cancel(state: State, seat: int, action: str) -> list[Event]:
    trick = state.trick
    if action == "cancel":
        if not holds(state.hands[seat], trick):
            raise IllegalAction(f"seat {seat} cannot cancel {trick}: it holds no {trick} card (NT-6)")
        return [Event("trick_cancelled", {"seat": seat, "trick": trick})]
    if action != "decline":
        raise IllegalAction(f"seat {seat} is asked to cancel {trick}: answer 'cancel' or 'decline', not {action!r}")
    events = [Event("cancel_declined", {"seat": seat})]
    return resolve_if_due(state, events) if _may_resolve(state, seat) else events


def _may_resolve(state: State, seat: int) -> bool:
    """Whether the cancel window may close once ``seat`` has performed or declined; False only when it stays open.

    The window stays open while another seat holding a card is asked (fold.py ``_perform``, ``_cancel_declined``),
    and a trick resolves with no decision only if it is in RESOLVED_AT_ONCE: else ``resolve_if_due`` has nothing to
    add, and need not fold the events to find that out.
    """
    return state.trick in RESOLVED_AT_ONCE and cancel_asker(state, seat) < 0


# --- resolving a trick --------------------------------------------------------------------


def resolve_if_due(state: State, events: list[Event]) -> list[Event]:
    """Append the effect of a trick that needs no decision, if ``events`` close its cancel window."""
    after = fold_ahead(state, events)
    if after.phase != RESOLVING:
        return events
    trick, seat = after.trick, after.trick_seat
    if trick == "second-wind":
        fox = locate(after, after.trick_fox, seat)[2]
        return [*events, Event("counters_returned", {"seat": seat, "fox": fox.card, "counters": fox.spent.bit_count()})]
    if trick == "foxfire-insight":
        return [*events, Event("insight_gained", {"seat": seat}), *draw_events(after, seat, 2)]
    # windfall: the top Wilds card (NT-6 10), or nothing when the deck is empty (NT-14)
    if after.wilds:
        return [*events, Event("windfall_revealed", {"seat": seat, "card": after.wilds[0]})]
    return [*events, Event("windfall_missed", {"seat": seat})]


_targets_of: tuple[Any, Any] = (None, None)  # the last state asked about, and its targets


def targets(state: State) -> dict[str, Event]:
    """The targets of the trick in play (tail-swipe, befuddle, study-heist, pickpocket, hex).

    The legal actions and the decision ask it of the same state in turn: the last state's answer is kept
    (a pure cache, by identity: a state is never mutated). The dict and its events are shared: never mutate them.
    """
    global _targets_of
    if _targets_of[0] is state:
        return _targets_of[1]
    out = _targets(state)
    _targets_of = (state, out)
    return out


def _targets(state: State) -> dict[str, Event]:
    trick, seat = state.trick, state.trick_seat
    out: dict[str, Event] = {}
    if trick == "pickpocket":
        for other, hand in enumerate(state.hands):
            if other != seat and hand:
                out[f"seat:{other}"] = Event("pickpocket_aimed", {"seat": seat, "target": other})
        return out
    this = locate(state, state.trick_fox, seat)[2]
    for other, foxes in enumerate(state.foxes):
        if other == seat:
            continue
        for fox in foxes:
            if trick == "tail-swipe":
                if fox.tails and this.count + TAIL_VALUE[fox.tails[-1]] <= NINE:
                    data = {"seat": seat, "fox": this.card, "victim": fox.card, "card": fox.tails[-1]}
                    out[f"fox:{fox.card}"] = Event("tail_swiped", data)
            elif trick == "befuddle":
                if state.pile and fox.spent != (1 << len(fox.slots)) - 1:
                    out[f"fox:{fox.card}"] = Event("befuddle_aimed", {"seat": seat, "fox": fox.card})
            elif trick == "hex":
                if fox.studies:
                    data = {"seat": seat, "fox": fox.card, "card": fox.studies[-1]}
                    out[f"fox:{fox.card}"] = Event("study_hexed", data)
            else:  # study-heist
                for study in fox.studies:
                    data = {"seat": seat, "fox": this.card, "victim": fox.card, "card": study}
                    out[f"study:{study}"] = Event("study_heisted", data)
    return out


def legal_target(state: State, seat: int) -> list[str]:
    return list(targets(state)) or ["none"]


def decide_target(state: State, seat: int, action: str) -> list[Event]:
    trick = state.trick
    options = targets(state)
    if action in options:
        chosen = options[action]
        return [Event(chosen.type, {**chosen.data})]  # a fresh event each time, as from any decision
    if action == "none" and not options:
        return [Event("trick_fizzled", {"seat": seat, "trick": trick})]
    if action == "none":
        raise IllegalAction(f"seat {seat} must aim {trick}: it has targets ({', '.join(options)})")
    grammar = "'seat:<n>'" if trick == "pickpocket" else "'study:<card>'" if trick == "study-heist" else "'fox:<card>'"
    raise IllegalAction(
        f"seat {seat} cannot aim {trick} with {action!r}: {trick} takes {grammar} among: {', '.join(options) or 'none'}"
    )


def legal_befuddle(state: State, seat: int) -> list[str]:
    fox = locate(state, state.target)[2]
    return [*(f"slot:{i}" for i in range(len(fox.slots)) if not fox.spent >> i & 1), "stop"]


def decide_befuddle(state: State, seat: int, action: str) -> list[Event]:
    if action == "stop":
        return [Event("befuddle_done", {"seat": seat})]
    fox = locate(state, state.target)[2]
    kind, _, slot = action.partition(":")
    if kind != "slot" or not slot.isdigit():
        raise IllegalAction(f"seat {seat} befuddles {fox.card}: answer 'slot:<n>' or 'stop', not {action!r}")
    index = int(slot)
    if index >= len(fox.slots) or fox.spent >> index & 1:
        raise IllegalAction(f"seat {seat} cannot put a counter on slot {index} of {fox.card}: it is not an open slot")
    return [Event("counter_befuddled", {"seat": seat, "fox": fox.card, "slot": index})]


# --- shared by the rules --------------------------------------------------------------------


def payment(state: State, fox: Any, key: str) -> list[int] | None:
    """The slots that pay the cost of ``key`` (a tail card or a trick) on ``fox``.

    None when the counter pile is too short for the whole cost and which part is paid makes
    a difference: the seat then chooses, one symbol at a time (rulebook "Trickery Cards", NT-5).
    """
    cost = ORDERED_COST[key]
    have = state.pile
    if have >= len(cost):
        return assign(fox, cost)
    if have == 0:
        return []
    if len(set(cost)) == 1:
        return assign(fox, cost[:have])
    return None


def draw_events(state: State, seat: int, count: int) -> list[Event]:
    """Draw ``count`` trickery cards; what the deck lacks is owed until a reshuffle (NT-8)."""
    cards = list(state.trickery[:count])
    data = {"seat": seat, "count": len(cards), "owed": count - len(cards)}
    return [Event("trickery_drawn", data, {"cards": cards}, (seat,))]


def distinct(hand: tuple) -> list[str]:
    """The tricks in ``hand``, each once, in the hand's order; an unknown card (None) is left out."""
    out = [*dict.fromkeys(hand)]
    if None in out:
        out.remove(None)
    return out


def holds(hand: tuple, trick: str) -> bool:
    # An unknown card (a fold without hands, ALL-2 redaction) may be any trick.
    return trick in hand or None in hand


def own_fox(state: State, seat: int, card: str, doing: str) -> Any:
    for fox in state.foxes[seat]:
        if fox.card == card:
            return fox
    mine = ", ".join(fox.card for fox in state.foxes[seat]) or "none"
    raise IllegalAction(f"seat {seat} cannot {doing} with fox {card!r}: it is not one of its foxes ({mine})")
