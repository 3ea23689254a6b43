"""Nine Tails: help foxes grow nine tails and ascend (2-5 seats).

On its turn a seat VENTUREs (reveals up to three Wilds cards and takes at most one: a
wild fox to claim, a study to tuck under a fox, or a tail card a fox pays for with
exhaustion counters), SNEAKs (takes one card from the Village) or RESTs (clears its
foxes' counters and draws trickery cards). After each turn the other seats may play one
trick, which may itself be cancelled. A fox at exactly nine tails ascends; the first
seat with three ascended foxes (two in the fast game) wins. Rulings NT-1..NT-9 and
ALL-1..ALL-6, and this engine's own NT-10 onwards, are in docs/games/nine-tails.md.

The card list is data (engines/nine_tails/cards.py); the fold and the flow of a turn are
in engines/nine_tails/fold.py; the trick and cancel windows and the tricks' effects in
engines/nine_tails/tricks.py. This module holds the engine: the active seat's decisions,
the chance steps, views, ranking.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import engines.nine_tails.tricks as tricks
from engines.base import (
    CHANCE,
    TERMINAL,
    Config,
    ConfigError,
    Engine,
    EngineError,
    Event,
    IllegalAction,
    competition_ranks,
    determinize,
)
from engines.nine_tails.cards import (
    ANY,
    FAST_GOAL,
    GOAL,
    HAND_AT_START,
    KIND,
    MOVE_CAP,
    NINE,
    ORDERED_COST,
    REVEAL,
    STARTING_FOX,
    STUDY,
    TAIL_VALUE,
    TRICK_NAMES,
    WILD_FOX,
    WILDS_IDS,
)
from engines.nine_tails.determinize import Sighting
from engines.nine_tails.fold import apply, fold_ahead
from engines.nine_tails.state import (
    ACTION,
    ASCEND,
    BEFUDDLE,
    CANCEL,
    CAP,
    CHANCE_PHASES,
    CHOOSE,
    DISCARD,
    FOX_ACTION,
    OVER,
    PAY,
    PERFORM,
    PICKPOCKET,
    PLACE,
    RESHUFFLE,
    SETUP,
    TARGET,
    WINDOW,
    Fox,
    State,
    ascension_cards,
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


_LEGAL = {
    ACTION: _legal_action, CHOOSE: _legal_choose, PLACE: _legal_place, PAY: _legal_pay, DISCARD: _legal_discard,
    WINDOW: tricks.legal_window, PERFORM: tricks.legal_perform, CANCEL: tricks.legal_cancel,
    TARGET: tricks.legal_target, BEFUDDLE: tricks.legal_befuddle,
}  # fmt: skip
_DECIDE = {
    ACTION: _decide_action, CHOOSE: _decide_choose, PLACE: _decide_place, PAY: _decide_pay, DISCARD: _decide_discard,
    WINDOW: tricks.decide_window, PERFORM: tricks.decide_perform, CANCEL: tricks.decide_cancel,
    TARGET: tricks.decide_target, BEFUDDLE: tricks.decide_befuddle,
}  # fmt: skip

_ACTION_OF = {
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


class NineTails(Engine):
    """The Nine Tails engine (see engines.base.Engine)."""

    name = "nine-tails"
    version = 1
    min_seats = 2
    max_seats = 5
    default_seats = 3
    move_cap = MOVE_CAP  # turns, not decisions (NT-9)

    def configure(self, seats: int, options: Mapping[str, Any] | None = None) -> Config:
        if not isinstance(seats, int) or not self.min_seats <= seats <= self.max_seats:
            raise ConfigError(f"nine-tails takes 2-5 seats, not {seats!r}")
        options = dict(options or {})
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise ConfigError(f"nine-tails has no option {', '.join(unknown)} (options: fast)")
        if "fast" in options and not isinstance(options["fast"], bool):
            raise ConfigError(f"nine-tails option fast must be true or false, not {options['fast']!r}")
        return Config(seats, options)

    def start(self, config: Config) -> list[Event]:
        goal = FAST_GOAL if config.options.get("fast") else GOAL
        return [Event("table_laid", {"seats": config.seats, "goal": goal})]

    apply = staticmethod(apply)  # the fold step (engines/nine_tails/fold.py)

    def actor(self, state: State) -> int:
        phase = state.phase
        if phase in CHANCE_PHASES:
            return CHANCE
        if phase == OVER:
            return TERMINAL
        return state.decider

    def legal_actions(self, state: State) -> list[str]:
        legal = _LEGAL.get(state.phase)
        return legal(state, state.decider) if legal is not None else []

    def decide(self, state: State, action: str) -> list[Event]:
        decide = _DECIDE.get(state.phase)
        if decide is None:
            raise IllegalAction(f"no seat decides now: the game is at its {state.phase} step")
        if not isinstance(action, str):
            raise IllegalAction(f"an action is a string such as 'venture', not {action!r}")
        events = decide(state, state.decider, action)
        return events if state.turns < LAST_TURN else _close(state, events)

    def chance(self, state: State, rng: Any) -> list[Event]:
        events = self._chance(state, rng)
        return events if state.turns < LAST_TURN else _close(state, events)

    def _chance(self, state: State, rng: Any) -> list[Event]:
        phase = state.phase
        if phase == SETUP:
            return self._setup(state, rng)
        if phase == RESHUFFLE:  # NT-8: the discard pile becomes the Trickery Deck
            order = rng.shuffled(state.discard)
            seat, count = state.decider, min(state.owed, len(order))
            return [
                Event("trickery_reshuffled", {"size": len(order)}, {"order": order}, ()),
                Event("trickery_drawn", {"seat": seat, "count": count, "owed": 0}, {"cards": order[:count]}, (seat,)),
            ]
        if phase == ASCEND:
            return self._ascend(state, rng)
        if phase == PICKPOCKET:  # NT-6 7: a blind draw from the victim's hand
            seat, victim = state.trick_seat, state.victim
            trick = rng.choice(state.hands[victim])
            data = {"seat": seat, "target": victim}
            return [Event("card_pickpocketed", data, {"trick": trick}, tuple(sorted((seat, victim))))]
        if phase == CAP:  # never left pending by _close; kept so that no state is ever stuck
            return [_cap_event(state)]
        raise EngineError(f"nine-tails has no chance step pending (phase {state.phase})")

    def _setup(self, state: State, rng: Any) -> list[Event]:
        """Rulebook "Setup" 3-5 (ALL-1: seat 0 is the most mischievous and starts)."""
        starting = rng.shuffled(state.starting)
        events = [Event("starting_foxes_shuffled", {"size": len(starting)}, {"order": starting}, ())]
        events += [Event("starting_fox_dealt", {"seat": seat, "fox": starting[seat]}) for seat in range(state.seats)]
        wilds = rng.shuffled(state.wilds)
        events.append(Event("wilds_shuffled", {"size": len(wilds)}, {"order": wilds}, ()))
        trickery = rng.shuffled(state.trickery)
        events.append(Event("trickery_shuffled", {"size": len(trickery)}, {"order": trickery}, ()))
        for seat in range(state.seats):
            cards = trickery[seat * HAND_AT_START : (seat + 1) * HAND_AT_START]
            events.append(Event("trickery_dealt", {"seat": seat, "count": len(cards)}, {"cards": cards}, (seat,)))
        return events

    def _ascend(self, state: State, rng: Any) -> list[Event]:
        """Rulebook "Fox Ascension": the fox's cards are shuffled to the bottom of the Wilds Deck."""
        seat, _, fox = locate(state, state.ascending)
        order = rng.shuffled(ascension_cards(fox))
        starting = state.starting + ((fox.card,) if KIND[fox.card] == STARTING_FOX else ())
        count = state.ascended[seat] + 1
        data = {"seat": seat, "fox": fox.card, "new_fox": starting[0] if starting else "", "ascended": count}
        events = [Event("fox_ascended", data, {"order": order}, ())]
        if count >= state.goal:
            events.append(Event("game_won", {"seat": seat, "ascended": count}))
        return events

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        actor = self.actor(state)
        out: dict[str, Any] = {
            "seat": seat,
            "seats": state.seats,
            "goal": state.goal,
            "phase": state.phase,
            "active": state.active,
            "decider": actor if actor >= 0 else None,
            "turns": state.turns,
            "move_cap": MOVE_CAP,
            "foxes": [[_fox_view(fox) for fox in foxes] for foxes in state.foxes],
            "ascended": list(state.ascended),
            "ascended_cards": list(state.ascended_cards),
            "ascended_stack": state.stack,
            "pile": state.pile,
            "village": list(state.village),
            "revealed": list(state.revealed),
            "held": state.held or None,
            "source": state.source or None,
            "decks": {"starting": len(state.starting), "wilds": len(state.wilds), "trickery": len(state.trickery)},
            "discard": list(state.discard),
            "hand_sizes": [len(hand) for hand in state.hands],
            "trick": None,
            "paying": None,
            "befuddle": None,
            "winner": state.winner if state.winner >= 0 else None,
            "capped": state.capped,
        }
        if state.trick:
            out["trick"] = {"name": state.trick, "seat": state.trick_seat, "fox": state.trick_fox or None}
        if state.phase == PAY:
            cost = ORDERED_COST[state.held or state.trick]
            out["paying"] = {"fox": state.paying, "cost": cost, "chosen": state.chosen}
        if state.phase == BEFUDDLE:
            out["befuddle"] = {"fox": state.target, "left": state.left}
        if seat is not None:
            out["hand"] = list(state.hands[seat])
        return out

    def ranking(self, state: State) -> list[int]:
        """NT-9: ascended foxes, then the most tails on one fox, then shared."""
        most = [max((fox.count for fox in foxes), default=0) for foxes in state.foxes]
        return competition_ranks(list(zip(state.ascended, most, strict=True)))

    def determinizer(self, seat: int) -> Sighting:
        """What ``seat`` has seen, and full tables drawn from it (engines/nine_tails/determinize.py)."""
        return Sighting(seat)

    def determinize(self, events_for_seat: Sequence[Event], seat: int, rng: Any) -> State:
        return determinize(self, events_for_seat, seat, rng)

    def action_of(self, event: Event) -> str | None:
        action = _ACTION_OF.get(event.type)
        return action(event.data) if action is not None else None


LAST_TURN = MOVE_CAP - 1  # only a step of the last turn pays for ``_close``'s fold


def _close(state: State, events: list[Event]) -> list[Event]:
    """NT-9, ALL-4: the step that completes turn 3,000 ends the game at once, with an event saying so."""
    if state.turns < LAST_TURN:
        return events
    after = fold_ahead(state, events)
    return [*events, _cap_event(after)] if after.phase == CAP else events


def _cap_event(state: State) -> Event:
    return Event("move_cap_reached", {"turns": state.turns, "ascended": list(state.ascended)})


def _fox_view(fox: Fox) -> dict[str, Any]:
    return {
        "card": fox.card,
        "kind": KIND[fox.card],
        "slots": fox.slots,
        "exhausted": [bool(fox.spent >> i & 1) for i in range(len(fox.slots))],
        "studies": list(fox.studies),
        "tails": list(fox.tails),
        "tail_count": fox.count,
    }


ENGINE = NineTails()
