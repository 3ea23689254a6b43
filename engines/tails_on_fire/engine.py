"""Tails on Fire: opossums steal fire from each other's stacks (2-6 seats).

Every seat owns opossums 1-9 and a trickster (+1). One opossum sits on the seat's
bonfire for the whole game. Each round every seat secretly chooses up to three
opossums; then the Hunt: the seats (and, at 2-3 seats, the scripted Rogue) take turns
offering the rising starting number, then playing exactly one higher, until a seat's
card is on top when its turn comes round again. That seat wins the Iguana pile's top
fire card and steals every other stack showing its number. When the Iguana pile is
empty, seats rank by flames. docs/games/tails-on-fire.md restates the rules as built,
rulings TOF-1..TOF-9 and ALL-1..ALL-6, and the new rulings TOF-10 onwards.

Cards are small ints: 0 is the trickster, 1-9 the numbered opossums (and fire cards).
A seat's opossums in one place are a 10-bit mask (bit c = card c); what changes at every
decision (cards in hand, chosen cards, how many chosen cards are left) is kept for all
seats in one int, 10 bits per seat, so a decision's fold is a few int operations.
What happens without a decision (the Rogue's turns, wins, the end of a round) is in
engines/tails_on_fire/hunt.py, the fold of every event in engines/tails_on_fire/fold.py, the
views in engines/tails_on_fire/view.py, and the sentences of refused actions in
engines/tails_on_fire/refusals.py.
"""

# ruff: noqa: RUF005 -- the hot folds build tuples by concatenation, faster here than unpacking

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from engines.base import CHANCE, NO_LINK, TERMINAL, Config, ConfigError, Event, IllegalAction, competition_ranks
from engines.tails_on_fire.hunt import (
    ANNOUNCE,
    BONFIRES,
    CHOOSE,
    FOLLOW,
    HOME,
    IGUANA,
    OVER,
    ROGUE,
    SHUFFLE,
    START,
    chained_follow_up,
    common_follow_up,
    first_picker,
)

# --- card data and constants -------------------------------------------------------------

TRICKSTER = 0
NUMBERS = (1, 2, 3, 4, 5, 6, 7, 8, 9)  # the opossums 1-9 of a seat, and of the Rogue
FIRE_CARDS = NUMBERS
FLAMES = (0, 1, 1, 1, 2, 2, 2, 3, 3, 3)  # per fire card number (TOF-1)
BONFIRE_FLAMES = 1  # TOF-2
ALL_OPOSSUMS = (1 << 10) - 1  # bits 0 (trickster) to 9: one seat's whole set
PICKS = 3  # opossums chosen per round (TOF-4)
MOVE_CAP = 2000  # decisions by seats (TOF-9, ALL-4; docs/games/tails-on-fire.md defines a turn)
MAX_SEATS = 6
SEAT_BITS = 10  # a seat's mask in a packed int: bits SEAT_BITS * seat onwards

PACKED_ALL = tuple(sum(ALL_OPOSSUMS << SEAT_BITS * seat for seat in range(n)) for n in range(MAX_SEATS + 1))
POPCOUNT = tuple(bin(mask).count("1") for mask in range(1 << 10))
NEED_PICKS = tuple(min(PICKS, count) for count in POPCOUNT)  # min(3, choosable) per hand (TOF-4)
CARDS_OF = tuple(tuple(card for card in range(10) if mask >> card & 1) for mask in range(1 << 10))
CARD_NAME = ("trickster", *(str(n) for n in NUMBERS))

# Actions: "choose:N" / "choose:trickster" while choosing, "pass" / "play:N" / "trickster" in the Hunt.
CHOOSE_ACTION = tuple(f"choose:{name}" for name in CARD_NAME)
PLAY_ACTION = ("trickster", *(f"play:{n}" for n in NUMBERS))
PICK, PLAY, PASS = 0, 1, 2
ACTIONS: dict[str, tuple[int, int]] = {"pass": (PASS, -1)}
ACTIONS.update({action: (PICK, card) for card, action in enumerate(CHOOSE_ACTION)})
ACTIONS.update({action: (PLAY, card) for card, action in enumerate(PLAY_ACTION)})
CHOOSE_LEGAL = tuple(tuple(CHOOSE_ACTION[card] for card in CARDS_OF[mask]) for mask in range(1 << 10))
# START_LEGAL[number][holds it]; HOME_LEGAL[top card's number][chosen cards in hand]
START_LEGAL = tuple((("pass",), ("pass", PLAY_ACTION[n])) for n in range(10))
HOME_LEGAL = tuple(
    tuple(
        ("pass", *(PLAY_ACTION[card] for card in (number % 9 + 1, TRICKSTER) if mask >> card & 1))
        for mask in range(1 << 10)
    )
    for number in range(10)
)

# MASK_OF[actor]: the bits of a seat in a packed int; 0 for the pseudo-actors ROGUE and ANNOUNCE,
# so ``left & MASK_OF[turn]`` says at once whether the actor to come is a seat holding chosen opossums.
MASK_OF = tuple(ALL_OPOSSUMS << SEAT_BITS * seat for seat in range(MAX_SEATS)) + (0, 0)
assert len(MASK_OF) == ANNOUNCE + 1 and ROGUE == MAX_SEATS

# The decision events, built once: events are immutable records, so equal ones are shared.
CHOSEN_EVENTS = tuple(
    tuple(Event("opossum_chosen", {"seat": seat}, {"card": card}, (seat,)) for card in range(10))
    for seat in range(MAX_SEATS)
)
PASSED_EVENTS = tuple(Event("passed", {"seat": seat}) for seat in range(MAX_SEATS))
PLAYED_EVENTS = tuple(
    tuple(
        tuple(Event("opossum_played", {"seat": seat, "card": card, "number": number}) for number in range(10))
        for card in range(10)
    )
    for seat in range(MAX_SEATS)
)
# PICK_MOVES[seat][action]: what a pick action is for that seat, (its packed bit, its event); PLAY_MOVES[seat][action]
# likewise (its packed bit, its card) for the Hunt's card actions. One dict look-up checks the action's
# spelling and gives what the decision needs ("pass" is compared directly).
PICK_MOVES = tuple(
    {action: (1 << SEAT_BITS * seat + card, CHOSEN_EVENTS[seat][card]) for card, action in enumerate(CHOOSE_ACTION)}
    for seat in range(MAX_SEATS)
)
PLAY_MOVES = tuple(
    {action: (1 << SEAT_BITS * seat + card, card) for card, action in enumerate(PLAY_ACTION)}
    for seat in range(MAX_SEATS)
)


class Stack(NamedTuple):
    """A fire stack: its top opossum, the number it shows (a trickster's own, TOF-5), its fire cards."""

    card: int
    number: int
    fire: tuple[int, ...]


class Table(NamedTuple):
    """What changes at most once a round, or on the Rogue's turns."""

    seats: int
    rogue: bool
    round: int
    leader: int  # the seat that starts this round's Hunt (TOF-5)
    order: tuple[int, ...]  # order[actor]: the actor after it in this round (a row of NEXT)
    bonfire: tuple[int, ...]  # per seat, the opossum on its bonfire
    kept: int  # per seat (packed), the opossums on its bonfire and topping its fire stacks
    exhausted: int  # per seat (packed), its exhausted opossums
    stacks: tuple[tuple[Stack, ...], ...]  # per seat, its fire stacks (the bonfire apart)
    iguana: tuple[int, ...] | None  # Iguana pile top first; None when folded without its order
    iguana_top: int  # 0 when the pile is empty
    iguana_size: int
    rogue_deck: tuple[int, ...] | None  # top first; None until shuffled or when unknown
    rogue_deck_size: int
    rogue_reserve: tuple[int, ...]  # top last, face up
    boxed: tuple[int, ...]  # fire cards that left the game (stalemates, Rogue wins)


class State(NamedTuple):
    """A game of Tails on Fire: the table, and what changes from one decision to the next.

    ``held``, ``chosen`` and ``left`` hold 10 bits per seat (see seat_bits). A seat's chosen
    bits are all set (more than 3) when its picks were redacted: then any card it holds
    may be one of them.
    """

    table: Table
    offers: int  # how many starting numbers this Hunt has offered (TOF-6)
    number: int  # the starting number offered now (START) or played (HOME)
    phase: int
    held: int  # per seat, the opossums in hand (chosen and den alike)
    discard: tuple[tuple[int, int, int], ...]  # (owner, card, number), top last; owner ROGUE
    chosen: int  # per seat, the chosen opossums still in hand
    left: int  # per seat, how many chosen opossums it still holds (public)
    picker: int  # CHOOSE: the seat picking now, -1 when every seat has picked
    turn: int  # START/HOME: the seat to act (ROGUE/ANNOUNCE only inside one decision's events);
    # ROUND_OVER: the seat that starts the next round
    turns: int  # decisions taken (the move cap counts these)


_new = tuple.__new__  # _new(State, fields): a State from a tuple of all its fields, in order
LEADER, ORDER, KEPT, STACKS, BOXED = 3, 4, 6, 8, 15  # Table fields read by position on hot paths
assert State._fields[:3] == ("table", "offers", "number")  # decide and the hunt module unpack all fields
assert State._fields[3:] == ("phase", "held", "discard", "chosen", "left", "picker", "turn", "turns")
assert Table._fields[:6] == ("seats", "rogue", "round", "leader", "order", "bonfire")
assert Table._fields[6:12] == ("kept", "exhausted", "stacks", "iguana", "iguana_top", "iguana_size")
assert Table._fields[12:] == ("rogue_deck", "rogue_deck_size", "rogue_reserve", "boxed")


def seat_bits(packed: int, seat: int) -> int:
    """The 10-bit mask (or count) of ``seat`` in a packed per-seat int."""
    return packed >> SEAT_BITS * seat & ALL_OPOSSUMS


def unknown(chosen_bits: int) -> bool:
    """Whether a seat's chosen opossums are unknown (its picks reached this fold redacted)."""
    return POPCOUNT[chosen_bits] > PICKS


def flames(state: State) -> list[int]:
    """Each seat's flames: its bonfire plus the flames of every fire card in its stacks (TOF-9)."""
    return [
        BONFIRE_FLAMES + sum(FLAMES[fire] for stack in stacks for fire in stack.fire)
        for stacks in state.table.stacks
    ]


# --- the engine ---------------------------------------------------------------------------


class TailsOnFire:
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
        return tails_on_fire_fold.FOLD[event.type](state, event)

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
                from engines.tails_on_fire.refusals import check_pick

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
                    from engines.tails_on_fire.refusals import refuse_play

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
        # top card, so nothing happens before its decision (see the hunt module for what else may).
        if quiet:
            self._next = (state, event, after, NO_LINK)
            return [event]
        events = common_follow_up(event, after)
        if events is not None:
            self._next = (state, event, after, NO_LINK)
            return events
        # Anything rarer: play the automatic steps out one by one, keeping the states they lead to.
        events, self._next = chained_follow_up(tails_on_fire_fold.FOLD, state, event, after, flames)
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
        # Imported here: the view module reads this module's tables (and is not on the hot path).
        from engines.tails_on_fire.view import view

        return view(state, seat)

    def ranking(self, state: State) -> list[int]:
        return competition_ranks(flames(state))

    def action_of(self, event: Event) -> str | None:
        kind = event.type
        if kind == "opossum_played":
            return PLAY_ACTION[event.data["card"]]
        if kind == "passed":
            return "pass"
        if kind == "opossum_chosen" and event.private is not None:
            return CHOOSE_ACTION[event.private["card"]]
        return None


# The fold (engines/tails_on_fire/fold.py) reads this module's types and tables, so it is imported
# last, as a module: importing either module first works.
from engines.tails_on_fire import fold as tails_on_fire_fold  # noqa: E402

ENGINE = TailsOnFire()
