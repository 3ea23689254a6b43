"""Events and tables in the games' own words, for the replay page and `replay show`: "Green plays 4".

Each game's narration module (engines/<game>/narration.py) holds ``SENTENCES`` (event type
-> sentence of the public data and, when the reader may see it, the private part),
``action(text, view)`` (an action string in words, as the page lists a seat's choices),
``score(view, seat)`` (the seat's score in words, read from a view) and ``summary(view, names,
own)`` (the table in a few lines, read from the views alone, as the page draws it). The log's
own events (game_started, seat_forfeited, game_ended) are worded here; a type no module knows
is told plainly from
its data, so a new event type never stops a page from being made.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

from engines.words import listing, ordinal, seat_name, show_value

Sentence = Callable[[Mapping[str, Any], Any], str]
Summary = Callable[[Mapping[str, Any], Sequence[str], Mapping[int, Mapping[str, Any]]], list[str]]

GAMES: dict[str, str | ModuleType] = {
    "tails-on-fire": "engines.tails_on_fire.narration",
    "nine-tails": "engines.nine_tails.narration",
    "lemur-tails": "engines.lemur_tails.narration",
}
"""Each game's narration module (a module path, or the module of a game added with ``register``)."""


def register(game: str, module: ModuleType) -> None:
    """Tell a game added at run time (engines.registry.register) in its own words: ``module`` gives
    ``SENTENCES``, ``score`` and ``summary`` (and may give ``action``), as the three games' do."""
    GAMES[game] = module


def _started(d: Mapping[str, Any], p: Any) -> str:
    seats = listing(f"{seat_name(s['seat'])} ({s['bot']})" for s in d["seats"])
    return f"A game of {d['game']} begins: {seats}"


def _ended(d: Mapping[str, Any], p: Any) -> str:
    ranks = ", ".join(f"{seat_name(seat)} {ordinal(rank)}" for seat, rank in enumerate(d["ranking"]))
    return f"The game is over ({d['reason']}): {ranks}"


LOG_SENTENCES: dict[str, Sentence] = {
    "game_started": _started,
    "seat_forfeited": lambda d, p: f"{seat_name(d['seat'])} forfeits: {d['reason']}",
    "game_ended": _ended,
}


class Narrator:
    """The sentences, score words and table summary of one game (a plain fallback for a game with
    no module)."""

    def __init__(self, game: str) -> None:
        named = GAMES.get(game)
        module = importlib.import_module(named) if isinstance(named, str) else named
        self.sentences: dict[str, Sentence] = {**LOG_SENTENCES, **(module.SENTENCES if module else {})}
        self._score = module.score if module else None
        self._action: Callable[[str, Any], str] | None = getattr(module, "action", None)
        self._summary: Summary | None = module.summary if module else None

    def sentence(self, type_: str, data: Mapping[str, Any], private: Any = None) -> str:
        """The event in words; ``private`` only when the reader may see it (None otherwise)."""
        told = self.sentences.get(type_)
        if told is None:
            return plain(type_, data, private)
        return told(data, private)

    def action(self, text: str, view: Mapping[str, Any] | None = None) -> str:
        """An action in words ("play the trickster"), read with the public view before it where its
        meaning depends on the kind of decision; the action itself where this game has no words."""
        return self._action(text, view) if self._action is not None else text

    def knows(self, type_: str) -> bool:
        return type_ in self.sentences

    def score(self, view: Mapping[str, Any] | None, seat: int) -> str:
        """The seat's score in words, or "" when this game has no words for it."""
        if self._score is None or view is None:
            return ""
        return self._score(view, seat)

    def summary(self, view: Mapping[str, Any], names: Sequence[str],
                own: Mapping[int, Mapping[str, Any]]) -> list[str] | None:
        """The table in a few lines a player would recognise, or None when this game has none.

        ``view`` is the table as the reader sees it (a spectator's view, or a seat's own),
        ``names`` each seat's label ("Red (random_bot)"), and ``own`` the own view of each seat
        whose hidden cards the reader may see (none for a spectator, every seat for the full
        view): a summary tells a hand only from ``own``, so it shows nothing the reader may not
        know.
        """
        if self._summary is None:
            return None
        return self._summary(view, names, own)


def plain(type_: str, data: Mapping[str, Any], private: Any = None) -> str:
    """An event no sentence knows: its type and data, seats by name ("piece moved: Red, to 3")."""
    parts = [seat_name(value) if key == "seat" else f"{key} {show_value(value)}" for key, value in data.items()]
    if isinstance(private, Mapping):
        parts += [f"{key} {show_value(value)}" for key, value in private.items()]
    return type_.replace("_", " ").capitalize() + (": " + ", ".join(parts) if parts else "")
