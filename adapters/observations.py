"""Fixed-size observation encodings of a seat's view, one per game (docs/rl.md lists every segment).

A learning library wants each observation as a vector of one fixed size; the games give a seat a
JSON-able view (``engine.view(state, seat)``). ``Encoding`` turns a view into a float32 vector
with values in [0, 1]: one-hot fields, masks of cards, and counts divided by a bound (clipped at
1). Seats are *relative* to the observer (slot 0 is the observer, slot 1 the next seat clockwise,
...), so one policy can play any seat, and tables are padded to the game's largest, so one
policy can play any table size. Only the view is read: an encoding never holds more than the
seat may know.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engines.lemur_tails.cards import KIND_NAMES, KIND_OF_NAME, TAILS
from engines.nine_tails.cards import STARTING_FOX_IDS, TRICK_NAMES, WILD_FOX_IDS, WILDS_IDS

Segment = tuple[str, int, int, str]
"""(name, first index, size, what it holds)."""
Field = tuple[str, int, str]
"""(name, size, what it holds): one segment of a layout, or one field of a block."""


@dataclass(frozen=True, slots=True)
class Block:
    """Fields repeated once per member (a relative seat, a tail, a fox card): segments "<kind> <member> <field>"."""

    kind: str
    members: Sequence[Any]
    fields: tuple[Field, ...]


class Encoding:
    """A game's observation layout (segments laid out from fields and blocks) and how to fill it from a view."""

    def __init__(self, game: str, layout: Sequence[Field | Block],
                 fill: Callable[[Encoding, np.ndarray, dict[str, Any]], None]) -> None:
        self.game = game
        self.segments: list[Segment] = []
        self.at: dict[str, int] = {}
        self.size = 0
        self._fill = fill
        for entry in layout:
            if isinstance(entry, Block):
                for member in entry.members:
                    for name, size, meaning in entry.fields:
                        self.add(f"{entry.kind} {member} {name}", size, meaning)
            else:
                self.add(*entry)

    def add(self, name: str, size: int, meaning: str) -> None:
        self.segments.append((name, self.size, size, meaning))
        self.at[name] = self.size
        self.size += size

    def encode(self, view: dict[str, Any]) -> np.ndarray:
        """The vector of ``view`` (a seat's view of this game)."""
        out = np.zeros(self.size, np.float32)
        self._fill(self, out, view)
        np.clip(out, 0.0, 1.0, out=out)
        return out

    # Writers used by the fill functions.
    def one_hot(self, out: np.ndarray, name: str, index: int | None) -> None:
        if index is not None and index >= 0:
            out[self.at[name] + index] = 1.0

    def scalar(self, out: np.ndarray, name: str, value: float, bound: float) -> None:
        out[self.at[name]] = value / bound

    def counts(self, out: np.ndarray, name: str, indices, bound: float = 1.0) -> None:
        base = self.at[name]
        for index in indices:
            out[base + index] += 1.0 / bound


def relative(seat: int | None, observer: int | None, seats: int) -> int | None:
    """``seat``'s slot as ``observer`` sees the table: 0 itself, 1 the next seat clockwise, ..."""
    if seat is None or not isinstance(seat, int) or seat < 0:
        return None
    return (seat - (observer or 0)) % seats


# --- Tails on Fire ------------------------------------------------------------------------------

TOF_SEATS = 6
TOF_PHASES = ("setup", "shuffle", "choose", "hunt", "round over", "over")
TOF_PLAYER: tuple[Field, ...] = (
    ("seated", 1, "1 when this relative seat is at the table"),
    ("bonfire", 10, "its bonfire opossum, one-hot"),
    ("stack numbers", 9, "numbers 1-9 its fire stacks show"),
    ("fire cards", 9, "fire cards 1-9 in its stacks"),
    ("flames", 1, "its flames / 20"),
    ("exhausted", 10, "its exhausted opossums"),
    ("hand size", 1, "unchosen cards in hand / 10"),
    ("chosen size", 1, "chosen cards still in hand / 3"),
    ("to choose", 1, "picks still to make / 3"),
)
TOF_LAYOUT: tuple[Field | Block, ...] = (
    ("seats", 5, "table size 2-6, one-hot"),
    ("phase", len(TOF_PHASES), "one-hot: " + ", ".join(TOF_PHASES)),
    ("round", 1, "round / 10"),
    ("leader", TOF_SEATS, "the round's first seat, relative, one-hot"),
    ("turn", TOF_SEATS + 1, "the seat to act, relative, one-hot; the last slot: the Rogue"),
    ("starting number", 10, "one-hot 0-9 (0: none)"),
    ("numbers offered", 1, "starting numbers offered this Hunt / 9"),
    ("iguana top", 10, "the Iguana pile's top fire card, one-hot 0-9 (0: empty)"),
    ("iguana size", 1, "cards in the Iguana pile / 9"),
    ("boxed", 9, "fire cards 1-9 out of the game"),
    ("discard owner", TOF_SEATS + 1, "the top card's owner, relative, one-hot; the last slot: the Rogue"),
    ("discard number", 10, "the number the top card shows, one-hot"),
    ("discard size", 1, "cards on the discard pile / 30"),
    ("rogue", 1, "1 when the Rogue plays"),
    ("rogue deck size", 1, "rogue deck / 9"),
    ("rogue reserve", 9, "rogue cards 1-9 in the reserve"),
    ("rogue reserve top", 10, "the reserve's top card, one-hot"),
    Block("player", range(TOF_SEATS), TOF_PLAYER),
    ("hand", 10, "own unchosen opossums (0 = trickster)"),
    ("chosen", 10, "own chosen opossums still in hand"),
    ("turns", 1, "decisions so far / 2000"),
)


def _tof_fill(encoding: Encoding, out: np.ndarray, view: dict[str, Any]) -> None:
    seats, me = view["seats"], view["seat"]
    e = encoding
    e.one_hot(out, "seats", seats - 2)
    e.one_hot(out, "phase", TOF_PHASES.index(view["phase"]))
    e.scalar(out, "round", view["round"], 10)
    e.one_hot(out, "leader", relative(view["leader"], me, seats))
    turn = view["turn"]
    e.one_hot(out, "turn", TOF_SEATS if turn == "rogue" else relative(turn, me, seats))
    e.one_hot(out, "starting number", view["starting_number"])
    e.scalar(out, "numbers offered", view["numbers_offered"], 9)
    e.one_hot(out, "iguana top", view["iguana"]["top"])
    e.scalar(out, "iguana size", view["iguana"]["size"], 9)
    e.counts(out, "boxed", (card - 1 for card in view["boxed"]))
    discard = view["discard"]
    if discard:
        top = discard[-1]
        e.one_hot(out, "discard owner", TOF_SEATS if top["owner"] == "rogue" else relative(top["owner"], me, seats))
        e.one_hot(out, "discard number", top["number"])
    e.scalar(out, "discard size", len(discard), 30)
    rogue = view["rogue"]
    if rogue is not None:
        out[e.at["rogue"]] = 1.0
        e.scalar(out, "rogue deck size", rogue["deck_size"], 9)
        e.counts(out, "rogue reserve", (card - 1 for card in rogue["reserve"]))
        if rogue["reserve"]:
            e.one_hot(out, "rogue reserve top", rogue["reserve"][-1])
    for seat, player in enumerate(view["players"]):
        slot = f"player {relative(seat, me, seats)}"
        out[e.at[f"{slot} seated"]] = 1.0
        e.one_hot(out, f"{slot} bonfire", player["bonfire"])
        e.counts(out, f"{slot} stack numbers", (stack["number"] - 1 for stack in player["stacks"]))
        e.counts(out, f"{slot} fire cards", (fire - 1 for stack in player["stacks"] for fire in stack["fire"]))
        e.scalar(out, f"{slot} flames", player["flames"], 20)
        e.counts(out, f"{slot} exhausted", player["exhausted"])
        e.scalar(out, f"{slot} hand size", player["hand_size"], 10)
        e.scalar(out, f"{slot} chosen size", player["chosen_size"], 3)
        e.scalar(out, f"{slot} to choose", player["to_choose"], 3)
    e.counts(out, "hand", view.get("hand") or ())
    e.counts(out, "chosen", view.get("chosen") or ())
    e.scalar(out, "turns", view["turns"], 2000)


# --- Nine Tails ------------------------------------------------------------------------------

NT_SEATS = 5
NT_PHASES = ("action", "choose", "place", "pay", "discard", "trick window", "perform", "cancel window", "target",
             "befuddle", "setup", "reshuffle", "ascend", "pickpocket", "move cap", "resolving", "over")
NT_SOURCES = ("venture", "sneak", "windfall", "quick-paws", "lure")
NT_FOXES = STARTING_FOX_IDS + WILD_FOX_IDS
NT_SYMBOLS = "ACGSQ*"
NT_FOX: tuple[Field, ...] = (
    ("owner", NT_SEATS, "its seat, relative, one-hot (all 0: not in play)"),
    ("tails", 1, "tails / 9"),
    ("open slots", 1, "open trait slots / 24"),
    ("exhausted slots", 1, "slots with a counter / 24"),
    ("studies", 1, "tucked studies / 10"),
    ("open by symbol", len(NT_SYMBOLS), "open slots per symbol A C G S Q * / 8"),
)
NT_SEAT: tuple[Field, ...] = (
    ("ascended", 1, "foxes it helped ascend / 3"),
    ("ascended cards", 1, "Ascended Fox Cards it holds / 10"),
    ("hand size", 1, "trickery cards in hand / 10"),
)
NT_LAYOUT: tuple[Field | Block, ...] = (
    ("seats", 4, "table size 2-5, one-hot"),
    ("fast", 1, "1 in the fast game (two ascended foxes win)"),
    ("phase", len(NT_PHASES), "one-hot: " + ", ".join(NT_PHASES)),
    ("active", NT_SEATS, "the seat whose turn it is, relative, one-hot"),
    ("decider", NT_SEATS, "the seat to decide, relative, one-hot"),
    ("turns", 1, "turns / 3000"),
    Block("fox", NT_FOXES, NT_FOX),
    Block("seat", range(NT_SEATS), NT_SEAT),
    ("ascended stack", 1, "Ascended Fox Cards left / 10"),
    ("pile", 1, "exhaustion counters in the pile / 40"),
    ("village", len(WILDS_IDS), "Wilds cards in the Village (cards.WILDS_IDS order)"),
    ("revealed", len(WILDS_IDS), "Wilds cards revealed and not yet resolved"),
    ("held", len(WILDS_IDS), "the study or tail being given to a fox, one-hot"),
    ("source", len(NT_SOURCES), "where the card to choose comes from, one-hot: " + ", ".join(NT_SOURCES)),
    ("decks", 3, "Starting Fox Deck / 10, Wilds Deck / 45, Trickery Deck / 30"),
    ("discard", len(TRICK_NAMES), "trickery discard pile, copies per trick / 3"),
    ("hand", len(TRICK_NAMES), "own trickery cards, copies per trick / 3"),
    ("trick", len(TRICK_NAMES), "the trick in play, one-hot"),
    ("trick seat", NT_SEATS, "its player, relative, one-hot"),
    ("trick fox", len(NT_FOXES), "the fox performing it, one-hot"),
    ("paying fox", len(NT_FOXES), "the fox choosing which part of a cost to pay, one-hot"),
    ("paying chosen", len(NT_SYMBOLS), "cost symbols chosen so far / 4"),
    ("befuddle fox", len(NT_FOXES), "the fox Befuddle aims at, one-hot"),
    ("befuddle left", 1, "counters it may still receive / 2"),
    ("winner", NT_SEATS, "the winner, relative, one-hot"),
)
_WILDS_INDEX = {card: i for i, card in enumerate(WILDS_IDS)}
_FOX_INDEX = {card: i for i, card in enumerate(NT_FOXES)}
_TRICK_INDEX = {trick: i for i, trick in enumerate(TRICK_NAMES)}


def _nt_fill(encoding: Encoding, out: np.ndarray, view: dict[str, Any]) -> None:
    seats, me = view["seats"], view["seat"]
    e = encoding
    e.one_hot(out, "seats", seats - 2)
    out[e.at["fast"]] = float(view["goal"] == 2)
    e.one_hot(out, "phase", NT_PHASES.index(view["phase"]))
    e.one_hot(out, "active", relative(view["active"], me, seats))
    e.one_hot(out, "decider", relative(view["decider"], me, seats))
    e.scalar(out, "turns", view["turns"], 3000)
    for seat, foxes in enumerate(view["foxes"]):
        slot = relative(seat, me, seats)
        for fox in foxes:
            name = f"fox {fox['card']}"
            e.one_hot(out, f"{name} owner", slot)
            e.scalar(out, f"{name} tails", fox["tail_count"], 9)
            exhausted = fox["exhausted"]
            e.scalar(out, f"{name} open slots", exhausted.count(False), 24)
            e.scalar(out, f"{name} exhausted slots", exhausted.count(True), 24)
            e.scalar(out, f"{name} studies", len(fox["studies"]), 10)
            e.counts(out, f"{name} open by symbol",
                     (NT_SYMBOLS.index(trait) for trait, spent in zip(fox["slots"], exhausted, strict=True)
                      if not spent), 8)
    for seat in range(seats):
        slot = relative(seat, me, seats)
        e.scalar(out, f"seat {slot} ascended", view["ascended"][seat], 3)
        e.scalar(out, f"seat {slot} ascended cards", view["ascended_cards"][seat], 10)
        e.scalar(out, f"seat {slot} hand size", view["hand_sizes"][seat], 10)
    e.scalar(out, "ascended stack", view["ascended_stack"], 10)
    e.scalar(out, "pile", view["pile"], 40)
    e.counts(out, "village", (_WILDS_INDEX[card] for card in view["village"]))
    e.counts(out, "revealed", (_WILDS_INDEX[card] for card in view["revealed"]))
    if view["held"]:
        e.one_hot(out, "held", _WILDS_INDEX[view["held"]])
    if view["source"] in NT_SOURCES:
        e.one_hot(out, "source", NT_SOURCES.index(view["source"]))
    decks = view["decks"]
    base = e.at["decks"]
    out[base], out[base + 1], out[base + 2] = decks["starting"] / 10, decks["wilds"] / 45, decks["trickery"] / 30
    e.counts(out, "discard", (_TRICK_INDEX[trick] for trick in view["discard"]), 3)
    e.counts(out, "hand", (_TRICK_INDEX[trick] for trick in view.get("hand") or ()), 3)
    trick = view["trick"]
    if trick is not None:
        e.one_hot(out, "trick", _TRICK_INDEX[trick["name"]])
        e.one_hot(out, "trick seat", relative(trick["seat"], me, seats))
        if trick["fox"]:
            e.one_hot(out, "trick fox", _FOX_INDEX[trick["fox"]])
    paying = view["paying"]
    if paying is not None:
        e.one_hot(out, "paying fox", _FOX_INDEX[paying["fox"]])
        e.counts(out, "paying chosen", (NT_SYMBOLS.index(symbol) for symbol in paying["chosen"]), 4)
    befuddle = view["befuddle"]
    if befuddle is not None:
        e.one_hot(out, "befuddle fox", _FOX_INDEX[befuddle["fox"]])
        e.scalar(out, "befuddle left", befuddle["left"], 2)
    e.one_hot(out, "winner", relative(view["winner"], me, seats))


# --- Lemur Tails ------------------------------------------------------------------------------

LT_PHASES = ("play", "taken", "swap", "pass", "chance", "over")
LT_TAIL: tuple[Field, ...] = (
    ("length", 1, "tail cards / 40"),
    ("last", len(KIND_NAMES), "the last card's kind, one-hot (none: only the start card)"),
    ("anchor", 10, "the number the next card must fit, one-hot (none: any number)"),
    ("jokers", 1, "jokers in it / 8"),
)
LT_LAYOUT: tuple[Field | Block, ...] = (
    ("phase", len(LT_PHASES), "one-hot: " + ", ".join(LT_PHASES)),
    ("my turn", 1, "1 when it is the observer's turn"),
    Block("tail", range(4), LT_TAIL),
    ("hand", len(KIND_NAMES), "own hand, copies per kind / 4 (kinds W0-W9, WJ, B0-B9, BJ)"),
    ("market", len(KIND_NAMES), "the market, copies per kind / 4"),
    ("discard pile", len(KIND_NAMES), "the discard pile, copies per kind / 4"),
    ("hand sizes", 2, "cards in hand, observer then opponent / 16"),
    ("sun lemurs", 4, "present and empty Sun lemurs, observer then opponent / 10"),
    ("sun lemurs aside", 1, "Sun lemurs still set aside / 8"),
    ("deck size", 1, "cards in the deck / 64"),
    ("end card drawn", 1, "1 once the End card came up"),
    ("game ending", 1, "1 when this round is the last"),
    ("turns played", 2, "completed turns, observer then opponent / 200"),
    ("added this turn", 1, "tail cards added this turn / 10"),
    ("series tail", 4, "the own tail of the current series, relative, one-hot"),
    ("series length", 1, "cards in the current series / 10"),
    ("discards made", 1, "cards discarded in this swap or pass / 3"),
    ("taken", len(KIND_NAMES), "the card a Sun lemur just brought, one-hot"),
)


def _lt_tails(me: int | None) -> list[str]:
    """The tails in relative order: the observer's white-ring and black-ring tails, then the opponent's."""
    first = me or 0
    return [TAILS[2 * first], TAILS[2 * first + 1], TAILS[2 * (1 - first)], TAILS[2 * (1 - first) + 1]]


def _lt_fill(encoding: Encoding, out: np.ndarray, view: dict[str, Any]) -> None:
    me = view["seat"] or 0
    e = encoding
    e.one_hot(out, "phase", LT_PHASES.index(view["phase"]))
    out[e.at["my turn"]] = float(view["turn"] == me)
    tails = view["tails"]
    order = _lt_tails(me)
    for slot, name in enumerate(order):
        cards = tails[name]
        e.scalar(out, f"tail {slot} length", len(cards), 40)
        if cards:
            e.one_hot(out, f"tail {slot} last", KIND_OF_NAME[cards[-1]])
        numbers = [card for card in cards if card[1] != "J"]
        anchor_card = cards[-1] if cards and cards[-1][1] != "J" else (cards[-2] if len(cards) > 1 else None)
        if anchor_card is not None:
            e.one_hot(out, f"tail {slot} anchor", int(anchor_card[1]))
        e.scalar(out, f"tail {slot} jokers", len(cards) - len(numbers), 8)
    e.counts(out, "hand", (KIND_OF_NAME[card] for card in view.get("hand") or ()), 4)
    e.counts(out, "market", (KIND_OF_NAME[card] for card in view["market"]), 4)
    e.counts(out, "discard pile", (KIND_OF_NAME[card] for card in view["discard_pile"]), 4)
    other = 1 - me
    base = e.at["hand sizes"]
    out[base], out[base + 1] = view["hand_sizes"][me] / 16, view["hand_sizes"][other] / 16
    base = e.at["sun lemurs"]
    lemurs = view["sun_lemurs"]
    out[base:base + 4] = (lemurs[me]["present"] / 10, lemurs[me]["empty"] / 10, lemurs[other]["present"] / 10,
                          lemurs[other]["empty"] / 10)
    e.scalar(out, "sun lemurs aside", view["sun_lemurs_aside"], 8)
    e.scalar(out, "deck size", view["deck_size"], 64)
    out[e.at["end card drawn"]] = float(view["end_card_drawn"])
    out[e.at["game ending"]] = float(view["game_ending"])
    base = e.at["turns played"]
    out[base], out[base + 1] = view["turns_played"][me] / 200, view["turns_played"][other] / 200
    e.scalar(out, "added this turn", view["added_this_turn"], 10)
    series = view["series"]
    if series["tail"] is not None:
        e.one_hot(out, "series tail", order.index(series["tail"]))
    e.scalar(out, "series length", series["length"], 10)
    e.scalar(out, "discards made", view["discards_made"], 3)
    if view["taken"]:
        e.one_hot(out, "taken", KIND_OF_NAME[view["taken"]])


ENCODINGS = {
    "tails-on-fire": Encoding("tails-on-fire", TOF_LAYOUT, _tof_fill),
    "nine-tails": Encoding("nine-tails", NT_LAYOUT, _nt_fill),
    "lemur-tails": Encoding("lemur-tails", LT_LAYOUT, _lt_fill),
}
"""The observation encoding of each game."""


def segments(game: str) -> Sequence[Segment]:
    """The named segments of a game's observation vector, in order (docs/rl.md prints them)."""
    return ENCODINGS[game].segments


BLOCKS = {"player": "relative seat", "seat": "relative seat",
          "tail": "tail (own white-ring, own black-ring, the opponent's two)",
          "fox": "fox card (starting foxes, then wild foxes, in cards.py's order)"}
"""Segments repeated once per seat, tail or fox card: named "<kind> <member> <field>"."""


def markdown(game: str) -> str:
    """The layout of a game's vector as the table docs/rl.md shows (a test keeps the two the same).

    A block repeated per seat, tail or fox card is shown once, with offsets within the block.
    """
    encoding = ENCODINGS[game]
    lines = [f"{game}: {encoding.size} floats", "", "| index | size | segment | holds |", "|---|---|---|---|"]
    blocks: dict[str, tuple[str, int]] = {}  # kind -> (its first member, where its first block starts)
    for name, at, size, meaning in encoding.segments:
        kind, _, rest = name.partition(" ")
        member, _, field = rest.partition(" ")
        if kind not in BLOCKS or not field:
            lines.append(f"| {at} | {size} | `{name}` | {meaning} |")
            continue
        if kind not in blocks:
            blocks[kind] = (member, at)
            members = list(dict.fromkeys(n.split(" ")[1] for n, *_ in encoding.segments if n.startswith(kind + " ")))
            width = sum(z for n, _, z, _ in encoding.segments if n.split(" ")[:2] == [kind, member])
            lines.append(f"| {at} | {len(members)} x {width} | **per {BLOCKS[kind]}**: block k starts at {at} + "
                         f"{width} k | the rows below, offsets within the block |")
        first, start = blocks[kind]
        if member == first:
            lines.append(f"| +{at - start} | {size} | `{field}` | {meaning} |")
    return "\n".join(lines)
