"""A tournament's name: given, or made from its folder, game, format and seed (a drawn seed's commitment)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ledger.store import Ledger
from tournaments.play import seeding

Namer = Callable[[str], str]
"""A default tournament name from its last part: ``seed<S>`` for a chosen seed, the commitment's
first 8 digits for a drawn one (whose name cannot be known before it is drawn)."""


def default_namer(folder: str | Path, game: str, form: str | None = None) -> Namer:
    """``<folder>-<game>[-<format>]-<last part>``."""
    middle = f"-{form}" if form else ""
    return lambda last: f"{Path(folder).resolve().name}-{game}{middle}-{last}"


def known_name(ledger: Ledger, name: str | None, seed: str | None, resume: bool, namer: Namer, game: str,
               form: str | None = None) -> str | None:
    """The tournament's name before its bots start: ``name``, else ``namer``'s for a chosen seed, else (a resume)
    the newest tournament named by default for this game and format (by name; None: round robin); None for a
    new tournament whose seed is still to be drawn, or a resume that finds nothing."""
    if name is not None:
        return name
    if seed is not None:
        return namer(seeding.label(seed, None))
    existing = seeding.resumable(ledger, namer(""), game, form) if resume else None
    return None if existing is None else existing["name"]
