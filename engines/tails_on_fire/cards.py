"""Tails on Fire: phases, card data, action spellings and the tables built from them once.

Everything the other modules of the game share, and nothing that acts: this module imports no
sibling. Cards are small ints: 0 is the trickster, 1-9 the numbered opossums (and fire cards).
A seat's opossums in one place are a 10-bit mask (bit c = card c); what changes at every
decision (cards in hand, chosen cards, how many chosen cards are left) is kept for all seats in
one int, 10 bits per seat, so a decision's fold is a few int operations.
"""

# ruff: noqa: RUF005 -- the hot folds build tuples by concatenation, faster here than unpacking

from __future__ import annotations

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
