"""Nine Tails: the fold (``apply``) that builds the table state from events.

One small mutator per event type. Besides moving cards and counters, the fold keeps the
flow of a turn: which phase the table is in and which seat decides. Every step that
follows from the rules alone (the trick window opening after "Done", the next seat
being asked, the next turn starting) is worked out here, so a log holds only the facts
(docs/games/nine-tails.md lists the events).
"""

from __future__ import annotations

from typing import Any

from engines.base import NO_LINK, EngineError, chain_of
from engines.nine_tails.cards import (
    ASCENDED_FOX_CARDS,
    COUNTERS,
    KIND,
    MOVE_CAP,
    NINE,
    SLOTS,
    STARTING_FOX,
    STARTING_FOX_IDS,
    TAIL_VALUE,
    TRICKERY_CARDS,
    WILD_FOX,
    WILDS_IDS,
)
from engines.nine_tails.state import (
    ACTION,
    ASCEND,
    BEFUDDLE,
    CANCEL,
    CAP,
    CHOOSE,
    CHOSEN,
    DISCARD,
    OVER,
    PAY,
    PERFORM,
    PICKPOCKET,
    PLACE,
    RESHUFFLE,
    RESOLVING,
    SETUP,
    STAGE_ACTION,
    STAGE_TRICK,
    STAGE_WINDOW,
    TARGET,
    TARGETED,
    TURN_FIELDS,
    TURN_START,
    WINDOW,
    Fox,
    State,
    ascension_cards,
    cancel_asker,
    drop_trick,
    locate,
    new_fox,
    next_holder,
    put,
    remove_study,
    replace_fox,
    slot_mask,
    sort_hand,
    window_asker,
    without,
)

# Some decisions fold their own events to see where they lead (does a performed trick's cancel
# window close at once?); ``fold_ahead`` keeps those states as a chain (engines.base.chain_of) for
# ``apply`` to hand back when the caller then folds the very same events, as in Tails on Fire.
_ahead: tuple[Any, Any, Any, Any] = NO_LINK

# Positions of State's fields. The most frequent events (and the flow of a turn, ``_finish``) set a state's
# fields on one list of them and make one tuple, rather than copy the state through ``_replace`` step by step.
_INDEX = {name: position for position, name in enumerate(State._fields)}
_NEW = tuple.__new__
_SEATS, _PHASE, _ACTIVE, _DECIDER, _TURNS, _FOXES, _HANDS, _PILE, _TRICKERY, _DISCARD = (
    _INDEX[name]
    for name in ("seats", "phase", "active", "decider", "turns", "foxes", "hands", "pile", "trickery", "discard")
)
_OWED, _ASCENDING, _WINNER, _STAGE, _SOURCE, _TRICK, _TRICK_SEAT, _TRICK_FOX, _PAYING, _CHOSEN, _DISCARDED = (
    _INDEX[name]
    for name in (
        "owed", "ascending", "winner", "stage", "source", "trick", "trick_seat", "trick_fox", "paying", "chosen",
        "discarded",
    )
)  # fmt: skip


def apply(state: Any, event: Any) -> State:
    """The fold step (see engines.base.Engine.apply)."""
    global _ahead
    link = _ahead
    if link[1] is event and link[0] is state:
        _ahead = link[3]
        return link[2]
    mutate = _MUTATORS.get(event.type)
    if mutate is None:
        raise EngineError(f"nine-tails has no event {event.type!r}")
    return mutate(state, event.data, event.private)


def fold_ahead(state: State, events: list[Any]) -> State:
    """The state after ``events``; ``apply`` then serves these very events from the states kept."""
    global _ahead
    steps = []
    for event in events:
        after = apply(state, event)
        steps.append((state, event, after))
        state = after
    _ahead = chain_of(steps)
    return state


# --- setup -------------------------------------------------------------------------------


def _table_laid(state: Any, data: Any, private: Any) -> State:
    n = data["seats"]
    return State(
        seats=n, goal=data["goal"], phase=SETUP, stage=STAGE_ACTION, active=0, decider=-1, turns=0,
        foxes=((),) * n, hands=((),) * n, ascended=(0,) * n, ascended_cards=(0,) * n,
        stack=ASCENDED_FOX_CARDS, pile=COUNTERS, starting=STARTING_FOX_IDS, wilds=WILDS_IDS,
        trickery=TRICKERY_CARDS, discard=(), village=(),
    )  # fmt: skip


def _deck_order(data: Any, private: Any) -> tuple[Any, ...]:
    # A log folded without a deck's order (never the case for a verified log, whose chance
    # events are re-derived) keeps the deck as unknown cards.
    return tuple(private["order"]) if private is not None else (None,) * data["size"]


def _starting_foxes_shuffled(state: State, data: Any, private: Any) -> State:
    return state._replace(starting=_deck_order(data, private))


def _wilds_shuffled(state: State, data: Any, private: Any) -> State:
    return state._replace(wilds=_deck_order(data, private))


def _trickery_shuffled(state: State, data: Any, private: Any) -> State:
    return state._replace(trickery=_deck_order(data, private))


def _starting_fox_dealt(state: State, data: Any, private: Any) -> State:
    seat = data["seat"]
    foxes = put(state.foxes, seat, (*state.foxes[seat], new_fox(data["fox"])))
    return state._replace(starting=state.starting[1:], foxes=foxes)


def _trickery_dealt(state: State, data: Any, private: Any) -> State:
    seat = data["seat"]
    trickery, hands = _drawn(state, seat, data["count"], private)
    if seat == state.seats - 1:  # ALL-1: seat 0 takes the first turn
        return state._replace(trickery=trickery, hands=hands, phase=ACTION, active=0, decider=0)
    return state._replace(trickery=trickery, hands=hands)


# --- the active seat's action -----------------------------------------------------------


def _wilds_revealed(state: State, data: Any, private: Any) -> State:
    cards = tuple(data["cards"])
    # NT-8: with nothing revealed the seat goes straight to its discard-and-draw option.
    return state._replace(
        wilds=state.wilds[len(cards) :], revealed=cards, source="venture", phase=CHOOSE if cards else DISCARD,
        discarded=0,
    )  # fmt: skip


def _sneaked(state: State, data: Any, private: Any) -> State:
    return state._replace(phase=CHOOSE, source="sneak")


def _rested(state: State, data: Any, private: Any) -> State:
    seat = data["seat"]
    foxes = state.foxes[seat]
    returned = sum([fox.spent.bit_count() for fox in foxes])
    foxes = tuple([fox._replace(spent=0) if fox.spent else fox for fox in foxes])
    values = [*state]
    values[_FOXES], values[_PILE], values[_PHASE] = put(state.foxes, seat, foxes), state.pile + returned, RESOLVING
    return _NEW(State, values)


def _card_taken(state: State, data: Any, private: Any) -> State:
    seat, card = data["seat"], data["card"]
    if state.source in ("venture", "windfall"):  # the rest of the revealed cards go to the Village
        taken = {"revealed": (), "village": state.village + without(state.revealed, card)}
    else:
        taken = {"village": without(state.village, card)}
    if KIND[card] == WILD_FOX:
        return _finish(state, **taken, foxes=put(state.foxes, seat, (*state.foxes[seat], new_fox(card))))
    return state._replace(**taken, held=card, phase=PLACE)


def _nothing_taken(state: State, data: Any, private: Any) -> State:
    village = state.village + state.revealed
    if state.source == "venture":  # rulebook VENTURE 3: the seat may now discard and draw
        return state._replace(village=village, revealed=(), phase=DISCARD, discarded=0)
    return _finish(state, village=village, revealed=())


def _study_tucked(state: State, data: Any, private: Any) -> State:
    seat, index, fox = locate(state, data["fox"], data["seat"])
    card = data["card"]
    fox = fox._replace(slots=fox.slots + SLOTS[card], studies=(*fox.studies, card))
    return _finish(state, foxes=replace_fox(state.foxes, seat, index, fox), held="")


def _tail_gained(state: State, data: Any, private: Any) -> State:
    return _gain_tail(state, data["fox"], data["card"], data["slots"], data["seat"])


def _fox_chosen(state: State, data: Any, private: Any) -> State:
    return state._replace(paying=data["fox"], chosen="", phase=PAY)


def _cost_part_chosen(state: State, data: Any, private: Any) -> State:
    state = state._replace(chosen=state.chosen + data["symbol"])
    if "slots" not in data:
        return state
    if state.held:
        return _gain_tail(state, state.paying, state.held, data["slots"], state.decider)
    return _perform(state, state.paying, data["slots"])


def _trickery_discarded(state: State, data: Any, private: Any) -> State:
    seat, trick = data["seat"], data["trick"]
    values = [*state]
    values[_HANDS] = put(state.hands, seat, drop_trick(state.hands[seat], trick))
    values[_DISCARD] = (*state.discard, trick)
    values[_DISCARDED] = state.discarded + 1
    return _NEW(State, values)


def _resolving(state: State, data: Any, private: Any) -> State:
    return state._replace(phase=RESOLVING)


def _trickery_drawn(state: State, data: Any, private: Any) -> State:
    seat = data["seat"]
    values = [*state]
    values[_TRICKERY], values[_HANDS] = _drawn(state, seat, data["count"], private)
    values[_OWED], values[_DECIDER] = data["owed"], seat
    return _settle(values)


# --- the trick window and the cancel window (NT-7) -----------------------------------------


def _trick_declined(state: State, data: Any, private: Any) -> State:
    asker = window_asker(state, data["seat"])
    values = [*state]
    if asker < 0:
        return _next_turn(values)
    values[_DECIDER] = asker
    return _NEW(State, values)


def _trick_revealed(state: State, data: Any, private: Any) -> State:
    seat, trick = data["seat"], data["trick"]
    values = [*state]
    values[_HANDS] = put(state.hands, seat, drop_trick(state.hands[seat], trick))
    values[_TRICK], values[_TRICK_SEAT], values[_DECIDER] = trick, seat, seat
    values[_STAGE], values[_PHASE] = STAGE_TRICK, PERFORM
    return _NEW(State, values)


def _trick_wasted(state: State, data: Any, private: Any) -> State:
    return _end_turn(state, discard=(*state.discard, state.trick))  # the turn's end clears ``trick``


def _trick_performed(state: State, data: Any, private: Any) -> State:
    return _perform(state, data["fox"], data["slots"])


def _trick_cancelled(state: State, data: Any, private: Any) -> State:
    seat, trick = data["seat"], data["trick"]
    return _end_turn(
        state, hands=put(state.hands, seat, drop_trick(state.hands[seat], trick)),
        discard=(*state.discard, state.trick, trick),
    )  # fmt: skip


def _cancel_declined(state: State, data: Any, private: Any) -> State:
    asker = cancel_asker(state, data["seat"])
    values = [*state]
    if asker < 0:
        return _begin_resolution(values)
    values[_DECIDER] = asker
    return _NEW(State, values)


# --- trick effects (NT-6) ---------------------------------------------------------------


def _counters_returned(state: State, data: Any, private: Any) -> State:
    seat, index, fox = locate(state, data["fox"], data["seat"])
    foxes = replace_fox(state.foxes, seat, index, fox._replace(spent=0))
    return _finish(state, pile=state.pile + fox.spent.bit_count(), foxes=foxes)


def _windfall_revealed(state: State, data: Any, private: Any) -> State:
    return state._replace(wilds=state.wilds[1:], revealed=(data["card"],), source="windfall", phase=CHOOSE)


def _no_effect(state: State, data: Any, private: Any) -> State:
    return _finish(state)


def _tail_swiped(state: State, data: Any, private: Any) -> State:
    card = data["card"]
    seat, index, victim = locate(state, data["victim"])
    victim = victim._replace(tails=victim.tails[:-1], count=victim.count - TAIL_VALUE[card])
    foxes = replace_fox(state.foxes, seat, index, victim)
    seat, index, fox = locate(state, data["fox"], data["seat"])
    fox = fox._replace(tails=(*fox.tails, card), count=fox.count + TAIL_VALUE[card])
    ascending = fox.card if fox.count == NINE else state.ascending
    return _finish(state, foxes=replace_fox(foxes, seat, index, fox), ascending=ascending)


def _befuddle_aimed(state: State, data: Any, private: Any) -> State:
    state = state._replace(target=data["fox"], left=min(2, state.pile), phase=BEFUDDLE)
    return _befuddle_goes_on(state)


def _counter_befuddled(state: State, data: Any, private: Any) -> State:
    seat, index, fox = locate(state, data["fox"])
    fox = fox._replace(spent=fox.spent | 1 << data["slot"])
    state = state._replace(foxes=replace_fox(state.foxes, seat, index, fox), pile=state.pile - 1, left=state.left - 1)
    return _befuddle_goes_on(state)


def _befuddle_goes_on(state: State) -> State:
    _, _, fox = locate(state, state.target)
    if state.left > 0 and fox.spent != (1 << len(fox.slots)) - 1:
        return state
    return _finish(state)


def _study_heisted(state: State, data: Any, private: Any) -> State:
    card = data["card"]
    seat, index, victim = locate(state, data["victim"])
    victim, returned = remove_study(victim, card)
    foxes = replace_fox(state.foxes, seat, index, victim)
    seat, index, fox = locate(state, data["fox"], data["seat"])
    fox = fox._replace(slots=fox.slots + SLOTS[card], studies=(*fox.studies, card))
    return _finish(state, foxes=replace_fox(foxes, seat, index, fox), pile=state.pile + returned)


def _study_hexed(state: State, data: Any, private: Any) -> State:
    card = data["card"]
    seat, index, fox = locate(state, data["fox"])
    fox, returned = remove_study(fox, card)
    return _finish(
        state,
        foxes=replace_fox(state.foxes, seat, index, fox),
        pile=state.pile + returned,
        village=(*state.village, card),
    )


def _pickpocket_aimed(state: State, data: Any, private: Any) -> State:
    return state._replace(victim=data["target"], phase=PICKPOCKET)


def _card_pickpocketed(state: State, data: Any, private: Any) -> State:
    seat, victim = data["seat"], data["target"]
    trick = private["trick"] if private is not None else None
    hands = put(state.hands, victim, drop_trick(state.hands[victim], trick))
    hands = put(hands, seat, sort_hand((*hands[seat], trick)))
    return _finish(state, hands=hands)


def _trickery_reshuffled(state: State, data: Any, private: Any) -> State:
    return state._replace(trickery=_deck_order(data, private), discard=())


# --- ascension, the win, the cap ------------------------------------------------------------


def _fox_ascended(state: State, data: Any, private: Any) -> State:
    """Rulebook "Fox Ascension" steps 1-5, in order."""
    seat, index, fox = locate(state, data["fox"], data["seat"])
    order = tuple(private["order"]) if private is not None else ascension_cards(fox)
    foxes = state.foxes[seat][:index] + state.foxes[seat][index + 1 :]
    starting = state.starting
    if KIND[fox.card] == STARTING_FOX:
        starting = (*starting, fox.card)
    if starting:  # step 5; NT-11: an empty Starting Fox Deck gives no new fox
        foxes = (*foxes, new_fox(data["new_fox"]))
        starting = starting[1:]
    ascended = state.ascended[seat] + 1
    has_card = state.stack > 0  # NT-11: with the stack empty the fox still counts as ascended
    return _finish(
        state,
        foxes=put(state.foxes, seat, foxes),
        pile=state.pile + fox.spent.bit_count(),
        starting=starting,
        wilds=state.wilds + order,
        ascended=put(state.ascended, seat, ascended),
        ascended_cards=put(state.ascended_cards, seat, state.ascended_cards[seat] + has_card),
        stack=state.stack - has_card,
        ascending="",
        winner=seat if ascended >= state.goal else state.winner,
    )


def _game_won(state: State, data: Any, private: Any) -> State:
    return state._replace(winner=data["seat"], phase=OVER)


def _move_cap_reached(state: State, data: Any, private: Any) -> State:
    return state._replace(phase=OVER, capped=True)


# --- the flow of a turn ---------------------------------------------------------------------


def _gain_tail(state: State, fox_card: str, card: str, slots: list[int], hint: int) -> State:
    seat, index, fox = locate(state, fox_card, hint)  # ``hint``: the seat giving the tail, the fox's own
    fox = fox._replace(spent=fox.spent | slot_mask(slots), tails=(*fox.tails, card), count=fox.count + TAIL_VALUE[card])
    # rulebook "Fox Ascension": exactly nine tails ascends at once
    ascending = fox.card if fox.count == NINE else state.ascending
    return _finish(
        state, foxes=replace_fox(state.foxes, seat, index, fox), pile=state.pile - len(slots), held="", paying="",
        chosen="", ascending=ascending,
    )  # fmt: skip


def _perform(state: State, fox_card: str, slots: list[int]) -> State:
    seat, index, fox = locate(state, fox_card, state.trick_seat)
    fox = _NEW(Fox, (fox.card, fox.slots, fox.spent | slot_mask(slots), fox.studies, fox.tails, fox.count))
    values = [*state]
    values[_FOXES] = replace_fox(state.foxes, seat, index, fox)
    values[_PILE], values[_TRICK_FOX], values[_PAYING], values[_CHOSEN] = state.pile - len(slots), fox_card, "", ""
    asker = cancel_asker(state, state.trick_seat)  # reads the hands and the trick's player only
    if asker < 0:
        return _begin_resolution(values)
    values[_PHASE], values[_DECIDER] = CANCEL, asker
    return _NEW(State, values)


def _begin_resolution(values: list[Any]) -> State:
    """The cancel window closed with no cancel: the trick's player resolves it (the state's fields are ``values``)."""
    trick = values[_TRICK]
    values[_DECIDER] = values[_TRICK_SEAT]
    if trick in CHOSEN:
        values[_PHASE], values[_SOURCE] = CHOOSE, trick
    elif trick in TARGETED:
        values[_PHASE] = TARGET
    else:  # RESOLVED_AT_ONCE: its effect's events follow at once
        values[_PHASE] = RESOLVING
    return _NEW(State, values)


def _finish(state: State, **changes: Any) -> State:
    """The current action or trick is done: pending draws and ascensions first, then what follows.

    ``changes`` (the event's own) are made first, in the same copy: one copy of the state in all.
    """
    return _settle(_changed(state, changes))


def _settle(values: list[Any]) -> State:
    """``_finish`` on the list of a state's fields ``values``."""
    if values[_WINNER] >= 0:
        values[_PHASE] = OVER
        return _NEW(State, values)
    if values[_OWED]:
        if values[_DISCARD] and not values[_TRICKERY]:  # NT-8: refill from the discard pile
            values[_PHASE] = RESHUFFLE
            return _NEW(State, values)
        values[_OWED] = 0  # NT-12: nothing left to draw
    if values[_ASCENDING]:
        values[_PHASE] = ASCEND
        return _NEW(State, values)
    if values[_STAGE] == STAGE_ACTION:  # "Done": the trick window opens (NT-7)
        active = values[_ACTIVE]
        asker = next_holder(values[_SEATS], values[_HANDS], active, active)  # window_asker
        if asker >= 0:
            values[_STAGE], values[_PHASE], values[_DECIDER] = STAGE_WINDOW, WINDOW, asker
            return _NEW(State, values)
        return _next_turn(values)
    # STAGE_TRICK: the resolved trick goes to the discard pile, and the turn is over
    values[_DISCARD] = (*values[_DISCARD], values[_TRICK])
    return _next_turn(values)


def _end_turn(state: State, **changes: Any) -> State:
    """The turn is over: the next seat's turn (or the cap), with the event's ``changes`` made too."""
    return _next_turn(_changed(state, changes))


def _changed(state: State, changes: dict[str, Any]) -> list[Any]:
    """The list of ``state``'s fields with ``changes`` (by field name) made, for ``_settle`` or ``_next_turn``."""
    values = [*state]
    for name, value in changes.items():
        values[_INDEX[name]] = value
    return values


def _next_turn(values: list[Any]) -> State:
    """The state whose fields are ``values`` at the end of a turn: the next seat's turn, or the cap."""
    values[TURN_FIELDS:] = TURN_START  # where the turn stands, afresh
    turns = values[_TURNS] = values[_TURNS] + 1
    if turns >= MOVE_CAP:  # NT-9, ALL-4: the same step records the cap (engines/nine_tails/engine.py _close)
        values[_PHASE], values[_DECIDER] = CAP, -1
    else:
        seat = (values[_ACTIVE] + 1) % values[_SEATS]
        values[_ACTIVE] = values[_DECIDER] = seat
        values[_PHASE] = ACTION
    return _NEW(State, values)


def _drawn(state: State, seat: int, count: int, private: Any) -> tuple[tuple, tuple]:
    """The Trickery Deck and the hands after ``seat`` draws ``count`` cards (unknown ones without ``private``)."""
    cards = tuple(private["cards"]) if private is not None else state.trickery[:count]
    if not cards:  # an empty deck (NT-8): the hands stay as they are, each sorted already
        return state.trickery[count:], state.hands
    return state.trickery[count:], put(state.hands, seat, sort_hand(state.hands[seat] + cards))


_MUTATORS = {
    "table_laid": _table_laid,
    "starting_foxes_shuffled": _starting_foxes_shuffled,
    "starting_fox_dealt": _starting_fox_dealt,
    "wilds_shuffled": _wilds_shuffled,
    "trickery_shuffled": _trickery_shuffled,
    "trickery_dealt": _trickery_dealt,
    "wilds_revealed": _wilds_revealed,
    "sneaked": _sneaked,
    "rested": _rested,
    "card_taken": _card_taken,
    "nothing_taken": _nothing_taken,
    "study_tucked": _study_tucked,
    "tail_gained": _tail_gained,
    "fox_chosen": _fox_chosen,
    "cost_part_chosen": _cost_part_chosen,
    "trickery_discarded": _trickery_discarded,
    "discards_done": _resolving,
    "trickery_drawn": _trickery_drawn,
    "trick_declined": _trick_declined,
    "trick_revealed": _trick_revealed,
    "trick_wasted": _trick_wasted,
    "trick_performed": _trick_performed,
    "trick_cancelled": _trick_cancelled,
    "cancel_declined": _cancel_declined,
    "counters_returned": _counters_returned,
    "insight_gained": _resolving,
    "windfall_revealed": _windfall_revealed,
    "windfall_missed": _no_effect,
    "trick_fizzled": _no_effect,
    "tail_swiped": _tail_swiped,
    "befuddle_aimed": _befuddle_aimed,
    "counter_befuddled": _counter_befuddled,
    "befuddle_done": _no_effect,
    "study_heisted": _study_heisted,
    "study_hexed": _study_hexed,
    "pickpocket_aimed": _pickpocket_aimed,
    "card_pickpocketed": _card_pickpocketed,
    "trickery_reshuffled": _trickery_reshuffled,
    "fox_ascended": _fox_ascended,
    "game_won": _game_won,
    "move_cap_reached": _move_cap_reached,
}
EVENT_TYPES = frozenset(_MUTATORS)
