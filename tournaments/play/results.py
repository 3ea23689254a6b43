"""What the stored games of a tournament say, game by game: seats, bots, ranks, scores, forfeits.

A forfeit is read from the game's own hashed ``seat_forfeited`` event (ruling ALL-5: which seat,
and why), never from a derived column, so the standings' forfeit counts and `tourney games`
agree with what `replay verify` checks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ledger import tournaments as tournament_rows
from ledger.canonical import loads
from ledger.store import Ledger
from replays.record import SEAT_FORFEITED


@dataclass(frozen=True, slots=True)
class Forfeit:
    seat: int
    reason: str


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


def forfeits_of(bodies: Iterable[tuple[str, bytes]]) -> dict[str, Forfeit]:
    """Game id -> its forfeit, from the hashed bodies of ``seat_forfeited`` events."""
    out = {}
    for game_id, body in bodies:
        data = loads(body)["data"]
        out[game_id] = Forfeit(int(data["seat"]), str(data["reason"]))
    return out


def of_tournament(ledger: Ledger, tournament_id: int) -> list[GameResult]:
    """Every stored game of a tournament, in key order."""
    forfeits = forfeits_of(tournament_rows.event_bodies(ledger, tournament_id, SEAT_FORFEITED))
    games: dict[str, list[dict[str, Any]]] = {}
    for row in tournament_rows.game_seats(ledger, tournament_id):
        games.setdefault(row["game_id"], []).append(row)
    return [
        GameResult(seats[0]["key"], game_id, seats[0]["end_reason"], seats[0]["created_at"],
                   tuple(SeatResult(s["seat"], s["bot"], s["rank"], s["score"]) for s in seats), forfeits.get(game_id))
        for game_id, seats in games.items()
    ]


def forfeit_counts(games: Iterable[GameResult]) -> dict[str, int]:
    """Bot -> games it forfeited."""
    out: dict[str, int] = {}
    for game in games:
        if game.forfeit is not None:
            out[game.forfeited_by] = out.get(game.forfeited_by, 0) + 1
    return out
