"""Tails on Fire: the state records, and small readers of them.

Nothing here acts: this module imports only cards.py, so the rules (rules.py), the fold (fold.py),
the views (view.py) and the engine (engine.py) all import it and none of them imports another in
a circle.
"""



from __future__ import annotations

from typing import NamedTuple

from engines.tails_on_fire.cards import (
    ALL_OPOSSUMS,
    BONFIRE_FLAMES,
    FLAMES,
    PICKS,
    POPCOUNT,
    SEAT_BITS,
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
assert State._fields[:3] == ("table", "offers", "number")  # decide and rules.py unpack all fields
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
