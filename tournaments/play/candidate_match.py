"""A match: a candidate against a baseline on paired deals, fixed-length or stopped by an SPRT.

One table: the candidate, the baseline, and (with n seats) the field: ``--field`` bots,
then copies of the baseline for the seats left. Each deal is played once from every
cyclic rotation of the table (a pair of games for two seats, a block of n for n seats),
and that pair or block is one sample: its score is the candidate's mean pairwise result
(win 1, tie 1/2, loss 0) against the baseline's seats over the block's games, so it is
1/2 on average when the candidate is no better than the baseline, whatever the field.

With an SPRT the match is played in batches of ``batch`` deals; after each batch the LLR of
every deal so far decides: H0 or H1 stop the match, otherwise the next batch is played (up
to ``games`` deals). The decision is only ever taken at batch ends, from stored results, so
a resumed match stops where an uninterrupted one would, whatever ``--jobs`` is. The match is
stored as a tournament whose spec has ``"format": {"name": "match", ...}``.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from engines import registry
from ledger.canonical import loads
from ledger.rows import tournament_rows
from ledger.store import Ledger
from tournaments.bots.discovery import describe, discover
from tournaments.bots.spec import BotError, BotSpec, Limits
from tournaments.play import results
from tournaments.play.defaults import BATCH, FIXED_DEALS, MATCH, SPRT_DEALS
from tournaments.play.formats import Stored
from tournaments.play.play_errors import TournamentError
from tournaments.play.schedule import Scheduled, ScheduleError, table_games
from tournaments.play.schedule import players as players_of
from tournaments.play.tournament_spec import Spec
from tournaments.ratings.sprt import Estimate, Sprt, estimate, trinomial


@dataclass(frozen=True, slots=True)
class Match:
    """The format of a match: which seat names are the candidate, the baseline and the field."""

    candidate: str
    baselines: tuple[str, ...]
    """The baseline's seat first, then its copies filling the field."""
    field: tuple[str, ...] = ()
    sprt: Sprt | None = None
    batch: int = BATCH
    name = MATCH

    @property
    def seats(self) -> tuple[str, ...]:
        return (self.candidate, self.baselines[0], *self.field, *self.baselines[1:])

    def to_json(self) -> dict[str, Any]:
        # Canonical JSON holds no floats: the test's parameters are stored as their shortest decimal text.
        sprt = None if self.sprt is None else {
            key: value if isinstance(value, str) else repr(float(value)) for key, value in self.sprt.to_json().items()}
        return {"name": MATCH, "candidate": self.candidate, "baselines": list(self.baselines),
                "field": list(self.field), "sprt": sprt, "batch": self.batch}

    @classmethod
    def of_json(cls, data: Mapping[str, Any]) -> Match:
        stored = data.get("sprt")
        sprt = None if not stored else Sprt(**{k: v if k == "model" else float(v) for k, v in stored.items()})
        return cls(data["candidate"], tuple(data["baselines"]), tuple(data["field"]), sprt, int(data["batch"]))

    def plan(self, spec: Any) -> MatchPlan:
        if sorted(self.seats) != sorted(spec.bot_names) or len(self.seats) != spec.players:
            raise ScheduleError(f"a match of {spec.players} seats seats {', '.join(self.seats)}, "
                                f"not {', '.join(spec.bot_names)}")
        if spec.games < 1 or self.batch < 1:
            raise ScheduleError("a match plays at least one deal, in batches of at least one")
        return MatchPlan(self, spec.games, spec.seed, spec.deals)

    def counted(self, spec: Any) -> int | None:
        """The games ``plan`` plays when known in advance (MatchPlan.total): None when the SPRT decides."""
        return spec.games * len(self.seats) if self.sprt is None else None


def seat_names(candidate: BotSpec, baseline: BotSpec, field: Sequence[BotSpec], players: int) -> tuple[
        BotSpec, tuple[BotSpec, ...], tuple[BotSpec, ...]]:
    """The table's bots with one name per seat: the candidate, the baseline's seats, the field.

    A name seen again gets ``#2``, ``#3`` ... (the baseline against itself, its copies in the
    field), so every seat's games, ranks and hashes stay apart in the ledger.
    """
    if players < 2:
        raise ScheduleError("a match needs at least two seats")
    if len(field) > players - 2:
        raise ScheduleError(f"{len(field)} --field bots do not fit the {players - 2} seats beside "
                            "the candidate and the baseline")
    copies = players - 2 - len(field)
    ordered = [candidate, baseline, *field, *([baseline] * copies)]
    seen: Counter[str] = Counter()
    named = []
    for bot in ordered:
        seen[bot.name] += 1
        named.append(bot if seen[bot.name] == 1 else dataclasses.replace(bot, name=f"{bot.name}#{seen[bot.name]}"))
    return named[0], (named[1], *named[2 + len(field):]), tuple(named[2:2 + len(field)])


def block_score(games: Sequence[Sequence[tuple[str, int]]], candidate: str, baselines: Sequence[str]) -> Fraction:
    """The candidate's score in one block (the games of one deal): its mean pairwise result against
    the baseline's seats, in [0, 1]."""
    total = Fraction(0)
    for seats in games:
        ranks = dict(seats)
        mine = ranks[candidate]
        points = sum(Fraction(2 if mine < ranks[b] else 1 if mine == ranks[b] else 0, 2) for b in baselines)
        total += points / len(baselines)
    return total / len(games)


@dataclass(frozen=True, slots=True)
class Status:
    """Where a match stands after its complete batches: deals, LLR, decision (None: play on)."""

    deals: int
    llr: float | None
    decision: str | None
    bounds: tuple[float, float] | None


class MatchPlan:
    """Batches of deals, the SPRT deciding after each; caches what stored results already settled."""

    def __init__(self, match: Match, games: int, seed: str, book: Sequence[str] | None = None) -> None:
        self.match = match
        self.games = games
        self.seed = seed
        self.book = book
        """A deal book: deal d is its d-th seed (else deal d of table 0, from the seed)."""
        self.players = len(match.seats)
        self._settled = 0  # batches known complete and undecided
        self._blocks: list[Fraction] = []
        self._decided: Status | None = None
        self._results = [0, 0, 0]  # the candidate's pairwise wins, draws, losses in the settled batches' games

    @property
    def total(self) -> int | None:
        return self.games * self.players if self.match.sprt is None else None

    @property
    def limit(self) -> int:
        """The most games the match can have."""
        return self.games * self.players

    def batch_games(self, batch: int) -> list[Scheduled]:
        first = batch * self.match.batch
        deals = range(first, min(first + self.match.batch, self.games))
        return table_games(0, self.match.seats, deals, self.seed, book=self.book)

    def batches(self) -> int:
        return -(-self.games // self.match.batch)

    def next_stage(self, stored: Stored) -> list[Scheduled] | None:
        status = self.status(stored)
        if status.decision is not None:
            return None
        batch = self._settled
        return self.batch_games(batch) if batch < self.batches() else None

    def status(self, stored: Stored) -> Status:
        """The match after its complete batches (results of a batch in progress do not count yet)."""
        sprt = self.match.sprt
        if self._decided is not None:
            return self._decided
        while self._settled < self.batches():
            games = self.batch_games(self._settled)
            if not all(g.key in stored for g in games):
                break
            for start in range(0, len(games), self.players):
                block = [stored[g.key] for g in games[start:start + self.players]]
                self._blocks.append(block_score(block, self.match.candidate, self.match.baselines))
                for seats in block:
                    ranks = dict(seats)
                    for baseline in self.match.baselines:
                        mine, theirs = ranks[self.match.candidate], ranks[baseline]
                        self._results[0 if mine < theirs else 1 if mine == theirs else 2] += 1
            self._settled += 1
            if sprt is not None:
                value = self.llr()
                if sprt.decide(value) is not None:  # the match ends here: later results never count
                    self._decided = Status(len(self._blocks), value, sprt.decide(value), sprt.bounds)
                    return self._decided
        if sprt is None:
            return Status(len(self._blocks), None, None, None)
        value = self.llr() if self._blocks else 0.0
        return Status(len(self._blocks), value, sprt.decide(value) if self._blocks else None, sprt.bounds)

    def tally(self) -> list[tuple[float, float]]:
        return tally(self._blocks, self.players, len(self.match.baselines))

    def llr(self) -> float:
        assert self.match.sprt is not None
        return self.match.sprt.llr(self.tally(), self.players)

    @property
    def blocks(self) -> list[Fraction]:
        return list(self._blocks)

    @property
    def results(self) -> tuple[int, int, int]:
        """The candidate's pairwise wins, draws and losses against the baseline's seats in the settled batches."""
        return (self._results[0], self._results[1], self._results[2])


def tally(blocks: Sequence[Fraction], players: int, baselines: int) -> list[tuple[float, float]]:
    """Counts of every possible block score: multiples of 1 / (2 * baseline seats * games per block)."""
    step = 2 * baselines * players
    counts = Counter(int(score * step) for score in blocks)
    return [(k / step, counts.get(k, 0)) for k in range(step + 1)]


@dataclass(frozen=True, slots=True)
class Statistics:
    """Everything a match says, from its stored results."""

    candidate: str
    baseline: str
    players: int
    deals: int
    games: int
    status: Status
    sprt: Sprt | None
    blocks: dict[Fraction, int]
    """Block points (the candidate's score summed over the block's games) to how many blocks scored it."""
    wins: int
    draws: int
    losses: int
    """Pairwise results of the candidate against the baseline's seats, game by game."""
    sample: Estimate
    per_game: Estimate

    def to_json(self) -> dict[str, Any]:
        return {
            "candidate": self.candidate, "baseline": self.baseline, "players": self.players,
            "deals": self.deals, "games": self.games,
            "sprt": None if self.sprt is None else {
                **self.sprt.to_json(), "llr": round(self.status.llr or 0.0, 4),
                "bounds": [round(b, 4) for b in self.status.bounds or ()], "decision": self.status.decision},
            "blocks": {str(points): count for points, count in sorted(self.blocks.items())},
            "wins": self.wins, "draws": self.draws, "losses": self.losses,
            "estimate": self.sample.to_json(), "per_game": self.per_game.to_json(),
        }


def statistics(plan: MatchPlan, stored: Stored) -> Statistics:
    """The match's statistics over its complete batches (the deals its SPRT has seen): ``stored`` is read only for
    the batches ``plan`` has not settled yet (a plan walked by the runner has settled every one: nothing is read)."""
    status = plan.status(stored)
    match = plan.match
    counted = status.deals * plan.players
    wins, draws, losses = plan.results
    blocks = Counter(score * plan.players for score in plan.blocks)
    return Statistics(
        match.candidate, match.baselines[0], plan.players, status.deals, counted, status, match.sprt, dict(blocks),
        wins, draws, losses, estimate(plan.tally(), plan.players), estimate(trinomial(wins, draws, losses), 1))


class Running:
    """A match's counts as its games come in, for the reports while it plays (fastchess's every N games).

    Every game counts in the wins, draws and losses at once; a deal counts in the samples (and the
    LLR shown) once all its rotations are in, whichever batch it belongs to. The SPRT itself
    decides only at batch ends (``MatchPlan.status``); when the match is over the two agree.
    """

    def __init__(self, plan: MatchPlan, stored: Stored) -> None:
        self.plan = plan
        self.games = self.wins = self.draws = self.losses = 0
        self._blocks: list[Fraction] = []
        self._open: dict[str, list[Sequence[tuple[str, int]]]] = {}
        for key, seats in stored.items():
            self.add(key, seats)

    def add(self, key: str, seats: Sequence[tuple[str, int]]) -> None:
        match = self.plan.match
        ranks = dict(seats)
        mine = ranks[match.candidate]
        for baseline in match.baselines:
            self.wins += mine < ranks[baseline]
            self.draws += mine == ranks[baseline]
            self.losses += mine > ranks[baseline]
        self.games += 1
        deal = key.rpartition("-r")[0]  # t0-d<deal>: the rotations of one deal make its block
        block = self._open.setdefault(deal, [])
        block.append(seats)
        if len(block) == self.plan.players:
            self._blocks.append(block_score(self._open.pop(deal), match.candidate, match.baselines))

    def statistics(self) -> Statistics:
        plan, match = self.plan, self.plan.match
        counts = tally(self._blocks, plan.players, len(match.baselines))
        value = match.sprt.llr(counts, plan.players) if match.sprt is not None and self._blocks else None
        status = Status(len(self._blocks), value, None, match.sprt.bounds if match.sprt is not None else None)
        blocks = Counter(score * plan.players for score in self._blocks)
        return Statistics(match.candidate, match.baselines[0], plan.players, len(self._blocks), self.games, status,
                          match.sprt, dict(blocks), self.wins, self.draws, self.losses,
                          estimate(counts, plan.players), estimate(trinomial(self.wins, self.draws, self.losses), 1))


# -- setting a match up ------------------------------------------------------------------


def resolve(ref: str, folder: str | Path, game: str) -> BotSpec:
    """A bot named on the command line: a bot file's path, or the name of a bot in ``folder`` (read,
    never run: the runner's ``ready`` stages it and shakes hands with it)."""
    path = Path(ref)
    if path.is_file():
        try:
            spec = describe(path)
        except BotError as error:
            raise TournamentError(f"{ref}: {error}") from None
        if spec is None:
            raise TournamentError(f"{ref}: not a bot (see docs/bot-protocol.md)")
        left_out = spec.not_playing(game)
        if left_out is not None:
            raise TournamentError(f"{ref} {left_out}")
    else:
        if not Path(folder).is_dir():
            raise TournamentError(f"{ref}: no such bot file, and no folder {folder} to find a bot of that name in")
        found, _ = discover(folder, game)
        named = [bot for bot in found if bot.name == ref]
        if not named:
            names = ", ".join(sorted(bot.name for bot in found)) or "none"
            raise TournamentError(f"no bot {ref!r} for {game}: not a file, nor a bot in {folder} (it has: {names})")
        spec = named[0]
    return spec


def build(candidate: BotSpec, baseline: BotSpec, field: Sequence[BotSpec], game: str, players: int | None,
          games: int | None, seed: str, limits: Limits, sprt: Sprt | None, batch: int = BATCH) -> Spec:
    """The spec of a match (its bots named one per seat); TournamentError if it cannot be played."""
    engine = registry.get(game)
    k = players if players is not None else engine.default_seats
    if not engine.min_seats <= k <= engine.max_seats:
        raise TournamentError(f"{game} is played by {players_of(engine.min_seats, engine.max_seats)}, not {k}")
    deals = games if games is not None else (SPRT_DEALS if sprt is not None else FIXED_DEALS)
    if deals < 1 or batch < 1:
        raise TournamentError("--games and --batch must be at least 1")
    try:
        first, baselines, others = seat_names(candidate, baseline, field, k)
    except ScheduleError as error:
        raise TournamentError(str(error)) from None
    form = Match(first.name, tuple(b.name for b in baselines), tuple(f.name for f in others), sprt, batch)
    bots = (first, baselines[0], *others, *baselines[1:])
    return Spec(engine.name, k, deals, seed, limits.move_time, limits.time_bank, bots, format=form,
                increment=limits.increment)


def namer(spec: Spec):
    """A match's default name from its last part (``seed<S>``, or a drawn seed's commitment's first digits)."""
    form = spec.format
    return lambda last: f"match-{form.candidate}-vs-{form.baselines[0]}-{spec.game}-{last}"


def of_tournament(ledger: Ledger, ref: str) -> tuple[dict[str, Any], Statistics]:
    """A stored match's row and statistics, from the database alone."""
    row = tournament_rows.get(ledger, ref)
    spec = loads(row["spec"])
    described = spec.get("format") or {}
    if described.get("name") != MATCH:
        raise TournamentError(f"tournament {row['name']!r} is not a match (see `tourney standings`)")
    match = Match.of_json(described)
    # The statistics pair games by key, which the seed does not change: a secret seed's match reads as well.
    plan = MatchPlan(match, int(spec["games"]), spec["seed"] or "", spec.get("deals"))
    return row, statistics(plan, results.by_key(ledger, row["id"]))


def pair_points() -> list[Fraction]:
    """The five scores of a pair of games, in points of 2: 0, 1/2, 1, 3/2, 2."""
    return [Fraction(k, 2) for k in range(5)]
