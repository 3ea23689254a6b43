"""Tails on Fire: opossums steal fire from each other's stacks (2-6 seats).

Every seat owns opossums 1-9 and a trickster (+1). One opossum sits on the seat's
bonfire for the whole game. Each round every seat secretly chooses up to three
opossums; then the Hunt: the seats (and, at 2-3 seats, the scripted Rogue) take turns
offering the rising starting number, then playing exactly one higher, until a seat's
card is on top when its turn comes round again. That seat wins the Iguana pile's top
fire card and steals every other stack showing its number. When the Iguana pile is
empty, seats rank by flames. docs/games/tails-on-fire.md restates the rules as built,
rulings TOF-1..TOF-9 and ALL-1..ALL-6, and the new rulings TOF-10 onwards.

This module is the engine itself: the seat to act, its legal actions, the events a
decision causes (with their folds worked out inline), chance steps and the ranking. Card
data and phases are in cards.py, the state records in state.py; what happens without a
decision (the Rogue's turns, wins, the end of a round) and the sentences of refused actions
in rules.py, the fold of every event in fold.py, the views in view.py, determinization in
determinize.py (all in engines/tails_on_fire/).
"""



from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engines.base import (
    CHANCE,
    NO_LINK,
    TERMINAL,
    Config,
    ConfigError,
    Engine,
    Event,
    IllegalAction,
    competition_ranks,
    determinize,
)
from engines.tails_on_fire.cards import (
    ALL_OPOSSUMS,
    ANNOUNCE,
    BONFIRES,
    CHOOSE,
    CHOOSE_ACTION,
    CHOOSE_LEGAL,
    FIRE_CARDS,
    FOLLOW,
    HOME,
    HOME_LEGAL,
    IGUANA,
    MASK_OF,
    MAX_SEATS,
    MOVE_CAP,
    NEED_PICKS,
    NUMBERS,
    OVER,
    PASSED_EVENTS,
    PICK_MOVES,
    PLAY_ACTION,
    PLAY_MOVES,
    PLAYED_EVENTS,
    ROGUE,
    SEAT_BITS,
    SHUFFLE,
    START,
    START_LEGAL,
    TRICKSTER,
)
from engines.tails_on_fire.determinize import Sighting
from engines.tails_on_fire.fold import FOLD
from engines.tails_on_fire.rules import chained_follow_up, check_pick, common_follow_up, first_picker, refuse_play
from engines.tails_on_fire.state import LEADER, ORDER, State, _new, flames, unknown
from engines.tails_on_fire.view import view

# --- the engine ---------------------------------------------------------------------------


class TailsOnFire(Engine):
    """The Tails on Fire engine (engines.base.Engine)."""

    name = "tails-on-fire"
    version = 1
    min_seats = 2
    max_seats = MAX_SEATS
    default_seats = 4
    move_cap = MOVE_CAP

    def __init__(self) -> None:
        # decide() works out the states its events lead to, and apply() hands them back instead of
        # folding the same events again: ``_next`` is a link (state, event, state after, next link),
        # the first of a chain through the decision's events. A pure cache: a link serves only the
        # very state and event objects it came from, and whatever it returns is their fold.
        self._next: tuple[Any, Any, Any, Any] = NO_LINK

    def configure(self, seats: int, options: Mapping[str, Any] | None = None) -> Config:
        if type(seats) is not int or not self.min_seats <= seats <= self.max_seats:
            raise ConfigError(f"tails-on-fire takes 2-6 seats, not {seats!r}")
        options = dict(options or {})
        unknown_options = sorted(set(options) - {"rogue"})
        if unknown_options:
            raise ConfigError(f"tails-on-fire has one option, 'rogue'; unknown: {unknown_options}")
        rogue = options.get("rogue", seats <= 3)
        if type(rogue) is not bool:
            raise ConfigError(f"the 'rogue' option is true or false, not {rogue!r}")
        if rogue and seats > 3:
            raise ConfigError(f"the Rogue plays only in games of 2-3 seats (TOF-8), not {seats}")
        return Config(seats, {"rogue": rogue})

    def start(self, config: Config) -> list[Event]:
        return [Event("table_laid", {"seats": config.seats, "rogue": bool(config.options.get("rogue"))})]

    def apply(self, state: Any, event: Event) -> State:
        link = self._next
        if link[1] is event and link[0] is state:
            self._next = link[3]
            return link[2]
        return FOLD[event.type](state, event)

    def actor(self, state: State) -> int:
        phase = state[3]
        if phase == CHOOSE:  # the most frequent decision first
            return state[8]
        if START <= phase <= HOME:
            return state[9]
        return CHANCE if phase <= SHUFFLE else TERMINAL

    def legal_actions(self, state: State) -> Sequence[str]:
        phase = state[3]
        if phase == CHOOSE:
            shift = SEAT_BITS * state[8]
            free = (state[4] & ~state[6]) >> shift & ALL_OPOSSUMS  # in hand and not chosen yet
            if not free and unknown(state[6] >> shift & ALL_OPOSSUMS):
                free = state[4] >> shift & ALL_OPOSSUMS  # after a redacted pick any opossum in hand may be next
            return CHOOSE_LEGAL[free]
        if phase == HOME:
            # The seat's chosen cards still in hand (all it holds, if its choice is unknown).
            hand = (state[6] & state[4]) >> SEAT_BITS * state[9] & ALL_OPOSSUMS
            owner, card, number = state[5][-1]
            if card == TRICKSTER and owner != ROGUE:
                hand &= ~1  # TOF-5: a trickster never goes on another seat's trickster
            return HOME_LEGAL[number][hand]
        if phase == START:
            number = state[2]
            return START_LEGAL[number][(state[6] & state[4]) >> SEAT_BITS * state[9] + number & 1]
        return []

    def decide(self, state: State, action: str) -> list[Event]:
        # The fields as locals: unpacking a NamedTuple once costs less than indexing it field by field.
        table, offers, number, phase, held, discard, chosen, left, picker, turn, turns = state
        turns += 1
        if phase == CHOOSE:
            try:
                bit, event = PICK_MOVES[picker][action]
            except (KeyError, TypeError):
                bit = 0
            if not held & bit or chosen & bit:
                # Refused, unless the seat's picks are unknown (TOF-18) and it holds the card.
                check_pick(state, picker, action)
            # As _opossum_chosen folds it: one more pick; when the seat has picked min(3, choosable),
            # the next seat in seat order picks, or (none left) the Hunt starts.
            shift = SEAT_BITS * picker
            left += 1 << shift
            chosen |= bit
            if left >> shift & ALL_OPOSSUMS == NEED_PICKS[held >> shift & ALL_OPOSSUMS]:
                picker = first_picker(held, table[0], picker)
            quiet = picker >= 0
        elif START <= phase <= HOME:
            if action == "pass":  # as _after_pass
                event = PASSED_EVENTS[turn]
                turn = table[ORDER][turn]
                if phase == START:
                    if turn == table[LEADER]:
                        turn = ANNOUNCE  # TOF-5: round to the first seat again: the starting number rises first
                    quiet = left & MASK_OF[turn]
                else:
                    quiet = left & MASK_OF[turn] and discard[-1][0] != turn
            else:  # a card, as _opossum_played folds it
                seat = turn
                try:
                    bit, card = PLAY_MOVES[seat][action]
                except (KeyError, TypeError):
                    bit = card = 0
                if phase == START:
                    shown = number  # the starting number (never the trickster, TOF-5)
                    playable = card == number
                else:
                    # One higher than the top card; a trickster takes that number too, but never
                    # goes on another seat's trickster (TOF-5).
                    owner, top, below = discard[-1]
                    shown = FOLLOW[below]
                    playable = card == shown or (card == TRICKSTER and (top != TRICKSTER or owner == ROGUE))
                if not (playable and chosen & held & bit):  # a chosen card it holds, and one that may go
                    refuse_play(state, seat, action)
                event = PLAYED_EVENTS[seat][card][shown]
                held &= ~bit
                chosen &= ~bit
                left -= 1 << SEAT_BITS * seat
                if not left & MASK_OF[seat]:
                    chosen &= ~MASK_OF[seat]  # none left: an unknown (redacted) choice is known empty too
                discard += ((seat, card, shown),)
                phase = HOME
                turn = table[ORDER][seat]
                quiet = left & MASK_OF[turn]
        elif phase == OVER:
            raise IllegalAction(f"the game is over: no seat may {action!r}")
        else:
            raise IllegalAction(f"no seat may act now ({action!r}): a shuffle (chance step) comes first")
        if turns >= MOVE_CAP:
            # ALL-4, TOF-9: the game stops at once; a pick or Hunt action never changes flames.
            return [event, Event("move_cap_reached", {"turns": MOVE_CAP, "flames": flames(state)})]
        after = _new(State, (table, offers, number, phase, held, discard, chosen, left, picker, turn, turns))
        # Quiet: a seat picks next, or the next actor is a seat holding chosen opossums and not the
        # top card, so nothing happens before its decision (see rules.py for what else may).
        if quiet:
            self._next = (state, event, after, NO_LINK)
            return [event]
        events = common_follow_up(event, after)
        if events is not None:
            self._next = (state, event, after, NO_LINK)
            return events
        # Anything rarer: play the automatic steps out one by one, keeping the states they lead to.
        events, self._next = chained_follow_up(FOLD, state, event, after, flames)
        return events

    def chance(self, state: State, rng: Any) -> list[Event]:
        phase = state.phase
        if phase == BONFIRES:
            # TOF-3: every seat's bonfire opossum is a different random 1-9.
            return [Event("bonfires_lit", {"opossums": rng.sample(NUMBERS, state.table.seats)})]
        if phase == IGUANA:
            order = rng.shuffled(FIRE_CARDS)
            return [Event("iguana_shuffled", {"top": order[0], "size": len(order)}, {"order": order}, ())]
        if phase == SHUFFLE:
            # TOF-8: all nine rogue cards are shuffled into a new rogue deck every round.
            order = rng.shuffled(NUMBERS)
            return [Event("rogue_shuffled", {"size": len(order)}, {"order": order}, ())]
        raise IllegalAction("no chance step is pending")

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return view(state, seat)

    def ranking(self, state: State) -> list[int]:
        return competition_ranks(flames(state))

    def determinizer(self, seat: int) -> Sighting:
        """What ``seat`` has seen, and full tables drawn from it (engines/tails_on_fire/determinize.py)."""
        return Sighting(seat)

    def determinize(self, events_for_seat: Sequence[Event], seat: int, rng: Any) -> State:
        return determinize(self, events_for_seat, seat, rng)

    def action_of(self, event: Event) -> str | None:
        kind = event.type
        if kind == "opossum_played":
            return PLAY_ACTION[event.data["card"]]
        if kind == "passed":
            return "pass"
        if kind == "opossum_chosen" and event.private is not None:
            return CHOOSE_ACTION[event.private["card"]]
        return None


ENGINE = TailsOnFire()
