"""A tournament's name: given, or made from its folder, game, format and seed (a drawn seed's commitment)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from ledger.store import Ledger
from tournaments.play import seeding
from tournaments.play.play_errors import TournamentError

SHORT_ID = re.compile(r"[Ll]?[0-9]+")
"""The shape of the short ids `tourney list` prints (a tournament's ``3``, a ladder's ``L1``), which every command
that takes a tournament or a ladder takes too: no new tournament or ladder is named so (tournaments.ladder.league
checks a ladder's name with it)."""

Namer = Callable[[str], str]
"""A default tournament name from its last part: ``seed<S>`` for a chosen seed, the commitment's
first 8 digits for a drawn one (whose name cannot be known before it is drawn)."""


def default_namer(folder: str | Path, game: str, form: str | None = None) -> Namer:
    """``<folder>-<game>[-<format>]-<last part>``, each character that is not printable (a folder's or a seed's
    ESC or newline) as ``_``: a name is one line of printable text, as ``check_new_name`` holds a given one to."""
    middle = f"-{form}" if form else ""
    return lambda last: printable(f"{Path(folder).resolve().name}-{game}{middle}-{last}")


def printable(name: str) -> str:
    return "".join(character if character.isprintable() else "_" for character in name)


def known_name(ledger: Ledger, name: str | None, seed: str | None, resume: bool, namer: Namer, game: str,
               form: str | None = None) -> str | None:
    """The tournament's name before its bots start: ``name``, else ``namer``'s for a chosen seed, else (a resume)
    the newest tournament named by default for this game and format (by name; None: round robin); None for a
    new tournament whose seed is still to be drawn, or a resume that finds nothing; TournamentError for an empty name
    or seed (not read as none: an empty seed would name a tournament ``...-seed`` and play a seed everyone knows)."""
    for value, flag in ((name, "--name"), (seed, "--seed")):
        if value is not None and not value.strip():
            raise TournamentError(f"{flag} is empty: give a value, or leave {flag} out for its default")
    if name is not None and not resume:
        check_new_name(name)
    if name is not None:
        return name
    if seed is not None:
        return namer(seeding.label(seed, None))
    existing = seeding.resumable(ledger, namer(""), game, form) if resume else None
    return None if existing is None else existing["name"]


def check_new_name(name: str, flag: str = "--name") -> str:
    """A new tournament's (or match's) name, given with ``flag``: TournamentError if it is not one line of printable
    text (ESC, a newline or a NUL would be stored as given and shown differently by every list and page), or if it has
    the shape of a short id, which every command that takes a tournament reads as its id (`run --name 1` would find
    tournament 1). Older ones keep their names."""
    unprintable = next((character for character in name if not character.isprintable()), None)
    if unprintable is not None:
        raise TournamentError(f"{flag} {name!r} holds {unprintable!r}: a name is one line of printable text")
    if SHORT_ID.fullmatch(name):
        raise TournamentError(f"{flag} {name!r} reads as a short id (`tourney list` prints a tournament's as 3, a "
                              "ladder's as L1): pick another name")
    return name
