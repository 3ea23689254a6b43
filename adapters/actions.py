"""Fixed discrete action spaces: every action string of each game enumerated once, by index.

A learning library wants actions as integers 0..N-1 that mean the same at every step; the
games speak action strings ("play:5", "take:T-AC", "exchange:0w:3:B4"). ``ActionSpace`` lists
every string a game's ``legal_actions`` can ever return, in a fixed order (docs/rl.md gives the
index layout per game), so an index names one action for the whole game and a mask over the
indices says which are legal now. The lists come from the games' card data and caps, so they
are complete by construction (a test plays games and checks every legal action has an index).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engines.lemur_tails.cards import KIND_NAMES, TAIL_CARDS, TAILS
from engines.nine_tails.cards import STARTING_FOX_IDS, STUDY_IDS, TRICK_NAMES, WILD_FOX_IDS, WILDS_IDS
from engines.tails_on_fire.state import CHOOSE_ACTION, PLAY_ACTION


class ActionSpace:
    """A game's action strings in a fixed order: ``names[i]`` is action i, ``index[name]`` its number."""

    def __init__(self, game: str, names: Sequence[str]) -> None:
        self.game = game
        self.names = tuple(names)
        self.index = {name: i for i, name in enumerate(self.names)}
        if len(self.index) != len(self.names):
            raise ValueError(f"{game}: an action is listed twice")

    def __len__(self) -> int:
        return len(self.names)

    def indices(self, legal: Iterable[str]) -> list[int]:
        """The indices of ``legal`` (KeyError names an action this space does not list)."""
        index = self.index
        try:
            return [index[action] for action in legal]
        except KeyError as missing:
            raise KeyError(f"{self.game}: action {missing.args[0]!r} has no index") from None


def tails_on_fire() -> list[str]:
    """0 choose:trickster, 1-9 choose:1..9, 10 pass, 11-19 play:1..9, 20 trickster."""
    return [*CHOOSE_ACTION, "pass", *PLAY_ACTION[1:], PLAY_ACTION[0]]


MAX_FOX_SLOTS = 4 + 2 * len(STUDY_IDS)
"""A fox's trait slots at most: a starting fox's four, and two for each of the ten study cards."""


def nine_tails() -> list[str]:
    """The turn's actions, cards to take, foxes, cost symbols, tricks, seats, studies and slots (docs/rl.md)."""
    return [
        "venture", "sneak", "rest",
        *(f"take:{card}" for card in WILDS_IDS), "none",
        *(f"fox:{card}" for card in STARTING_FOX_IDS + WILD_FOX_IDS),
        *(f"pay:{symbol}" for symbol in "ACGSQ*"),
        *(f"discard:{trick}" for trick in TRICK_NAMES), "stop",
        "decline", *(f"trick:{trick}" for trick in TRICK_NAMES), "waste", "cancel",
        *(f"seat:{seat}" for seat in range(5)),
        *(f"study:{card}" for card in STUDY_IDS),
        *(f"slot:{slot}" for slot in range(MAX_FOX_SLOTS)),
    ]  # fmt: skip


def exchange_color(tail: int, position: int) -> int:
    """The colour of the card at ``position`` of tail ``tail`` (0 white, 1 black): colours alternate from the
    one opposite the start card's ring (LT-2), so an exchange there takes a numbered card of that colour."""
    return (1 - (tail & 1)) ^ (position & 1)


def lemur_tails() -> list[str]:
    """Plays, places, keep, exchanges (tail, position up to the 88 tail cards, number), Sun lemurs, discards,
    draw, end."""
    return [
        *(f"play:{kind}:{tail}" for kind in KIND_NAMES for tail in TAILS),
        *(f"place:{tail}" for tail in TAILS), "keep",
        *(f"exchange:{TAILS[tail]}:{position}:{KIND_NAMES[exchange_color(tail, position) * 11 + number]}"
          for tail in range(len(TAILS)) for position in range(TAIL_CARDS) for number in range(10)),
        *(f"lemur:market:{kind}" for kind in KIND_NAMES), *(f"lemur:tail:{tail}" for tail in TAILS),
        "lemur:blind", "lemur:swap",
        *(f"discard:{kind}" for kind in KIND_NAMES), "draw", "end",
    ]  # fmt: skip


def markdown(game: str) -> str:
    """The index layout of a game's actions, one row per run of one kind of action (docs/rl.md shows it)."""
    names = SPACES[game].names
    lines = [f"{game}: {len(names)} actions", "", "| indices | count | action | first ... last |", "|---|---|---|---|"]
    start = 0
    for end in range(1, len(names) + 1):
        if end < len(names) and _family(names[end]) == _family(names[start]):
            continue
        span = f"{start}" if end - start == 1 else f"{start}-{end - 1}"
        last = "" if end - start == 1 else f" ... `{names[end - 1]}`"
        lines.append(f"| {span} | {end - start} | `{_family(names[start])}` | `{names[start]}`{last} |")
        start = end
    return "\n".join(lines)


def _family(action: str) -> str:
    """An action's kind: its words before the card, tail, seat or slot it names ("lemur:market", "play")."""
    words = action.split(":")
    return ":".join(words[:2]) if words[0] == "lemur" else words[0]


SPACES = {
    "tails-on-fire": ActionSpace("tails-on-fire", tails_on_fire()),
    "nine-tails": ActionSpace("nine-tails", nine_tails()),
    "lemur-tails": ActionSpace("lemur-tails", lemur_tails()),
}
"""The action space of each game."""
