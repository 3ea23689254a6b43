"""A fourth game defined only in tests (Tiny Tails): its engine, narration and encoding, and the one
call that registers it everywhere a game has a place (docs/games/adding-a-game.md, "Registering")."""

from __future__ import annotations

from tests.fourth_game import encoding, narration
from tests.fourth_game.engine import ENGINE, NAME


def register() -> None:
    """Register Tiny Tails with the engines, the replay narration and the RL adapters (and OpenSpiel)."""
    from adapters import games
    from engines import registry
    from replays import narration as narrations

    registry.register(ENGINE)
    narrations.register(NAME, narration)
    games.register(NAME, encoding)
    try:
        from adapters import openspiel
    except ImportError:  # OpenSpiel is optional (the rl extra)
        return
    openspiel.register(NAME, game_class())


def game_class() -> type:
    """The pyspiel.Game class of Tiny Tails (OpenSpiel makes games from a class)."""
    from adapters.openspiel import TourneyGame

    class TinyTailsGame(TourneyGame):
        def __init__(self, params: dict | None = None) -> None:
            super().__init__(NAME, params)

    return TinyTailsGame


__all__ = ["ENGINE", "NAME", "register"]
