"""What the stored games of a tournament say, game by game: seats, bots, ranks, scores, forfeits.

Everything comes from each game's hashed events (replays.facts): ranks, scores and the end
reason from ``game_ended``, a forfeit from ``seat_forfeited`` (ruling ALL-5: which seat, and
why), the seats' bots from ``game_started``; the derived rows must agree with them, or the
read fails naming the game. So the standings, their forfeit counts and `tourney games` say
what `replay verify` checks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ledger.canonical import loads
from ledger.rows import game_rows, tournament_rows
from ledger.store import Ledger
from replays import facts
from replays.facts import Forfeit, Trust
from replays.record import SEAT_FORFEITED

__all__ = ["Checked", "Forfeit", "GameResult", "SeatResult", "by_key", "checked", "forfeit_counts", "forfeits_of",
           "of_games", "of_tournament"]


@dataclass(frozen=True, slots=True)
class SeatResult:
    seat: int
    bot: str
    rank: int | None
    score: int | None


@dataclass(frozen=True, slots=True)
class GameResult:
    key: str | None
    game_id: str
    end: str
    created_at: str
    seats: tuple[SeatResult, ...]
    forfeit: Forfeit | None

    @property
    def forfeited_by(self) -> str | None:
        return self.seats[self.forfeit.seat].bot if self.forfeit is not None else None

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key, "game_id": self.game_id, "end": self.end, "created_at": self.created_at,
            "seats": [{"seat": s.seat, "bot": s.bot, "rank": s.rank, "score": s.score} for s in self.seats],
            "forfeit": None if self.forfeit is None else {"seat": self.forfeit.seat, "bot": self.forfeited_by,
                                                          "reason": self.forfeit.reason},
        }


@dataclass(frozen=True, slots=True)
class Checked:
    """A tournament's finished games in key order, and who vouches for them."""

    games: list[GameResult]
    trust: Trust


def checked(ledger: Ledger, tournament_id: int) -> Checked:
    """Every finished game of a tournament, in key order, read from its hashed events (facts.Tampered if a
    derived row disagrees with them)."""
    row = tournament_rows.get(ledger, str(tournament_id))
    reading = facts.read(ledger, tournament_rows.scope(row))
    games = [
        GameResult(fact.key, fact.game_id, fact.reason, fact.created_at,
                   tuple(SeatResult(s.seat, s.bot, s.rank, s.score) for s in fact.seats), fact.forfeit)
        for fact in sorted(reading.facts, key=lambda fact: (fact.key or "", fact.game_id))
    ]
    return Checked(games, reading.trust)


def by_key(ledger: Ledger, tournament_id: int) -> dict[str, list[tuple[str, int]]]:
    """Every finished game of a tournament by its key: [(bot name, rank) per seat] (what a Swiss draw and a
    match's stopping rule read), from the hashed events."""
    return {game.key: [(seat.bot, seat.rank) for seat in game.seats] for game in of_tournament(ledger, tournament_id)}


def of_tournament(ledger: Ledger, tournament_id: int) -> list[GameResult]:
    """Every finished game of a tournament, in key order."""
    return checked(ledger, tournament_id).games


def of_games(ledger: Ledger, game_ids: Sequence[str]) -> list[GameResult]:
    """The stored games of ``game_ids`` (one page of a ladder's, a tournament's or a bot's games), in that
    order: what the web's lists show (the tournament pages' standings come from ``checked``)."""
    forfeits = forfeits_of(game_rows.event_bodies(ledger, game_ids, SEAT_FORFEITED))
    games: dict[str, list[dict[str, Any]]] = {}
    for row in game_rows.seats(ledger, game_ids):
        games.setdefault(row["game_id"], []).append(row)
    return [
        GameResult(seats[0]["key"], game_id, seats[0]["end_reason"], seats[0]["created_at"],
                   tuple(SeatResult(s["seat"], s["bot"], s["rank"], s["score"]) for s in seats), forfeits.get(game_id))
        for game_id, seats in games.items()
    ]


def forfeits_of(bodies: Iterable[tuple[str, bytes]]) -> dict[str, Forfeit]:
    """Game id -> its forfeit, from the hashed bodies of ``seat_forfeited`` events."""
    out = {}
    for game_id, body in bodies:
        data = loads(body)["data"]
        out[game_id] = Forfeit(int(data["seat"]), str(data["reason"]))
    return out


def forfeit_counts(games: Iterable[GameResult]) -> dict[str, int]:
    """Bot -> games it forfeited."""
    out: dict[str, int] = {}
    for game in games:
        if game.forfeit is not None:
            out[game.forfeited_by] = out.get(game.forfeited_by, 0) + 1
    return out
