"""Fixed discrete action spaces: every action string of each game enumerated once, by index.

A learning library wants actions as integers 0..N-1 that mean the same at every step; the
games speak action strings ("play:5", "take:T-AC", "exchange:0w:3:B4"). ``ActionSpace`` lists
every string a game's ``legal_actions`` can ever return, in a fixed order (docs/rl.md gives the
index layout per game; each game's list is in adapters/games/<game>.py), so an index names one
action for the whole game and a mask over the indices says which are legal now. The lists come
from the games' card data and caps, so they are complete by construction (a test plays games
and checks every legal action has an index).
"""

from __future__ import annotations

from adapters import games
from adapters.encoding import ActionSpace
from adapters.games.lemur_tails import exchange_color
from adapters.games.nine_tails import MAX_FOX_SLOTS


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


SPACES = games.SPACES
"""The action space of each game (each game's list is in its module under adapters/games/)."""

__all__ = ["MAX_FOX_SLOTS", "SPACES", "ActionSpace", "exchange_color", "markdown"]
