"""A job (one scheduled game, all a worker needs to play it) and its result (the sealed game, back to the parent)."""

from __future__ import annotations

from dataclasses import dataclass

from replays.record import Recorded
from tournaments.bots import diagnosis
from tournaments.play.schedule import Scheduled
from tournaments.play.tournament_spec import Spec


@dataclass(frozen=True, slots=True)
class Job:
    """One scheduled game, with all a worker needs to play it (picklable)."""

    spec: Spec
    scheduled: Scheduled
    keep_logs: bool = False
    """Whether the game's bot processes' stderr comes back with its result (``--bot-logs``)."""


@dataclass(frozen=True, slots=True)
class Result:
    key: str
    recorded: Recorded
    scores: list[int] | None
    logs: tuple[bytes | None, ...] | None = None
    """Per seat, the end of its bot process's stderr (None: not a process), when the job kept logs."""
    diagnosis: diagnosis.Diagnosis | None = None
    """Why the forfeiting seat's bot failed, in its own terms (tournaments.bots.diagnosis), if it left a trace."""

    def bots(self) -> list[str]:
        return [seat.name for seat in self.recorded.seats]

    def ranked(self) -> list[tuple[str, int]]:
        """(bot, rank) by seat: the game's result as the read models keep it (ledger.read_pages)."""
        return [(seat.name, rank) for seat, rank in zip(self.recorded.seats, self.recorded.ranking, strict=True)]
