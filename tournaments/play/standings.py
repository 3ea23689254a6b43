"""Standings of a tournament, computed from the ledger alone."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from ledger import tournaments as tournament_rows
from ledger.canonical import loads
from ledger.store import Ledger
from replays.facts import Trust
from tournaments.play import results
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
    forfeits: int = 0
    bot_id: int | None = None
    """The bot's id in the ledger: the short id tables show, which commands take for its name."""


@dataclass(frozen=True, slots=True)
class Standings:
    tournament: str
    game: str
    games: int
    rows: list[Row]
    los: dict[str, dict[str, float | None]]
    head_to_head: dict[str, dict[str, tuple[int, int, int]]]
    """Row bot -> column bot -> (wins, draws, losses) of the row bot, counted per pair of seats."""
    sandboxed: bool = False
    """Whether the bots played in the sandbox (docs/security.md)."""
    trust: Trust = field(default_factory=Trust)
    """Who vouches for the games: the ledger key, by checkpoint (its fingerprint) or one by one."""
    seed: dict[str, Any] = field(default_factory=dict)
    """The tournament's seed as it may be shown (``seed_of``)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "tournament": self.tournament,
            "game": self.game,
            "games": self.games,
            "sandboxed": self.sandboxed,
            "standings": [
                {**asdict(row), "mean_place": round(row.mean_place, 3), "score": round(row.score, 2),
                 "elo": round(row.elo, 1), "ci_low": round(row.ci_low, 1), "ci_high": round(row.ci_high, 1)}
                for row in self.rows
            ],
            "los": {a: {b: None if v is None else round(v, 4) for b, v in row.items()} for a, row in self.los.items()},
            "head_to_head": {a: {b: {"wins": w, "draws": d, "losses": lost} for b, (w, d, lost) in row.items()}
                             for a, row in self.head_to_head.items()},
            "integrity": self.trust.to_json(),
            "seed": self.seed,
        }


def compute(name: str, game: str, games: list[list[tuple[str, int]]], forfeits: dict[str, int] | None = None,
            sandboxed: bool = False) -> Standings:
    """Standings from results: Elo (joint MLE) with bootstrap 95% CI, ordered best first."""
    summary = ratings.summary(games)
    elo = ratings.mle_elo(games)
    ci = ratings.bootstrap_ci(games)
    forfeits = forfeits or {}
    order = sorted(summary, key=lambda bot: (-elo[bot], bot))
    rows = []
    for position, bot in enumerate(order, start=1):
        s = summary[bot]
        low, high = ci.get(bot, (elo[bot], elo[bot]))
        rows.append(Row(position, bot, int(s["games"]), int(s["first"]), s["mean_place"], s["score"], elo[bot],
                        low, high, forfeits.get(bot, 0)))
    pairs = ratings.head_to_head(games)
    table = {a: {b: pairs[(a, b)] for b in order if (a, b) in pairs} for a in order}
    return Standings(name, game, len(games), rows, ratings.los_matrix(games), table, sandboxed)


def of_tournament(ledger: Ledger, ref: str) -> Standings:
    """The standings of a stored tournament (by id or name)."""
    row = tournament_rows.get(ledger, ref)
    checked = results.checked(ledger, row["id"])
    games = [[(seat.bot, seat.rank) for seat in game.seats] for game in checked.games]
    sandboxed = bool(loads(row["spec"]).get("sandbox", False))  # specs stored before the sandbox: without
    found = compute(row["name"], row["game"], games, results.forfeit_counts(checked.games), sandboxed)
    ids = tournament_rows.entrants(ledger, row["id"])
    return replace(found, rows=[replace(r, bot_id=ids.get(r.bot)) for r in found.rows], trust=checked.trust,
                   seed=seed_of(row))


def seed_of(row: dict[str, Any]) -> dict[str, Any]:
    """A tournament's seed as it may be shown: origin, commitment, and the seed once it may be known."""
    committed = tournament_rows.committed(row)
    return {"origin": None if committed is None else committed.origin,
            "commitment": None if committed is None else committed.commitment,
            "seed": tournament_rows.revealed(row)}
