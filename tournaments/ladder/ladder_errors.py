"""Ladder errors: the refusals a ladder request ends in, each one clear line (the CLI prints it, the web too)."""

from __future__ import annotations

from tournaments.bots.diagnosis import Diagnosis


class LadderError(ValueError):
    """A ladder request that cannot be done; the message is one clear line."""


class Unavailable(LadderError):
    """This machine cannot run a ladder's bots now (no working sandbox): its fault, never a bot's."""


class Refused(LadderError):
    """A submission that forfeited a validation game: the one line, and what its bot left behind (its
    traceback or last stderr lines: tournaments.bots.diagnosis), which only its owner reads."""

    def __init__(self, message: str, told: Diagnosis | None = None) -> None:
        super().__init__(message)
        self.diagnosis = told
