"""The play machinery's errors: each message is one clear line (imports nothing, so that any module of play/ can
raise them)."""

from __future__ import annotations


class TournamentError(ValueError):
    """A tournament that cannot run as asked; the message is one clear line."""


class ExecutorError(TournamentError):
    """An executor that cannot start (Ray missing, a cluster out of reach); one clear line. Defined here, not in
    tournaments.play.executors.choice, so that the Ray executor, which that module imports, needs nothing of it."""
