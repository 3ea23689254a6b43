"""Lemur Tails card data: the 89 physical cards, their names, and which cards may follow which.

Every physical card has an id (LT-1, docs/games/lemur-tails.md "Card identity"):

* 0..79   numbered tail cards: colour = id // 40 (0 white, 1 black), number = (id % 40) // 4,
          copy = id % 4 (four copies of each colour and number);
* 80..83  white jokers, 84..87 black jokers;
* 88      the End card.

Copies of one colour and number are interchangeable (LT-16), so actions and views name a card by
its *kind*: "W0".."W9", "WJ", "B0".."B9", "BJ" (kind index = colour * 11 + number, 10 for a joker).
Rules version 1 put ids in its events; version 2's events name kinds too (LT-21), and the fold
gives each copy it meets an id of its own by ``canonical_ids`` and ``lowest``, so ids live only
in the state, where they keep the bookkeeping exact (every card in exactly one place).

Tails are named by owner seat and the ring their start card ends with: "0w", "0b", "1w", "1b"
(tail index = seat * 2 + ring, ring 0 white, 1 black). The first card on a tail has the ring's
opposite colour (LT-2).
"""

from __future__ import annotations

from bisect import bisect_left

WHITE, BLACK = 0, 1
COLOR_WORDS = ("white", "black")
JOKER = 10
"""The number slot of a joker in a kind index."""

NUMBERED = 80
JOKERS = 8
END = 88
CARDS = 89
"""Physical cards in the game: 80 numbered, 8 jokers, the End card."""
TAIL_CARDS = 88
"""The cards shuffled into the deck before the End card joins it."""

HAND_SIZE = 8
MARKET_SIZE = 8
BOTTOM = 10
"""The End card is shuffled among the deck's bottom ten cards."""
SUN_LEMURS_START = 2
SUN_LEMURS_ASIDE = 8
TAILS = ("0w", "0b", "1w", "1b")
TAIL_INDEX = {name: index for index, name in enumerate(TAILS)}

COLOR: tuple[int, ...] = tuple([i // 40 for i in range(NUMBERED)] + [WHITE] * 4 + [BLACK] * 4 + [-1])
NUMBER: tuple[int, ...] = tuple([(i % 40) // 4 for i in range(NUMBERED)] + [-1] * (JOKERS + 1))
"""A card's number; -1 for jokers and the End card."""
KIND: tuple[int, ...] = tuple(
    [COLOR[i] * 11 + NUMBER[i] for i in range(NUMBERED)] + [JOKER] * 4 + [11 + JOKER] * 4 + [-1]
)
KIND_NAMES: tuple[str, ...] = tuple(f"{'WB'[k // 11]}{'J' if k % 11 == JOKER else k % 11}" for k in range(22))
KIND_OF_NAME = {name: kind for kind, name in enumerate(KIND_NAMES)}
NAMES: tuple[str, ...] = (*(KIND_NAMES[KIND[i]] for i in range(TAIL_CARDS)), "END")
IDS: tuple[int, ...] = tuple(range(CARDS))
"""A card as rules version 1's events name it: its id (``IDS[card] == card``); version 2 uses NAMES."""
# The ids of one kind are consecutive (four numbered copies, or the four jokers of a colour), so in
# a sorted hand or market the lowest copy of a kind is found by bisection.
ID_RANGE: tuple[tuple[int, int], ...] = tuple(
    (min(ids), max(ids)) for kind in range(22) for ids in [[i for i in range(TAIL_CARDS) if KIND[i] == kind]]
)
"""ID_RANGE[kind]: the lowest and the highest id of that kind."""
NAME_RANGE: dict[str, tuple[int, int]] = {KIND_NAMES[kind]: ID_RANGE[kind] for kind in range(22)}

# 0 sits next to both 1 and 9 (LT-1): a number fits itself and its two neighbours on a ring of ten.
FIT: tuple[frozenset[int], ...] = tuple(frozenset({(n - 1) % 10, n, (n + 1) % 10}) for n in range(10))

# What a tail accepts next, as masks of kinds (bit ``kind`` set: that kind fits), precomputed for the hot
# loop (LT-2, LT-3). A mask holds kinds of one colour only, so ``mask & hand`` has at most 2**11 values.
KIND_BIT: tuple[int, ...] = tuple(1 << kind for kind in range(22))
CARD_BIT: tuple[int, ...] = (*(1 << KIND[i] for i in range(TAIL_CARDS)), 0)
"""A card's kind as a mask bit (the End card: no bit)."""
WHITE_KINDS = (1 << 11) - 1
"""The mask bits of the white kinds (W0..W9, WJ); the black ones are those above them."""


def kinds_mask(kinds) -> int:
    """The mask of a collection of kinds."""
    mask = 0
    for kind in kinds:
        mask |= KIND_BIT[kind]
    return mask


def hand_mask(cards: tuple[int, ...]) -> int:
    """The mask of the kinds among ``cards`` (ids)."""
    mask = 0
    for card in cards:
        mask |= CARD_BIT[card]
    return mask


KINDS_OF: tuple[tuple[int, ...], ...] = tuple(tuple(k for k in range(11) if bits >> k & 1) for bits in range(1 << 11))
"""KINDS_OF[bits]: the white kinds of an 11-bit half mask, ascending (add 11 for the black half)."""


def kinds_of(mask: int) -> tuple[int, ...]:
    """The kinds of a mask, ascending."""
    return KINDS_OF[mask & WHITE_KINDS] + tuple(k + 11 for k in KINDS_OF[mask >> 11])


ANY_CARD = tuple(kinds_mask(c * 11 + n for n in range(11)) for c in (WHITE, BLACK))
ANY_NUMBER = tuple(kinds_mask(c * 11 + n for n in range(10)) for c in (WHITE, BLACK))
AFTER_NUMBER = tuple(
    tuple(kinds_mask({c * 11 + m for m in FIT[n]} | {c * 11 + JOKER}) for n in range(10)) for c in (WHITE, BLACK)
)
AFTER_JOKER = tuple(tuple(kinds_mask(c * 11 + m for m in FIT[n]) for n in range(10)) for c in (WHITE, BLACK))
AFTER_CARD: tuple[int, ...] = tuple(AFTER_NUMBER[1 - COLOR[i]][NUMBER[i]] for i in range(NUMBERED))
"""AFTER_CARD[card]: what follows the numbered ``card`` on a tail (``accepts`` for a tail ending with it)."""

BLACK_KINDS = WHITE_KINDS << 11


class ActionsOf(dict):
    """``ActionsOf(actions)[mask]``: the actions of the mask's kinds (``actions[kind]``), ascending, as a tuple.

    Made on first use and kept: a key is a mask of one colour's kinds (a tail's fit and a hand, or one half of
    a hand), so there are at most 2 * 2**11 of them.
    """

    __slots__ = ("actions",)

    def __init__(self, actions: tuple[str, ...]) -> None:
        super().__init__()
        self.actions = actions

    def __missing__(self, mask: int) -> tuple[str, ...]:
        made = self[mask] = tuple(self.actions[kind] for kind in kinds_of(mask))
        return made


PLAY_ACTIONS = tuple(tuple(f"play:{KIND_NAMES[k]}:{t}" for t in TAILS) for k in range(22))
PLACE_ACTIONS = tuple(f"place:{t}" for t in TAILS)
DISCARD_ACTIONS = tuple(f"discard:{name}" for name in KIND_NAMES)
MARKET_ACTIONS = tuple(f"lemur:market:{name}" for name in KIND_NAMES)
STEAL_ACTIONS = tuple(f"lemur:tail:{t}" for t in TAILS)
PLAYS = tuple(ActionsOf(tuple(PLAY_ACTIONS[k][t] for k in range(22))) for t in range(4))
"""PLAYS[tail][fit & hand mask]: the plays onto that tail, by kind."""
DISCARDS = ActionsOf(DISCARD_ACTIONS)
"""DISCARDS[half of a hand mask]: its discards, by kind (the white half, then the black one)."""
MARKETS = ActionsOf(MARKET_ACTIONS)
"""MARKETS[half of the market's mask]: the Sun lemur's market picks, by kind."""


def lowest(cards: tuple[int, ...], kind: int) -> int:
    """The lowest id of ``kind`` in the ascending ``cards`` (a hand, the market), or -1 (LT-16)."""
    low, high = ID_RANGE[kind]
    index = bisect_left(cards, low)
    if index < len(cards) and cards[index] <= high:
        return cards[index]
    return -1


def canonical_ids(names: list[str]) -> tuple[int, ...]:
    """Ids for a deck given by kind, top first: the n-th copy of a kind from the top gets its n-th lowest id.

    Which copy lies where is not a fact of the game (LT-16), so rules version 2 records a shuffle by
    kind and the fold numbers the copies in this one fixed way.
    """
    next_id = [low for low, _ in ID_RANGE]
    out = []
    for kind in map(KIND_OF_NAME.__getitem__, names):
        out.append(next_id[kind])
        next_id[kind] += 1
    return tuple(out)


def accepts(tail_index: int, tail: tuple[int, ...]) -> int:
    """The mask of the kinds that may be added to this tail now (LT-2, LT-3)."""
    if not tail:
        return ANY_CARD[1 - (tail_index & 1)]
    last = tail[-1]
    number = NUMBER[last]
    color = 1 - COLOR[last]
    if number >= 0:
        return AFTER_NUMBER[color][number]
    # A joker never follows a joker; after one, fit the numbered card before it, if any.
    if len(tail) == 1:
        return ANY_NUMBER[color]
    return AFTER_JOKER[color][NUMBER[tail[-2]]]


def exchange_kinds(tail: tuple[int, ...], position: int) -> int:
    """The mask of the kinds that may replace the joker at ``position``: its colour, fitting each numbered neighbour.

    LT-4 and LT-11: the start card only sets the colour, so a joker with no numbered neighbour
    may be exchanged for any number of its colour. (A joker never touches another joker, LT-3.)
    """
    before = NUMBER[tail[position - 1]] if position > 0 else -1
    after = NUMBER[tail[position + 1]] if position + 1 < len(tail) else -1
    return EXCHANGE[COLOR[tail[position]]][before + 1][after + 1]


def _exchange_table(color: int, before: int, after: int) -> int:
    numbers = set(range(10))
    if before >= 0:
        numbers &= FIT[before]
    if after >= 0:
        numbers &= FIT[after]
    return kinds_mask(color * 11 + n for n in numbers)


EXCHANGE = tuple(
    tuple(tuple(_exchange_table(c, b, a) for a in range(-1, 10)) for b in range(-1, 10)) for c in (WHITE, BLACK)
)
"""EXCHANGE[colour][before + 1][after + 1]: what replaces a joker between those numbers (-1: none)."""


def card_words(card: int) -> str:
    """A card in words, e.g. "a white 6" or "a black joker"."""
    if card == END:
        return "the End card"
    number = NUMBER[card]
    return f"a {COLOR_WORDS[COLOR[card]]} {'joker' if number < 0 else number}"


def kind_words(kind: int) -> str:
    """A kind in words, e.g. "a white 6"."""
    number = kind % 11
    return f"a {COLOR_WORDS[kind // 11]} {'joker' if number == JOKER else number}"


def accepts_words(tail_index: int, tail: tuple[int, ...]) -> str:
    """Why a tail accepts what it accepts, for IllegalAction messages."""
    name = TAILS[tail_index]
    if not tail:
        ring = COLOR_WORDS[tail_index & 1]
        other = COLOR_WORDS[1 - (tail_index & 1)]
        return f"{name} is empty (its start card ends with a {ring} ring), so only a {other} card may start it"
    last = tail[-1]
    color = COLOR_WORDS[1 - COLOR[last]]
    number = NUMBER[last]
    if number >= 0:
        fit = ", ".join(str(n) for n in sorted(FIT[number]))
        return f"the last card on {name} is {card_words(last)}, so only a {color} {fit} or a {color} joker may follow"
    if len(tail) == 1:
        return (
            f"the last card on {name} is {card_words(last)} on the start card, so any {color} number may follow "
            "but not a joker"
        )
    before = NUMBER[tail[-2]]
    fit = ", ".join(str(n) for n in sorted(FIT[before]))
    return (
        f"the last card on {name} is {card_words(last)} after {card_words(tail[-2])}, so only a {color} {fit} "
        "may follow (never a joker on a joker)"
    )
