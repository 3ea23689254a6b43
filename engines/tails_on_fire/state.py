"""Tails on Fire: card data, phases, action spellings and the state records.

Everything the other modules of the game share, and nothing that acts: this module imports
no sibling, so the hunt (engines/tails_on_fire/hunt.py), the fold (fold.py), the refusals
(refusals.py), the views (view.py) and the engine (engine.py) all import it and none of
them imports another in a circle.

Cards are small ints: 0 is the trickster, 1-9 the numbered opossums (and fire cards).
A seat's opossums in one place are a 10-bit mask (bit c = card c); what changes at every
decision (cards in hand, chosen cards, how many chosen cards are left) is kept for all
seats in one int, 10 bits per seat, so a decision's fold is a few int operations.
"""

# ruff: noqa: RUF005 -- the hot folds build tuples by concatenation, faster here than unpacking

from __future__ import annotations

from typing import NamedTuple

from engines.base import Event

# --- phases and pseudo-actors --------------------------------------------------------------

# Phases of play. BONFIRES, IGUANA and SHUFFLE wait for a chance step; ROUND_OVER lasts only
# between a round's last event and its "prepare" event, inside one decision's events.
BONFIRES, IGUANA, SHUFFLE, CHOOSE, START, HOME, ROUND_OVER, OVER = range(8)
PHASE_NAMES = ("setup", "setup", "shuffle", "choose", "hunt", "hunt", "round over", "over")

# Pseudo-actors of the Hunt: the Rogue's turn, and the first seat raising the starting number
# when its turn comes round again (TOF-5). Both are played out automatically.
ROGUE, ANNOUNCE = 6, 7

FOLLOW = (1, 2, 3, 4, 5, 6, 7, 8, 9, 1)  # FOLLOW[n]: the number one higher than n, 9 -> 1
STARTING_NUMBERS = 9  # a Hunt offers at most the nine numbers (TOF-6)

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
