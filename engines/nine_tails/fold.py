"""Nine Tails: the fold (``apply``) that builds the table state from events.

One small mutator per event type. Besides moving cards and counters, the fold keeps the
flow of a turn (turn.py): which phase the table is in and which seat decides. Every step
that follows from the rules alone (the trick window opening after "Done", the next seat
being asked, the next turn starting) is worked out there, so a log holds only the facts
(docs/games/nine-tails.md lists the events).
"""

from __future__ import annotations

from typing import Any

from engines.base import NO_LINK, EngineError, chain_of
from engines.nine_tails.cards import (
    ASCENDED_FOX_CARDS,
    COUNTERS,
    KIND,
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
    BEFUDDLE,
    CHOOSE,
    DISCARD,
    OVER,
    PAY,
    PERFORM,
    PICKPOCKET,
    PLACE,
    RESOLVING,
    SETUP,
    STAGE_ACTION,
    STAGE_TRICK,
    State,
    ascension_cards,
    cancel_asker,
    drop_trick,
    locate,
    new_fox,
    put,
    remove_study,
    replace_fox,
    sort_hand,
    window_asker,
    without,
)
from engines.nine_tails.turn import (
    AT_DECIDER,
    AT_DISCARD,
    AT_DISCARDED,
    AT_FOXES,
    AT_HANDS,
    AT_OWED,
    AT_PHASE,
    AT_PILE,
    AT_STAGE,
    AT_TRICK,
    AT_TRICK_SEAT,
    AT_TRICKERY,
    NEW,
    begin_resolution,
    drawn,
    end_turn,
    finish,
    gain_tail,
    next_turn,
    perform,
    settle,
)

# Some decisions fold their own events to see where they lead (does a performed trick's cancel
# window close at once?); ``fold_ahead`` keeps those states as a chain (engines.base.chain_of) for
# ``apply`` to hand back when the caller then folds the very same events, as in Tails on Fire.
_ahead: tuple[Any, Any, Any, Any] = NO_LINK

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
    trickery, hands = drawn(state, seat, data["count"], private)
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
    values[AT_FOXES], values[AT_PILE] = put(state.foxes, seat, foxes), state.pile + returned
    values[AT_PHASE] = RESOLVING
    return NEW(State, values)


def _card_taken(state: State, data: Any, private: Any) -> State:
    seat, card = data["seat"], data["card"]
    if state.source in ("venture", "windfall"):  # the rest of the revealed cards go to the Village
        taken = {"revealed": (), "village": state.village + without(state.revealed, card)}
    else:
        taken = {"village": without(state.village, card)}
    if KIND[card] == WILD_FOX:
        return finish(state, **taken, foxes=put(state.foxes, seat, (*state.foxes[seat], new_fox(card))))
    return state._replace(**taken, held=card, phase=PLACE)


def _nothing_taken(state: State, data: Any, private: Any) -> State:
    village = state.village + state.revealed
    if state.source == "venture":  # rulebook VENTURE 3: the seat may now discard and draw
        return state._replace(village=village, revealed=(), phase=DISCARD, discarded=0)
    return finish(state, village=village, revealed=())


def _study_tucked(state: State, data: Any, private: Any) -> State:
    seat, index, fox = locate(state, data["fox"], data["seat"])
    card = data["card"]
    fox = fox._replace(slots=fox.slots + SLOTS[card], studies=(*fox.studies, card))
    return finish(state, foxes=replace_fox(state.foxes, seat, index, fox), held="")


def _tail_gained(state: State, data: Any, private: Any) -> State:
    return gain_tail(state, data["fox"], data["card"], data["slots"], data["seat"])


def _fox_chosen(state: State, data: Any, private: Any) -> State:
    return state._replace(paying=data["fox"], chosen="", phase=PAY)


def _cost_part_chosen(state: State, data: Any, private: Any) -> State:
    state = state._replace(chosen=state.chosen + data["symbol"])
    if "slots" not in data:
        return state
    if state.held:
        return gain_tail(state, state.paying, state.held, data["slots"], state.decider)
    return perform(state, state.paying, data["slots"])


def _trickery_discarded(state: State, data: Any, private: Any) -> State:
    seat, trick = data["seat"], data["trick"]
    values = [*state]
    values[AT_HANDS] = put(state.hands, seat, drop_trick(state.hands[seat], trick))
    values[AT_DISCARD] = (*state.discard, trick)
    values[AT_DISCARDED] = state.discarded + 1
    return NEW(State, values)


def _resolving(state: State, data: Any, private: Any) -> State:
    return state._replace(phase=RESOLVING)


def _trickery_drawn(state: State, data: Any, private: Any) -> State:
    seat = data["seat"]
    values = [*state]
    values[AT_TRICKERY], values[AT_HANDS] = drawn(state, seat, data["count"], private)
    values[AT_OWED], values[AT_DECIDER] = data["owed"], seat
    return settle(values)


# --- the trick window and the cancel window (NT-7) -----------------------------------------


def _trick_declined(state: State, data: Any, private: Any) -> State:
    asker = window_asker(state, data["seat"])
    values = [*state]
    if asker < 0:
        return next_turn(values)
    values[AT_DECIDER] = asker
    return NEW(State, values)


def _trick_revealed(state: State, data: Any, private: Any) -> State:
    seat, trick = data["seat"], data["trick"]
    values = [*state]
    values[AT_HANDS] = put(state.hands, seat, drop_trick(state.hands[seat], trick))
    values[AT_TRICK], values[AT_TRICK_SEAT], values[AT_DECIDER] = trick, seat, seat
    values[AT_STAGE], values[AT_PHASE] = STAGE_TRICK, PERFORM
    return NEW(State, values)


def _trick_wasted(state: State, data: Any, private: Any) -> State:
    return end_turn(state, discard=(*state.discard, state.trick))  # the turn's end clears ``trick``


def _trick_performed(state: State, data: Any, private: Any) -> State:
    return perform(state, data["fox"], data["slots"])


def _trick_cancelled(state: State, data: Any, private: Any) -> State:
    seat, trick = data["seat"], data["trick"]
    return end_turn(
        state, hands=put(state.hands, seat, drop_trick(state.hands[seat], trick)),
        discard=(*state.discard, state.trick, trick),
    )  # fmt: skip


def _cancel_declined(state: State, data: Any, private: Any) -> State:
    asker = cancel_asker(state, data["seat"])
    values = [*state]
    if asker < 0:
        return begin_resolution(values)
    values[AT_DECIDER] = asker
    return NEW(State, values)


# --- trick effects (NT-6) ---------------------------------------------------------------


def _counters_returned(state: State, data: Any, private: Any) -> State:
    seat, index, fox = locate(state, data["fox"], data["seat"])
    foxes = replace_fox(state.foxes, seat, index, fox._replace(spent=0))
    return finish(state, pile=state.pile + fox.spent.bit_count(), foxes=foxes)


def _windfall_revealed(state: State, data: Any, private: Any) -> State:
    return state._replace(wilds=state.wilds[1:], revealed=(data["card"],), source="windfall", phase=CHOOSE)


def _no_effect(state: State, data: Any, private: Any) -> State:
    return finish(state)


def _tail_swiped(state: State, data: Any, private: Any) -> State:
    card = data["card"]
    seat, index, victim = locate(state, data["victim"])
    victim = victim._replace(tails=victim.tails[:-1], count=victim.count - TAIL_VALUE[card])
    foxes = replace_fox(state.foxes, seat, index, victim)
    seat, index, fox = locate(state, data["fox"], data["seat"])
    fox = fox._replace(tails=(*fox.tails, card), count=fox.count + TAIL_VALUE[card])
    ascending = fox.card if fox.count == NINE else state.ascending
    return finish(state, foxes=replace_fox(foxes, seat, index, fox), ascending=ascending)


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
    return finish(state)


def _study_heisted(state: State, data: Any, private: Any) -> State:
    card = data["card"]
    seat, index, victim = locate(state, data["victim"])
    victim, returned = remove_study(victim, card)
    foxes = replace_fox(state.foxes, seat, index, victim)
    seat, index, fox = locate(state, data["fox"], data["seat"])
    fox = fox._replace(slots=fox.slots + SLOTS[card], studies=(*fox.studies, card))
    return finish(state, foxes=replace_fox(foxes, seat, index, fox), pile=state.pile + returned)


def _study_hexed(state: State, data: Any, private: Any) -> State:
    card = data["card"]
    seat, index, fox = locate(state, data["fox"])
    fox, returned = remove_study(fox, card)
    return finish(
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
    return finish(state, hands=hands)


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
    return finish(
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
