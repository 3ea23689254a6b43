"""The registry: game names ("tails-on-fire", ...) to engines, by rules version.

Each game module exposes ``ENGINE`` (its current rules) and may expose ``VERSIONS``,
a dict from every rules version it can still fold to the engine for it, so a log
written by an older engine version still verifies.
"""

from __future__ import annotations

import importlib

from engines.base import Engine, EngineError

GAME_MODULES: dict[str, str] = {
    "tails-on-fire": "engines.tails_on_fire",
    "nine-tails": "engines.nine_tails",
    "lemur-tails": "engines.lemur_tails",
}

_extra: dict[str, tuple[Engine, dict[int, Engine]]] = {}
"""Engines registered at run time: name -> (current engine, every rules version)."""


class UnknownGame(EngineError):
    """No engine is registered under that name (or not at that version)."""


def register(engine: Engine, *older: Engine) -> None:
    """Register an engine that is not one of the three games (tests, experiments).

    ``older`` are earlier rules versions of the same game that logs may still name.
    """
    _extra[engine.name] = (engine, {e.version: e for e in (*older, engine)})


def registered() -> list[Engine]:
    """The engines added with ``register`` (worker processes register them again)."""
    return [engine for current, versions in _extra.values() for engine in versions.values() if engine is current]


def names() -> list[str]:
    """The names of every game that can be played here, in a stable order."""
    out = [name for name in GAME_MODULES if _load(name) is not None]
    return out + sorted(_extra)


def get(name: str, version: int | None = None) -> Engine:
    """The engine for ``name`` at rules ``version`` (default: the current one)."""
    if name in _extra:
        current, versions = _extra[name]
    else:
        module = _load(name)
        if module is None:
            known = ", ".join(names()) or "none"
            raise UnknownGame(f"unknown game {name!r} (known games: {known})")
        current = module.ENGINE
        versions = getattr(module, "VERSIONS", {current.version: current})
    if version is None:
        return current
    if version in versions:
        return versions[version]
    known = ", ".join(str(v) for v in sorted(versions))
    if type(version) is int and version > max(versions):
        raise UnknownGame(f"{name} has no rules version {version}: it is newer than this tourney knows "
                          f"({known}); upgrade tourney")
    raise UnknownGame(f"{name} has no rules version {version} (known: {known})")


def _load(name: str):
    path = GAME_MODULES.get(name)
    if path is None:
        return None
    try:
        return importlib.import_module(path)
    except ModuleNotFoundError as missing:
        if missing.name != path:
            raise
        return None
