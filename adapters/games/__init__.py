"""Each game's RL encoding module, by game name: one module per game (adapters/games/<game>.py).

A game's module gives ``actions()`` (every action string its engine can return, in a fixed order),
``LAYOUT`` and ``fill(encoding, out, view)`` (its observation vector, adapters.encoding),
``MAX_CHANCE_OUTCOMES`` and ``MAX_LENGTH`` (the bounds OpenSpiel asks for). The three games' modules
are listed here; a game added at run time is added with ``register`` (docs/games/adding-a-game.md).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from adapters.encoding import ActionSpace, Encoding

MODULES: dict[str, str] = {
    "tails-on-fire": "adapters.games.tails_on_fire",
    "nine-tails": "adapters.games.nine_tails",
    "lemur-tails": "adapters.games.lemur_tails",
}

_extra: dict[str, ModuleType] = {}


def register(game: str, module: ModuleType) -> None:
    """Add the encoding module of a game registered at run time (engines.registry.register): its action
    space, observation encoding and OpenSpiel bounds join the three games' everywhere in adapters/."""
    _extra[game] = module
    _add(game, module)


def _add(game: str, module: ModuleType) -> None:
    SPACES[game] = ActionSpace(game, module.actions())
    ENCODINGS[game] = Encoding(game, module.LAYOUT, module.fill)


def names() -> list[str]:
    """Every game with an encoding, the three first."""
    return [*MODULES, *sorted(_extra)]


def module(game: str) -> ModuleType:
    """The encoding module of ``game`` (KeyError for a game with none)."""
    if game in _extra:
        return _extra[game]
    return importlib.import_module(MODULES[game])


SPACES: dict[str, ActionSpace] = {}
"""Each game's action space (adapters.actions.SPACES is this dict)."""
ENCODINGS: dict[str, Encoding] = {}
"""Each game's observation encoding (adapters.observations.ENCODINGS is this dict)."""
for _game in MODULES:
    _add(_game, module(_game))
