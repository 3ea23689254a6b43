"""Standings of a tournament, computed from the ledger alone."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ledger import tournaments as tournament_rows
from ledger.store import Ledger
from tournaments.ratings import elo as ratings


@dataclass(frozen=True, slots=True)
class Row:
    rank: int
    bot: str
    games: int
    first: int
    mean_place: float
    score: float
    elo: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True, slots=True)
class Standings:
    tournament: str
    game: str
    games: int
    rows: list[Row]
    los: dict[str, dict[str, float | None]]

    def to_json(self) -> dict[str, Any]:
        return {
            "tournament": self.tournament,
            "game": self.game,
            "games": self.games,
            "standings": [
                {**asdict(row), "mean_place": round(row.mean_place, 3), "score": round(row.score, 2),
                 "elo": round(row.elo, 1), "ci_low": round(row.ci_low, 1), "ci_high": round(row.ci_high, 1)}
                for row in self.rows
            ],
            "los": {a: {b: None if v is None else round(v, 4) for b, v in row.items()} for a, row in self.los.items()},
        }


def compute(name: str, game: str, games: list[list[tuple[str, int]]]) -> Standings:
    """Standings from results: Elo (joint MLE) with bootstrap 95% CI, ordered best first."""
    summary = ratings.summary(games)
    elo = ratings.mle_elo(games)
    ci = ratings.bootstrap_ci(games)
    order = sorted(summary, key=lambda bot: (-elo[bot], bot))
    rows = []
    for position, bot in enumerate(order, start=1):
        s = summary[bot]
        low, high = ci.get(bot, (elo[bot], elo[bot]))
        rows.append(Row(position, bot, int(s["games"]), int(s["first"]), s["mean_place"], s["score"], elo[bot],
                        low, high))
    return Standings(name, game, len(games), rows, ratings.los_matrix(games))


def of_tournament(ledger: Ledger, ref: str) -> Standings:
    """The standings of a stored tournament (by id or name)."""
    row = tournament_rows.get(ledger, ref)
    return compute(row["name"], row["game"], tournament_rows.results(ledger, row["id"]))
