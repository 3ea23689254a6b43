"""A tournament's plan, walked a stage at a time and a page at a time, and found again by key without listing it.

What ``tournaments.play.tournament_audit`` holds a tournament's stored games against. A round robin of 400 bots plans
159,600 games (ten times that with ten deals a table): the audit never lists them. Instead each stage of the plan is
kept as the few numbers that make its games (``Stage``: its key prefix, its deals and a table's bots by the table's
number), and a stored game's key is turned back into the one game the plan would give it, by the same
``schedule.table_games`` the runner plays from:

* a round robin or a gauntlet is one stage; a table's bots are the table-th combination of the bots (in
  ``itertools.combinations``' order, computed from the number: ``unrank``), so the plan is never generated;
* a Swiss round is drawn from the standings after the rounds before it: the rounds are walked in order, each
  round's games read from the ledger a page at a time, and what the next draw needs is kept as it goes: each
  bot's score (``formats.scores``, summed in the runner's order), the rounds' tables and byes (bots over seats
  a round), never a game's result;
* a match's batches are handed to its plan one at a time (its stopping rule keeps its own score per deal).

Memory: one page of keys and results, a Swiss round's plan (its games' keys), the stages' tables; never the
tournament's games.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from math import comb
from typing import Any

from tournaments.play import formats
from tournaments.play.candidate_match import MATCH, Match, MatchPlan
from tournaments.play.schedule import Scheduled, ScheduleError, table_games

PAGE = 500
"""Games read at once by the walk (and by the audit's pass over the stored games)."""
KEY = re.compile(r"(s\d+-)?t(\d+)-d(\d+)-r(\d+)")
"""A planned game's key: ``<prefix>t<table>-d<deal>-r<rotation>`` (schedule.table_games)."""

Results = Callable[[Sequence[str]], Mapping[str, Sequence[tuple[str, int]]]]
"""The stored results of the games with these keys (those stored and finished): key -> [(bot, rank)] by seat."""


def unrank(items: Sequence[str], k: int, index: int) -> tuple[str, ...] | None:
    """The ``index``-th k-combination of ``items`` in ``itertools.combinations``' order (None past the last), found
    from the number alone: the first member is the position j where the combinations before it, C(n - start, k) -
    C(n - j, k), first exceed ``index`` (a binary search on a binomial coefficient), and so on for the rest."""
    n = len(items)
    if index < 0 or k < 0 or index >= comb(n, k):
        return None
    out: list[str] = []
    start = 0
    for left in range(k, 0, -1):
        total = comb(n - start, left)
        target = total - index
        low, high = start, n - left
        while low < high:  # the smallest j with C(n - j - 1, left) < target
            middle = (low + high) // 2
            if comb(n - middle - 1, left) < target:
                high = middle
            else:
                low = middle + 1
        index -= total - comb(n - low, left)
        out.append(items[low])
        start = low + 1
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Combinations:
    """Table t's bots: ``head``, then the t-th k-combination of ``items`` (a round robin's tables, a gauntlet's)."""

    items: tuple[str, ...]
    k: int
    head: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        return comb(len(self.items), self.k)

    def __call__(self, table: int) -> tuple[str, ...] | None:
        rest = unrank(self.items, self.k, table)
        return None if rest is None else (*self.head, *rest)


@dataclass(frozen=True, slots=True)
class Listed:
    """Table t's bots from a list of tables (a Swiss round's draw, a match's one table)."""

    tables: tuple[tuple[str, ...], ...]

    def __call__(self, table: int) -> tuple[str, ...] | None:
        return self.tables[table] if 0 <= table < len(self.tables) else None


@dataclass(frozen=True, slots=True)
class Stage:
    """One stage of a plan, by what makes its games: every table ``members`` names plays ``deals``, each deal from
    every rotation of its seats (schedule.table_games with ``prefix`` and ``group``)."""

    prefix: str
    deals: range
    members: Callable[[int], tuple[str, ...] | None]
    """A table's bots by its number (None: no such table)."""
    group: str | None = None
    book: tuple[str, ...] | None = None

    def game(self, seed: str, table: int, deal: int, rotation: int) -> Scheduled | None:
        members = self.members(table)
        if members is None or deal not in self.deals or not 0 <= rotation < len(members):
            return None
        return table_games(table, members, (deal,), seed, prefix=self.prefix, deal_group=self.group,
                           book=self.book)[rotation]


@dataclass(slots=True)
class Walked:
    """The stages a plan reaches with the stored games (each stage up to the first not fully stored), and how
    many games a one-stage plan has (then whether it is over is counted as the stored games are read)."""

    seed: str
    stages: dict[str, Stage]
    """By key prefix ("" for a round robin, a gauntlet and a match; "s3-" for a Swiss round 3)."""
    over: bool
    total: int | None = None
    """A one-stage plan's games (``over`` then says nothing: every one of them stored means over)."""

    def find(self, key: str | None) -> Scheduled | None:
        """The game the plan puts at ``key`` (None: the plan, as far as it reaches, has none)."""
        found = KEY.fullmatch(key or "")
        if found is None:
            return None
        stage = self.stages.get(found[1] or "")
        if stage is None:
            return None
        game = stage.game(self.seed, int(found[2]), int(found[3]), int(found[4]))
        return game if game is not None and game.key == key else None  # "t01-..." is not the plan's "t1-..."


@dataclass(frozen=True, slots=True)
class _Entrants:
    """What a format's plan reads of a stored spec (tournaments.play.formats.Entrants)."""

    players: int
    games: int
    seed: str
    bot_names: list[str]
    deals: list[str] | None = None


def form_of(spec: dict[str, Any]) -> tuple[Any, _Entrants]:
    """A stored spec's format (a round robin's when it names none) and what its plan reads of the spec."""
    described = spec.get("format")
    form = Match.of_json(described) if described and described.get("name") == MATCH else formats.of_json(described)
    return form, _Entrants(int(spec["players"]), int(spec["games"]), "", [b["name"] for b in spec["bots"]],
                           spec.get("deals"))


def walk(spec: dict[str, Any], seed: str, results: Results, page: int = PAGE) -> Walked:
    """The plan a stored spec makes with ``seed``, stage by stage as far as the stored games reach (a stage not fully
    stored is the last), without listing a game that is not on the current page; ``results`` is asked for ``page``
    keys at most at a time. ScheduleError (or KeyError, TypeError, ValueError) for a spec that makes no plan."""
    form, entrants = form_of(spec)
    entrants = _Entrants(entrants.players, entrants.games, seed, entrants.bot_names, entrants.deals)
    book = None if entrants.deals is None else tuple(entrants.deals)
    if isinstance(form, formats.RoundRobin | formats.Gauntlet):
        return _one_stage(form, entrants, book)
    plan = form.plan(entrants)
    if isinstance(plan, formats.SwissPlan):
        return _swiss(plan, results, page)
    return _match(plan, results, page)


def _one_stage(form: formats.RoundRobin | formats.Gauntlet, entrants: _Entrants, book: tuple[str, ...] | None
               ) -> Walked:
    names, k = entrants.bot_names, entrants.players
    checks = [(entrants.games < 1, f"--games must be at least 1, not {entrants.games}"),
              (len(set(names)) != len(names), "two bots share a name; rename one")]
    for failed, error in checks if isinstance(form, formats.RoundRobin) else checks[::-1]:  # each format's order
        if failed:
            raise ScheduleError(error)
    if isinstance(form, formats.Gauntlet):
        if form.candidate not in names:
            form.plan(entrants)  # raises its own error, naming the bots (before it would list a game)
        members = Combinations(tuple(sorted(n for n in names if n != form.candidate)), k - 1, (form.candidate,))
    else:
        members = Combinations(tuple(sorted(names)), k)
    tables = members.count
    if book is not None and tables and entrants.games > len(book):
        table_games(0, members(0) or (), (len(book),), entrants.seed, book=book)  # raises: no such deal
    stage = Stage("", range(entrants.games), members, None, book)
    return Walked(entrants.seed, {"": stage}, over=False, total=tables * entrants.games * k)


def _pages(games: Sequence[Scheduled], page: int):
    it = iter(games)
    while chunk := list(islice(it, page)):
        yield chunk


def _swiss(plan: formats.SwissPlan, results: Results, page: int) -> Walked:
    played: list[formats.Round] = []
    score = dict.fromkeys(plan.bots, 0.0)
    stages: dict[str, Stage] = {}
    points = plan.games * plan.players
    for number in range(1, plan.rounds + 1):
        drawn = plan.draw(number, played, {}, score)
        prefix = f"s{number}-"
        stages[prefix] = Stage(prefix, range(plan.games), Listed(tuple(drawn.tables)), f"s{number}", plan.book)
        for chunk in _pages(drawn.games, page):
            found = results([game.key for game in chunk])
            if any(game.key not in found for game in chunk):
                return Walked(plan.seed, stages, over=False)
            score = formats.scores(plan.bots, [formats.Round(number, [], [], chunk)], found, points, score)
        score = formats.scores(plan.bots, [formats.Round(number, [], drawn.byes, [])], {}, points, score)
        played.append(formats.Round(number, drawn.tables, drawn.byes, []))  # its games are not read again
    return Walked(plan.seed, stages, over=True)


def _match(plan: MatchPlan, results: Results, page: int) -> Walked:
    reached = 0  # batches the plan gave
    window: Mapping[str, Sequence[tuple[str, int]]] = {}
    over = True
    while (batch := plan.next_stage(window)) is not None:
        reached += 1
        window = {}
        for chunk in _pages(batch, page):
            window = {**window, **results([game.key for game in chunk])}
        if any(game.key not in window for game in batch):
            over = False
            break
    deals = range(min(plan.games, reached * plan.match.batch))
    stage = Stage("", deals, Listed((plan.match.seats,)), None, None if plan.book is None else tuple(plan.book))
    return Walked(plan.seed, {"": stage}, over=over)
