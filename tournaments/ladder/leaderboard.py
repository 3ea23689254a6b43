"""Standings: a ladder's leaderboard from its ratings and read models, with ranks held at 95% and divisions.

No game is read for the standings (`tourney db audit` checks them against the games' hashed results); with
``check`` they are read and held against the fold first (tournaments.ladder.rated_games). ``candidates`` are
the active entries as matchmaking weighs them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ledger import read_models, read_pages
from ledger.rows import ladder_rows
from ledger.store import Ledger
from replays import facts, projections
from tournaments.ladder import divisions, matchmaking, membership
from tournaments.ladder.ladder_errors import LadderError
from tournaments.ladder.rated_games import checked_fold
from tournaments.ladder.rating_models import MODELS, OPENSKILL, leaderboard_rating, model
from tournaments.ratings import elo, openskill, ranks


def candidates(ledger: Ledger, ladder: dict[str, Any], active: list[dict[str, Any]]) -> list[matchmaking.Candidate]:
    """The active entries as matchmaking weighs them: rating, games, the rating's uncertainty, and on a ladder
    with divisions each one's division."""
    if model(ladder) is MODELS[OPENSKILL]:  # sigma is the uncertainty itself
        found = [matchmaking.Candidate(entry["name"], entry["rating"], entry["games"], entry["sigma"])
                 for entry in active]
    else:
        current = {entry["name"]: entry["rating"] for entry in active}
        names = {entry["id"]: entry["name"] for entry in active}
        se = matchmaking.uncertainties_of_pairs(current, met(ledger, ladder, names))
        found = [matchmaking.Candidate(entry["name"], entry["rating"], entry["games"], se[entry["name"]])
                 for entry in active]
    if not divisions.names_of(ladder):
        return found
    with ledger.read() as connection:
        placed = membership.stored(connection, ladder)
    return [dataclasses.replace(candidate, division=placed.of(entry["id"]))
            for candidate, entry in zip(found, active, strict=True)]


def met(ledger: Ledger, ladder: dict[str, Any], labels: dict[int, str],
        pairs: dict[tuple[int, int], tuple[int, int, int]] | None = None) -> dict[tuple[str, str], int]:
    """How many pairwise results each ordered pair of the labelled entries has in rated games, by label (from
    the read models, ``pairs`` if already read: no game is read)."""
    if pairs is None:
        with ledger.read() as connection:
            _records, pairs = read_models.ladder(connection, ladder["id"])
    out: dict[tuple[str, str], int] = {}
    for (entry, opponent), counts in pairs.items():
        if entry in labels and opponent in labels:
            key = (labels[entry], labels[opponent])
            out[key] = out.get(key, 0) + sum(counts)
    return out


@dataclass(frozen=True, slots=True)
class Standing:
    rank: int
    name: str
    version: int
    rating: float
    """Elo, or OpenSkill's leaderboard value mu - 3 sigma."""
    margin: float
    """The 95% margin: 1.96 SE for Elo, 1.96 sigma (of mu) for OpenSkill."""
    games: int
    provisional: bool
    status: str
    forfeits: int = 0
    mu: float | None = None
    sigma: float | None = None
    rank_low: int = 0
    """The best and worst rank it holds with 95% confidence (tournaments.ratings.ranks)."""
    rank_high: int = 0
    tied: bool = False
    """Statistically tied with the row above it."""
    division: str | None = None
    """Its division, on a ladder with divisions (tournaments.ladder.divisions)."""
    boss: bool = False
    """It guards its division: to leave it upwards a bot must pass it."""


def standings(ledger: Ledger, ladder_name: str, include_retired: bool = False,
              read: tuple[dict[int, dict[str, Any]], dict[tuple[int, int], tuple[int, int, int]] | None] | None = None
              ) -> list[Standing]:
    """The ladder's standings, from its ratings and read models (``read``: its records and pairs, if already
    read; pairs None: an Elo ladder's margins from each entry's information added up in the database, without
    reading a pair): no game is read (`tourney db audit` checks them against the games' hashed results)."""
    ladder = ladder_rows.get(ledger, ladder_name)
    listed = ordered(ladder_rows.entries(ledger, ladder["id"], active_only=not include_retired))
    if read is None:
        with ledger.read() as connection:
            read = read_models.ladder(connection, ladder["id"])
    return placed(ledger, ladder, _standings(ledger, ladder, listed, read, include_retired),
                  {(entry["name"], entry["version"]): entry["id"] for entry in listed})


def order(ledger: Ledger, ladder_name: str, include_retired: bool = False) -> list[dict[str, Any]]:
    """The ladder's entries (ladder_rows.entries' rows) in its leaderboard's order, without the standings' margins
    and rank ranges: what ranks a page's chart and head-to-head."""
    ladder = ladder_rows.get(ledger, ladder_name)
    return ordered(ladder_rows.entries(ledger, ladder["id"], active_only=not include_retired))


def ordered(listed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Entries (or entries as of a game: ``rating`` and ``sigma`` each) in the leaderboard's order: by the value it
    shows (leaderboard_rating: Elo, or OpenSkill's mu - 3 sigma), then name and version."""
    return sorted(listed, key=lambda e: (-leaderboard_rating(e), e["name"], e["version"]))


def placed(ledger: Ledger, ladder: dict[str, Any], shown: list[Standing], ids: dict[tuple[str, int], int]
           ) -> list[Standing]:
    """``shown`` with each row's division and boss mark as the ladder's stored membership has them now (``ids``:
    each row's entry id by name and version); unchanged on a ladder without divisions."""
    names = divisions.names_of(ladder)
    if not names:
        return shown
    with ledger.read() as connection:
        members = membership.stored(connection, ladder)
    bosses = set(members.boss_of.values())
    return [dataclasses.replace(s, division=names[members.of(ids[(s.name, s.version)])],
                                boss=ids[(s.name, s.version)] in bosses) for s in shown]


def _standings(ledger: Ledger, ladder: dict[str, Any], listed: list[dict[str, Any]],
               read: tuple[dict[int, dict[str, Any]], dict[tuple[int, int], tuple[int, int, int]] | None],
               include_retired: bool) -> list[Standing]:
    records, pairs = read
    forfeits = {entry: record["forfeits"] for entry, record in records.items()}
    if model(ladder) is MODELS[OPENSKILL]:
        return _ranged([
            Standing(position, e["name"], e["version"], openskill.Skill(e["rating"], e["sigma"]).ordinal,
                     1.96 * e["sigma"], e["games"], e["games"] < matchmaking.PROVISIONAL_GAMES, e["status"],
                     forfeits.get(e["id"], 0), e["rating"], e["sigma"])
            for position, e in enumerate(listed, start=1)
        ])
    labels = {entry["id"]: _label(entry, include_retired) for entry in listed}
    if pairs is None:  # the information added up in the database: one row per entry, whatever the pairs
        with ledger.read() as connection:
            information = read_pages.ladder_information(connection, ladder["id"], list(labels), elo.SCALE)
        se = {labels[entry]: matchmaking.standard_error(matchmaking.PRIOR_INFORMATION + information.get(entry, 0.0))
              for entry in labels}
    else:
        se = matchmaking.uncertainties_of_pairs({labels[e["id"]]: e["rating"] for e in listed},
                                                met(ledger, ladder, labels, pairs))
    return _ranged([
        Standing(position, entry["name"], entry["version"], entry["rating"], 1.96 * se[labels[entry["id"]]],
                 entry["games"], entry["games"] < matchmaking.PROVISIONAL_GAMES, entry["status"],
                 forfeits.get(entry["id"], 0))
        for position, entry in enumerate(listed, start=1)
    ])


def _ranged(rows_: list[Standing]) -> list[Standing]:
    """The standings with the ranks each holds with 95% confidence and its ties: from Elo's rating and standard
    error, or OpenSkill's mu and sigma (the skill itself, which mu - 3 sigma only ranks conservatively)."""
    estimates = [(s.rating, s.margin / 1.96) if s.mu is None else (s.mu, s.sigma or 0.0) for s in rows_]
    return [dataclasses.replace(s, rank_low=r.low, rank_high=r.high, tied=r.tied_above)
            for s, r in zip(rows_, ranks.rank_ranges(estimates), strict=True)]


def checked_standings(ledger: Ledger, ladder_name: str, include_retired: bool = False, check: bool = False
                      ) -> tuple[list[Standing], facts.Trust]:
    """The ladder's standings, and who vouches for its games (the ledger key, by checkpoint: facts.trust).

    With ``check``, every game's result is read from its hashed events, and the ratings and the read
    models must be what they fold and add up to (facts.Tampered naming the first that is not): it reads
    every game, a page at a time (rated_games.checked_fold), and holds a page, the sums and the ratings."""
    ladder = ladder_rows.get(ledger, ladder_name)
    with ledger.read() as connection:
        if check:
            trust = facts.Trust()
            sums = projections.LadderSums(connection, ladder["id"])
            checked_fold(ledger, ladder, connection, trust=trust, read=sums.add)
            sums.check()
        else:
            trust = facts.trust(ledger, ladder_rows.scope(ladder), connection)
    return standings(ledger, ladder_name, include_retired), trust


def _label(entry: dict[str, Any], versions: bool) -> str:
    return f"{entry['name']} v{entry['version']}" if versions else entry["name"]


def history(ledger: Ledger, ladder_name: str, bot: str) -> list[dict[str, Any]]:
    """Every rating a bot had (all versions), game by game, each with the game's number on the ladder."""
    ladder = ladder_rows.get(ledger, ladder_name)
    found = [e for e in ladder_rows.entries(ledger, ladder["id"], active_only=False) if e["name"] == bot]
    if not found:
        raise LadderError(f"no bot {bot!r} on ladder {ladder_name!r}")
    out = []
    with ledger.read() as connection:
        read_models.require_current(connection)
        for entry in sorted(found, key=lambda e: e["version"]):
            out += [{"version": entry["version"], **row}
                    for row in read_pages.ladder_history(connection, entry["id"])]
    return out
