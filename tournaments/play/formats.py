"""Tournament formats: which tables play, and in what stages (docs/tournaments.md).

* ``round-robin`` (the default): every table of k bots, one stage.
* ``gauntlet``: the candidate at every table of k - 1 of the others, one stage.
* ``swiss``: R rounds; each round's tables are drawn from the results of the rounds
  before it (bots of similar score together, no two bots meeting again where that can be
  avoided), so the runner plays one round at a time.

In every format each table plays ``games`` deals, each deal once from every cyclic
rotation of its seats with one seed (ALL-1), and every stage is a pure function of the
stored results and the tournament seed: a resumed tournament draws the same tables.

A plan's ``next_stage(stored)`` returns the games of the first stage that is not fully
stored, or None once the tournament is over (``stored`` maps a game key to its seats' (bot, rank)
in seat order). The runner and the audit walk a plan a page at a time instead
(tournaments.play.plan_pages.stages): a one-stage plan is kept as its ``schedule.Stage``, never listed.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Protocol

from tournaments.play.schedule import Combinations, Scheduled, ScheduleError, Stage, table_games

ROUND_ROBIN = "round-robin"
GAUNTLET = "gauntlet"
SWISS = "swiss"
FORMATS = (ROUND_ROBIN, GAUNTLET, SWISS)
SEARCH_BUDGET = 20_000
"""Tables the Swiss pairing may try while looking for a draw with no repeated meeting."""

Stored = Mapping[str, Sequence[tuple[str, int]]]


class Plan(Protocol):
    total: int | None
    """Games the tournament will have played when over (None: not known in advance)."""

    def next_stage(self, stored: Stored) -> list[Scheduled] | None: ...


class Entrants(Protocol):
    """What a format needs of a tournament's spec (tournaments.play.runner.Spec)."""

    players: int
    games: int
    seed: str
    deals: Sequence[str] | None
    """A deal book's seeds (deal d of every table is the d-th), or None: deals from the seed."""

    @property
    def bot_names(self) -> list[str]: ...


def game_score(seats: Sequence[tuple[str, int]]) -> dict[str, float]:
    """Each seat's score in one game: its pairwise results (win 1, tie 1/2, loss 0) over the
    others, divided by their number, so in [0, 1]."""
    others = len(seats) - 1
    out: dict[str, float] = {}
    for bot, rank in seats:
        points = sum(1.0 if rank < other else 0.5 if rank == other else 0.0 for _, other in seats)
        out[bot] = out.get(bot, 0.0) + (points - 0.5) / others  # the seat's tie with itself is not a result
    return out


@dataclass(frozen=True, slots=True)
class OneStage:
    """A plan of one stage (a round robin's, a gauntlet's), kept as the numbers that make its games
    (schedule.Stage): its games are made as they are walked, never listed by the plan."""

    stage: Stage
    seed: str
    total: int

    def next_stage(self, stored: Stored) -> list[Scheduled] | None:
        games = list(self.stage.games(self.seed))
        return None if all(g.key in stored for g in games) else games


def _one_stage(members: Combinations, spec: Entrants) -> OneStage:
    """The one stage every table of ``members`` makes, checked as ``schedule.table_games`` would check it as it
    lists the games (a deal book without the deals asked for), before any game is made."""
    book = None if spec.deals is None else tuple(spec.deals)
    if book is not None and members.count and spec.games > len(book):
        table_games(0, members(0) or (), (len(book),), spec.seed, book=book)  # raises: no such deal
    return OneStage(Stage("", range(spec.games), members, None, book), spec.seed,
                    members.count * spec.games * (members.k + len(members.head)))


@dataclass(frozen=True, slots=True)
class RoundRobin:
    """Every table of k bots (the default format; its spec stays as it always was)."""

    name = ROUND_ROBIN

    def to_json(self) -> dict[str, Any] | None:
        return None

    def plan(self, spec: Entrants) -> OneStage:
        # schedule.schedule's checks, in its order, without its list of every game.
        if spec.games < 1:
            raise ScheduleError(f"--games must be at least 1, not {spec.games}")
        if len(set(spec.bot_names)) != len(spec.bot_names):
            raise ScheduleError("two bots share a name; rename one")
        return _one_stage(Combinations(tuple(sorted(spec.bot_names)), spec.players), spec)

    def counted(self, spec: Entrants) -> int:
        """The games ``plan`` schedules, by arithmetic: every table of k, each deal from every seat."""
        return math.comb(len(spec.bot_names), spec.players) * spec.games * spec.players


@dataclass(frozen=True, slots=True)
class Gauntlet:
    """The candidate at every table of k - 1 of the other bots."""

    candidate: str
    name = GAUNTLET

    def to_json(self) -> dict[str, Any]:
        return {"name": GAUNTLET, "candidate": self.candidate}

    def plan(self, spec: Entrants) -> OneStage:
        names = _checked(spec)
        if self.candidate not in names:
            raise ScheduleError(f"the gauntlet's candidate {self.candidate!r} is not among the bots "
                                f"({', '.join(sorted(names))})")
        others = tuple(sorted(n for n in names if n != self.candidate))
        return _one_stage(Combinations(others, spec.players - 1, (self.candidate,)), spec)

    def counted(self, spec: Entrants) -> int:
        """The games ``plan`` schedules, by arithmetic: the candidate with every k - 1 of the others."""
        return math.comb(len(spec.bot_names) - 1, spec.players - 1) * spec.games * spec.players


@dataclass(frozen=True, slots=True)
class Swiss:
    """R rounds, each drawn from the standings after the rounds before it."""

    rounds: int
    name = SWISS

    def to_json(self) -> dict[str, Any]:
        return {"name": SWISS, "rounds": self.rounds}

    def plan(self, spec: Entrants) -> Plan:
        names = _checked(spec)
        if self.rounds < 1:
            raise ScheduleError(f"--rounds must be at least 1, not {self.rounds}")
        return SwissPlan(tuple(sorted(names)), spec.players, spec.games, spec.seed, self.rounds,
                         None if spec.deals is None else tuple(spec.deals))

    def counted(self, spec: Entrants) -> int:
        """The games ``plan`` schedules (SwissPlan.total), without drawing a round."""
        return self.rounds * (len(spec.bot_names) // spec.players) * spec.games * spec.players


def _checked(spec: Entrants) -> list[str]:
    names = spec.bot_names
    if len(set(names)) != len(names):
        raise ScheduleError("two bots share a name; rename one")
    if spec.games < 1:
        raise ScheduleError(f"--games must be at least 1, not {spec.games}")
    return names


def default_rounds(bots: int, players: int) -> int:
    """Enough rounds for one bot to stand alone at the top by score: ceil(log_k(bots)), at least 1."""
    return max(1, math.ceil(math.log(bots) / math.log(players) - 1e-9)) if bots > 1 else 1


def of_json(data: Mapping[str, Any] | None) -> RoundRobin | Gauntlet | Swiss:
    """The format a stored spec names (absent: round robin, as every spec before formats)."""
    if not data:
        return RoundRobin()
    if data["name"] == GAUNTLET:
        return Gauntlet(data["candidate"])
    if data["name"] == SWISS:
        return Swiss(int(data["rounds"]))
    raise ScheduleError(f"unknown tournament format {data['name']!r}")


# -- Swiss -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Standing:
    """A bot's Swiss standing: score (game scores plus byes), Buchholz, and its seeded lot."""

    bot: str
    score: float
    buchholz: float
    lot: str
    byes: int


@dataclass(frozen=True, slots=True)
class Round:
    number: int
    tables: list[tuple[str, ...]]
    byes: list[str]
    games: list[Scheduled]


@dataclass(frozen=True, slots=True)
class SwissPlan:
    bots: tuple[str, ...]
    players: int
    games: int
    seed: str
    rounds: int
    book: tuple[str, ...] | None = None
    """A deal book: every round's tables play its deals (else each round's own, from the seed)."""

    @property
    def total(self) -> int:
        return self.rounds * (len(self.bots) // self.players) * self.games * self.players

    def next_stage(self, stored: Stored) -> list[Scheduled] | None:
        played: list[Round] = []
        for number in range(1, self.rounds + 1):
            drawn = self.draw(number, played, stored)
            if not all(g.key in stored for g in drawn.games):
                return drawn.games
            played.append(drawn)
        return None

    def draw(self, number: int, played: list[Round], stored: Stored, score: Mapping[str, float] | None = None,
             listed: bool = True) -> Round:
        """Round ``number``'s tables and byes from the rounds before it (``score``: see ``standings``); its games
        listed too unless ``listed`` is False (a walk a page at a time makes them from the tables)."""
        ranked = standings(self.bots, played, stored, self.seed, self.games * self.players, score)
        order = [s.bot for s in ranked]
        byes_so_far = {s.bot: s.byes for s in ranked}
        spare = len(order) % self.players
        # The bye goes to the lowest-ranked bots among those with the fewest byes so far.
        byes = sorted(order, key=lambda bot: (byes_so_far[bot], -order.index(bot)))[:spare]
        playing = [bot for bot in order if bot not in byes]
        met = {frozenset(pair) for r in played for table in r.tables for pair in combinations(table, 2)}
        tables = pair(playing, self.players, met)
        games: list[Scheduled] = []
        for index, members in enumerate(tables if listed else ()):
            games += table_games(index, members, range(self.games), self.seed, prefix=f"s{number}-",
                                 deal_group=f"s{number}", book=self.book)
        return Round(number, tables, byes, games)


def scores(bots: Sequence[str], played: Sequence[Round], stored: Stored, round_points: float,
           score: Mapping[str, float] | None = None) -> dict[str, float]:
    """Each bot's Swiss score after ``played`` (its games' scores and its byes, round after round), added to
    ``score`` (the score after earlier rounds) when given: a reader of one round at a time keeps only this."""
    out = dict.fromkeys(bots, 0.0) if score is None else dict(score)
    for r in played:
        for game in r.games:
            for bot, points in game_score(stored[game.key]).items():
                out[bot] += points
        for bot in r.byes:
            out[bot] += round_points / 2.0  # a bye counts as a round of draws
    return out


def standings(bots: Sequence[str], played: Sequence[Round], stored: Stored, seed: str,
              round_points: float, score: Mapping[str, float] | None = None) -> list[Standing]:
    """Bots best first by score, then Buchholz, then their lot (a seeded draw). ``score``: the bots' scores after
    ``played`` already summed (``scores``; then neither ``stored`` nor the rounds' games are read)."""
    score = scores(bots, played, stored, round_points) if score is None else score
    byes = dict.fromkeys(bots, 0)
    for r in played:
        for bot in r.byes:
            byes[bot] += 1
    buchholz = dict.fromkeys(bots, 0.0)
    for r in played:
        for table in r.tables:
            for bot in table:
                mates = [other for other in table if other != bot]
                buchholz[bot] += sum(score[other] for other in mates) / len(mates)
    lots = {bot: hashlib.sha256(f"tourney-swiss-lot-v1/{seed}/{bot}".encode()).hexdigest() for bot in bots}
    ranked = sorted(bots, key=lambda bot: (-score[bot], -buchholz[bot], lots[bot]))
    return [Standing(bot, score[bot], buchholz[bot], lots[bot], byes[bot]) for bot in ranked]


def pair(ranked: list[str], k: int, met: set[frozenset[str]]) -> list[tuple[str, ...]]:
    """Tables of k from bots listed best first: the top bot with the nearest-ranked bots it has
    not met, searching (within SEARCH_BUDGET) for a draw where no two bots meet again; if there
    is none, each table in turn takes the nearest bots with the fewest repeated meetings."""
    budget = [SEARCH_BUDGET]

    def repeats(table: tuple[str, ...]) -> int:
        return sum(frozenset(p) in met for p in combinations(table, 2))

    def search(left: list[str]) -> list[tuple[str, ...]] | None:
        if not left:
            return []
        top, rest = left[0], left[1:]
        for others in combinations(rest, k - 1):
            budget[0] -= 1
            if budget[0] < 0:
                return None
            table = (top, *others)
            if repeats(table):
                continue
            below = search([bot for bot in rest if bot not in others])
            if below is not None:
                return [table, *below]
        return None

    found = search(ranked)
    if found is not None:
        return found
    tables = []
    left = list(ranked)
    while left:
        top, rest = left[0], left[1:]
        position = {bot: i for i, bot in enumerate(rest)}
        best = min(combinations(rest, k - 1),
                   key=lambda others: (repeats((top, *others)), sum(position[b] for b in others)))
        tables.append((top, *best))
        left = [bot for bot in rest if bot not in best]
    return tables
