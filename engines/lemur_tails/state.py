"""Lemur Tails: the state record, its phases, and the two ways the fold builds states fast.

Everything here is data: the fold (fold.py), the rules (rules.py), the views (view.py) and the
determinizer (determinize.py) import it, and it imports no sibling.
"""

from __future__ import annotations

from typing import Any, NamedTuple

# Where the End card is.
END_BOXED, END_IN_DECK, END_DRAWN = 0, 1, 2

# Phases of the deciding seat's turn.
PLAY = "play"
TAKEN = "taken"  # a Sun lemur brought a card: place it now or keep it (LT-7)
SWAP = "swap"  # discarding 1-3 for the Sun lemur swap
PASS = "pass"  # discarding 0-3 after adding no tail card (LT-5)


class State(NamedTuple):
    deck: tuple[int, ...]
    """Card ids, top first; hidden from everyone (views show its size)."""
    hands: tuple[tuple[int, ...], tuple[int, ...]]
    """Each seat's hand, ids in ascending order."""
    market: tuple[int, ...]
    """The open market, ids in ascending order."""
    tails: tuple[tuple[int, ...], ...]
    """The four tails "0w", "0b", "1w", "1b": ids oldest first, the start card not included."""
    discard: tuple[int, ...]
    """The face-up discard pile, oldest first (LT-13)."""
    end_card: int
    """END_BOXED before setup, END_IN_DECK, END_DRAWN once drawn and set aside."""
    present: tuple[int, int]
    """Sun lemurs present side up, per seat."""
    empty: tuple[int, int]
    """Sun lemurs empty side up, per seat."""
    aside: int
    """Sun lemurs still set aside (shared by both seats)."""
    turn: int
    """The seat whose turn it is."""
    turns: tuple[int, int]
    """Completed turns per seat."""
    added: int
    """Tail cards added this turn (none at the end makes the turn a pass, LT-5)."""
    series_tail: int
    """The own tail the current uninterrupted series is on, -1 if none (LT-6)."""
    series_len: int
    phase: str
    held: int
    """The card a Sun lemur just brought (already in the hand), -1 if none."""
    held_public: bool
    """Whether the held card is public (market, tail) rather than known to both seats only (blind draw)."""
    discards: int
    """Cards discarded so far in the current swap or pass."""
    pending: tuple
    """The chance step due: () none, ("shuffle",), ("deal",), ("end",), ("draw", seat, n), ("blind", seat),
    ("refill", seat)."""
    ending: bool
    """The End card was drawn or the deck ran out: the game ends when the round is complete (LT-8)."""
    over: str
    """Empty while the game runs; then why it ended ("end card", "deck empty", "move cap")."""


# How every turn begins: no card added yet, no series, nothing held, nothing discarded.
TURN_START = {
    "added": 0, "series_tail": -1, "series_len": 0, "phase": PLAY, "held": -1, "held_public": False, "discards": 0,
}  # fmt: skip


# --- speed: what bench/engine.py pays for (the generic core, engines/base.py, stays plain) ---------------------
# The fold replaces a few of State's 21 fields per event; these two build the new State without NamedTuple's
# own _replace (a dict of every field, then map). Bench line (`python bench/engine.py --game lemur-tails`,
# 2026-12-02, docs/benchmarks.md "Engines"): "lemur-tails seats=2 engine=982 games/s bare=1611 games/s ratio: 0.61".

def fast_replace(cls: type) -> type:
    """Give the NamedTuple ``cls`` a ``_replace`` that touches only the changed fields; returns ``cls``.

    NamedTuple's own rebuilds every field through a dict and ``map``; a fold replaces a few fields of
    a state of twenty or more per event, and this is two to three times as fast, with the same result
    (an unknown field raises KeyError rather than ValueError).
    """
    index = {name: position for position, name in enumerate(cls._fields)}
    new = tuple.__new__

    def _replace(self: Any, **changes: Any) -> Any:
        values = [*self]
        for name in changes:
            values[index[name]] = changes[name]
        return new(cls, values)

    cls._replace = _replace  # type: ignore[attr-defined]
    return cls


def replacer(cls: type, *names: str, **fixed: Any) -> Any:
    """A function ``replace(state, *values)`` that returns the NamedTuple ``state`` of ``cls`` with the fields
    ``names`` set to ``values`` (in that order) and the fields ``fixed`` to the values given here.

    ``replace(state, a, b)`` is ``state._replace(**dict(zip(names, (a, b))), **fixed)``, but built at once from
    the fields in place (its source is made here, like a NamedTuple's ``__new__``): no dict of keywords, no
    copy of every field through a list. For a fold step that a game takes many times per decision.
    """
    fields = cls._fields
    changed = [*names, *fixed]
    if len(set(changed)) != len(changed) or not set(changed) <= set(fields):
        raise ValueError(f"{cls.__name__} has the fields {fields}, not all of {changed} (or one is named twice)")
    values = ", ".join(name if name in names else f"_fixed_{name}" if name in fixed else f"_s[{index}]"
                       for index, name in enumerate(fields))  # fmt: skip
    namespace: dict[str, Any] = {"_new": tuple.__new__, "_cls": cls, **{f"_fixed_{n}": v for n, v in fixed.items()}}
    exec(f"def replace(_s, {', '.join(names)}):\n    return _new(_cls, ({values},))\n", namespace)
    return namespace["replace"]


fast_replace(State)  # NamedTuple's own _replace rebuilds all 21 fields; the fold replaces a few per event
